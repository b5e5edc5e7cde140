"""inspect eval logs reach the report and the board through one reader (naf_bench.runs.inspect_log), as lm-eval
output folders do: the same records from a .json and an .eval log, scored by the core."""

import json

import pytest

from naf_bench.integrations.tasks import task_rows, task_spec
from naf_bench.runs.inspect_log import read_inspect_log
from naf_bench.runs.report import load_results
from naf_bench.scoring.evaluation import run_record, run_scores

pytestmark = pytest.mark.harness  # inspect_ai, lighteval: see conftest.py


@pytest.fixture(scope="module")
def logs(tmp_path_factory, stub_server):
    from inspect_ai import eval as inspect_eval

    from naf_bench.integrations import inspect as registered

    folder = tmp_path_factory.mktemp("logs")
    for log_format in ("eval", "json"):
        inspect_eval(
            registered.naf_bench_joint(limit=12),
            model="openai-api/stub/stub",
            display="none",
            log_dir=str(folder / log_format),
            log_format=log_format,
        )
    return {kind: next((folder / kind).iterdir()) for kind in ("eval", "json")}


def test_both_log_formats_read_the_same(logs, response_for):
    eval_log, json_log = read_inspect_log(logs["eval"]), read_inspect_log(logs["json"])
    rows = task_rows(task_spec("naf_bench_joint")).select(range(12)).to_list()
    assert eval_log.task == json_log.task == "naf_bench_joint" and json_log.model == "openai-api/stub/stub"
    assert json_log.generate_config == {"max_tokens": 2048, "temperature": 0.0}
    expected = sorted(
        (row["id"], row["program_id"], row["condition"], row["gold"], response_for(row["prompt"])) for row in rows
    )
    for log in (eval_log, json_log):  # inspect keeps a <think> block apart: the reader puts it back
        got = sorted((r["id"], r["program_id"], r["condition"], r["gold"], text) for r, text in log.samples)
        assert got == expected
    assert any("<think>" in text for _, text in json_log.samples)


def test_the_report_reads_a_log_as_the_core_scores_it(logs, response_for):
    rows = task_rows(task_spec("naf_bench_joint")).select(range(12)).to_list()
    predictions = {row["id"]: {"prediction": response_for(row["prompt"])} for row in rows}
    for path in (logs["json"], logs["eval"], logs["json"].parent):
        flexible, strict = load_results([path])  # the default extractor's record first, as lm-eval's are
        assert strict["name"] == "strict-match: openai-api/stub/stub"
        assert strict == run_record(run_scores(rows, predictions, extractor="strict"), strict["name"]).to_dict()
        assert flexible["extractor"] == "flexible"


def test_the_board_reads_a_log_beside_its_metadata(logs, tmp_path, write_metadata, response_for):
    import shutil

    from naf_bench.leaderboard.board import build_board

    rows = task_rows(task_spec("naf_bench_joint")).select(range(12)).to_list()
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copy(logs["eval"], submissions / "stub.eval")
    write_metadata(submissions / "stub.metadata.json", model_name="stub")
    board, refused = build_board(submissions, gold, n_bootstrap=10)
    assert refused == {}
    (entry,) = board["tracks"]["standard"]
    assert entry["name"] == "stub", entry
    predictions = {row["id"]: {"prediction": response_for(row["prompt"])} for row in rows}
    scores = run_scores(rows, predictions, extractor="strict")
    assert entry["joint"] == pytest.approx(scores.joint())
