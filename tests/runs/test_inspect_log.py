"""naf_bench.runs.inspect_log: inspect eval logs read without inspect installed, from logs written here in inspect's
layout (a ``.json`` log, and an ``.eval`` zip archive of ``header.json`` and ``samples/``): rows and responses of the
first epoch, reasoning put back inside ``<think>``, the log's answers as a submission, and one line for what is not
a log. (tests/integrations/test_inspect_logs.py reads logs inspect itself wrote.)"""

import json
import re
import zipfile

import pytest

from naf_bench.errors import DataError
from naf_bench.runs.inspect_log import is_inspect_log, read_inspect_log, submission_bytes

HEADER = {
    "version": 2,
    "status": "success",
    "eval": {"task": "naf_bench/naf_bench_wfs", "model": "openai-api/stub/stub"},
    "plan": {"config": {"max_tokens": 2048, "temperature": 0.0}},
}
SAMPLES = [
    {"id": "p0-wfs::wfs", "epoch": 1, "target": "C", "metadata": {"program_id": "p0", "condition": "wfs"},
     "output": {"completion": "ANSWER: C", "choices": [{"message": {"content": "ANSWER: C"}}]}},
    {"id": 7, "epoch": 1, "target": "A",
     "output": {"completion": "ANSWER: A", "choices": [{"message": {"content": [
         {"type": "reasoning", "reasoning": "q is a fact."}, {"type": "text", "text": "ANSWER: A"}]}}]}},
    {"id": "p0-wfs::wfs", "epoch": 2, "target": "C", "output": {"completion": "ANSWER: B"}},  # a second epoch
    {"id": "p1-wfs::wfs", "epoch": 1, "target": "", "metadata": {"gold": None}, "output": {}},  # no response
]  # fmt: skip


def _json_log(folder):
    path = folder / "run.json"
    path.write_text(json.dumps({**HEADER, "samples": SAMPLES}), encoding="utf-8")
    return path


def _eval_log(folder):
    path = folder / "run.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for i, sample in enumerate(SAMPLES):
            archive.writestr(f"samples/{i:02d}_epoch_{sample['epoch']}.json", json.dumps(sample))
    return path


@pytest.mark.parametrize("write", [_json_log, _eval_log], ids=["json", "eval"])
def test_a_log_is_its_first_epochs_rows_and_responses_with_reasoning_put_back(tmp_path, write):
    log = read_inspect_log(write(tmp_path))
    assert (log.task, log.model, log.generate_config) == (
        "naf_bench_wfs",
        "openai-api/stub/stub",
        {"max_tokens": 2048, "temperature": 0.0},
    )
    assert log.samples == (
        ({"program_id": "p0", "condition": "wfs", "id": "p0-wfs::wfs", "gold": "C"}, "ANSWER: C"),
        ({"id": "7", "gold": "A"}, "<think>q is a fact.</think>\nANSWER: A"),
        ({"gold": None, "id": "p1-wfs::wfs"}, None),
    )


def test_the_answers_are_a_submission_with_a_missing_response_null(tmp_path):
    lines = submission_bytes(read_inspect_log(_json_log(tmp_path))).decode().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"id": "p0-wfs::wfs", "prediction": "ANSWER: C"},
        {"id": "7", "prediction": "<think>q is a fact.</think>\nANSWER: A"},
        {"id": "p1-wfs::wfs", "prediction": None},
    ]


def test_a_log_is_told_by_its_name_and_first_bytes(tmp_path):
    other = tmp_path / "scores.json"
    other.write_text(json.dumps({"joint": 0.5}))
    assert is_inspect_log(_json_log(tmp_path)) and is_inspect_log(_eval_log(tmp_path))
    assert not is_inspect_log(other) and not is_inspect_log(tmp_path / "absent.eval")


def test_what_is_not_a_log_is_one_line_naming_it(tmp_path):
    cases = {
        "list.json": ("[1, 2]", "not a JSON object; an inspect eval log"),
        "broken.json": ("{", "not JSON (Expecting property name enclosed in double quotes)"),
        "headless.json": (json.dumps({"version": 2, "status": "error"}), "no 'eval' header"),
        "broken.eval": ("not a zip", "not a finished .eval archive (no readable header.json)"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(DataError, match="^" + re.escape(f"{tmp_path / name}: {message}")):
            read_inspect_log(tmp_path / name)
