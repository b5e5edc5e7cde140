"""The paper's analyses (seed 000) from model outputs: ``naf-bench analyze RUN... --gold GOLD.jsonl``. This module
computes the tables; :mod:`naf_bench.analysis.inputs` reads gold rows and runs, :mod:`naf_bench.analysis.outputs`
renders ``analysis.md`` and the plots.

A run is a submission JSONL (``{"id", "prediction"}``, the prediction being the full model output) or an
lm-eval output folder (``samples_*.jsonl``; one run per model). Every table stands beside its constant /
majority baselines and counts. ``analysis.json`` is ``{"extractor", "gold", "audit_floor", "runs": {name:
run}}``; a run holds:

``n_prompts``, ``n_parsed``, ``accuracy`` (over parsed), ``strict_accuracy``, ``baselines``
    Table 1 overall; ``per_semantics.<cond>.{correct, n_parsed, n, accuracy, strict_accuracy, ci95,
    baselines}`` with 95 % intervals clustered over programs; ``default_correspondence`` ("cor."): of the
    wrong answers, the share equal to the model's own answer under ``none`` (None without errors).
``by_bin.<bin>.<cond>``, ``fisher``
    Table 2: the same cells per divergence bin, and the two-sided Fisher exact test of control against the
    divergent bins (parsed answers; ``scipy.stats.fisher_exact``).
``flip_rate.{flipped, groups, rate}``
    Table 4 (shown when a (program, condition) has several gold rows: rule orders or framings): groups =
    (program, condition) with at least two parsed answers; rate None when there are none.
``wfs_undefined.{n, n_parsed, definite, abstained, definite_share}``
    Table 5 (E5): WFS-condition items whose certified value is undefined.
``default_reading.{by_bin, agreement.<reading>, baselines.<constant>.<reading>, best_fit,
earned_c}``
    Tables 9–10: the untutored (``none``) answers per bin; agreement (count of prompts) with each reading
    (cred, skept, wfs, closed_world, consensus: the letter all four give when they agree, else C) beside the
    always-A/B/C answers; the best-fitting reading, named only when it beats every constant on that reading;
    how many untutored C answers name the negation cycle.
``audit.{by_correctness, contradicted_among_correct, sound_by_condition, checkpoints, skeptical_odd,
credulous_odd}``
    Tables 11–13: the trace audit (:mod:`naf_bench.scoring.audit`) of every named-condition output, by answer
    correctness; contradicted among correct auditable (sound + contradicted) answers; sound per condition;
    structural checkpoints on the divergent bins; earned skeptical answers on programs with no stable model.
    ``audit_floor`` pools the contradicted share over correct answers of runs that answer every prompt
    correctly: the audit's own false-positive rate.
``fisher.mann_whitney``
    beside each Fisher test: the two-sided Mann–Whitney U test of per-program accuracy (parsed answers of the
    named conditions; a program is a gold row's ``cluster``), control against divergent.
``size``
    E3, when depth or width vary: standardised OLS of correctness on depth, width and cycle length
    (statsmodels) with program-bootstrap intervals on the coefficients, per-depth / per-width accuracy and,
    where traces were audited, the sound share of auditable traces per slice (label against reasoning);
    ``cells.<depth|width>.<value>`` the same cells as Table 1 per slice, whose baselines add
    ``best_constant_per_condition`` (the condition's most frequent gold letter: 100 % where the gold is constant
    per condition, as on the authors' grid).
``framing.<framing>``
    E4, when the rows carry several framings: Table 1's cell per framing (the flip rate is ``flip_rate``).
``mitigation``
    E6 (Tables 6 and 14), when the rows name a mitigation (direct, verify, t2s): parsed and strict accuracy, the
    null count, intervals clustered by program (``ci95``, over ``n_programs``) and by prompt (``ci95_prompts``);
    for t2s ``translations``: our reader's outcome per translation (:mod:`naf_bench.scoring.translation`), the
    ids whose query atom no rule defines, the failures with their reasons, the authors' parser's successes
    (``stored_ok``) and our reader's accuracy (``ours``) beside the stored letters'.

At the top level, ``regression`` (E3, when depth and width each take three or more values): the authors' pooled
standardized OLS (``analyze_v3.py``): correctness (null = wrong, condition ``none`` excluded) of the runs whose
accuracy is below 0.92 (all runs when none is), on an intercept, z(depth), z(width) and a dummy per divergence
bin (control the base level), fitted once without and once with z(tokens) (prompt length), each with every
coefficient, n, and 95 % bootstrap intervals of |β_width| − |β_depth| resampling prompts (the authors'
``default_rng(0)``) and whole programs (``cluster``).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import replace

from naf_bench.analysis.inputs import read_runs, read_stored, score_items
from naf_bench.certify import Certificate
from naf_bench.errors import DataError
from naf_bench.readings import NO_SEMANTICS, READINGS, answer_letters, gold_letter, letter_of, named_conditions
from naf_bench.scoring.core import Audits, Scores, audits, program_cluster, score
from naf_bench.scoring.extract import unalias_extractor
from naf_bench.scoring.intake import read_gold
from naf_bench.scoring.statistics import bootstrap_interval, cluster_ci, mann_whitney, standardized_ols

POOLING_THRESHOLD = 0.92  # analyze_v3.py pools the runs below this accuracy ("non-saturated")


def _cell(scores: Scores, indices: list[int], majority: str | None = None) -> dict:
    """Table 1's cell of the items ``indices``: counts, accuracies, the interval clustered over programs."""
    cell = scores.cell(indices)
    return {
        "correct": cell.correct,
        "n_parsed": cell.n_parsed,
        "n": cell.n,
        "accuracy": cell.accuracy,
        "strict_accuracy": cell.strict_accuracy,
        "ci95": _interval(scores, indices, "cluster"),
        "baselines": scores.baselines(indices, majority),
    }


