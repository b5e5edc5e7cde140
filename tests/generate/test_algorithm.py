"""Registry-wide contract: every bin certifies to its signature, rows are deterministic and consistent."""

import random
from collections import Counter

import pytest

from naf_bench import ConfigError, certify
from naf_bench.data.rows import build_rows, rows_json
from naf_bench.generate.algorithm import Cell, is_training_key
from naf_bench.generate.bins import BINS, assemble, distance
from naf_bench.generate.config import CONFIGS, get_config
from naf_bench.generate.registry import FAMILIES
from naf_bench.generate.seeds import item_seed
from naf_bench.readings import gold_letter
from naf_bench.syntax import canonical_key, parse_program


@pytest.fixture(scope="module")
def main_rows():
    return build_rows(get_config("main"))["test"]


def test_main_has_600_rows_in_four_bins(main_rows):
    assert len(main_rows) == 600
    assert Counter((r["family"], r["signature"]) for r in main_rows) == {
        ("control", "TTTT"): 150,
        ("even_one_sided", "TFuloop"): 150,
        ("odd", "FTuloop"): 150,
        ("even_both_sided", "TTuloop"): 150,
    }
    assert Counter(r["condition"] for r in main_rows) == dict.fromkeys(CONFIGS["main"].conditions, 120)
    assert len({r["id"] for r in main_rows}) == 600
    assert len({r["program_id"] for r in main_rows}) == 120


def test_rows_are_byte_identical_across_runs(main_rows):
    again = build_rows(get_config("main"))["test"]
    assert rows_json(again) == rows_json(main_rows)
    other_seed = build_rows(get_config("main", seed=1, programs_per_cell=2))["test"]
    assert {r["program"] for r in other_seed}.isdisjoint({r["program"] for r in main_rows})


def test_gold_is_the_mapping_of_the_certified_label(main_rows):
    letters = {"closed_world": {"T": "A", "F": "B", "loop": "C"}, "wfs": {"T": "A", "F": "B", "u": "C"}}
    for row in main_rows:
        if row["condition"] == "none":
            assert row["gold"] is None
            continue
        semantics = {"closed_world": "sldnf"}.get(row["condition"], row["condition"])
        mapping = letters.get(row["condition"], {"T": "A", "F": "B"})
        assert row["gold"] == mapping[row["labels"][semantics]]


def test_rows_carry_their_certificate(main_rows):
    for row in main_rows[::37]:
        recertified = certify(parse_program(row["program"]), row["query"])
        assert recertified.to_json() == row["certificate"]
        assert row["id"] == f"{row['program_id']}-{row['condition']}::{row['condition']}"
        assert row["prompt"].endswith("end with a line 'ANSWER: X' where X is A, B, or C.")


def test_programs_are_distinct_up_to_isomorphism(main_rows):
    programs = {r["program_id"]: r["program"] for r in main_rows}
    keys = {canonical_key(parse_program(text), "q") for text in programs.values()}
    assert len(keys) == len(programs) == 120


@pytest.mark.parametrize("bin_name", list(BINS))
@pytest.mark.parametrize(("depth", "width", "count"), [(1, 0, 1), (2, 2, 2), (5, 3, 2), (16, 8, 2)])
def test_every_bin_certifies_at_every_size(bin_name, depth, width, count):
    axes = {"depth": depth, "width": width, "cycle_len": 3 if bin_name == "odd" else 4}
    walk = Cell(bin_name, axes, 0, "test", "test", count).walk()
    instances, stats = walk.programs(), walk.stats
    assert [i.certificate.signature for i in instances] == ["".join(BINS[bin_name].values())] * count
    assert stats.rejection_rate < 0.5


SIZES = {"cnf": 8, "parity": 4, "coupled": 3, "decided": 2, "loopy": 2, "cnf_control": 8}


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_registered_family_generates_and_records_its_axes(name):
    family = FAMILIES[name]
    axes = {"size": SIZES[name]} if family.tier else {"depth": 2, "width": 2, "cycle_len": 3 if name == "odd" else 4}
    assert set(axes) == set(family.axes)
    (instance,) = Cell(name, axes, 0, "test", "test", 1).walk().programs()
    assert family.accept(instance.certificate, instance.program)
    assert instance.family == family.name and instance.group == family.group(axes)
    assert axes.items() <= instance.axes.items() and {"depth", "width"} <= set(instance.axes)


def test_a_cell_too_small_for_the_count_raises():
    with pytest.raises(ConfigError, match=r"yielded \d of 10 distinct programs"):
        Cell("control", {"depth": 1, "width": 0, "cycle_len": 2}, 0, "test", "test", 10).walk().programs()


def test_even_cycle_lengths_and_guard_variation():
    signatures = {certify(assemble("even_one_sided", random.Random(s), 3, 2, 6)).signature for s in range(5)}
    assert signatures == {"TFuloop"}


def test_splits_never_share_a_canonical_key():
    config = get_config("main", programs_per_cell=3, splits=("train", "validation", "test"))
    rows = build_rows(config)
    keys = {
        split: {canonical_key(parse_program(r["program"]), "q") for r in split_rows}
        for split, split_rows in rows.items()
    }
    assert not keys["train"] & keys["validation"] and not keys["train"] & keys["test"]
    assert not keys["validation"] & keys["test"]


