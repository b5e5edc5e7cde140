"""naf-bench's inspect_ai tasks driven through inspect's own eval() against a logging OpenAI-compatible stub."""

import math

import pytest

from naf_bench.integrations.tasks import prompt_text, task_documents, task_rows, task_spec, task_specs
from naf_bench.scoring.core import score
from naf_bench.scoring.extract import extract_answer

pytestmark = pytest.mark.harness  # inspect_ai, lighteval: see conftest.py


def run(name, tmp_path, **task_args):
    """inspect's eval() of the task function the entry point registers (in this process, whose path starts at the
    checkout: inspect names the task ``naf_bench/<name>`` where the package is installed, as the CLI test shows)."""
    from inspect_ai import eval as inspect_eval

    from naf_bench.integrations import inspect as registered

    (log,) = inspect_eval(
        getattr(registered, name)(**task_args),
        model="openai-api/stub/stub",
        log_dir=str(tmp_path),
        display="none",
        max_connections=1,
    )
    assert log.status == "success", log.error
    return log


def test_every_generative_lm_eval_task_is_an_inspect_task():
    from naf_bench.integrations import inspect as registered

    names = set(task_specs())
    assert {"naf_bench_joint", "naf_bench_none", "naf_bench_traced", "naf_bench_wfs44_t2s"} <= names
    assert not {"naf_bench_mc", "naf_bench_mc_order"} & names  # log-probability tasks stay lm-eval's
    assert all(callable(getattr(registered, name, None)) for name in names)


def test_every_task_files_prompt_and_scoring_has_an_entry():
    """A task added to the lm-eval folder with a new prompt writer or scoring function names what is missing."""
    from naf_bench.integrations.inspect import TASK_METRICS
    from naf_bench.integrations.tasks import PROMPTS

    specs = task_specs().values()
    assert sorted({s.prompt for s in specs} - set(PROMPTS)) == []
    assert sorted({s.results for s in specs} - set(TASK_METRICS)) == []


def test_joint_through_the_inspect_command(stub, tmp_path, inspect_cli, response_for):
    from inspect_ai.log import list_eval_logs, read_eval_log

    inspect_cli(
        "eval",
        "naf_bench/naf_bench_joint",
        "--model",
        "openai-api/stub/stub",
        "-T",
        "limit=16",
        "--log-dir",
        str(tmp_path / "logs"),
        "--display",
        "none",
        "--max-connections",
        "1",
        cwd=tmp_path,
        env={},
    )
    (info,) = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info)
    assert log.eval.task == "naf_bench/naf_bench_joint"
    spec = task_spec("naf_bench_joint")
    rows = task_rows(spec).select(range(16)).to_list()
    # the stub saw lm-eval's prompt and generation settings, one user turn per row
    sent = sorted(r["messages"][0]["content"] for r in stub.requests)  # inspect runs samples concurrently
    assert sent == sorted(row["prompt"] for row in rows) and {len(r["messages"]) for r in stub.requests} == {1}
    assert {r["temperature"] for r in stub.requests} == {0.0}
    assert {r["max_tokens"] for r in stub.requests} == {2048}
    # each sample's metadata is its row: the viewer shows program, reading and bin
    first = log.samples[0]
    assert (first.id, first.metadata["program_id"], first.metadata["condition"], first.metadata["family"]) == (
        rows[0]["id"],
        rows[0]["program_id"],
        rows[0]["condition"],
        rows[0]["family"],
    )
    # the metrics are the scoring core's on the letters its default extractor reads from the stub's responses
    answers = {row["id"]: extract_answer(response_for(row["prompt"]), "strict") for row in rows}
    expected = score(rows, {row["id"]: response_for(row["prompt"]) for row in rows})
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    right = [answers[row["id"]] == row["gold"] for row in rows]
    assert metrics["accuracy"] == pytest.approx(sum(right) / 16)
    assert metrics["coverage"] == pytest.approx(sum(a is not None for a in answers.values()) / 16)
    assert metrics["joint"] == pytest.approx(expected.joint())
    low, high = expected.intervals(["joint"], cluster="program")["joint"]
    assert (metrics["joint_low"], metrics["joint_high"]) == pytest.approx((low, high))
    for reading in ("closed_world", "cred", "skept", "wfs"):
        ours = [r for row, r in zip(rows, right, strict=True) if row["condition"] == reading]
        assert metrics[f"acc_{reading}"] == pytest.approx(sum(ours) / len(ours))
    assert [s.scores["naf_bench_scorer"].answer or None for s in log.samples] == [answers[r["id"]] for r in rows]


def test_task_options_config_split_extractor(stub, tmp_path, response_for):
    log = run("naf_bench_none", tmp_path, config="hard", split="validation", extractor="flexible", limit=6)
    rows = task_rows(task_spec("naf_bench_none"), "hard", "validation").select(range(6)).to_list()
    assert [s.id for s in log.samples] == [row["id"] for row in rows]
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    letters = [extract_answer(response_for(row["prompt"]), "flexible") for row in rows]
    assert metrics["answer_A"] == pytest.approx(letters.count("A") / 6)
    assert metrics["coverage"] == pytest.approx(sum(x is not None for x in letters) / 6)


def test_traced_prompt_and_proofs(stub, tmp_path):
    log = run("naf_bench_traced", tmp_path, limit=2)
    rows = task_rows(task_spec("naf_bench_traced")).select(range(2)).to_list()
    sent = sorted(r["messages"][0]["content"] for r in stub.requests)
    assert sent == sorted(prompt_text(task_spec("naf_bench_traced"), row) for row in rows)
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert metrics["proof_accuracy"] == 0.0  # the stub writes no trace in the grammar
    assert not math.isnan(metrics["accuracy"])


def test_a_wrong_option_is_one_line(tmp_path):
    from naf_bench.errors import ConfigError
    from naf_bench.integrations.inspect import naf_bench_task

    with pytest.raises(ConfigError, match="no extractor 'loose'"):
        naf_bench_task("naf_bench_joint", extractor="loose")
    with pytest.raises(ConfigError, match="no split 'train'"):
        naf_bench_task("naf_bench_joint", split="train")


def test_joint_prompt_one_sample_per_program(stub, tmp_path, joint_letters):
    """naf_bench_joint_prompt as lm-eval runs it: one JOINT prompt per program, its answer lines read per reading."""
    log = run("naf_bench_joint_prompt", tmp_path, limit=4)
    spec = task_spec("naf_bench_joint_prompt")
    documents = task_documents(spec).select(range(4)).to_list()
    assert [s.id for s in log.samples] == [doc["program_id"] for doc in documents]
    prompts = [prompt_text(spec, doc) for doc in documents]
    assert sorted(r["messages"][0]["content"] for r in stub.requests) == sorted(prompts)  # one request a program
    assert all("wfs ANSWER: X" in prompt for prompt in prompts)
    # every gold is A: the stub states all four of the first program right, one of the second's (cred), none of
    # the third's (all B) or the fourth's (C, two readings unanswered)
    stated = [joint_letters(prompt) for prompt in prompts]
    assert [s.scores["naf_bench_scorer"].metadata["answers"] for s in log.samples] == stated
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert (metrics["joint"], metrics["accuracy"], metrics["coverage"]) == (0.25, 0.3125, 0.875)
    assert {r: metrics[f"acc_{r}"] for r in ("closed_world", "cred", "skept", "wfs")} == {
        "closed_world": 0.25,
        "cred": 0.5,
        "skept": 0.25,
        "wfs": 0.25,
    }
    assert metrics["joint_low"] <= 0.25 <= metrics["joint_high"]