def _interval(scores: Scores, indices: list[int], cluster: str) -> list[float] | None:
    """The 95 % interval of the accuracy over parsed answers, resampling ``cluster``s (see the core)."""
    interval = scores.intervals(("accuracy",), cluster, indices).get("accuracy")
    return list(interval) if interval else None


def default_readings() -> tuple[str, ...]:
    """The default-reading table's columns: each reading in the table's order, then the consensus."""
    return (*READINGS.names, "consensus")


def reading_letters(labels: Mapping[str, str]) -> dict[str, str]:
    """The letter each reading gives (closed world = SLDNF; consensus = the shared letter, else undefined's)."""
    letters = {reading: gold_letter(reading, labels) for reading in named_conditions()}
    shared = set(letters.values())
    letters["consensus"] = shared.pop() if len(shared) == 1 else letter_of()["u"]
    return letters


def analyze_run(
    rows: list[dict],
    outputs: Mapping[str, str],
    extractor: str,
    n_bootstrap: int = 1000,
    stored: Mapping[str, dict] | None = None,
) -> dict:
    """Every table of one run (see the module docstring)."""
    return _tables(score_items(rows, outputs, extractor, stored), outputs, extractor, n_bootstrap)


def _tables(items: list[dict], outputs: Mapping[str, str], extractor: str, n_bootstrap: int) -> dict:
    """Every table of one run from its scored items (each gold row with its text and decided answer)."""
    if not any(i["answer"] is not None for i in items):
        raise DataError("<run>", f"no parsable answer with the {extractor!r} extractor")
    scores = score(
        items, outputs, extractor=extractor, answers={i["id"]: i["answer"] for i in items}, n_bootstrap=n_bootstrap
    )
    named = [items[k] for k in scores.scored]
    majority = scores.majority
    overall = _cell(scores, scores.scored, majority)
    result = {
        "n_prompts": len(named),
        "n_parsed": overall["n_parsed"],
        "accuracy": overall["accuracy"],
        "strict_accuracy": overall["strict_accuracy"],
        "ci95": overall["ci95"],
        "baselines": overall["baselines"],
        "per_semantics": {
            c: _cell(scores, part, majority) for c in named_conditions() if (part := scores.where(condition=c))
        },
        "default_correspondence": scores.default_correspondence,
    }
    by_bin: dict = defaultdict(dict)
    for family, part in scores.by("family").items():
        for condition in named_conditions():
            if cell := scores.where(family=family, condition=condition):
                by_bin[family][condition] = _cell(scores, cell)
        by_bin[family]["all"] = _cell(scores, part)
    result["by_bin"] = dict(by_bin)
    result["fisher"] = _fisher(scores)
    # rule orders or framings give a (program, condition) several rows; without them no group can flip
    rate, groups = scores.flip_rate()
    result["flip_rate"] = {"flipped": round(rate * groups) if rate is not None else 0, "groups": groups, "rate": rate}
    certified = [i for i in items if i.get("certificate")]
    certificates = {i["id"]: Certificate.from_json(i["certificate"]) for i in certified}
    result["wfs_undefined"] = _wfs_undefined(scores, certificates)
    untutored = [i for i in items if i["condition"] == NO_SEMANTICS]
    if untutored and all(i["id"] in certificates for i in untutored):
        result["default_reading"] = _default_reading(untutored, certificates)
    if named and all(i["id"] in certificates for i in named):  # the audit reads each row's certificate
        audited = audits([i["text"] for i in named], named, [i["answer"] for i in named])
        result["audit"] = _audit(named, audited, certificates)
    if len({(i.get("depth"), i.get("width")) for i in named}) > 1 and all(i.get("depth") is not None for i in named):
        result["size"] = _size(scores, n_bootstrap, result.get("audit", {}).get("classes"))
    framings = sorted({i["framing"] for i in named if i.get("framing")})
    if len(framings) > 1:
        result["framing"] = {f: _cell(scores, scores.where(framing=f)) for f in framings}
    mitigations = {i["mitigation"] for i in named if i.get("mitigation")}
    if mitigations:
        result["mitigation"] = _mitigation(scores, mitigations)
    return result


