"""naf_bench.data.rows: a program's rows (one per condition, gold letters from its certificate), ids that name the
split and the program's place in its group, shards of a config's units, and canonical JSON lines."""

import pytest

from naf_bench.data.rows import build_rows, first_index, generate_units, instance_rows, rows_json
from naf_bench.errors import ConfigError
from naf_bench.generate.config import get_config

ONE_ODD = {"bins": ("odd",), "programs_per_cell": 1}


def test_an_odd_program_gives_one_row_per_condition_with_its_certified_letters():
    rows = build_rows(get_config("main", **ONE_ODD))["test"]
    # the odd bin's signature FTuloop: cred F, skept T, wfs undefined, SLDNF loops
    assert [(row["id"], row["gold"]) for row in rows] == [
        ("nb-main-odd-i0-none::none", None),
        ("nb-main-odd-i0-closed_world::closed_world", "C"),
        ("nb-main-odd-i0-cred::cred", "B"),
        ("nb-main-odd-i0-skept::skept", "A"),
        ("nb-main-odd-i0-wfs::wfs", "C"),
    ]
    assert {(row["program_id"], row["signature"], row["distance"], row["cycle_len"]) for row in rows} == {
        ("nb-main-odd-i0", "FTuloop", 2, 3)
    }
    none, cred = rows[0], rows[2]
    assert (none["gold_trace"], [m["role"] for m in none["messages"]]) == ("", ["user"])
    assert cred["gold_trace"].endswith("ANSWER: B")
    assert cred["messages"] == [
        {"role": "user", "content": cred["prompt"]},
        {"role": "assistant", "content": cred["gold_trace"]},
    ]


def test_a_split_other_than_test_is_named_in_the_ids():
    config = get_config("main", **ONE_ODD)
    instance = generate_units(config)[0]["test"][0][0]
    ids = [row["id"] for row in instance_rows(config, instance, 7, "train")]
    assert ids[:2] == ["nb-main-train-odd-i7-none::none", "nb-main-train-odd-i7-closed_world::closed_world"]


def test_a_shard_numbers_its_programs_after_the_units_before_it_in_their_group():
    config = get_config("main", bins=("odd",), depths=(2, 3), programs_per_cell=2)
    assert first_index(config, "test", 1) == 2
    rows = build_rows(config, shard=(1, 2))["test"]
    assert sorted({row["program_id"] for row in rows}) == ["nb-main-odd-i2", "nb-main-odd-i3"]
    assert {row["depth"] for row in rows} == {3}


def test_a_shard_outside_its_range_is_refused():
    with pytest.raises(ConfigError, match=r"shard 2/2: expected 0 <= i < N"):
        generate_units(get_config("main", **ONE_ODD), shard=(2, 2))


def test_rows_json_sorts_keys_and_keeps_unicode():
    assert rows_json([{"b": 1, "a": "否"}, {"c": None}]) == '{"a": "否", "b": 1}\n{"c": null}\n'
