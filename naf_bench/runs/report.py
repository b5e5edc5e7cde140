"""Reports from result records, scored submissions, or lm-eval output folders: markdown plus PNG plots
(accuracy by bin x semantics, JOINT with program-clustered intervals beside the baselines, flip rates,
histograms of rho as in seed 002's Figure 3)."""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from functools import partial
from pathlib import Path

from naf_bench.errors import DataError
from naf_bench.readings import joint_conditions
from naf_bench.runs.inspect_log import is_inspect_log
from naf_bench.runs.lm_eval_output import MITIGATION_TASKS, read_output_folder
from naf_bench.scoring.consistency import compute_consistency
from naf_bench.scoring.constraints import constraints_of_samples
from naf_bench.scoring.evaluation import run_record, run_scores
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR
from naf_bench.scoring.formatting import percent

WIDTH, HEIGHT, DPI = 10, 4, 100  # a plot is 1000 x 400 pixels, taller when it has more names than fit


def load_results(paths) -> list[dict]:
    """Result records from JSON files (one record or a list), lm-eval output folders (samples_*.jsonl) and inspect
    eval logs (a log, or a folder of them); records of one model (e.g. its generated tasks and its naf_bench_mc
    run) are merged into one."""
    records: dict[str, dict] = {}
    for path in map(Path, paths):
        if path.is_dir():  # an lm-eval output folder, or a folder of inspect logs
            logs = [] if any(path.rglob("samples_*.jsonl")) else sorted(p for p in path.iterdir() if is_inspect_log(p))
            found = _from_inspect(logs) if logs else _from_lm_eval(path)
        else:
            found = _from_inspect([path]) if is_inspect_log(path) else _result_records(path)
        for record in found:
            merged = records.setdefault(record["name"], {})
            merged.update({key: value for key, value in record.items() if value is not None or key not in merged})
    return list(records.values())