def _mitigation(scores: Scores, mitigations: set[str]) -> dict:
    """Tables 6 and 14 for one run: parsed / strict accuracy, nulls, both intervals; T2S translation outcomes."""
    named = [scores.rows[k] for k in scores.scored]
    cell = _cell(scores, scores.scored)
    result = {
        "mitigation": ", ".join(sorted(mitigations)),
        "n": cell["n"],
        "n_parsed": cell["n_parsed"],
        "nulls": cell["n"] - cell["n_parsed"],
        "correct": cell["correct"],
        "accuracy": cell["accuracy"],
        "strict_accuracy": cell["strict_accuracy"],
        "ci95": cell["ci95"],
        "n_programs": len({program_cluster(i) for i in named}),
        "ci95_prompts": _interval(scores, scores.scored, "id"),
    }
    if indices := scores.where(mitigation="t2s"):
        translated = [scores.rows[k] for k in indices]
        outcomes = Counter(_outcome(i) for i in translated)
        # our reader's letters scored by the core in place of the stored ones
        letters = [row["translation"].letter if "translation" in row else None for row in scores.rows]
        ours = replace(scores, answers=letters).cell(indices)
        result["translations"] = {
            "n": len(translated),
            "outcomes": dict(sorted(outcomes.items())),
            "undefined_query": sorted(i["id"] for i in translated if _outcome(i) == "undefined_query"),
            "failures": {
                i["id"]: i["translation"].error
                for i in translated
                if _outcome(i) not in ("answered", "undefined_query", "no_output")
            },
            "stored_ok": sum(i.get("stored_ok") is True for i in translated),
            "stored_ok_known": sum(i.get("stored_ok") is not None for i in translated),
            "ours": {
                "answered": ours.n_parsed,
                "correct": ours.correct,
                "accuracy": ours.accuracy,
                "strict_accuracy": ours.strict_accuracy,
            },
        }
    return result


def _outcome(item: dict) -> str:
    return item["translation"].outcome if "translation" in item else "no_output"


def _is_sweep(rows: list[dict]) -> bool:
    """Whether the named rows sweep depth and width (three or more values each): E3's regression applies."""
    named = [r for r in rows if r["gold"] is not None]
    if not named or any(r.get("depth") is None or r.get("width") is None for r in named):
        return False
    return min(len({r["depth"] for r in named}), len({r["width"] for r in named})) >= 3


