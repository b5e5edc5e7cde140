"""The analyses rendered: ``analysis.md`` (one function per table) and the plots, from the result of
:func:`naf_bench.analysis.tables.analyze`; :func:`write_analysis` writes ``analysis.json`` beside them.
"""

from __future__ import annotations

import json
from pathlib import Path

from naf_bench.analysis.tables import default_readings
from naf_bench.readings import NO_SEMANTICS, answer_letters, letter_of, named_conditions
from naf_bench.scoring.audit import AUDIT_CLASSES
from naf_bench.scoring.formatting import percent, table_header


def _ci(interval) -> str:
    return "" if not interval else f" [{percent(interval[0])}, {percent(interval[1])}]"


def markdown(result: dict) -> str:
    """analysis.md: every table with its counts and baselines, each from its own function below."""
    runs = result["runs"]
    lines = [
        f"# NAF-Bench analysis\n\nGold: `{result['gold']}`; answers read with the `{result['extractor']}` "
        "extractor. Accuracy is over parsed answers (parsed / n); 95% intervals resample whole programs.",
        "",
    ]
    lines += [f"- note: {note}" for note in result["notes"]]
    lines += _table_1(runs) + _table_2(runs) + _table_4(runs) + _table_5(runs) + _tables_9_10(runs)
    lines += _tables_11_13(runs, result.get("audit_floor")) + _size_moderators(runs)
    lines += _render_slices(runs) + _render_regression(result.get("regression"))
    lines += _render_framing(runs) + _render_mitigation(runs)
    return "\n".join(lines) + "\n"


def _table_1(runs: dict) -> list[str]:
    """Table 1: accuracy per semantics, with the constant and majority baselines."""
    lines = [
        "",
        "## Table 1: accuracy per semantics",
        "",
        *table_header(["run", *named_conditions(), "all (parsed)", "strict", "cor."]),
    ]
    for name, r in runs.items():
        cells = [
            f"{percent(c['accuracy'])}{_ci(c['ci95'])} ({c['correct']}/{c['n_parsed']} of {c['n']})"
            if (c := r["per_semantics"].get(k))
            else "–"
            for k in named_conditions()
        ]
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {percent(r['accuracy'])} ({r['n_parsed']}/{r['n_prompts']})"
            f" | {percent(r['strict_accuracy'])} | {percent(r['default_correspondence'])} |"
        )
    if runs:
        first = next(iter(runs.values()))
        for x in (*(f"constant_{x}" for x in answer_letters()), "majority"):
            cells = [
                percent(first["per_semantics"][k]["baselines"].get(x)) if k in first["per_semantics"] else "–"
                for k in named_conditions()
            ]
            lines.append(f"| *{x}* | " + " | ".join(cells) + f" | {percent(first['baselines'].get(x))} | | |")
    return lines


def _table_2(runs: dict) -> list[str]:
    """Table 2: accuracy by divergence bin, with Fisher (and Mann–Whitney) control against divergent."""
    lines = [
        "",
        "## Table 2: accuracy by divergence bin (semantics named)",
        "",
        *table_header(["run", "bin", *named_conditions(), "all", "Fisher control vs divergent"]),
    ]
    for name, r in runs.items():
        fisher = r["fisher"]
        odds = "n/a" if not fisher or fisher["odds_ratio"] is None else f"{fisher['odds_ratio']:.2f}"
        test = f"p = {fisher['p_value']:.2g}, odds ratio {odds}{_mann_whitney(fisher)}" if fisher else "n/a"
        for family, cells in r["by_bin"].items():
            row = [
                f"{percent(c['accuracy'])} ({c['correct']}/{c['n_parsed']})" if (c := cells.get(k)) else "–"
                for k in (*named_conditions(), "all")
            ]
            lines.append(f"| {name} | {family} | " + " | ".join(row) + f" | {test} |")
    return lines


