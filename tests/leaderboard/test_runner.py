"""The verified track's runner: naf-bench run in a child process on a hidden set's documents, scored by the core,
with nothing of the hidden set in what a team may read."""

import json

import pytest

from naf_bench.data.dataset import task_dataset
from naf_bench.errors import ConfigError
from naf_bench.leaderboard.runner import JobFailed, run_hidden
from naf_bench.leaderboard.secret import new_set

KEY = bytes(range(32))


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hidden")
    new_set(KEY, "main", folder, {"programs_per_cell": 1}, attempts=50)
    return folder


def _rows(hidden):
    return [json.loads(line) for line in (hidden / "gold.jsonl").read_text().splitlines()]


def test_the_tasks_read_a_hidden_set_as_their_documents(hidden):
    dataset = task_dataset("main", ("cred",), str(hidden))
    assert list(dataset) == ["test"]
    assert dataset["test"]["id"] == [row["id"] for row in _rows(hidden) if row["condition"] == "cred"]
    assert len(dataset["test"]) == 4
    with pytest.raises(ConfigError, match="a hidden set drawn like 'main', where the task reads 'hard'"):
        task_dataset("hard", None, str(hidden))


def test_a_model_runs_on_the_hidden_set_and_the_team_sees_only_scores(hidden, tmp_path, build_tiny_lm):
    pytest.importorskip("lm_eval")

    build_tiny_lm(tmp_path / "tiny")
    result = run_hidden(str(tmp_path / "tiny"), hidden, tmp_path / "job", {"limit": 2, "max_gen_toks": 4})
    scores, metadata = result["scores"], result["metadata"]
    # 4 programs x 4 named conditions, scored with the board's extractor; the run answered 2 documents a task
    assert (scores["n_prompts"], scores["joint_solved"][1], scores["extractor"]) == (16, 4, "flexible")
    assert metadata["model_name"] == "tiny"
    assert metadata["temperature"] == 0.0 and metadata["max_tokens"] == 4
    # the run read the hidden documents: its samples hold the hidden ids (in the worker's folder only)
    rows = _rows(hidden)
    answered = [json.loads(line)["id"] for line in (tmp_path / "job" / "submission.jsonl").read_text().splitlines()]
    assert len(answered) == 10 and set(answered) <= {row["id"] for row in rows}  # 2 documents of each task
    shown = json.dumps(result)
    assert not any(row["id"] in shown or row["prompt"][:60] in shown for row in rows)


def test_a_run_that_fails_or_overruns_says_so_without_its_output(hidden, tmp_path):
    with pytest.raises(JobFailed, match=r"naf-bench run ended with exit status 2 \(its log is with the maintainer\)"):
        run_hidden(str(tmp_path / "no-such-model"), hidden, tmp_path / "a")
    assert "no such" in (tmp_path / "a" / "run.log").read_text().lower()
    with pytest.raises(JobFailed, match=r"the run passed its limit of 0\.5 s"):
        run_hidden("smollm2", hidden, tmp_path / "b", timeout=0.5)