def _regression(scored: dict[str, list[dict]], accuracy: dict[str, float | None], n_bootstrap: int) -> dict:
    """E3's pooled standardized OLS over the runs' scored items (see the module docstring); ``accuracy`` is each
    run's strict accuracy (null = wrong) as the core computes it (its Table 1 ``strict_accuracy``)."""
    named = {run: [i for i in items if i["gold"] is not None] for run, items in scored.items()}
    pooled = [run for run, value in accuracy.items() if value < POOLING_THRESHOLD] or list(accuracy)
    data = [i for run in pooled for i in named[run]]
    families = {i["family"] for i in data}
    base_level = "control" if "control" in families else min(families)
    fits = {"without_length": ("depth", "width")}
    if all(i.get("tokens") is not None for i in data):
        fits["with_length"] = ("depth", "width", "tokens")

    def fit(sample: list[dict], columns) -> dict | None:
        return standardized_ols(
            [float(i["answer"] == i["gold"]) for i in sample],
            {c: [i[c] for i in sample] for c in columns},
            [i["family"] for i in sample],
            base_level,
        )

    def gap(sample: list[dict], columns) -> float | None:
        coefficients = fit(sample, columns)
        return abs(coefficients["z(width)"]) - abs(coefficients["z(depth)"]) if coefficients else None

    result = {
        "pooling": f"runs with accuracy < {POOLING_THRESHOLD} (null = wrong, condition none excluded); all runs "
        "when none is",
        "accuracy": accuracy,
        "pooled": pooled,
        "n": len(data),
        "reference_bin": base_level,
    }
    for name, columns in fits.items():
        coefficients = fit(data, columns)
        result[name] = {
            "coefficients": coefficients,
            "width_minus_depth": gap(data, columns),
            "ci95_prompts": bootstrap_interval(data, lambda s, c=columns: gap(s, c), n_bootstrap),
            "ci95_programs": bootstrap_interval(
                data, lambda s, c=columns: gap(s, c), n_bootstrap, cluster_of=program_cluster
            ),
        }
    return result


def _fisher(scores: Scores) -> dict | None:
    """Table 2's tests on the core's cells: Fisher's exact test of control against the divergent bins (parsed
    answers), and Mann–Whitney of their programs' parsed accuracies."""
    from scipy.stats import fisher_exact

    parsed = [k for k in scores.scored if scores.answers[k] is not None]
    sides: dict[bool, list[int]] = {True: [], False: []}  # control, divergent
    programs: dict = defaultdict(list)
    for k in parsed:
        is_control = scores.rows[k]["family"] == "control"
        sides[is_control].append(k)
        programs[(is_control, program_cluster(scores.rows[k]))].append(k)
    if not sides[True] or not sides[False]:
        return None
    cells = (scores.cell(sides[True]), scores.cell(sides[False]))
    table = [[cell.correct, cell.n_parsed - cell.correct] for cell in cells]
    odds, p = fisher_exact(table)
    finite = math.isfinite(odds)  # no errors on one side: the odds ratio is undefined (None), p still holds
    per_program = {key: scores.cell(members).accuracy for key, members in programs.items()}
    return {
        "table": table,
        "odds_ratio": float(odds) if finite else None,
        "p_value": float(p),
        "mann_whitney": mann_whitney(
            [v for (is_control, _), v in per_program.items() if is_control],
            [v for (is_control, _), v in per_program.items() if not is_control],
        ),
    }


def _wfs_undefined(scores: Scores, certificates: dict) -> dict | None:
    """Table 5: the core's cell of the WFS-condition rows whose certified value is undefined, and how many of its
    parsed answers are definite (true or false)."""
    reading = READINGS[READINGS.undefined]
    cell = [
        k
        for k in scores.where(condition=reading.name)
        if (certificate := certificates.get(scores.rows[k]["id"])) and reading.label(certificate.labels) == "u"
    ]
    if not cell:
        return None
    counts = scores.cell(cell)
    definite = sum(scores.answers[k] in (letter_of()["T"], letter_of()["F"]) for k in cell)
    return {
        "n": counts.n,
        "n_parsed": counts.n_parsed,
        "definite": definite,
        "abstained": counts.n_parsed - definite,
        "definite_share": definite / counts.n_parsed if counts.n_parsed else None,
    }


