"""One default extractor (naf_bench.scoring.extract.DEFAULT_EXTRACTOR), and each view that reads answers uses it:
a test that names the view which forgot."""

import inspect
from pathlib import Path

import yaml

from naf_bench.scoring.extract import DEFAULT_EXTRACTOR, EXTRACTORS, extract_answer

ROOT = Path(__file__).parents[2]


def _default(function, name="extractor"):
    return inspect.signature(function).parameters[name].default


def test_every_view_defaults_to_the_one_extractor():
    import naf_bench.scoring
    from naf_bench.cli import build_parser
    from naf_bench.scoring import core, evaluation, labels, traces
    from naf_bench.training.command import parser as training_parser
    from naf_bench.training.held_out import evaluate_model

    assert DEFAULT_EXTRACTOR in EXTRACTORS
    metric = naf_bench.scoring.load_metric("label")
    defaults = {
        "extract_answer": _default(extract_answer),
        "the scoring core": _default(core.score),
        "decide_answer": _default(core.decide_answer),
        "the evaluate module": _default(type(metric)._compute),
        "the label metrics": _default(labels.compute_label_metrics),
        "the proof metrics": _default(traces.compute_proof_metrics),
        "score_rows (the board, score)": _default(evaluation.score_rows),
        "run_scores (the board)": _default(evaluation.run_scores),
        "held-out evaluation": _default(evaluate_model),
    }
    defaults["naf-bench score --extractor"] = build_parser().parse_args(["score", "x.jsonl"]).extractor
    train = next(a for a in training_parser()._actions if "--extractor" in a.option_strings)
    defaults["scripts/train_sft.py --extractor"] = train.default
    assert {view: value for view, value in defaults.items() if value != DEFAULT_EXTRACTOR} == {}


def test_the_lm_eval_groups_headline_and_the_reports_first_row_are_the_default_filter():
    from naf_bench.runs.report import FILTERS, HEADLINE_FILTER

    assert FILTERS[HEADLINE_FILTER] == DEFAULT_EXTRACTOR and next(iter(FILTERS)) == HEADLINE_FILTER
    for group in ("naf_bench", "naf_bench_hard"):
        config = yaml.safe_load((ROOT / "lm_eval_tasks" / "naf_bench" / f"{group}.yaml").read_text())
        assert [entry["filter_list"] for entry in config["aggregate_metric_list"]] == [[HEADLINE_FILTER]], group


def test_the_default_reads_what_strict_reads_and_what_the_authors_board_accepts():
    """flexible never changes a letter strict reads; it adds the authors' leaderboard's answers (words, option
    lines) and leaves hedges unanswered."""
    texts = ["Reasoning.\nANSWER: B", "ANSWER: **C**", "The final answer is A.", "B", "<think>A?</think>\nANSWER: C"]
    assert [extract_answer(t, "strict") for t in texts] == [extract_answer(t) for t in texts] == list("BCABC")
    theirs = {"A. Definitely yes": "A", "true": "A", "no": "B", "cannot be determined": "C", "unknown": "C"}
    assert {text: extract_answer(text) for text in theirs} == theirs
    assert {text: extract_answer(text, "strict") for text in theirs} == dict.fromkeys(theirs)
    assert extract_answer("The answer is probably A, but I am unsure.") is None


def test_the_console_table_shows_whole_names_the_extractor_and_the_unread_count(capsys):
    from naf_bench.cli.output import print_records
    from naf_bench.scoring.evaluation import score_rows

    rows = [
        {"id": f"p-{c}::{c}", "program_id": "p", "family": "odd", "condition": c, "gold": "A"}
        for c in ("closed_world", "cred", "skept", "wfs")
    ]
    texts = ["ANSWER: A", "\\boxed{A}", "I would rather not say.", "A. Definitely yes"]
    predictions = {row["id"]: {"prediction": text} for row, text in zip(rows, texts, strict=True)}
    name = "a-model-whose-name-is-longer-than-thirty-characters"
    records = [score_rows(rows, predictions, name=name, n_bootstrap=0).to_dict(),
               score_rows(rows, predictions, name="strict", n_bootstrap=0, extractor="strict").to_dict()]  # fmt: skip
    print_records(records)
    header, flexible, strict = capsys.readouterr().out.splitlines()
    assert header.endswith("read by (unread)") and flexible.startswith(f"{name} ")
    assert flexible.endswith("  flexible (1)") and strict.endswith("  strict (3)")
