"""`naf-bench export` writes an eval.yaml that `inspect eval hf/ORG/naf-bench` runs with nothing of naf-bench
installed: inspect's own Hub-task loader, its built-in pattern scorer, offline (the Hub cache holds the repository's
eval.yaml, as a download leaves it, and datasets reads the folder)."""

import shutil

import pytest

from naf_bench.data.hub import export
from naf_bench.scoring.extract import extract_answer

pytestmark = pytest.mark.harness  # inspect_ai, lighteval: see conftest.py


def test_inspect_runs_the_exported_folder(stub, tmp_path, inspect_cli, response_for):
    from inspect_ai.log import list_eval_logs, read_eval_log

    folder = export(tmp_path / "ORG" / "naf-bench", ("wfs44",), str(tmp_path / "cache"), repo_id="ORG/naf-bench")
    snapshot = tmp_path / "hub" / "datasets--ORG--naf-bench" / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    shutil.copy(folder / "eval.yaml", snapshot / "eval.yaml")
    (snapshot.parents[1] / "refs").mkdir()
    (snapshot.parents[1] / "refs" / "main").write_text("0" * 40)
    caches = {"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_DATASETS_CACHE": str(tmp_path / "cache")}
    inspect_cli(
        "eval",
        "hf/ORG/naf-bench",
        "--model",
        "openai-api/stub/stub",
        "--temperature",
        "0",
        "--max-tokens",
        "2048",
        "--log-dir",
        "logs",
        "--display",
        "none",
        cwd=tmp_path,
        env=caches,
    )
    (info,) = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info)
    rows = [row for row in _rows(folder) if row["condition"] == "wfs"]
    assert len(log.samples) == len(rows) == 44  # the rows with gold: wfs44's none rows have none
    sent = sorted(r["messages"][0]["content"] for r in stub.requests)  # inspect runs samples concurrently
    assert sent == sorted(row["prompt"] for row in rows) and {len(r["messages"]) for r in stub.requests} == {1}
    assert {(r["temperature"], r["max_tokens"]) for r in stub.requests} == {(0.0, 2048)}
    # the pattern scorer reads the strict extractor's ANSWER line: the same letter wherever the response has one
    answers = {s.metadata["id"]: s.scores["pattern"].answer for s in log.samples}
    for row in rows:
        text = response_for(row["prompt"])
        if "ANSWER" in text:
            assert answers[row["id"]] == extract_answer(text, "strict")
    right = sum(answers[row["id"]] == row["gold"] for row in rows)
    assert log.results.scores[0].metrics["accuracy"].value == right / 44


def _rows(folder):
    import datasets

    return datasets.load_dataset(str(folder), "wfs44")["test"].to_list()