def _default_reading(untutored: list[dict], certificates: dict) -> dict:
    by_bin: dict = defaultdict(lambda: dict.fromkeys((*answer_letters(), "unparsed"), 0))
    for i in untutored:
        by_bin[i["family"]][i["answer"] or "unparsed"] += 1
    letters = {i["id"]: reading_letters(certificates[i["id"]].labels) for i in untutored}
    columns = default_readings()
    agreement = {r: sum(i["answer"] == letters[i["id"]][r] for i in untutored) for r in columns}
    baselines = {
        f"constant_{x}": {r: sum(x == letters[i["id"]][r] for i in untutored) for r in columns}
        for x in answer_letters()
    }
    best = max(columns, key=lambda r: agreement[r])
    beats = all(agreement[best] > baselines[f"constant_{x}"][best] for x in answer_letters())
    c_answers = [i for i in untutored if i["answer"] == letter_of()["u"]]
    texts, answers = [i["text"] for i in c_answers], [i["answer"] for i in c_answers]
    audited = audits(texts, c_answers, answers, condition=READINGS.undefined)
    earned = sum(checkpoints["cycle_registered"] is True for checkpoints in audited.checkpoints)
    return {
        "n": len(untutored),
        "by_bin": dict(by_bin),
        "agreement": agreement,
        "baselines": baselines,
        "best_fit": best if beats else None,
        "best_fit_agreement": agreement[best],
        "earned_c": {"c_answers": len(c_answers), "cycle_named": earned},
    }


def _audit(named: list[dict], audited: Audits, certificates: dict) -> dict:
    """Tables 11-13: a view over the core's audit of the named rows (in their order)."""
    by_correctness = audited.by_correctness
    counts = by_correctness["correct"]
    auditable = counts["sound"] + counts["contradicted"]
    sound_by_condition = {}
    for condition in named_conditions():
        cell = [c for i, c in zip(named, audited.classes, strict=True) if i["condition"] == condition]
        if cell:
            judged = sum(c in ("sound", "contradicted") for c in cell)
            sound = cell.count("sound")
            sound_by_condition[condition] = {
                "sound": sound,
                "auditable": judged,
                "rate": sound / judged if judged else None,
            }
    divergent = [k for k, i in enumerate(named) if i["family"] != "control"]
    entailment = {r.quantifier: r.name for r in READINGS if r.quantifier}  # some: cred, every: skept
    checkpoints = {}
    for name, keep in (
        ("cycle_registered", lambda i: True),
        ("no_stable_model_stated", lambda i: READINGS[i["condition"]].quantifier is not None),
        ("several_models_considered", lambda i: READINGS[i["condition"]].quantifier == "every"),
    ):
        flags = [audited.checkpoints[k].get(name) for k in divergent if keep(named[k])]
        flags = [f for f in flags if f is not None]
        checkpoints[name] = {"stated": sum(flags), "n": len(flags), "rate": sum(flags) / len(flags) if flags else None}
    odd = {  # right answers on programs with no stable model, per quantifier
        q: [
            k
            for k, i in enumerate(named)
            if certificates[i["id"]].incoherent and i["condition"] == c and audited.correct[k]
        ]
        for q, c in entailment.items()
    }
    return {
        "by_correctness": by_correctness,
        "contradicted_among_correct": {
            "contradicted": counts["contradicted"],
            "auditable": auditable,
            "rate": counts["contradicted"] / auditable if auditable else None,
        },
        "sound_by_condition": sound_by_condition,
        "checkpoints": checkpoints,
        "skeptical_odd": {"correct": len(odd["every"]), "earned": sum(audited.earned[k] for k in odd["every"])},
        "credulous_odd": {
            "correct": len(odd["some"]),
            "no_model_stated": sum(audited.checkpoints[k]["no_stable_model_stated"] is True for k in odd["some"]),
        },
        "classes": {i["id"]: c for i, c in zip(named, audited.classes, strict=True)},
        "reasons": {i["id"]: r for i, r in zip(named, audited.reasons, strict=True)},
    }