def test_order_config_keeps_labels_under_every_order():
    rows = build_rows(get_config("order", programs_per_cell=2))["test"]
    assert len(rows) == 8 * 4 * 4  # programs x named conditions x orders
    groups = {}
    for row in rows:
        groups.setdefault((row["program_id"], row["condition"]), []).append(row)
    for group in groups.values():
        assert sorted(r["order_id"] for r in group) == [0, 1, 2, 3]
        assert len({r["certificate"] and r["signature"] for r in group}) == 1
        assert len({r["program"] for r in group}) == 4


def test_item_seeds_are_hashed_not_offset():
    assert item_seed(0, "main", "test", "odd", 1) != item_seed(0, "main", "test", "odd", 0) + 1
    assert item_seed(0, "main", "test", "odd", 1) == item_seed(0, "main", "test", "odd", 1)
    assert 0 <= item_seed("x") < 2**63


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"odd_cycle_len": 4}, "odd_cycle_len must be odd"),
        ({"even_cycle_lens": (4, 3)}, "even_cycle_lens must be even"),
        ({"programs_per_bin": (1, 2)}, "programs_per_bin needs one count >= 1 per bin"),
        ({"framings": ("escalation",), "language": "zh"}, "unknown framings ['escalation'] for language 'zh'"),
        ({"bins": ("odd", "weird")}, "unknown bins ['weird']"),
        ({"conditions": ("cred", "maybe")}, "unknown conditions ['maybe']"),
        ({"language": "fr"}, "unknown language 'fr'"),
        ({"depths": (0,)}, "depths must be >= 1"),
        ({"depth": 3}, "unknown config fields ['depth']"),
        ({"training": "0"}, "training must be true or false, got '0'"),
    ],
)
def test_bad_configs_raise(overrides, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        get_config("main", **overrides)


def test_unknown_config_and_condition():
    with pytest.raises(ConfigError, match="unknown config 'mian'"):
        get_config("mian")
    with pytest.raises(ConfigError, match="unknown condition"):
        gold_letter("stable", {"cred": "T"})


def test_framing_config_renders_each_group_three_ways():
    rows = build_rows(get_config("framing"))["test"]
    assert len(rows) == 96
    groups = {}
    for row in rows:
        groups.setdefault((row["program_id"], row["condition"]), []).append(row)
    assert len(groups) == 32
    for group in groups.values():
        assert sorted(r["framing"] for r in group) == ["audit", "escalation", "sensor"]
        assert len({r["gold"] for r in group}) == 1 and len({r["prompt"] for r in group}) == 3


def test_wfs44_is_the_papers_set():
    rows = [r for r in build_rows(get_config("wfs44"))["test"] if r["condition"] == "wfs"]
    assert len(rows) == 44
    assert Counter(r["family"] for r in rows) == {
        "control": 10,
        "control_false": 10,
        "even_conjunctive": 12,
        "even_both_sided": 12,
    }
    assert Counter((r["family"], r["cycle_len"]) for r in rows if r["family"].startswith("even")) == {
        (support, k): 4 for support in ("even_conjunctive", "even_both_sided") for k in (2, 4, 6)
    }
    assert {r["family"]: r["signature"] for r in rows} == {
        "control": "TTTT",
        "control_false": "FFFF",
        "even_conjunctive": "FFuloop",
        "even_both_sided": "TTuloop",
    }
    assert Counter(r["gold"] for r in rows) == {"A": 10, "B": 10, "C": 24}


def test_sft_rows_are_chats_ending_in_the_answer():
    rows = build_rows(get_config("sft", programs_per_cell=1))
    assert set(rows) == {"train", "validation"}
    for row in rows["train"]:
        user, assistant = row["messages"]
        assert (user["role"], user["content"]) == ("user", row["prompt"])
        assert assistant["role"] == "assistant" and assistant["content"].endswith(f"ANSWER: {row['gold']}")
    assert {r["framing"] for r in rows["train"]} == {"abstract", "escalation", "sensor", "audit"}


@pytest.fixture(scope="module")
def hard_rows():
    return build_rows(get_config("hard"))


def test_hard_splits_sizes_and_disjointness(hard_rows):
    assert {split: len(rows) for split, rows in hard_rows.items()} == {"train": 960, "validation": 385, "test": 385}
    keys = {split: {canonical_key(parse_program(r["program"]), "q") for r in rows} for split, rows in hard_rows.items()}
    assert [len(k) for k in keys.values()] == [192, 77, 77]
    assert not (keys["train"] & keys["validation"] or keys["train"] & keys["test"] or keys["validation"] & keys["test"])
    assert hard_rows["test"][0]["id"] == "nb-hard-cnf_n8-i0-none::none"
    assert hard_rows["train"][0]["id"] == "nb-hard-train-cnf_n8-i0-none::none"
    ids = [row["id"] for rows in hard_rows.values() for row in rows]
    assert len(set(ids)) == len(ids) == 1730  # unique across the splits: concatenated, keyed by id, none collides


def test_hard_families_have_their_signatures(hard_rows):
    by_family = {}
    for row in hard_rows["test"]:
        by_family.setdefault(row["family"], set()).add(row["signature"])
    assert by_family["decided"] == {"TTTT", "FFFF"}
    assert by_family["loopy"] == {"FFFloop", "TTTloop"}
    assert by_family["parity"] == {"TFuloop"}
    assert by_family["coupled"] <= {"TFuloop", "FTuloop"}
    programs = {r["program_id"]: r for r in hard_rows["test"] if r["family"] == "cnf"}
    assert Counter(r["signature"][:2] for r in programs.values()) == {"TT": 4, "FT": 3, "FF": 3, "TF": 1}


def test_cnf_needs_search_and_controls_do_not(hard_rows):
    from naf_bench.solvers.stable import search_conflicts

    for row in hard_rows["test"]:
        if row["family"] in ("cnf", "control") and row["condition"] == "none":
            conflicts = search_conflicts(parse_program(row["program"]))
            assert (conflicts > 0) == (row["family"] == "cnf"), row["id"]


def test_supporting_facts_are_distinct_atoms_at_a_fixed_total():
    spreads = set()
    for seed in range(30):
        program = assemble("even_both_sided", random.Random(seed), 5, 4, 4)
        assert len(set(program.rules)) == len(program.rules), seed
        facts = [rule.head for rule in program.rules if not rule.body]
        assert len(facts) == len(set(facts)) == 2 * 4 + 1  # the supporting facts and the guard, each once
        supported = [r for r in program.rules if r.body and all(lit.positive and lit.atom in facts for lit in r.body)]
        assert sum(len(r.body) for r in supported) == 8 and len(supported) == 4
        spreads.add(tuple(sorted(len(r.body) for r in supported)))
    assert len(spreads) > 2  # the spread varies; the total does not


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({"cred": "T", "skept": "T", "wfs": "T", "sldnf": "T"}, 0),
        ({"cred": "F", "skept": "F", "wfs": "F", "sldnf": "F"}, 0),
        ({"cred": "T", "skept": "F", "wfs": "u", "sldnf": "loop"}, 2),
        ({"cred": "F", "skept": "F", "wfs": "F", "sldnf": "loop"}, 3),
        ({"cred": "T", "skept": "T", "wfs": "u", "sldnf": "T"}, 1),
    ],
)
def test_distance_counts_readings_off_the_closed_world_answer(labels, expected):
    assert distance(labels) == expected


