"""The lm-eval tasks: the real lm_eval command line on a tiny model built here, and exact scores of canned
responses through the tasks' own filters, process_results and aggregations."""

import importlib.util
import json
import math
import re
from pathlib import Path

import pytest

from naf_bench import Certificate, parse_program
from naf_bench.data.rows import build_rows
from naf_bench.generate.config import get_config
from naf_bench.verbalize.trace import render_gold_trace

pytest.importorskip("lm_eval")
ROOT = Path(__file__).parents[2]
TASKS = ["naf_bench", "naf_bench_hard", "naf_bench_cred", "naf_bench_order", "naf_bench_framing", "naf_bench_zh",
         "naf_bench_sweep", "naf_bench_wfs44", "naf_bench_wfs44_verify", "naf_bench_wfs44_t2s", "naf_bench_traced",
         "naf_bench_mc", "naf_bench_mc_order", "naf_bench_joint_prompt"]  # fmt: skip
FILTERS = ("strict-match", "flexible-extract")


@pytest.fixture(scope="module")
def utils():
    spec = importlib.util.spec_from_file_location("naf_bench_task_utils", ROOT / "lm_eval_tasks/naf_bench/utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows():
    """Named-condition rows of 4 programs (one per divergence bin)."""
    return [r for r in build_rows(get_config("main", programs_per_cell=1))["test"] if r["condition"] != "none"]


@pytest.fixture(scope="module")
def run(tmp_path_factory, build_tiny_lm, lm_eval):
    """Every task, 2 documents each, on a random tiny model: (results, samples by task, stderr)."""

    folder = tmp_path_factory.mktemp("lm_eval")
    build_tiny_lm(folder / "tiny")
    done = lm_eval(
        "--model",
        "hf",
        "--model_args",
        f"pretrained={folder / 'tiny'}",
        "--tasks",
        ",".join(TASKS),
        "--limit",
        "2",
        "--gen_kwargs",
        "max_gen_toks=4",
        "--device",
        "cpu",
        "--output_path",
        str(folder / "out"),
        "--log_samples",
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(next((folder / "out").rglob("results_*.json")).read_text())["results"]
    samples = {}
    for path in (folder / "out").rglob("samples_*.jsonl"):
        task = re.match(r"samples_(.+)_\d{4}-", path.name).group(1)
        samples[task] = [json.loads(line) for line in path.read_text().splitlines()]
    return results, samples, done.stderr


def test_tasks_are_listed(tmp_path, lm_eval):
    done = lm_eval("ls", "tasks", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in (*TASKS, "naf_bench_none", "naf_bench_joint", "naf_bench_wfs", "naf_bench_hard_cred"):
        assert f"|{name} " in done.stdout, name


def test_every_task_runs_with_both_filters(run):
    results, samples, _ = run
    generative = set(TASKS) - {"naf_bench", "naf_bench_hard", "naf_bench_mc", "naf_bench_mc_order"}
    generative |= {"naf_bench_none", "naf_bench_joint", "naf_bench_hard_none", "naf_bench_hard_joint"}
    assert generative | {"naf_bench_mc", "naf_bench_mc_order"} <= set(results)
    for task in generative - {"naf_bench_traced", "naf_bench_wfs44_t2s", "naf_bench_joint_prompt"}:
        for name in FILTERS:
            assert f"coverage,{name}" in results[task] and f"coverage_stderr,{name}" in results[task], (task, name)
        for sample in samples[task]:  # filtered_resps: a letter per prompt, or lm-eval's "[invalid]"
            assert sample["filter"] in FILTERS
            assert all(letter in ("A", "B", "C", "[invalid]") for letter in sample["filtered_resps"]), sample
    assert {"acc,strict-match", "acc,flexible-extract", "constant_C,strict-match"} <= set(results["naf_bench_cred"])
    assert {"joint", "acc", "acc_closed_world", "acc_cred", "acc_skept", "acc_wfs"} <= {
        key.split(",")[0] for key in results["naf_bench_joint"]
    }
    assert "flip_rate,flexible-extract" in results["naf_bench_order"]
    assert "flip_rate,flexible-extract" in results["naf_bench_framing"]
    assert {"acc_depth_16,strict-match", "acc_width_0,flexible-extract"} <= set(results["naf_bench_sweep"])
    assert set(results["naf_bench_wfs44_t2s"]) >= {"acc,strict-match"}
    assert {"acc,none", "proof_accuracy,none", "rfwr,none", "parsed,none"} <= set(results["naf_bench_traced"])
    assert {"joint,none", "acc_wfs,none", "coverage,none"} <= set(results["naf_bench_joint_prompt"])
    for task, metrics in results.items():
        for name, value in metrics.items():
            if isinstance(value, float) and "stderr" not in name and not math.isnan(value):
                assert value <= 1.0 and (value >= 0.0 or name.startswith("rho_")), (task, name, value)


def test_one_generation_per_prompt(run):
    _, samples, _ = run
    for name in FILTERS:  # naf_bench: 2 documents of C0 and 2 programs x 4 named readings
        prompts = [
            a["arg_0"]
            for task in ("naf_bench_none", "naf_bench_joint")
            for s in samples[task]
            if s["filter"] == name
            for a in s["arguments"].values()
        ]
        assert len(prompts) == 2 * 5 and len(set(prompts)) == 10
    joint = [s for s in samples["naf_bench_joint"] if s["filter"] == "strict-match"]
    conditions = [[row["condition"] for row in s["doc"]["rows"]] for s in joint]
    assert conditions == [["closed_world", "cred", "skept", "wfs"]] * 2
    assert all("Use the well-founded semantics" in s["arguments"]["gen_args_3"]["arg_0"] for s in joint)


def test_multiple_choice_task(run):
    results, samples, _ = run
    mc, order = results["naf_bench_mc"], results["naf_bench_mc_order"]
    assert {"acc,none", "acc_norm,none", "rho_certified,none", "cacc_inclusion_std,none"} <= set(mc)
    assert not any("invariance" in key for key in mc)  # main has no rule-order or framing variants
    assert "rho_invariance,none" in order and "cacc_invariance_std,none" in order
    for sample in samples["naf_bench_mc"]:
        # the document once (beside lm-eval's three arguments), small metric items: the whole row (~10k
        # characters: certificate, trace, messages) would add far more
        assert len(json.dumps(sample)) < 14_000
        assert set(sample["doc"]) == {"id", "program_id", "condition", "gold", "prompt"}
        assert set(sample["rho_certified"]) == {"id", "program_id", "condition", "gold", "loglikelihoods"}
        arguments = list(sample["arguments"].values())
        assert arguments[0]["arg_0"].endswith("ANSWER:") and "Think step by step" not in arguments[0]["arg_0"]
        assert [a["arg_1"] for a in arguments] == [" A", " B", " C"]


def test_no_warnings_from_our_tasks(run):
    _, _, stderr = run
    warnings = [line for line in stderr.splitlines() if "WARNING" in line]
    ours = [line for line in warnings if "naf_bench" in line or "Custom kwargs" in line or "aggregation" in line]
    assert not ours, ours


def test_undefined_metrics_are_nan(utils):
    assert math.isnan(utils.flip_rate([("p1", "wfs", None), ("p1", "wfs", "A")]))
    assert utils.flip_rate([("p1", "wfs", "A"), ("p1", "wfs", "C"), ("p2", "wfs", "B"), ("p2", "wfs", "B")]) == 0.5
    item = {"id": "x", "program_id": "p", "condition": "wfs", "gold": "C", "loglikelihoods": [-3.0, -2.0, -0.1]}
    assert math.isnan(utils.rho_invariance([item])) and math.isnan(utils.cacc_invariance_std([item]))
    assert utils.cacc_certified([item]) == 1.0 and utils.cacc_certified_std([item]) == 0.0


def test_filters_read_letters(utils):
    responses = [["C. Cannot be determined"], ["Reasoning...\nANSWER: B"], ["So the answer is **A**."], ["Not sure."]]
    assert utils.strict_letters(responses, [{}] * 4) == [["[invalid]"], ["B"], ["[invalid]"], ["[invalid]"]]
    assert utils.flexible_letters(responses, [{}] * 4) == [["C"], ["B"], ["A"], ["[invalid]"]]


def test_canned_responses_give_exact_scores(utils, rows):
    assert len(rows) == 16
    responses = []
    for i, row in enumerate(rows):
        if i % 4 == 0:
            responses.append("I am not sure.")  # unparseable: unanswered
        elif i % 4 == 1:
            responses.append("ANSWER: " + {"A": "B", "B": "C", "C": "A"}[row["gold"]])  # wrong
        else:  # correct, with the certified gold trace
            responses.append(render_gold_trace(parse_program(row["program"]), _certificate(row), row["condition"]))
    letters = [letter for (letter,) in utils.strict_letters([[r] for r in responses], rows)]
    programs = [rows[k : k + 4] for k in range(0, 16, 4)]
    per_program = [utils.process_program({"rows": rows[k : k + 4]}, letters[k : k + 4]) for k in range(0, 16, 4)]
    assert [d["acc"] for d in per_program] == [0.5] * 4 and [d["coverage"] for d in per_program] == [0.75] * 4
    assert [d["joint"] for d in per_program] == [False] * 4  # every program has a wrong or missing reading
    assert [d["acc_closed_world"] for d in per_program] == [False] * 4
    assert [d["acc_wfs"] for d in per_program] == [True] * 4
    perfect = [utils.process_program({"rows": p}, [row["gold"] for row in p]) for p in programs]
    assert all(d["joint"] for d in perfect)
    per_row = [utils.process_results(row, [letter]) for row, letter in zip(rows, letters, strict=True)]
    assert sum(d["acc"] for d in per_row) == 8 and sum(d["coverage"] for d in per_row) == 12
    gold = [row["gold"] for row in rows]
    assert sum(d["constant_C"] for d in per_row) == gold.count("C")
    program = "```\n" + rows[0]["program"] + "QUERY: q\n```"
    assert utils.translated_letters([[program], ["q :- X."]], rows[:2]) == [[rows[0]["gold"]], ["[invalid]"]]


def test_traced_scores_the_models_own_trace(utils, rows):
    row = rows[3]
    gold_trace = render_gold_trace(parse_program(row["program"]), _certificate(row), row["condition"])
    assert utils.process_traced(row, [gold_trace]) == {
        "acc": True,
        "proof_accuracy": True,
        "rfwr": False,
        "parsed": True,
        "valid": True,
        "linear": True,
        "connects": True,
    }
    bare = utils.process_traced(row, [f"ANSWER: {row['gold']}"])
    assert bare["acc"] and bare["rfwr"] and not bare["proof_accuracy"]
    prompt = utils.traced_prompt(row)
    assert "Think step by step" not in prompt and "Step 1: " in prompt and prompt.endswith("ANSWER: A")


def test_joint_prompt_scores_as_the_joint_reward(utils, rows):
    from naf_bench.training.rewards import joint_reward

    doc = {"rows": rows[:4]}  # one program's four readings
    golds = {row["condition"]: row["gold"] for row in doc["rows"]}
    right = "\n".join(f"{condition} ANSWER: {gold}" for condition, gold in golds.items())
    wrong = right.replace(f"wfs ANSWER: {golds['wfs']}", "wfs ANSWER: " + {"A": "B", "B": "C", "C": "A"}[golds["wfs"]])
    prompt = utils.joint_prompt(doc)
    assert all(f"'{condition} ANSWER: X'" in prompt for condition in golds) and rows[0]["program"] not in prompt
    for text, solved in ((right, True), (wrong, False), ("ANSWER: A", False)):
        scores = utils.process_joint_prompt(doc, [text])
        joint_row = {"condition": "joint", "labels": json.loads(rows[0]["certificate"])["labels"]}
        assert scores["joint"] is solved and joint_reward(
            completions=[text], **{k: [v] for k, v in joint_row.items()}
        ) == [float(solved)]
    assert (
        utils.process_joint_prompt(doc, [wrong])["acc"] == 0.75
        and not utils.process_joint_prompt(doc, [wrong])["acc_wfs"]
    )


def test_sweep_reports_accuracy_by_depth_and_width(utils):
    doc = {"gold": "B", "depth": 8, "width": 0}
    scores = utils.process_sweep(doc, ["B"])
    assert scores["acc_depth_8"] is True and scores["acc_width_0"] is True
    assert math.isnan(scores["acc_depth_2"]) and math.isnan(scores["acc_width_8"])


def _certificate(row):
    return Certificate.from_json(row["certificate"])