def _result_records(path: Path) -> list[dict]:
    """The records of a score or baselines JSON file; a DataError says what the file is when it is not one."""
    from naf_bench.scoring.intake import RESULTS, SUBMISSION_KIND, describe, input_file

    try:
        data = json.loads(input_file(path, RESULTS).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        kind = describe(path)
        if kind == SUBMISSION_KIND:
            raise DataError(
                path,
                f"{kind}, not scores: score it first (naf-bench score {path} --out scores.json), "
                "then report scores.json",
            ) from None
        reason = f"{kind}, not scores" if kind else f"not JSON ({getattr(exc, 'msg', exc)})"
        raise DataError(path, f"{reason}; expected {RESULTS}") from None
    found = data if isinstance(data, list) else [data]
    if not all(isinstance(record, dict) and "name" in record for record in found):
        raise DataError(path, f"JSON without a record's 'name'; expected {RESULTS}")
    return found


# lm-eval filter -> the extractor it applies (lm_eval_tasks/naf_bench/utils.py); the headline is the default's
FILTERS = {"flexible-extract": "flexible", "strict-match": "strict"}
HEADLINE_FILTER = next(name for name, extractor in FILTERS.items() if extractor == DEFAULT_EXTRACTOR)
MC_METRICS = ("acc", "rho_certified", "cacc_certified", "rho_one_letter", "cacc_one_letter", "rho_inclusion",
              "cacc_inclusion")  # fmt: skip


def _from_lm_eval(folder: Path) -> list[dict]:
    by_model: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    metrics: dict[str, dict] = defaultdict(dict)
    documents: dict[str, dict[str, dict]] = defaultdict(dict)  # model -> task -> {"original", "effective"}
    endpoints: dict[str, dict | None] = {}  # model -> what an endpoint run recorded (naf_bench.runs.endpoints)
    prompts: dict[str, str | None] = {}  # model -> how its prompts were formatted (naf-bench run records it)
    for logged in read_output_folder(folder):
        name, task, data = logged.model, logged.task, logged.results
        metrics[name].update(data.get("results", {}))
        endpoints[name] = data.get("config", {}).get("naf_bench_endpoint") or endpoints.get(name)
        prompts[name] = data.get("config", {}).get("naf_bench_prompts") or prompts.get(name)
        by_model[name][task].extend(sample for _, sample in logged.samples)
        if task in data.get("n-samples", {}):
            documents[name][task] = data["n-samples"][task]
    records = []
    for name, tasks in by_model.items():
        main = {task: items for task, items in tasks.items() if task not in MITIGATION_TASKS}
        counts = [documents[name][task] for task in main if task != "naf_bench_mc" and task in documents[name]]
        for filter_name, extractor in FILTERS.items():
            record = _scored(f"{filter_name}: {name}", main.values(), filter_name, extractor)
            flip_rate = metrics[name].get("naf_bench_order", {}).get(f"flip_rate,{filter_name}")
            record["flip_rate"] = None if flip_rate is None or math.isnan(flip_rate) else flip_rate
            if counts:
                record["documents"] = {key: sum(c[key] for c in counts) for key in ("effective", "original")}
            records.append(record)
        headline = records[list(FILTERS).index(HEADLINE_FILTER) - len(FILTERS)]  # the run's own facts sit there
        if endpoints.get(name):
            headline["endpoint"] = _endpoint(endpoints[name])
        if prompts.get(name):
            headline["prompts"] = f"{name}: {prompts[name]}"
        if "naf_bench_mc" in tasks:
            mc = metrics[name].get("naf_bench_mc", {})
            headline["mc"] = {"model": name} | {key: mc.get(f"{key},none") for key in MC_METRICS}
            headline["rho"] = _rho(tasks["naf_bench_mc"])
        for task in MITIGATION_TASKS:
            for filter_name, extractor in FILTERS.items():
                if any(s["filter"] == filter_name for s in tasks.get(task, ())):
                    label = f"{filter_name}: {name} [{task.removeprefix('naf_bench_')}]"
                    records.append(_scored(label, [tasks[task]], filter_name, extractor, task))
    return records


def _endpoint(recorded: dict) -> dict:
    """What the report shows of an endpoint run: URL, served model, settings sent and the tokens reported."""
    counts = [n for docs in recorded["completion_tokens"].values() for per in docs.values() for n in per]
    reported = [n for n in counts if n is not None]
    return {key: recorded[key] for key in ("base_url", "model", "generation_settings")} | {
        "requests": len(counts),
        "completion_tokens": sum(reported),
        "reported": len(reported),
        "prompt_tokens": recorded.get("prompt_tokens"),
    }


def _from_inspect(paths) -> list[dict]:
    """The records of inspect eval logs: per model, one record per extractor (named as lm-eval's filters), and
    a mitigation task's apart, as an lm-eval folder gives them."""
    from naf_bench.runs.inspect_log import read_inspect_log

    by_model: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for path in paths:
        log = read_inspect_log(path)
        by_model[log.model][log.task].extend(log.samples)
    records = []
    for name, tasks in by_model.items():
        main = [pair for task, pairs in tasks.items() if task not in MITIGATION_TASKS for pair in pairs]
        records += [_scored_prompts(f"{f}: {name}", main, extractor) for f, extractor in FILTERS.items()]
        for task in MITIGATION_TASKS:
            if task in tasks:
                records += [
                    _scored_prompts(f"{f}: {name} [{task.removeprefix('naf_bench_')}]", tasks[task], extractor, task)
                    for f, extractor in FILTERS.items()
                ]
    return records


def _scored(name: str, runs, filter_name: str, extractor: str, task: str | None = None) -> dict:
    """A result record of the samples under one filter; a translate-then-solve run is read by solving its
    translations."""
    prompts = [pair for items in runs for s in items if s["filter"] == filter_name for pair in sample_prompts(s)]
    return _scored_prompts(name, prompts, extractor, task)


def _scored_prompts(name: str, prompts: list[tuple[dict, str]], extractor: str, task: str | None = None) -> dict:
    """A result record of (row, response) pairs read with ``extractor``."""
    rows = {row["id"]: row for row, _ in prompts if row.get("gold")}
    if not rows:
        return {"name": name}
    predictions = {row["id"]: {"prediction": response} for row, response in prompts}
    answers = None
    if task == "naf_bench_wfs44_t2s":  # the letter our reader and certifier give each translation
        from naf_bench.scoring.translation import answer_from_translation

        answers = {row["id"]: answer_from_translation(response, row["condition"]).letter for row, response in prompts}
    scores = run_scores(list(rows.values()), predictions, extractor=extractor, answers=answers)
    return run_record(scores, name).to_dict()


def sample_prompts(sample) -> list[tuple[dict, str]]:
    """(row, response) of each prompt of a logged sample (a program document holds one row per prompt)."""
    rows = sample["doc"].get("rows", [sample["doc"]])
    return [(row, response[0]) for row, response in zip(rows, sample["resps"], strict=True)]


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


def limited(record: dict) -> bool:
    """Whether an lm-eval record covers only part of its tasks' documents (``--limit``)."""
    documents = record.get("documents")
    return bool(documents) and documents["effective"] < documents["original"]


def write_report(records: list[dict], out: str | Path) -> Path:
    """``report.md`` and the PNG plots in ``out``; returns the markdown path. Every value is in %, except rho.
    A limited run is shown among the others, marked limited with its document count: it is not comparable with
    a full run, but a first run with ``--limit`` still shows its model in the table and in every plot."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figures = plots(records)
    import matplotlib.pyplot as plt  # after plots() chose the Agg backend

    for _, name, figure in figures:
        figure.savefig(out / name)
        plt.close(figure)
    report = out / "report.md"
    report.write_text(_markdown(records, [(title, name) for title, name, _ in figures]), encoding="utf-8")
    return report


def plots(records: list[dict]) -> list[tuple[str, str, object]]:
    """(title, file name, matplotlib figure) of each plot the records have values for: accuracy by bin, JOINT,
    flip rates, rho. Every record is in each of the first three (a record without the value is labelled, empty)."""
    import matplotlib

    matplotlib.use("Agg")
    drawn = (_accuracy_by_bin(records), _joint(records), _flip_rates(records), _rho_histograms(records))
    return [plot for plot in drawn if plot]


def _accuracy_by_bin(records: list[dict]):
    """A heat map of accuracy per divergence bin x JOINT reading, one line per record (empty where it has no
    cells); None when no record has them."""
    import matplotlib.pyplot as plt

    if not any(r.get("by_bin_semantics") for r in records):
        return None
    bins = sorted({b for r in records for b in r.get("by_bin_semantics") or {}})
    columns = [(b, c) for b in bins for c in joint_conditions()]
    matrix = [
        [100 * (r.get("by_bin_semantics") or {}).get(b, {}).get(c, float("nan")) for b, c in columns] for r in records
    ]
    figure, axis = plt.subplots(figsize=_size(records, extra=1.2), dpi=DPI)  # room for the bins' labels
    image = axis.imshow(matrix, vmin=0, vmax=100, cmap="RdYlGn", aspect="auto")
    figure.colorbar(image, ax=axis, label="accuracy (%)", fraction=0.03, pad=0.01)
    axis.set_xticks(range(len(columns)), [f"{b}\n{c}" for b, c in columns], rotation=90, fontsize=7)
    axis.set_yticks(range(len(records)), [_label(r) for r in records], fontsize=8)
    size = max(6, min(10, 160 // max(len(columns), 1)))
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            if value == value:  # not NaN
                colour = "white" if value < 20 or value > 80 else "black"
                axis.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=size, color=colour)
    figure.tight_layout()
    return "Accuracy (%) by divergence bin x semantics", "accuracy_by_bin.png", figure


def _joint(records: list[dict]):
    """JOINT per record, with its 95% program-clustered interval (none for a limited run)."""
    values = [None if r.get("joint") is None else 100 * r["joint"] for r in records]
    intervals = [
        [100 * x for x in r["joint_ci95"]] if r.get("joint_ci95") and not limited(r) else None for r in records
    ]
    errors = [
        [0 if v is None or i is None else v - i[0] for v, i in zip(values, intervals, strict=True)],
        [0 if v is None or i is None else i[1] - v for v, i in zip(values, intervals, strict=True)],
    ]
    return _bars(
        records,
        values,
        "JOINT (%)",
        "joint.png",
        "JOINT (%) with 95% program-clustered intervals",
        colour="tab:blue",
        errors=errors,
    )


def _flip_rates(records: list[dict]):
    """The flip rate across rule orders per record (n/a where a record has none)."""
    values = [None if r.get("flip_rate") is None else 100 * r["flip_rate"] for r in records]
    return _bars(
        records, values, "flip rate across rule orders (%)", "flip_rate.png", "Flip rates (%)", colour="tab:orange"
    )


def _bars(records: list[dict], values: list, label: str, name: str, title: str, colour: str, errors=None):
    """One horizontal bar per record (a percentage, 0 to 100; "n/a" where it is None), the records' names beside
    them, the first on top; None when no record has a value."""
    import matplotlib.pyplot as plt

    if all(value is None for value in values):
        return None
    figure, axis = plt.subplots(figsize=_size(records), dpi=DPI)
    drawn = [0.0 if value is None else value for value in values]
    axis.barh(range(len(records)), drawn, xerr=errors, capsize=3, color=colour)
    for position, value in enumerate(values):
        if value is None:
            axis.text(1, position, "n/a", va="center", fontsize=7, color="grey")
    axis.set_yticks(range(len(records)), [_label(r) for r in records], fontsize=8)
    axis.invert_yaxis()
    axis.set_xlim(0, 100)
    axis.set_xlabel(label)
    figure.tight_layout()
    return title, name, figure


def _rho_histograms(records: list[dict]):
    """Histograms of rho per constraint, one per record with rho values (seed 002's Figure 3)."""
    import matplotlib.pyplot as plt

    with_rho = [r for r in records if r.get("rho")]
    if not with_rho:
        return None
    figure, axis = plt.subplots(figsize=(WIDTH, HEIGHT), dpi=DPI)
    # rho is at most 1 and may fall below -1 (down to -WMC0 / (1 - WMC0)): the range keeps every value
    low = min(-1.0, *(min(record["rho"]) for record in with_rho))
    for record in with_rho:
        axis.hist(record["rho"], bins=20, range=(low, 1), alpha=0.6, label=_label(record).replace("\n", " "))
    axis.set_xlabel("rho (probabilistic consistency: 1 at best, below 0 worse than the uninformed baseline)")
    axis.set_ylabel("constraints")
    axis.legend(fontsize=7)
    figure.tight_layout()
    return "rho histograms (ModelLog)", "rho.png", figure


def _label(record: dict) -> str:
    """A record's name on a plot, wrapped; a limited run says so."""
    return _wrap(record["name"] + (" (limited)" if limited(record) else ""))


def _size(records: list[dict], extra: float = 0.0) -> tuple[float, float]:
    """A plot's size in inches: 1000 x 400 pixels, taller by a line of two-line names per record beyond what fit."""
    return WIDTH, max(HEIGHT, 0.8 + extra + 0.36 * len(records))


def _wrap(name: str, width: int = 36) -> str:
    """A full name on as many lines as it needs, broken after a space, ``_``, ``-``, ``/`` or ``:`` where it can
    be (a word longer than a line is cut)."""
    lines = [""]
    for part in re.findall(r"[^\s_/:-]*[\s_/:-]*", name):
        while part:
            if lines[-1] and len(lines[-1]) + len(part.rstrip()) > width:
                lines.append("")
            room = width - len(lines[-1])
            lines[-1] += part[:room]
            part = part[room:]
            if part:
                lines.append("")
    return "\n".join(line.rstrip() for line in lines if line.strip())


_percent = partial(percent, missing="–")


def _rho_text(value) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.3f}"


def _mean_rho(record: dict) -> str:
    rho = record.get("rho")
    return _rho_text(sum(rho) / len(rho)) if rho else "–"


def _n(record: dict) -> str:
    documents = record.get("documents")
    if documents:
        return (
            "limited: " if limited(record) else ""
        ) + f"{documents['effective']} of {documents['original']} documents"
    return f"{record['n_prompts']} prompts" if "n_prompts" in record else "–"


def _markdown(records: list[dict], plots) -> str:
    """``report.md`` from its template (``naf_bench/templates/report.md.j2``): the cells are made here, the layout is
    there."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    def endpoint(r: dict) -> str:
        e = r["endpoint"]
        settings = "; ".join(_code(json.dumps(x, sort_keys=True)) for x in e["generation_settings"]) or "none"
        return (
            f"{r['name']}: {_code(e['model'])} at {_code(e['base_url'])}, {e['requests']} requests sent with "
            f"{settings}; {e['completion_tokens']:,} completion tokens reported for {e['reported']} of them, "
            f"{e['prompt_tokens'] or 0:,} prompt tokens"
        )

    environment = Environment(loader=PackageLoader("naf_bench"), keep_trailing_newline=True, undefined=StrictUndefined)
    return environment.get_template("report.md.j2").render(
        columns=[
            "model / baseline",
            "n",
            "JOINT",
            "95% CI",
            "per-prompt acc.",
            "coverage",
            *joint_conditions(),
            "mean ρ (mc)",
        ],
        rows=[_row(r) for r in records],
        limited=any(limited(r) for r in records),
        traced=[
            [r["name"], *(_percent(r["traces"][key]) for key in ("proof_accuracy", "rfwr", "reasoned_soundly"))]
            for r in records
            if r.get("traces")
        ],
        mc_metrics=list(MC_METRICS),
        mc=[
            [
                r["mc"]["model"],
                *(_rho_text(r["mc"][key]) if key.startswith("rho") else _percent(r["mc"][key]) for key in MC_METRICS),
            ]
            for r in records
            if r.get("mc")
        ],
        flips=[f"{r['name']} {_percent(r['flip_rate'])}" for r in records if r.get("flip_rate") is not None],
        endpoints=[endpoint(r) for r in records if r.get("endpoint")],
        prompts=[r["prompts"] for r in records if r.get("prompts")],
        read=[
            f"{r['name']}: `{r['extractor']}`, {r['n_unread']:,} unread"
            for r in records
            if r.get("extractor") and r.get("n_unread") is not None
        ],
        plots=plots,
    )


def _code(text: str) -> str:
    """``text`` as a Markdown code span (a server's text is shown, never read as Markdown or HTML)."""
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def _row(r: dict) -> list[str]:
    ci = r.get("joint_ci95")
    interval = f"{_percent(ci[0])}–{_percent(ci[1])}" if ci and not limited(r) else "–"  # no interval from a few
    per = [_percent(r.get("per_semantics", {}).get(c)) for c in joint_conditions()]
    return [
        r["name"],
        _n(r),
        _percent(r.get("joint")),
        interval,
        _percent(r.get("per_prompt_accuracy")),
        _percent(r.get("coverage")),
        *per,
        _mean_rho(r),
    ]