def _table_4(runs: dict) -> list[str]:
    """Table 4: order and framing robustness (flip rates), where a run has flippable groups."""
    lines: list[str] = []
    flips = {n: r["flip_rate"] for n, r in runs.items() if r["flip_rate"]["groups"]}
    if flips:
        lines += [
            "",
            "## Table 4: order / framing robustness",
            "",
            "| run | accuracy (all prompts) | flip | groups | parsed |",
            "|---|---|---|---|---|",
        ]
        for name, f in flips.items():
            r = runs[name]
            lines.append(
                f"| {name} | {percent(r['strict_accuracy'])} | {percent(f['rate'])} ({f['flipped']}) | {f['groups']} "
                f"| {r['n_parsed']}/{r['n_prompts']} |"
            )
    return lines


def _table_5(runs: dict) -> list[str]:
    """Table 5: WFS items whose certified answer is undefined."""
    lines: list[str] = []
    undefined = {n: r["wfs_undefined"] for n, r in runs.items() if r.get("wfs_undefined")}
    if undefined:
        lines += [
            "",
            "## Table 5: WFS items whose certified answer is undefined",
            "",
            "| run | n | parsed | definite (A/B) | abstained (C) | definite share |",
            "|---|---|---|---|---|---|",
        ]
        for n, u in undefined.items():
            share = percent(u["definite_share"])
            lines.append(f"| {n} | {u['n']} | {u['n_parsed']} | {u['definite']} | {u['abstained']} | {share} |")
    return lines


def _tables_9_10(runs: dict) -> list[str]:
    """Tables 9–10: untutored answers by bin, and which reading they agree with."""
    lines: list[str] = []
    defaults = {n: r["default_reading"] for n, r in runs.items() if r.get("default_reading")}
    if defaults:
        lines += [
            "",
            f"## Tables 9–10: untutored answers (condition {NO_SEMANTICS})",
            "",
            *table_header(["run", "bin", *answer_letters(), "unparsed"]),
        ]
        for name, d in defaults.items():
            lines += [
                f"| {name} | {b} | " + " | ".join(str(c[x]) for x in (*answer_letters(), "unparsed")) + " |"
                for b, c in d["by_bin"].items()
            ]
        columns = default_readings()
        lines += [
            "",
            *table_header(["run / baseline", *columns, "best fit", f"{letter_of()['u']} answers naming the cycle"]),
        ]
        for name, d in defaults.items():
            lines.append(
                f"| {name} (of {d['n']}) | "
                + " | ".join(str(d["agreement"][x]) for x in columns)
                + f" | {d['best_fit'] or 'none beats every constant'} | "
                f"{d['earned_c']['cycle_named']}/{d['earned_c']['c_answers']} |"
            )
        first = next(iter(defaults.values()))
        for constant, agreement in first["baselines"].items():
            lines.append(f"| *{constant}* | " + " | ".join(str(agreement[x]) for x in columns) + " | | |")
    return lines


def _tables_11_13(runs: dict, floor: dict | None) -> list[str]:
    """Tables 11–13: the trace audit, with the audit false-positive floor."""
    lines: list[str] = []
    audited = {n: r["audit"] for n, r in runs.items() if r.get("audit")}
    if audited:
        lines += [
            "",
            "## Tables 11–13: trace audit",
            "",
            *table_header(["run", "answer", *AUDIT_CLASSES]),
        ]
        for name, a in audited.items():
            for key, counts in a["by_correctness"].items():
                lines.append(f"| {name} | {key} | " + " | ".join(str(counts[c]) for c in AUDIT_CLASSES) + " |")
        floor_text = (
            (
                f"{percent(floor['rate'])} ({floor['contradicted']}/{floor['auditable']} over {floor['runs']} "
                "run(s) with every answer correct)"
            )
            if floor
            else "n/a (no run answers every prompt correctly)"
        )
        lines += [
            "",
            f"Contradicted among correct auditable answers (audit false-positive floor: {floor_text}):",
            "",
            *table_header(
                [
                    "run",
                    "contradicted / auditable",
                    "rate",
                    *(f"sound {c}" for c in named_conditions()),
                    "cycle registered",
                    "odd: no stable model",
                    "skept-even: >1 model",
                    "skeptical odd: earned / correct",
                ]
            ),
        ]
        for name, a in audited.items():
            c = a["contradicted_among_correct"]
            sound = [
                f"{s['sound']}/{s['auditable']}" if (s := a["sound_by_condition"].get(k)) else "–"
                for k in named_conditions()
            ]
            points = [f"{p['stated']}/{p['n']}" for p in a["checkpoints"].values()]
            odd = a["skeptical_odd"]
            lines.append(
                f"| {name} | {c['contradicted']}/{c['auditable']} | {percent(c['rate'])} | "
                + " | ".join(sound)
                + " | "
                + " | ".join(points)
                + f" | {odd['earned']}/{odd['correct']} |"
            )
    return lines