def _size(scores: Scores, n_bootstrap: int, classes: dict | None) -> dict:
    import numpy as np
    import statsmodels.api as sm

    named = [scores.rows[k] for k in scores.scored]

    columns = [c for c in ("depth", "width", "cycle_len") if len({i.get(c) for i in named}) > 1]

    def fit(sample: list[dict]) -> dict | None:
        x = np.array([[float(i[c]) for c in columns] for i in sample])
        y = np.array([float(i["answer"] == i["gold"]) for i in sample])
        spread = x.std(axis=0)
        if not columns or (spread == 0).any() or y.std() == 0:
            return None
        z = (x - x.mean(axis=0)) / spread
        if np.linalg.matrix_rank(z) < len(columns):  # collinear slices (framing set: d4 w4, d8 w2): no fit
            return None
        params = sm.OLS((y - y.mean()) / y.std(), sm.add_constant(z)).fit().params
        return dict(zip(columns, (float(b) for b in params[1:]), strict=True))

    coefficients = fit(named)
    intervals = {}
    if coefficients:
        for column in columns:
            intervals[column] = cluster_ci(
                named, lambda i: i["program_id"], lambda s, c=column: (fit(s) or {}).get(c), min(n_bootstrap, 200)
            )
    # rows without a depth or width (a set that sweeps one of them) are in no slice of that column
    sliced = {c: {v: part for v, part in scores.by(c).items() if v is not None} for c in ("depth", "width")}
    slices = {c: {str(v): scores.cell(part).accuracy for v, part in parts.items()} for c, parts in sliced.items()}
    cells = {}
    for column in ("depth", "width"):
        cells[column] = {}
        for value, part in sliced[column].items():
            cells[column][str(value)] = _cell(scores, part)
            cells[column][str(value)]["baselines"]["best_constant_per_condition"] = scores.best_constant_accuracy(part)
    result = {"standardised_ols": coefficients, "ci95": intervals, "accuracy_by": slices, "cells": cells}
    if classes:  # label against reasoning: the audit's sound share of auditable traces per slice

        def sound(cell: list[dict]) -> float | None:
            judged = [classes[i["id"]] for i in cell if classes[i["id"]] in ("sound", "contradicted")]
            return judged.count("sound") / len(judged) if judged else None

        result["sound_by"] = {
            c: {str(v): sound([i for i in named if i.get(c) == v]) for v in sorted({i[c] for i in named})}
            for c in ("depth", "width")
        }
    return result


def analyze(run_paths, gold_path, extractor: str = "strict", n_bootstrap: int = 1000) -> dict:
    """``analysis.json``'s content for the runs against the gold rows."""
    gold = read_gold(gold_path)
    rows = gold.rows
    runs, sources, notes = read_runs(run_paths, {row["id"] for row in rows})
    stored = read_stored(run_paths)
    extractor = unalias_extractor(extractor)
    out = {"extractor": extractor, "gold": str(gold_path), "notes": gold.notes + notes, "runs": {}}
    sweep = _is_sweep(rows)
    scored = {}  # each run's items, kept for the pooled regression of a sweep
    for name, outputs in runs.items():
        items = score_items(rows, outputs, extractor, stored.get(name))  # every answer decided once
        try:
            out["runs"][name] = _tables(items, outputs, extractor, n_bootstrap)
        except DataError as exc:
            raise DataError(sources[name], exc.reason) from None
        if sweep:
            scored[name] = items
    if scored:
        accuracy = {name: out["runs"][name]["strict_accuracy"] for name in scored}
        out["regression"] = _regression(scored, accuracy, n_bootstrap)
    perfect = [
        r["audit"]["contradicted_among_correct"]
        for r in out["runs"].values()
        if r.get("audit") and r["strict_accuracy"] == 1.0
    ]
    if perfect:
        contradicted, auditable = sum(p["contradicted"] for p in perfect), sum(p["auditable"] for p in perfect)
        out["audit_floor"] = {
            "runs": len(perfect),
            "contradicted": contradicted,
            "auditable": auditable,
            "rate": contradicted / auditable if auditable else None,
        }
    else:
        out["audit_floor"] = None
    return out
