"""The evaluate module, loaded the two documented ways, and its doctest examples."""

import doctest
import importlib.util
from pathlib import Path

import evaluate
import pytest

import naf_bench.scoring
from naf_bench import certify
from naf_bench.verbalize.trace import render_gold_trace

ROOT = Path(__file__).parent.parent


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_label_config_from_the_repository_root(at_root):
    metric = evaluate.load("modellog_metric", "label")
    scores = metric.compute(
        predictions=["ANSWER: A", "ANSWER: C", "none given"],
        references=["A", "B", None],
        conditions=["cred", "wfs", "none"],
        program_ids=["p", "p", "p"],
        variants=[None] * 3,
        bins=[None] * 3,
    )
    # p has gold under two readings only: JOINT (all four readings of a program right) is undefined, not 0
    assert (scores["accuracy"], scores["joint"], scores["n_scored"]) == (0.5, None, 2)


def test_label_config_accepts_none_references_anywhere(at_root):
    metric = evaluate.load("modellog_metric", "label")
    scores = metric.compute(
        predictions=["ANSWER: A", "ANSWER: B", "ANSWER: C"],
        references=[None, "B", None],
        conditions=["none", "wfs", "none"],
        program_ids=["p", "p", "q"],
        variants=[None] * 3,
        bins=["odd", "odd", "control"],
    )
    assert (scores["accuracy"], scores["n_scored"], scores["n_rows"], scores["extractor"]) == (1.0, 1, 3, "strict")
    assert scores["per_bin"]["odd"]["accuracy"] == 1.0 and "control" not in scores["per_bin"]
    only_none = metric.compute(
        predictions=["ANSWER: A"],
        references=[None],
        conditions=["none"],
        program_ids=["p"],
        variants=[None],
        bins=[None],
    )
    assert (only_none["accuracy"], only_none["n_scored"]) == (None, 0)


def test_every_input_column_is_a_feature(at_root):
    metric = evaluate.load("modellog_metric", "label")
    assert set(metric.features) == {"predictions", "references", "conditions", "program_ids", "variants", "bins"}
    with pytest.raises(ValueError, match="inputs are missing"):
        metric.compute(predictions=["ANSWER: A"], references=["A"])
    proof = naf_bench.scoring.load_metric("proof")
    assert set(proof.features) == {"predictions", "certificates", "conditions", "framings", "languages", "prompts"}


def test_path_independent_load_and_proof_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    program = "q :- not a. a :- b. b :- a."
    certificate = certify(program)
    metric = naf_bench.scoring.load_metric("proof")
    from naf_bench import parse_program

    trace = render_gold_trace(parse_program(program), certificate, "wfs")
    columns = {"certificates": [certificate.to_json()] * 2, "conditions": ["wfs", "cred"]}
    renderings = {"framings": ["abstract", None], "languages": ["en", None], "prompts": [None, None]}
    scores = metric.compute(predictions=[trace, trace], **columns, **renderings)
    assert (scores["proof_accuracy"], scores["label_accuracy"], scores["rfwr"]) == (0.5, 1.0, 0.5)
    assert scores["flags"]["connects"] == [True, False]  # right letter, but the wfs verdict is not the credulous one


def test_consistency_config_and_errors(at_root):
    metric = evaluate.load("modellog_metric", "consistency")
    scores = metric.compute(formulas=["a -> b"], probabilities=[{"a": 0.9, "b": 0.8}])
    assert round(scores["rho"][0], 6) == 0.28
    with pytest.raises(ValueError, match="has no probability"):
        metric.compute(formulas=["a & c"], probabilities=[{"a": 0.9}])
    with pytest.raises(KeyError, match="config_name must be one of"):
        evaluate.load("modellog_metric", "accuracy")


def test_docstring_examples_run(at_root):
    spec = importlib.util.spec_from_file_location(
        "modellog_metric_module", ROOT / "modellog_metric" / "modellog_metric.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(module._KWARGS_DESCRIPTION, {}, "examples", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert (runner.failures, runner.tries) == (0, 13)
