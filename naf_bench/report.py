"""Reports from result records, scored submissions, or lm-eval output folders: markdown plus PNG plots
(accuracy by bin x semantics, JOINT with program-clustered intervals beside the baselines, flip rates,
histograms of rho as in seed 002's Figure 3)."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

from naf_bench.evaluation import score_rows
from naf_bench.scoring.consistency import compute_consistency
from naf_bench.scoring.constraints import constraints_of_samples
from naf_bench.scoring.labels import JOINT_CONDITIONS

FIGSIZE, DPI = (10, 4), 100  # every plot is 1000 x 400 pixels
# Mitigation runs reuse the main documents (same ids): each is its own record, never merged into the main scores.
MITIGATION_TASKS = ("naf_bench_wfs44_verify", "naf_bench_wfs44_t2s")


def load_results(paths) -> list[dict]:
    """Result records from JSON files (one record or a list) and lm-eval output folders (samples_*.jsonl)."""
    records = []
    for path in map(Path, paths):
        if path.is_dir():
            records.extend(_from_lm_eval(path))
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
            records.extend(data if isinstance(data, list) else [data])
    return records


# lm-eval filter -> the extractor it applies (lm_eval_tasks/naf_bench/utils.py)
FILTERS = {"strict-match": "strict", "flexible-extract": "flexible"}
MC_METRICS = ("acc", "rho_certified", "cacc_certified", "rho_one_letter", "cacc_one_letter", "rho_inclusion",
              "cacc_inclusion")  # fmt: skip


def _from_lm_eval(folder: Path) -> list[dict]:
    by_model: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    metrics: dict[str, dict] = defaultdict(dict)
    for samples in sorted(folder.rglob("samples_*.jsonl")):
        task = samples.name[len("samples_") :].rsplit("_", 1)[0]
        results = next(samples.parent.glob("results_*.json"), None)
        data = json.loads(results.read_text()) if results else {}
        name = _model_name(data.get("config", {}).get("model_args", "model"))
        metrics[name].update(data.get("results", {}))
        by_model[name][task].extend(json.loads(line) for line in samples.read_text().splitlines() if line)
    records = []
    for name, tasks in by_model.items():
        main = {task: items for task, items in tasks.items() if task not in MITIGATION_TASKS}
        for filter_name, extractor in FILTERS.items():
            label = f"{filter_name}: {name}"  # the filter first: the command line shows 30 characters
            record = _scored(label, main.values(), filter_name, extractor)
            flip_rate = metrics[name].get("naf_bench_order", {}).get(f"flip_rate,{filter_name}")
            record["flip_rate"] = None if flip_rate is None or math.isnan(flip_rate) else flip_rate
            records.append(record)
        if "naf_bench_mc" in tasks:
            mc = metrics[name].get("naf_bench_mc", {})
            records[-2]["mc"] = {"model": name} | {key: mc.get(f"{key},none") for key in MC_METRICS}
            records[-2]["rho"] = _rho(tasks["naf_bench_mc"])
        for task in MITIGATION_TASKS:
            for filter_name, extractor in FILTERS.items():
                if any(s["filter"] == filter_name for s in tasks.get(task, ())):
                    label = f"{filter_name}: {name} [{task.removeprefix('naf_bench_')}]"
                    records.append(_scored(label, [tasks[task]], filter_name, extractor, task))
    return records


def _scored(name: str, runs, filter_name: str, extractor: str, task: str | None = None) -> dict:
    """A result record of the samples under one filter; a translate-then-solve run is read by solving its
    translations."""
    prompts = [pair for items in runs for s in items if s["filter"] == filter_name for pair in _prompts(s)]
    rows = {row["id"]: row for row, _ in prompts if row.get("gold")}
    if not rows:
        return {"name": name}
    if task == "naf_bench_wfs44_t2s":
        from naf_bench.verbalize.mitigation import answer_from_translation

        answers = {row["id"]: answer_from_translation(response, row["condition"]) for row, response in prompts}
        predictions = {key: {"prediction": answer.letter or ""} for key, answer in answers.items()}
    else:
        predictions = {row["id"]: {"prediction": response} for row, response in prompts}
    return score_rows(list(rows.values()), predictions, name, extractor=extractor)


def _prompts(sample) -> list[tuple[dict, str]]:
    """(row, response) of each prompt of a logged sample (a program document holds one row per prompt)."""
    rows = sample["doc"].get("rows", [sample["doc"]])
    return [(row, response[0]) for row, response in zip(rows, sample["resps"], strict=True)]


def _model_name(model_args) -> str:
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part) or {
            "pretrained": model_args
        }
    return model_args.get("gguf_file") or Path(str(model_args.get("pretrained", "model"))).name


def _rho(samples) -> list[float]:
    """Per-constraint ρ of the multiple-choice task, nucleus-entropy calibrated at top-p 0.95."""
    from naf_bench.scoring.lm import option_events

    items = [s["rho_certified"] for s in samples]
    pairs = [(item, option_events(item["loglikelihoods"], 0.95)) for item in items]
    constraints = constraints_of_samples(pairs)
    if not constraints:
        return []
    formulas, events = [f for _, f, _ in constraints], [e for _, _, e in constraints]
    return compute_consistency(formulas, events, calibration="nucleus_entropy")["rho"]


def write_report(records: list[dict], out: str | Path) -> Path:
    """``report.md`` and the PNG plots in ``out``; returns the markdown path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plots = []
    with_cells = [r for r in records if r.get("by_bin_semantics")]
    if with_cells:
        bins = sorted({b for r in with_cells for b in r["by_bin_semantics"]})
        columns = [(b, c) for b in bins for c in JOINT_CONDITIONS]
        matrix = [[r["by_bin_semantics"].get(b, {}).get(c, float("nan")) for b, c in columns] for r in with_cells]
        figure, axis = plt.subplots(figsize=FIGSIZE, dpi=DPI)
        axis.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn", aspect="auto")
        axis.set_xticks(range(len(columns)), [f"{b}\n{c}" for b, c in columns], rotation=90, fontsize=6)
        axis.set_yticks(range(len(with_cells)), [r["name"][:28] for r in with_cells], fontsize=7)
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                if value == value:  # not NaN
                    axis.text(j, i, f"{100 * value:.0f}", ha="center", va="center", fontsize=5)
        figure.tight_layout()
        plots.append(_save(figure, out / "accuracy_by_bin.png", "Accuracy (%) by divergence bin x semantics"))
    if any(r.get("joint") is not None for r in records):
        figure, axis = plt.subplots(figsize=FIGSIZE, dpi=DPI)
        shown = [r for r in records if r.get("joint") is not None]
        values = [r["joint"] for r in shown]
        errors = [
            [v - (r.get("joint_ci95") or (v, v))[0] for v, r in zip(values, shown, strict=True)],
            [(r.get("joint_ci95") or (v, v))[1] - v for v, r in zip(values, shown, strict=True)],
        ]
        axis.bar(range(len(shown)), values, yerr=errors, capsize=3, color="tab:blue")
        axis.set_xticks(range(len(shown)), [r["name"][:20] for r in shown], rotation=30, fontsize=7)
        axis.set_ylim(0, 1)
        axis.set_ylabel("JOINT")
        figure.tight_layout()
        plots.append(_save(figure, out / "joint.png", "JOINT with 95% program-clustered intervals"))
    if any(r.get("flip_rate") is not None for r in records):
        figure, axis = plt.subplots(figsize=FIGSIZE, dpi=DPI)
        shown = [r for r in records if r.get("flip_rate") is not None]
        axis.bar(range(len(shown)), [r["flip_rate"] for r in shown], color="tab:orange")
        axis.set_xticks(range(len(shown)), [r["name"][:20] for r in shown], rotation=30, fontsize=7)
        axis.set_ylim(0, 1)
        axis.set_ylabel("flip rate across rule orders")
        figure.tight_layout()
        plots.append(_save(figure, out / "flip_rate.png", "Flip rates"))
    if any(r.get("rho") for r in records):
        figure, axis = plt.subplots(figsize=FIGSIZE, dpi=DPI)
        for record in records:
            if record.get("rho"):
                axis.hist(record["rho"], bins=20, range=(-1, 1), alpha=0.6, label=record["name"][:20])
        axis.set_xlabel("rho (probabilistic consistency)")
        axis.legend(fontsize=7)
        figure.tight_layout()
        plots.append(_save(figure, out / "rho.png", "rho histograms (ModelLog)"))
    report = out / "report.md"
    report.write_text(_markdown(records, plots), encoding="utf-8")
    return report