def _size_moderators(runs: dict) -> list[str]:
    """E3: size moderators (standardised OLS with program-bootstrap intervals)."""
    lines: list[str] = []
    sized = {n: r["size"] for n, r in runs.items() if r.get("size")}
    if sized:
        lines += ["", "## E3: size moderators (standardised OLS, program-bootstrap 95% intervals)", ""]
        for name, s in sized.items():
            coefficients = s["standardised_ols"] or {}
            lines.append(
                f"- {name}: "
                + ", ".join(f"z({k}) = {v:.3f}{_ci(s['ci95'].get(k))}" for k, v in coefficients.items())
                + "; accuracy by depth "
                + ", ".join(f"{k}: {percent(v)}" for k, v in s["accuracy_by"]["depth"].items())
                + "; by width "
                + ", ".join(f"{k}: {percent(v)}" for k, v in s["accuracy_by"]["width"].items())
                + (
                    "; sound traces by depth "
                    + ", ".join(f"{k}: {percent(v)}" for k, v in s["sound_by"]["depth"].items())
                    if "sound_by" in s
                    else ""
                )
            )
    return lines


def _mann_whitney(fisher: dict) -> str:
    test = fisher.get("mann_whitney")
    if not test:
        return ""
    p = "n/a" if test["p_value"] is None else f"{test['p_value']:.2g}"
    return f"; Mann–Whitney p = {p} ({test['n_control']} vs {test['n_divergent']} programs)"


def _counted(c: dict) -> str:
    return f"{percent(c['accuracy'])}{_ci(c['ci95'])} ({c['correct']}/{c['n_parsed']} of {c['n']})"


