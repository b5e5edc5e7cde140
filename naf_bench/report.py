"""Reports from result records, scored submissions, or lm-eval output folders: markdown plus PNG plots
(accuracy by bin x semantics, JOINT with program-clustered intervals beside the baselines, flip rates,
histograms of rho as in seed 002's Figure 3)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from naf_bench.evaluation import score_rows
from naf_bench.scoring.consistency import compute_consistency
from naf_bench.scoring.constraints import constraints_of_samples
from naf_bench.scoring.labels import JOINT_CONDITIONS, LETTERS

FIGSIZE, DPI = (10, 4), 100  # every plot is 1000 x 400 pixels
# Mitigation runs reuse the main documents (same ids): each is its own record, never merged into the main scores.
MITIGATION_TASKS = ("naf_bench_t2s", "naf_bench_verify")


def load_results(paths, extractor: str = "strict") -> list[dict]:
    """Result records from JSON files (one record or a list) and lm-eval output folders (samples_*.jsonl)."""
    records = []
    for path in map(Path, paths):
        if path.is_dir():
            records.extend(_from_lm_eval(path, extractor))
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
            records.extend(data if isinstance(data, list) else [data])
    return records


def _from_lm_eval(folder: Path, extractor: str = "strict") -> list[dict]:
    by_model: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for samples in sorted(folder.rglob("samples_*.jsonl")):
        task = samples.name[len("samples_") :].rsplit("_", 1)[0]
        results = next(samples.parent.glob("results_*.json"), None)
        model = json.loads(results.read_text())["config"].get("model_args", "model") if results else "model"
        by_model[_model_name(model)][task].extend(json.loads(line) for line in samples.read_text().splitlines() if line)
    records = []
    for name, tasks in by_model.items():
        apart = ("naf_bench_mc", *MITIGATION_TASKS)
        record = _scored(name, [s for task, items in tasks.items() if task not in apart for s in items], extractor)
        if "naf_bench_order" in tasks:
            record["flip_rate"] = _flip_rate(tasks["naf_bench_order"])
        if "naf_bench_mc" in tasks:
            record["rho"] = _rho(tasks["naf_bench_mc"])
        records.append(record)
        for task in MITIGATION_TASKS:
            if task in tasks:
                mitigation = _scored(f"{name} [{task.removeprefix('naf_bench_')}]", tasks[task], extractor, task)
                records.append(mitigation)
    return records


def _scored(name: str, samples: list[dict], extractor: str, task: str | None = None) -> dict:
    """A result record of lm-eval samples; a translate-then-solve run is read by solving its translations."""
    rows = {s["doc"]["id"]: s["doc"] for s in samples if s["doc"].get("gold")}
    if not rows:
        return {"name": name}
    if task == "naf_bench_t2s":
        from naf_bench.verbalize.mitigation import answer_from_translation

        translated = [(s["doc"], answer_from_translation(s["resps"][0][0], s["doc"]["condition"])) for s in samples]
        predictions = {doc["id"]: {"prediction": answer.letter or ""} for doc, answer in translated}
    else:
        predictions = {s["doc"]["id"]: {"prediction": s["resps"][0][0]} for s in samples}
    return score_rows(list(rows.values()), predictions, name, extractor=extractor)


def _model_name(model_args) -> str:
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part) or {
            "pretrained": model_args
        }
    return model_args.get("gguf_file") or Path(str(model_args.get("pretrained", "model"))).name


def _flip_rate(samples) -> float | None:
    from naf_bench.scoring.labels import compute_label_metrics

    scores = compute_label_metrics(
        [s["resps"][0][0] for s in samples], [s["doc"]["gold"] for s in samples],
        conditions=[s["doc"]["condition"] for s in samples], program_ids=[s["doc"]["program_id"] for s in samples],
        variants=[s["doc"]["order_id"] for s in samples], n_bootstrap=0,
    )  # fmt: skip
    return scores.get("flip_rate")


def _rho(samples) -> list[float]:
    import math

    pairs = [(s["doc"], {x: {"p": math.exp(float(r[0][0]))} for x, r in zip(LETTERS, s["resps"], strict=True)})
             for s in samples]  # fmt: skip
    constraints = constraints_of_samples(pairs)
    if not constraints:
        return []
    return compute_consistency([f for _, f, _ in constraints], [e for _, _, e in constraints])["rho"]


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
    return "–" if value is None else f"{100 * value:.1f}"


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
    flips = [r for r in records if r.get("flip_rate") is not None]
    if flips:
        lines += [
            "",
            "Flip rate across rule orders: " + ", ".join(f"{r['name']} {_percent(r['flip_rate'])}" for r in flips),
        ]
    for title, name in plots:
        lines += ["", f"## {title}", "", f"![{title}]({name})"]
    return "\n".join(lines) + "\n"
