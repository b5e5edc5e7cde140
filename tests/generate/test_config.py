"""naf_bench.generate.config: the shipped configs' units, tier counts and rows per program, validation that
names every bad field, and ``--set`` pairs read into typed overrides."""

import pytest

from naf_bench.errors import ConfigError
from naf_bench.generate.config import (
    Unit,
    get_config,
    parse_overrides,
    reserved_for_hidden_sets,
    tier_count,
)


def test_the_main_config_is_four_bins_of_one_cell_and_five_rows_per_program():
    main = get_config("main")
    assert main.conditions == ("none", "closed_world", "cred", "skept", "wfs")
    assert main.rows_per_program() == 5
    assert [unit.family for unit in main.units()] == ["control", "even_one_sided", "odd", "even_both_sided"]
    assert main.units()[2] == Unit("odd", {"depth": 8, "width": 4, "cycle_len": 3}, (30,))
    assert get_config("order").rows_per_program() == 16  # 4 named conditions x 4 rule orders


def test_tier_counts_spread_a_familys_programs_over_its_tiers_the_first_taking_the_remainder():
    assert [tier_count("decided", tier, 192) for tier in range(6)] == [13, 13, 13, 12, 12, 12]
    assert tier_count("cnf", 0, 77) == 11
    hard = get_config("hard")
    units = hard.units()
    assert len(units) == 19
    assert units[0] == Unit("cnf", {"size": 8}, (27, 11, 11))
    cell = hard.cell(units[0], "validation")
    assert (cell.count, cell.split, cell.training) == (11, "validation", False)
    assert hard.cell(units[0], "train").training


def test_programs_per_bin_are_spread_over_a_bins_cells_and_empty_cells_dropped():
    config = get_config("main", depths=(2, 3), programs_per_bin=(3, 1, 2, 5))
    assert [(u.family, u.axes["depth"], u.counts) for u in config.units()] == [
        ("control", 2, (2,)),
        ("control", 3, (1,)),
        ("even_one_sided", 2, (1,)),
        ("odd", 2, (1,)),
        ("odd", 3, (1,)),
        ("even_both_sided", 2, (3,)),
        ("even_both_sided", 3, (2,)),
    ]


def test_only_the_hidden_configs_lemma_reserves_tiers_for_hidden_sets():
    hidden = get_config("hidden")
    assert hidden.units()[0] == Unit("cnf", {"size": 8, "lemma": 12}, (11,))
    assert reserved_for_hidden_sets(hidden)
    assert not reserved_for_hidden_sets(get_config("hard"))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"prefix": "x", "odd_cycle_len": 2},
            "prefix must start with 'nb-' (the authors' ids name other programs), "
            "got 'x'; odd_cycle_len must be odd, got 2",
        ),
        ({"depths": (0,)}, "config 'main': depths must be >= 1, got (0,)"),
        ({"bins": ("zz",)}, "unknown bins ['zz']"),
        ({"language": "fr"}, "unknown language 'fr'; expected ['en', 'zh']"),
        ({"lemma_atoms": 3}, "lemma_atoms must be >= 0 and needs families, got 3"),
        ({"nosuch": 1}, "unknown config fields ['nosuch']"),
        ({"depths": "2,8"}, "['depths'] take a tuple, e.g. depths=(2, 8), not a string"),
    ],
)
def test_a_bad_override_is_a_config_error_naming_it(overrides, message):
    with pytest.raises(ConfigError) as info:
        get_config("main", **overrides)
    assert message in str(info.value)


def test_set_pairs_become_typed_overrides_and_a_bad_pair_says_what_to_write():
    assert parse_overrides(["depths=2,8", "seed=3", "training=true", "bins=odd,control"]) == {
        "depths": (2, 8),
        "seed": 3,
        "training": True,
        "bins": ("odd", "control"),
    }
    with pytest.raises(ConfigError, match=r"unknown key 'deptsh'; did you mean depths\?"):
        parse_overrides(["deptsh=2"])
    with pytest.raises(ConfigError, match=r"no value after '='; give one, e\.g\. --set depths=8$"):
        parse_overrides(["depths="])
    with pytest.raises(ConfigError, match="--set 'seed=x': int expected"):
        parse_overrides(["seed=x"])
    with pytest.raises(ConfigError, match="unknown config 'nope'"):
        get_config("nope")