def _render_slices(runs: dict) -> list[str]:
    """Table 3: accuracy over parsed answers per depth and per width, with the baselines."""
    sliced = {n: r["size"]["cells"] for n, r in runs.items() if r.get("size", {}).get("cells")}
    if not sliced:
        return []
    lines = [
        "",
        "## Table 3: accuracy by depth and by width (over parsed; 95% intervals resample programs)",
        "",
        "The best constant per condition is the condition's most frequent gold letter; where the gold is constant "
        "per condition (the authors' grid: cred A, skept B, wfs C) it scores 100 %, so a flat curve below it is "
        "no evidence of reading the structure.",
        "",
        "| run | axis | value | accuracy | strict | best constant per condition | constant A / B / C |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, cells in sliced.items():
        for axis, values in cells.items():
            for value, c in values.items():
                b = c["baselines"]
                lines.append(
                    f"| {name} | {axis} | {value} | {_counted(c)} | {percent(c['strict_accuracy'])} | "
                    f"{percent(b['best_constant_per_condition'])} | "
                    + " / ".join(percent(b[f"constant_{x}"]) for x in answer_letters())
                    + " |"
                )
    return lines


def _render_regression(regression: dict | None) -> list[str]:
    """E3's pooled standardized OLS: both fits, every coefficient, the |β_width| − |β_depth| intervals."""
    if not regression:
        return []
    lines = [
        "",
        "## E3: standardized OLS of correctness (pooled)",
        "",
        f"Pooling: {regression['pooling']}; pooled {', '.join(regression['pooled'])} "
        f"(accuracy {', '.join(f'{n} {percent(v)}' for n, v in regression['accuracy'].items())}); n = "
        f"{regression['n']}; bins against {regression['reference_bin']}. Each fit is reported on its own: "
        "a bin coefficient from one fit is not comparable with the other's.",
        "",
        "| fit | coefficients | \\|β_width\\| − \\|β_depth\\| | 95% CI (prompts) | 95% CI (programs) |",
        "|---|---|---|---|---|",
    ]
    for fit in ("without_length", "with_length"):
        if fit not in regression:
            continue
        f = regression[fit]
        coefficients = ", ".join(f"{k} {v:+.4f}" for k, v in (f["coefficients"] or {}).items())
        gap = "n/a" if f["width_minus_depth"] is None else f"{f['width_minus_depth']:+.4f}"
        lines.append(
            f"| {fit.replace('_', ' ')} | {coefficients} | {gap} | {_signed_ci(f['ci95_prompts'])} | "
            f"{_signed_ci(f['ci95_programs'])} |"
        )
    return lines


def _signed_ci(interval) -> str:
    return "n/a" if not interval else f"[{interval[0]:+.4f}, {interval[1]:+.4f}]"


def _render_framing(runs: dict) -> list[str]:
    """E4: accuracy per framing (the flip rate is Table 4)."""
    framed = {n: r["framing"] for n, r in runs.items() if r.get("framing")}
    if not framed:
        return []
    lines = ["", "## E4: accuracy per framing (flip rate: Table 4)", "", "| run | framing | accuracy | strict |"]
    lines.append("|---|---|---|---|")
    for name, cells in framed.items():
        lines += [f"| {name} | {f} | {_counted(c)} | {percent(c['strict_accuracy'])} |" for f, c in cells.items()]
    return lines


def _render_mitigation(runs: dict) -> list[str]:
    """Tables 6 and 14: parsed and strict accuracy, nulls, both intervals, translation outcomes."""
    mitigated = {n: r["mitigation"] for n, r in runs.items() if r.get("mitigation")}
    if not mitigated:
        return []
    lines = [
        "",
        "## Tables 6 and 14: mitigation",
        "",
        "| run | mitigation | parsed accuracy | strict (nulls wrong) | nulls | 95% CI by program | 95% CI by prompt |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, m in mitigated.items():
        lines.append(
            f"| {name} | {m['mitigation']} | {percent(m['accuracy'])} ({m['correct']}/{m['n_parsed']}) | "
            f"{percent(m['strict_accuracy'])} (of {m['n']}) | {m['nulls']} | {_ci(m['ci95'])} over {m['n_programs']} "
            f"programs | {_ci(m['ci95_prompts'])} over {m['n']} prompts |"
        )
    translated = {n: m["translations"] for n, m in mitigated.items() if m.get("translations")}
    if translated:
        lines += [
            "",
            "Translations: the authors' parser (stored) against ours (every line must parse; a query no rule "
            "defines is its own outcome, not 'false').",
            "",
            "| run | translated (authors) | our outcomes | our accuracy (answered) | our strict |",
            "|---|---|---|---|---|",
        ]
        for name, t in translated.items():
            outcomes = ", ".join(f"{k} {v}" for k, v in t["outcomes"].items())
            ours = t["ours"]
            lines.append(
                f"| {name} | {t['stored_ok']}/{t['stored_ok_known']} | {outcomes} | {percent(ours['accuracy'])} "
                f"({ours['correct']}/{ours['answered']}) | {percent(ours['strict_accuracy'])} (of {t['n']}) |"
            )
        for name, t in translated.items():
            lines += [f"- {name}: undefined query atom: {key}" for key in t["undefined_query"]]
            lines += [f"- {name}: {key}: {error}" for key, error in t["failures"].items()]
    return lines


def write_analysis(result: dict, out: str | Path) -> list[Path]:
    """analysis.json, analysis.md and the plots (accuracy per semantics with intervals; audit by correctness;
    accuracy by depth and width; the mitigation's accuracy)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "analysis.json", out / "analysis.md"]
    written[0].write_text(json.dumps(result, indent=1), encoding="utf-8")
    written[1].write_text(markdown(result), encoding="utf-8")
    runs = result["runs"]
    figure, axis = plt.subplots(figsize=(10, 4), dpi=100)
    width = 0.8 / max(len(runs), 1)
    for k, (name, r) in enumerate(runs.items()):
        cells = [r["per_semantics"].get(c) for c in named_conditions()]
        values = [c["accuracy"] if c and c["accuracy"] is not None else float("nan") for c in cells]
        errors = [
            [v - c["ci95"][0] if c and c["ci95"] else 0 for v, c in zip(values, cells, strict=True)],
            [c["ci95"][1] - v if c and c["ci95"] else 0 for v, c in zip(values, cells, strict=True)],
        ]
        axis.bar(
            [x + k * width for x in range(len(named_conditions()))],
            values,
            width,
            yerr=errors,
            capsize=2,
            label=name[:24],
        )
    axis.set_xticks([x + 0.4 - width / 2 for x in range(len(named_conditions()))], named_conditions())
    axis.set_ylim(0, 1.05)
    axis.set_ylabel(f"accuracy over parsed ({result['extractor']})")
    axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(out / "accuracy_per_semantics.png")
    plt.close(figure)
    written.append(out / "accuracy_per_semantics.png")
    audited = {n: r["audit"]["by_correctness"] for n, r in runs.items() if r.get("audit")}
    if audited:
        figure, axis = plt.subplots(figsize=(10, 4), dpi=100)
        labels = [f"{n[:18]}\n{key}" for n in audited for key in ("correct", "wrong")]
        bottom = [0] * len(labels)
        for name in AUDIT_CLASSES:
            heights = [audited[n][key][name] for n in audited for key in ("correct", "wrong")]
            axis.bar(range(len(labels)), heights, bottom=bottom, label=name)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        axis.set_xticks(range(len(labels)), labels, fontsize=7)
        axis.set_ylabel("responses")
        axis.legend(fontsize=7)
        figure.tight_layout()
        figure.savefig(out / "audit.png")
        plt.close(figure)
        written.append(out / "audit.png")
    sliced = {n: r["size"]["cells"] for n, r in runs.items() if r.get("size", {}).get("cells")}
    if sliced:
        written.append(_plot_slices(plt, sliced, result["extractor"], out / "accuracy_by_size.png"))
    mitigated = {n: r["mitigation"] for n, r in runs.items() if r.get("mitigation")}
    if mitigated:
        written.append(_plot_mitigation(plt, mitigated, result["extractor"], out / "mitigation.png"))
    return written


def _error_bars(values: list[float], intervals: list) -> list[list[float]]:
    return [
        [v - ci[0] if ci else 0 for v, ci in zip(values, intervals, strict=True)],
        [ci[1] - v if ci else 0 for v, ci in zip(values, intervals, strict=True)],
    ]


def _plot_slices(plt, sliced: dict, extractor: str, path: Path) -> Path:
    """Table 3 as curves: accuracy over parsed per depth and per width, program intervals, best constant."""
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    for axis, column in zip(axes, ("depth", "width"), strict=True):
        for name, cells in sliced.items():
            points = [(float(v), c) for v, c in cells[column].items() if c["accuracy"] is not None]
            xs, values = [x for x, _ in points], [c["accuracy"] for _, c in points]
            errors = _error_bars(values, [c["ci95"] for _, c in points])
            axis.errorbar(xs, values, yerr=errors, marker="o", capsize=3, label=name[:24])
        first = next(iter(sliced.values()))[column]
        axis.plot(
            [float(v) for v in first],
            [c["baselines"]["best_constant_per_condition"] for c in first.values()],
            "k--",
            lw=1,
            label="best constant per condition",
        )
        axis.set_xlabel(column)
        axis.set_ylim(0, 1.05)
        axis.set_ylabel(f"accuracy over parsed ({extractor})")
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path


def _plot_mitigation(plt, mitigated: dict, extractor: str, path: Path) -> Path:
    """Tables 6 and 14 as bars: accuracy over parsed with the interval over programs."""
    figure, axis = plt.subplots(figsize=(8, 4), dpi=100)
    names = list(mitigated)
    values = [m["accuracy"] if m["accuracy"] is not None else float("nan") for m in mitigated.values()]
    errors = _error_bars(values, [m["ci95"] for m in mitigated.values()])
    axis.bar(range(len(names)), values, yerr=errors, capsize=4)
    labels = [f"{n[:20]}\n{m['mitigation']} ({m['n_parsed']}/{m['n']} parsed)" for n, m in mitigated.items()]
    axis.set_xticks(range(len(names)), labels, fontsize=7)
    axis.set_ylim(0, 1.05)
    axis.set_ylabel(f"accuracy over parsed ({extractor})")
    axis.set_title("95% intervals over programs", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return path