def _save(figure, path: Path, title: str) -> tuple[str, str]:
    import matplotlib.pyplot as plt

    figure.savefig(path)
    plt.close(figure)
    return title, path.name


def _percent(value) -> str:
    return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def _markdown(records: list[dict], plots) -> str:
    lines = ["# NAF-Bench report", "", "| model / baseline | JOINT | 95% CI | per-prompt acc. | coverage | "
             + " | ".join(JOINT_CONDITIONS) + " |", "|---" * (5 + len(JOINT_CONDITIONS)) + "|"]  # fmt: skip
    for r in records:
        ci = r.get("joint_ci95")
        interval = f"{_percent(ci[0])}–{_percent(ci[1])}" if ci else "–"
        per = [_percent(r.get("per_semantics", {}).get(c)) for c in JOINT_CONDITIONS]
        cells = [r["name"], _percent(r.get("joint")), interval, _percent(r.get("per_prompt_accuracy")),
                 _percent(r.get("coverage")), *per]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    traced = [r for r in records if r.get("traces")]
    if traced:
        lines += ["", "| model / baseline | proof accuracy | right for the wrong reason | reasoned soundly |",
                  "|---|---|---|---|"]  # fmt: skip
        lines += [
            f"| {r['name']} | {_percent(r['traces']['proof_accuracy'])} | {_percent(r['traces']['rfwr'])} | "
            f"{_percent(r['traces']['reasoned_soundly'])} |"
            for r in traced
        ]
    with_mc = [r for r in records if r.get("mc")]
    if with_mc:
        header = "| model (multiple choice, %) | " + " | ".join(MC_METRICS) + " |"
        lines += ["", header, "|---" * (1 + len(MC_METRICS)) + "|"]
        for r in with_mc:
            lines.append(f"| {r['mc']['model']} | " + " | ".join(_percent(r["mc"][key]) for key in MC_METRICS) + " |")
    flips = [r for r in records if r.get("flip_rate") is not None]
    if flips:
        lines += [
            "",
            "Flip rate across rule orders: " + ", ".join(f"{r['name']} {_percent(r['flip_rate'])}" for r in flips),
        ]
    for title, name in plots:
        lines += ["", f"## {title}", "", f"![{title}]({name})"]
    return "\n".join(lines) + "\n"
