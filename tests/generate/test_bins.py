"""naf_bench.generate.bins: each divergence bin's labels and distance from the closed-world answer, and the
programs assemble draws, which certify into their bin."""

import random

import pytest

from naf_bench.certify import certify
from naf_bench.generate.bins import BINS, SEED_BINS, assemble, distance


def test_seed_000s_four_bins_come_first_and_each_bin_differs_from_sldnf_in_so_many_readings():
    assert tuple(BINS)[:4] == SEED_BINS
    assert {name: distance(labels) for name, labels in BINS.items()} == {
        "control": 0,
        "even_one_sided": 2,
        "odd": 2,
        "even_both_sided": 2,
        "control_false": 0,
        "even_conjunctive": 2,
    }
    assert distance({"cred": "T", "skept": "T", "wfs": "T", "sldnf": "F"}) == 3


@pytest.mark.parametrize("bin_name", list(BINS))
def test_an_assembled_program_certifies_into_its_bin(bin_name):
    cycle_len = 3 if bin_name == "odd" else 4
    for seed in range(3):
        program = assemble(bin_name, random.Random(seed), depth=2, width=2, cycle_len=cycle_len)
        assert certify(program, "q").labels == BINS[bin_name], seed


def test_a_program_is_a_function_of_its_random_stream_and_repeats_no_rule():
    program = assemble("odd", random.Random(0), depth=1, width=0, cycle_len=3)
    assert program == assemble("odd", random.Random(0), depth=1, width=0, cycle_len=3)
    # one chain rule, the bottom reading the bridge, the guard fact, the three cycle rules and the bridge's rule
    assert len(program.rules) == 7
    assert len(set(program.rules)) == 7
    assert [rule.head for rule in program.rules].count("q") == 1
    assert program != assemble("odd", random.Random(1), depth=1, width=0, cycle_len=3)


@pytest.mark.parametrize("width", [0, 2, 5])
def test_the_facts_are_the_guard_and_two_supporting_facts_per_shared_subgoal(width):
    for bin_name in ("control", "even_one_sided"):
        for seed in range(3):
            program = assemble(bin_name, random.Random(seed), depth=3, width=width, cycle_len=4)
            assert sum(rule.is_fact for rule in program.rules) == 2 * width + 1, (bin_name, seed)
