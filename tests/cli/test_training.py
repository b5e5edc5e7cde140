"""``naf-bench train stream``: the docs' commands with a small count, each file read back as its framework reads it."""

import json

import pytest

from naf_bench.cli import main
from naf_bench.training.rewards import ground_truth
from naf_bench.training.stream import Stream


def test_stream_as_naf_bench_rows(tmp_path, capsys):
    out = tmp_path / "rows.jsonl"
    assert main(["train", "stream", "--count", "3", "--start", "5", "--seed", "2", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows == Stream(seed=2).items(5, 8)
    assert "wrote stream items 5..7 (seed 2" in capsys.readouterr().out


def test_stream_for_verl(tmp_path):
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "train.parquet"
    assert (
        main(["train", "stream", "--format", "verl", "--count", "3", "--level", "1", "1", "1", "1", "--out", str(out)])
        == 0
    )
    items = list(datasets.load_dataset("parquet", data_files=str(out), split="train"))
    expected = Stream(levels=dict.fromkeys(("depth", "width", "bins", "conditions"), 1)).items(0, 3)
    assert [item["reward_model"]["ground_truth"] for item in items] == [ground_truth(row) for row in expected]
    assert items[0]["data_source"] == "naf_bench" and items[0]["prompt"][0]["content"] == expected[0]["prompt"]


def test_stream_for_openrlhf_joint(tmp_path):
    out = tmp_path / "prompts.jsonl"
    assert main(["train", "stream", "--format", "openrlhf", "--joint", "--count", "3", "--out", str(out)]) == 0
    items = [json.loads(line) for line in out.read_text().splitlines()]
    assert [json.loads(item["label"])["condition"] for item in items] == ["joint"] * 3
    assert "wfs ANSWER: X" in items[0]["prompt"][0]["content"]


def test_bad_levels_are_refused(tmp_path, capsys):
    assert main(["train", "stream", "--level", "1", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "one level per curriculum attribute" in capsys.readouterr().err and not (tmp_path / "x.jsonl").exists()
