"""naf_bench.analysis.outputs: analysis.md's tables for a tiny run (counts, intervals, baselines, bins), and the
files write_analysis leaves (analysis.json as analyzed, analysis.md, the per-semantics plot)."""

import json

import pytest

from naf_bench.analysis.outputs import markdown, write_analysis
from naf_bench.analysis.tables import analyze


@pytest.fixture(scope="module")
def result(tmp_path_factory, two_program_gold):
    """A run that answers the odd program right and B to everything of the control."""
    folder = tmp_path_factory.mktemp("analysis")
    rows = two_program_gold
    (folder / "gold.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    answer = {row["id"]: row["gold"] if row["program_id"] == "p1" else "B" for row in rows}
    (folder / "m.jsonl").write_text(
        "".join(json.dumps({"id": k, "prediction": f"ANSWER: {x}"}) + "\n" for k, x in answer.items())
    )
    return analyze([folder / "m.jsonl"], folder / "gold.jsonl", "strict", n_bootstrap=20)


def test_table_1_gives_counts_intervals_and_the_constant_baselines(result):
    lines = markdown(result).splitlines()
    start = lines.index("## Table 1: accuracy per semantics")
    cell = "50.0 [0.0, 100.0] (1/2 of 2)"
    assert lines[start + 2 : start + 6] == [
        "| run | closed_world | cred | skept | wfs | all (parsed) | strict | cor. |",
        "|---|---|---|---|---|---|---|---|",
        f"| m | {cell} | {cell} | {cell} | {cell} | 50.0 (8/8) | 50.0 | n/a |",
        "| *constant_A* | 50.0 | 50.0 | 100.0 | 50.0 | 62.5 | | |",
    ]


def test_table_2_splits_accuracy_by_divergence_bin(result):
    text = markdown(result)
    assert "\n| m | control | 0.0 (0/1) | 0.0 (0/1) | 0.0 (0/1) | 0.0 (0/1) | 0.0 (0/4) | p = 0.029," in text
    assert "\n| m | odd | 100.0 (1/1) | 100.0 (1/1) | 100.0 (1/1) | 100.0 (1/1) | 100.0 (4/4) | p = 0.029," in text


def test_notes_are_listed_under_the_title(result):
    text = markdown({**result, "notes": ["m: 1 gold ids have no output (counted as unanswered)"]})
    assert "\n- note: m: 1 gold ids have no output (counted as unanswered)\n" in text


def test_write_analysis_writes_the_json_the_markdown_and_the_plot(result, tmp_path):
    written = write_analysis(result, tmp_path / "out")
    assert [path.name for path in written] == ["analysis.json", "analysis.md", "accuracy_per_semantics.png"]
    assert json.loads(written[0].read_text()) == json.loads(json.dumps(result))
    assert written[1].read_text() == markdown(result)
    assert written[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
