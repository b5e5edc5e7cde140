"""Registry-wide contract over every config at full size: no program repeats a rule, no training program
appears in an evaluation split, and every id carries the nb- prefix (the authors' ids name other programs)."""

from itertools import product

import pytest

from naf_bench.data.rows import build_rows
from naf_bench.generate.config import CONFIGS, get_config
from naf_bench.syntax import canonical_key, parse_program

pytestmark = pytest.mark.slow  # every config at full size: about a minute on one core


@pytest.fixture(scope="module")
def registry():
    return {
        (name, split): {row["program_id"]: row for row in rows}
        for name in CONFIGS
        for split, rows in build_rows(get_config(name)).items()
    }


def test_no_program_repeats_a_rule(registry):
    for (name, split), programs in registry.items():
        for program_id, row in programs.items():
            rules = parse_program(row["program"]).rules
            assert len(set(rules)) == len(rules), f"{name}/{split} {program_id} repeats a rule"


def test_no_training_program_in_an_evaluation_split(registry):
    keys = {
        part: {canonical_key(parse_program(row["program"]), row["query"]) for row in programs.values()}
        for part, programs in registry.items()
    }
    training = {part for part in keys if CONFIGS[part[0]].is_training(part[1])}
    assert training == {("sft", "train"), ("sft", "validation"), ("hard", "train")}
    for train, evaluation in product(sorted(training), sorted(set(keys) - training)):
        assert not keys[train] & keys[evaluation], f"{train} shares programs with {evaluation}"


def test_every_id_carries_its_configs_nb_prefix(registry):
    for (name, _), programs in registry.items():
        assert CONFIGS[name].prefix == f"nb-{name}"
        assert all(program_id.startswith(f"nb-{name}-") for program_id in programs)
