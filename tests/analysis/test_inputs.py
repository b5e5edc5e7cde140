"""naf_bench.analysis.inputs: runs read from submission files and lm-eval folders (unknown ids refused with their
line), the authors' stored letters, and each gold row's answer decided once."""

import json

import pytest

from naf_bench.analysis.inputs import read_runs, read_stored, score_items
from naf_bench.errors import DataError

KNOWN = {"r1", "r2", "r3"}


def write_lines(path, records):
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def test_a_submission_file_is_one_run_named_after_it(tmp_path):
    path = write_lines(tmp_path / "tiny.jsonl", [{"id": "r1", "prediction": "A"}, {"id": "r2", "prediction": None}])
    runs, sources, notes = read_runs([path], KNOWN)
    assert runs == {"tiny": {"r1": "A", "r2": None}}
    assert sources == {"tiny": path}
    assert notes == ["tiny: 1 gold ids have no output (counted as unanswered)"]


def test_an_id_outside_the_gold_is_refused_with_its_line(tmp_path):
    path = write_lines(tmp_path / "tiny.jsonl", [{"id": "r1", "prediction": "A"}, {"id": "r9", "prediction": "B"}])
    with pytest.raises(DataError, match=r"tiny.jsonl:2: unknown id 'r9' \(not in the gold set\)"):
        read_runs([path], KNOWN)


def test_an_lm_eval_folder_is_one_run_per_model_without_multiple_choice_tasks(tmp_path):
    folder = tmp_path / "out" / "org__model"
    folder.mkdir(parents=True)
    (folder / "results_2024.json").write_text(json.dumps({"config": {"model_args": "pretrained=org/model"}}))
    sample = {"doc": {"id": "r1"}, "resps": [["ANSWER: B"]]}
    write_lines(folder / "samples_naf_bench_2024.jsonl", [sample])
    write_lines(folder / "samples_naf_bench_mc_2024.jsonl", [{"doc": {"id": "r2"}, "resps": [["x"]]}])
    runs, sources, _ = read_runs([tmp_path / "out"], KNOWN)
    assert (runs, sources) == ({"org/model": {"r1": "ANSWER: B"}}, {"org/model": tmp_path / "out"})


def test_stored_letters_are_read_beside_each_output_and_decide_answers_with_the_stored_extractor(tmp_path):
    path = write_lines(tmp_path / "run.jsonl", [{"id": "r1", "prediction": "blah", "stored": "C", "stored_ok": None}])
    path.write_text(path.read_text() + "not json\n")
    stored = read_stored([path, tmp_path])  # a folder has no stored letters
    assert stored == {"run": {"r1": {"stored": "C", "stored_ok": None}}}
    rows = [{"id": "r1", "condition": "wfs", "gold": "C"}, {"id": "r2", "condition": "wfs", "gold": "A"}]
    items = score_items(rows, {"r1": "ANSWER: A"}, "stored", stored["run"])
    assert [(item["text"], item["answer"]) for item in items] == [("ANSWER: A", "C"), ("", None)]
    assert [item["answer"] for item in score_items(rows, {"r1": "ANSWER: A"}, "strict")] == ["A", None]
