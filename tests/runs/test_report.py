"""naf_bench.runs.report: result records from score files (merged per model) and lm-eval folders (one per filter,
limited runs marked), refusals of what is not scores, and report.md with its plots."""

import json

import pytest

from naf_bench.errors import DataError
from naf_bench.runs.report import limited, load_results, write_report


@pytest.fixture
def lm_eval_folder(tmp_path, two_program_gold):
    """A --limit run of org/tiny that says A to every prompt: 8 of 400 documents, each filter's samples logged."""
    folder = tmp_path / "out" / "org__tiny"
    folder.mkdir(parents=True)
    documents = {"naf_bench": {"effective": 8, "original": 400}}
    results = {"config": {"model_args": "pretrained=org/tiny"}, "n-samples": documents}
    (folder / "results_2025.json").write_text(json.dumps(results))
    samples = [
        {"doc": row, "resps": [[text]], "filter": name}
        for row in two_program_gold
        for name, text in (("flexible-extract", "The answer is A."), ("strict-match", "I would say A"))
    ]
    (folder / "samples_naf_bench_2025.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return tmp_path / "out"


def test_an_lm_eval_folder_gives_one_record_per_filter(lm_eval_folder):
    flexible, strict = load_results([lm_eval_folder])
    assert (flexible["name"], flexible["extractor"]) == ("flexible-extract: org/tiny", "flexible")
    assert flexible["n_unread"] == 0
    assert (flexible["joint"], flexible["per_prompt_accuracy"]) == (0.5, 0.625)  # the control solved; 5 of 8 are A
    assert flexible["per_semantics"] == {"closed_world": 0.5, "cred": 0.5, "skept": 1.0, "wfs": 0.5}
    assert (strict["name"], strict["n_unread"], strict["joint"]) == ("strict-match: org/tiny", 8, 0.0)
    assert flexible["documents"] == {"effective": 8, "original": 400}
    assert limited(flexible)
    assert not limited({"documents": {"effective": 400, "original": 400}}) and not limited({})


def test_score_files_are_merged_per_model_without_none_overwriting(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([{"name": "m", "joint": 0.5, "flip_rate": None}, {"name": "n"}]))
    (tmp_path / "b.json").write_text(json.dumps({"name": "m", "joint": None, "flip_rate": 0.25}))
    assert load_results([tmp_path / "a.json", tmp_path / "b.json"]) == [
        {"name": "m", "joint": 0.5, "flip_rate": 0.25},
        {"name": "n"},
    ]


def test_a_submission_or_nameless_json_is_refused_as_not_scores(tmp_path):
    submission = tmp_path / "run.jsonl"
    submission.write_text('{"id": "p1-wfs", "prediction": "A"}\n{"id": "p1-cred", "prediction": "B"}\n')
    with pytest.raises(DataError, match=f"not scores: score it first \\(naf-bench score {submission} --out"):
        load_results([submission])
    (tmp_path / "x.json").write_text('{"joint": 0.5}')
    with pytest.raises(DataError, match="JSON without a record's 'name'"):
        load_results([tmp_path / "x.json"])


def test_the_report_marks_a_limited_run_and_shows_its_plots(lm_eval_folder, tmp_path):
    report = write_report(load_results([lm_eval_folder]), tmp_path / "report")
    text = report.read_text()
    assert (
        "| flexible-extract: org/tiny | limited: 8 of 400 documents | 50.0 | – | 62.5 | 100.0 | 50.0 | 50.0 | 100.0 "
        "| 50.0 | – |"
    ) in text
    assert "flexible-extract: org/tiny: `flexible`, 0 unread; strict-match: org/tiny: `strict`, 8 unread" in text
    assert sorted(path.name for path in report.parent.iterdir()) == ["accuracy_by_bin.png", "joint.png", "report.md"]
    assert "![JOINT (%) with 95% program-clustered intervals](joint.png)" in text
