"""naf_bench.generate.families: each leaderboard family's core gives the labels its docstring promises, the
padding and the lemma change none of them, and the cnf quota is a distribution."""

import random

import pytest

from naf_bench.certify import certify
from naf_bench.generate.families import (
    CNF_QUOTA,
    CNF_QUOTA_READINGS,
    control,
    coupled,
    decided,
    lemma_program,
    loopy,
    parity,
)
from naf_bench.syntax.ast import Program

AGREE_TRUE = {"cred": "T", "skept": "T", "wfs": "T", "sldnf": "T"}
AGREE_FALSE = {"cred": "F", "skept": "F", "wfs": "F", "sldnf": "F"}


def labels(family, seed: int, size: int, lemma: int = 0) -> dict[str, str]:
    program, _ = family(random.Random(seed), size, lemma)
    return certify(program, "q").labels


@pytest.mark.parametrize("seed", range(3))
def test_a_decided_stack_is_true_on_even_sizes_and_false_on_odd_under_every_reading(seed):
    assert labels(decided, seed, 1) == AGREE_FALSE
    assert labels(decided, seed, 2) == AGREE_TRUE
    assert labels(decided, seed, 2, lemma=6) == AGREE_TRUE


def test_a_positive_loop_is_decided_by_wfs_while_sldnf_never_returns():
    # seed 0 reads p0 (false), seed 1 its negation np0 (true)
    assert labels(loopy, 0, 2) == {"cred": "F", "skept": "F", "wfs": "F", "sldnf": "loop"}
    assert labels(loopy, 1, 2) == {"cred": "T", "skept": "T", "wfs": "T", "sldnf": "loop"}


def test_parity_has_two_to_the_size_models_and_coupled_odd_rings_have_none():
    program, axes = parity(random.Random(0), 2)
    certificate = certify(program, "q")
    assert certificate.n_stable_models == 4
    assert certificate.labels == {"cred": "T", "skept": "F", "wfs": "u", "sldnf": "loop"}
    assert axes == {"depth": 6, "width": 4}
    ring = certify(coupled(random.Random(1), 3)[0], "q")  # seed 1 draws a ring: three atoms cannot alternate
    assert ring.n_stable_models == 0 and ring.labels["skept"] == "T"
    path = certify(coupled(random.Random(0), 3)[0], "q")
    assert path.n_stable_models == 2


def test_a_lemmas_deepest_true_atom_is_true_under_every_reading():
    rules, atom = lemma_program(random.Random(3), 6)
    assert [rule.head for rule in rules] == [f"y{i}" for i in range(6)]
    assert atom == "y5"
    assert certify(Program(tuple(rules)), atom).labels == AGREE_TRUE


def test_the_cnf_quota_shares_add_up_to_one_and_control_pads_to_the_search_tiers_length():
    assert CNF_QUOTA_READINGS == ("cred", "skept")
    assert sum(CNF_QUOTA.values()) == pytest.approx(1.0)
    program, axes = control(random.Random(0), 8)
    assert axes == {"depth": 2, "width": 4}
    assert sum(rule.head.startswith("f") and rule.is_fact for rule in program.rules) == 9
