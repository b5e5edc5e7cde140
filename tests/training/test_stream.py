"""The training stream: item i is a function of (stream, i) alone, certified, in the row schema, on the training side of
the partition (so in no evaluation split and no hidden set), never from a family reserved for hidden sets, and its
curriculum climbs depth, width, bins and readings."""

import pytest

from naf_bench.data.rows import build_rows
from naf_bench.data.schema import features
from naf_bench.errors import ConfigError
from naf_bench.generate.algorithm import is_training_key
from naf_bench.generate.bins import BINS
from naf_bench.generate.config import get_config
from naf_bench.generate.registry import FAMILIES
from naf_bench.readings import gold_letter, joint_conditions
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.structure import canonical_key
from naf_bench.training.stream import CURRICULUM, JOINT, Stream, drawable

TOP = Stream(levels={name: len(ladder) - 1 for name, ladder in CURRICULUM.items()})


def _key(row):
    return canonical_key(parse_program(row["program"]), row["query"])


def test_item_i_is_a_function_of_the_stream_and_i_alone():
    assert TOP[7] == Stream(levels=TOP.levels)[7]
    assert TOP.items(1_000_000, 1_000_002) == [TOP[1_000_000], TOP[1_000_001]]  # no walk before it
    assert TOP[7]["program"] != Stream(seed=1, levels=TOP.levels)[7]["program"]
    assert TOP[7]["seed"] != TOP[8]["seed"]


def test_items_are_certified_rows_of_their_bin():
    rows = TOP.items(0, 40)
    for row in rows:
        assert row["config"] == "stream" and row["id"].startswith("nb-stream-")
        assert all(row["labels"][reading] == label for reading, label in BINS[row["family"]].items())
        assert row["gold"] == gold_letter(row["condition"], row["labels"])
        assert (row["depth"], row["width"]) == (8, 4)
    assert {row["family"] for row in rows} == set(CURRICULUM["bins"][-1])
    assert {row["condition"] for row in rows} == set(CURRICULUM["conditions"][-1])
    import datasets

    assert datasets.Dataset.from_list(rows, features=features()).num_rows == 40


def test_no_item_is_in_an_evaluation_split_or_a_hidden_set():
    assert all(drawable(name) for ladder in CURRICULUM["bins"] for name in ladder)
    reserved = [name for name, family in FAMILIES.items() if family.tier]  # hard's tiers: what hidden sets draw
    assert reserved and not any(drawable(name) for name in reserved)
    keys = {_key(row) for row in TOP.items(0, 60)}
    assert all(is_training_key(key) for key in keys)
    framing = {_key(row) for row in build_rows(get_config("framing"))["test"]}  # depth 8, width 4, as TOP
    assert framing and not any(is_training_key(key) for key in framing) and not keys & framing


def test_joint_items_ask_every_reading():
    row = Stream(joint=True, levels={"bins": 2})[3]
    assert row["condition"] == JOINT and row["gold"] is None and row["id"].endswith("-joint::joint")
    assert all(f"{condition} ANSWER: X" in row["prompt"] for condition in joint_conditions())
    assert row["messages"] == [{"role": "user", "content": row["prompt"]}]
    zh = Stream(joint=True, language="zh")[3]
    assert "wfs ANSWER: X" in zh["prompt"] and "规则" in zh["prompt"]


def test_traced_items_carry_the_gold_trace():
    row = Stream(traced=True)[0]
    assert row["gold_trace"].endswith(f"ANSWER: {row['gold']}") and "1." in row["prompt"]


def test_the_curriculum_climbs_each_attribute():
    stream = Stream()
    assert stream.value("depth") == 1 and stream.value("conditions") == ("closed_world",)
    assert stream.harder("depth").value("depth") == 2 and stream.harder("depth").value("width") == 0
    steps = 0
    while not stream.at_top:
        stream, steps = stream.harder(), steps + 1
    assert steps == max(len(ladder) for ladder in CURRICULUM.values()) - 1
    assert stream.harder() == stream


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"levels": {"depth": 9}}, "depth level 9 is not in 0..3"),
        ({"levels": {"size": 1}}, "unknown curriculum attributes"),
        ({"traced": True, "joint": True}, "exclude each other"),
        ({"language": "fr"}, "unknown language"),
    ],
)
def test_bad_settings_are_named(settings, message):
    with pytest.raises(ConfigError, match=message):
        Stream(**settings)
    with pytest.raises(ConfigError, match="numbered from 0"):
        Stream()[-1]


def test_a_ladder_naming_a_reserved_family_is_refused(monkeypatch):
    monkeypatch.setitem(CURRICULUM, "bins", (("control", "cnf"),))  # cnf: a hard tier, what hidden sets draw
    with pytest.raises(ConfigError, match=r"\['cnf'\] are reserved for hidden sets"):
        Stream()
