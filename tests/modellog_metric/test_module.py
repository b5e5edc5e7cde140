"""The evaluate module, loaded the two documented ways, and its doctest examples."""

import doctest
import importlib.util
from pathlib import Path

import evaluate
import pytest

import naf_bench.scoring
from naf_bench import certify
from naf_bench.verbalize.trace import render_gold_trace

ROOT = Path(__file__).parents[2]


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
    assert (scores["accuracy"], scores["n_scored"], scores["n_rows"], scores["extractor"]) == (1.0, 1, 3, "flexible")
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
    proof = naf_bench.scoring.load_metric("proof")
    assert set(proof.features) == {"predictions", "certificates", "conditions", "framings", "languages", "prompts"}


LABEL_ROWS = {  # one program under four readings and its `none` prompt; wfs answered wrong
    "predictions": ["ANSWER: A", "ANSWER: B", "ANSWER: A", "ANSWER: A", "ANSWER: A"],
    "references": ["A", "B", "A", "C", None],
    "conditions": ["closed_world", "cred", "skept", "wfs", "none"],
    "program_ids": ["p"] * 5,
    "variants": ["abstract"] * 5,
    "bins": ["odd"] * 5,
}
OPTIONAL = ("conditions", "program_ids", "variants", "bins")


@pytest.mark.parametrize("given", [(), *((name,) for name in OPTIONAL), ("conditions", "program_ids"),
                                   ("conditions", "program_ids", "bins"), OPTIONAL])  # fmt: skip
def test_label_takes_predictions_and_references_with_any_optional_columns(given):
    metric = naf_bench.scoring.load_metric("label")
    columns = {name: LABEL_ROWS[name] for name in ("predictions", "references", *given)}
    scores = metric.compute(**columns, **dict.fromkeys(set(OPTIONAL) - set(given)))  # None: not given
    assert (scores["strict_accuracy"], scores["n_scored"], scores["n_rows"]) == (0.75, 4, 5)
    assert ("per_condition" in scores) == ("conditions" in given) and ("per_bin" in scores) == ("bins" in given)
    joint_rows = {"conditions", "program_ids"} <= set(given)
    assert scores.get("joint") == (0.0 if joint_rows and "variants" not in given else None)
    assert scores.get("default_correspondence") == (1.0 if joint_rows else None)  # the wrong wfs A is its own none A
    # the same rows in two batches, with the same columns
    for first, last in ((0, 2), (2, 5)):
        metric.add_batch(**{name: column[first:last] for name, column in columns.items()})
    assert metric.compute()["strict_accuracy"] == 0.75


def test_label_needs_its_references_and_says_so():
    metric = naf_bench.scoring.load_metric("label")
    for call in (metric.compute, metric.add_batch):
        with pytest.raises(ValueError, match=r"\['references'\] must be given \(optional: \['conditions'"):
            call(predictions=["ANSWER: A"])


def test_text_columns_refuse_rows_dicts_and_datasets_saying_what_to_pass():
    """A Dataset passed as predictions once scored 1.0 (each row's str() ends in its gold trace's 'ANSWER: X')."""
    import datasets

    rows = datasets.Dataset.from_list(
        [
            {"gold": g, "condition": c, "program_id": "p", "gold_trace": f"ANSWER: {g}"}
            for g, c in (("A", "wfs"), ("B", "cred"))
        ]
    )
    label = naf_bench.scoring.load_metric("label")
    outputs = "pass a list of the model's output texts (or None)"
    hint = "for rows of the dataset, **naf_bench.scoring.label_columns(rows) gives references, conditions and "
    cases = [
        (dict(predictions=rows, references=rows["gold"]), f"naf_bench 'label': predictions is a Dataset; {outputs}"),
        (dict(predictions=[{"prediction": "B"}, None], references=["B", "A"]),
         f"naf_bench 'label': predictions[0] is a dict ({{'prediction': 'B'}}), not text; {outputs}"),
        (dict(predictions=["A", 2], references=["B", "A"]), "predictions[1] is a int (2), not text"),
        (dict(predictions="ANSWER: A", references=["A"]), "predictions is a str; pass a list of"),
        (dict(predictions=["A", "B"], references=rows),
         f"naf_bench 'label': references is a Dataset; pass a list of the gold letters (A, B, C) (or None); {hint}"),
        (dict(predictions=["A", "B"], references=rows.to_list()), "references[0] is a dict ({'gold': 'A', "),
    ]  # fmt: skip
    for arguments, message in cases:
        for call in (label.compute, label.add_batch):
            with pytest.raises(ValueError) as error:
                call(**arguments)
            assert message in str(error.value) and "\n" not in str(error.value), (arguments, str(error.value))
    proof = naf_bench.scoring.load_metric("proof")
    with pytest.raises(ValueError, match=r"naf_bench 'proof': predictions\[0\] is a dict"):
        proof.compute(predictions=[{"trace": "x"}], certificates=["{}"], conditions=["wfs"])
    assert label.compute(predictions=["ANSWER: A", "ANSWER: A"], references=rows["gold"])["accuracy"] == 0.5


def test_label_columns_of_a_dataset_a_list_of_rows_and_a_slice():
    from naf_bench import load_dataset

    dataset = load_dataset("main", split="test").select(range(10))
    expected = naf_bench.scoring.label_columns(dataset.to_list())
    assert naf_bench.scoring.label_columns(dataset) == expected == naf_bench.scoring.label_columns(dataset[0:10])
    assert expected["conditions"][:2] == ["none", "closed_world"] and expected["references"][0] is None
    scores = naf_bench.scoring.load_metric("label").compute(predictions=["ANSWER: A"] * 10, **expected)
    assert (scores["n_rows"], scores["n_scored"]) == (10, 8)


def test_proof_on_rows_without_gold_says_why_it_cannot_score_them():
    from naf_bench.data.hub import withhold_gold

    rows = [withhold_gold(row) for row in load_hard_test_rows(2)]
    metric = naf_bench.scoring.load_metric("proof")
    why = r"2 of 2 rows have no certificate \(rows \[0, 1\]\): a trace is audited against its row's certificate"
    columns = {"certificates": [row["certificate"] for row in rows], "conditions": [row["condition"] for row in rows]}
    with pytest.raises(ValueError, match=why + ", which a split published without gold"):
        metric.compute(predictions=["q holds."] * 2, **columns)


def load_hard_test_rows(n):
    from naf_bench import load_dataset

    return [row for row in load_dataset("hard", split="test") if row["gold"] is not None][:n]


def test_path_independent_load_and_proof_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    program = "q :- not a. a :- b. b :- a."
    certificate = certify(program)
    metric = naf_bench.scoring.load_metric("proof")
    from naf_bench import parse_program

    trace = render_gold_trace(parse_program(program), certificate, "wfs")
    columns = {"certificates": [certificate.to_json()] * 2, "conditions": ["wfs", "cred"]}
    renderings = {"framings": ["abstract", None], "languages": ["en", None]}  # no prompts: citations by number
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
    assert (runner.failures, runner.tries) == (0, 14)


def test_the_scoring_packages_docstring_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # load_metric from outside the repository root
    results = doctest.testmod(naf_bench.scoring)
    assert results == doctest.TestResults(failed=0, attempted=5)