def test_rows_carry_their_distance(main_rows, hard_rows):
    assert {(r["family"], r["distance"]) for r in main_rows} == {
        ("control", 0),
        ("even_one_sided", 2),
        ("odd", 2),
        ("even_both_sided", 2),
    }
    assert {r["distance"] for r in hard_rows["test"] if r["family"] == "decided"} == {0}
    assert {r["distance"] for r in hard_rows["test"] if r["family"] == "loopy"} == {3}


def test_training_and_evaluation_draw_from_disjoint_halves():
    small = {"depths": (2,), "widths": (2,), "programs_per_cell": 2}
    evaluation = build_rows(get_config("main", **small))["test"]
    training = [r for rows in build_rows(get_config("sft", **small)).values() for r in rows]
    evaluation_keys = {canonical_key(parse_program(r["program"]), "q") for r in evaluation}
    training_keys = {canonical_key(parse_program(r["program"]), "q") for r in training}
    assert len(evaluation_keys) == 8 and len(training_keys) == 16
    assert not any(is_training_key(k) for k in evaluation_keys) and all(map(is_training_key, training_keys))
    assert get_config("main").is_training("train") and not get_config("main").is_training("test")
    assert get_config("sft").is_training("validation")


def test_prefixes_never_take_a_reference_format():
    with pytest.raises(ConfigError, match="prefix must start with 'nb-'"):
        get_config("main", prefix="prod")


def test_score_records_slice_accuracy_by_distance(main_rows):
    from naf_bench.scoring.evaluation import constant_predictions, score_rows

    record = score_rows(main_rows, constant_predictions(main_rows)["constant_C"], n_bootstrap=0)
    assert record.by_distance_semantics == {
        0: dict.fromkeys(("closed_world", "cred", "skept", "wfs"), 0.0),
        2: {"closed_world": 1.0, "cred": 0.0, "skept": 0.0, "wfs": 1.0},
    }
    without = [{k: v for k, v in row.items() if k != "distance"} for row in main_rows]
    assert "by_distance_semantics" not in score_rows(without, {}, n_bootstrap=0).to_dict()


def test_training_is_set_from_the_command_line_as_a_bool():
    from naf_bench.generate.config import parse_overrides

    assert parse_overrides(["training=true", "splits=train"]) == {"training": True, "splits": ("train",)}
    assert get_config("main", **parse_overrides(["training=True"])).is_training("test")
    with pytest.raises(ConfigError, match="training=0"):
        parse_overrides(["training=0"])
