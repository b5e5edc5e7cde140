"""The one table of metrics: every view shows exactly the numbers the table says it shows, read from a real run of
each view (a view that shows a number the table lacks, or misses one it should show, is named), and a view the
table lists must have a reader here."""

from dataclasses import fields

import pytest

from naf_bench.cli.output import print_records
from naf_bench.leaderboard.board import baseline_rows
from naf_bench.leaderboard.site import _columns
from naf_bench.readings import NO_SEMANTICS, READINGS, joint_conditions
from naf_bench.scoring import metrics
from naf_bench.scoring.evaluation import RunRecord, score_rows
from naf_bench.scoring.labels import LabelScores, compute_label_metrics
from naf_bench.scoring.metrics import BOARD, CLI, LABEL, METRICS, RECORD, SITE, VIEWS, Metric

GOLDS = {"p0": "ABAC", "p1": "AAAA", "p2": "CBAB"}  # per JOINT reading, in joint_conditions()' order
ROWS = [
    {"id": f"{program}::{condition}", "program_id": program, "family": "f", "condition": condition, "gold": gold}
    for program, golds in GOLDS.items()
    for condition, gold in [*zip(joint_conditions(), golds, strict=True), (NO_SEMANTICS, None)]
]
ANSWER_A = {row["id"]: {"prediction": "A"} for row in ROWS}  # wrong somewhere, the same as the untutored answer


def _numbers(shown: dict) -> set[str]:
    """The top-level numbers of a view's output (counts are ints, not scores)."""
    return {key for key, value in shown.items() if isinstance(value, float)}


def _typed(record) -> set[str]:
    """The number fields of a typed record (float, or None where undefined)."""
    return {f.name for f in fields(record) if f.type.startswith("float |")}


def _record() -> set[str]:
    return _typed(RunRecord)


def _label() -> set[str]:
    return _typed(LabelScores)


def _board() -> set[str]:
    (row,) = [row for row in baseline_rows(ROWS, n_bootstrap=0) if row["name"] == "constant_A"]
    return _numbers(row)


def _site() -> set[str]:
    """The site's columns of percentages other than a reading's and the trace audit's, by title."""
    titles = {column["title"] for column in _columns()}
    others = {f"{READINGS[c].title} %" for c in joint_conditions()} | {"Sound traces %"}
    return {title for title in titles if title.endswith(" %")} - others


def _cli(capsys) -> set[str]:
    """The records table's heads other than the JOINT readings' and the extractor's (a name and a count of
    unread answers, not a score)."""
    print_records([score_rows(ROWS, ANSWER_A, name="a", n_bootstrap=0).to_dict()])
    head, _, extractor = capsys.readouterr().out.splitlines()[0].partition("  read by (unread)")
    assert extractor == ""  # the extractor's heads close the line
    return set(head.split()) - set(joint_conditions())


READERS = {RECORD: _record, LABEL: _label, BOARD: _board, SITE: _site, CLI: _cli}


def _expected(view: str) -> set[str]:
    """What the table says ``view`` shows, as the reader above sees it."""
    shown = metrics.shown_in(view)
    if view == SITE:
        return {f"{metric.title} %" for metric in shown}
    if view == CLI:
        return {metric.short for metric in shown}
    return {metric.key(view) for metric in shown}


def _disagreements(capsys) -> list[str]:
    found = []
    for view in VIEWS:
        reader = READERS[view]
        shown = reader(capsys) if view == CLI else reader()
        expected = _expected(view)
        found += [f"the {view} shows {name}, which the metrics table lacks" for name in sorted(shown - expected)]
        found += [f"the {view} misses {name}, which the metrics table shows there" for name in sorted(expected - shown)]
    return found


def test_every_view_shows_exactly_the_tables_numbers(capsys):
    assert set(READERS) == set(VIEWS)  # a view added to the table needs its reader here
    assert _disagreements(capsys) == []


def test_a_view_that_misses_a_metric_or_shows_one_the_table_lacks_is_named(monkeypatch, capsys):
    tenacity = Metric("tenacity", lambda s: 0.5, "Tenacity", "tenac", frozenset({LABEL, SITE}))
    coverage = METRICS["coverage"]
    hidden = Metric(coverage.name, coverage.value, coverage.title, coverage.short, coverage.views - {SITE, BOARD})
    monkeypatch.setattr(metrics, "METRICS", {**METRICS, "coverage": hidden, "tenacity": tenacity})
    # a board row and the CLI's table read the table, so they follow it; the typed records and the site's layout
    # are written out, so they are named
    assert _disagreements(capsys) == [
        "the label metric misses tenacity, which the metrics table shows there",
        "the site shows Coverage %, which the metrics table lacks",
        "the site misses Tenacity %, which the metrics table shows there",
    ]


def test_every_metric_is_computed_from_scores_as_its_views_report_it():
    record = score_rows(ROWS, ANSWER_A, n_bootstrap=0)
    assert (record.joint, record.per_prompt_accuracy, record.accuracy) == (pytest.approx(1 / 3), 7 / 12, 7 / 12)
    assert (record.coverage, record.format_valid_rate) == (1.0, 1.0)
    columns = {"references": [row["gold"] for row in ROWS], "conditions": [row["condition"] for row in ROWS],
               "program_ids": [row["program_id"] for row in ROWS], "n_bootstrap": 0}  # fmt: skip
    label = compute_label_metrics(["A"] * len(ROWS), **columns)
    assert (label["joint"], label["strict_accuracy"]) == (pytest.approx(1 / 3), 7 / 12)
    assert label["default_correspondence"] == 1.0  # every wrong answer is the untutored one, A
    twice = {key: value * 2 if isinstance(value, list) else value for key, value in columns.items()}
    n = len(ROWS)
    flips = compute_label_metrics(["A"] * n + ["B"] * n, **twice, variants=["one"] * n + ["two"] * n)
    assert flips["flip_rate"] == 1.0 and "joint" not in flips
