"""The paper's analyses (seed 000) from model outputs: ``naf-bench analyze RUN... --gold GOLD.jsonl``.

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
bin (control the reference), fitted once without and once with z(tokens) (prompt length), each with every
coefficient, n, and 95 % bootstrap intervals of |β_width| − |β_depth| resampling prompts (the authors'
``default_rng(0)``) and whole programs (``cluster``).
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path

from naf_bench.certify import Certificate
from naf_bench.errors import DataError
from naf_bench.readings import NAMED_CONDITIONS, gold_letter
from naf_bench.scoring.audit import AUDIT_CLASSES, audit
from naf_bench.scoring.extract import extract_answer
from naf_bench.scoring.labels import LETTERS, flip_rate_from_items
from naf_bench.statistics import bootstrap_interval, mann_whitney, standardized_ols

NAMED = NAMED_CONDITIONS
READINGS = ("cred", "skept", "wfs", "closed_world", "consensus")  # the default-reading table's columns
_GOLD_FIELDS = ("id", "program_id", "family", "condition", "gold")
SKIPPED_TASKS = ("naf_bench_mc", "naf_bench_t2s", "naf_bench_verify")  # not free-form answers to the prompt
STORED = "stored"  # the extractor that reads the authors' stored letters (import-reference's run lines)
POOLING_THRESHOLD = 0.92  # analyze_v3.py pools the runs below this accuracy ("non-saturated")


def read_gold(path: str | Path) -> list[dict]:
    """Gold rows from JSONL; a malformed line or a row without the fields analysis needs names its line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DataError(path, exc.strerror or "cannot read") from None
    rows, seen = [], set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(path, f"malformed JSON ({exc.msg}, column {exc.colno})", number) from None
        missing = [key for key in _GOLD_FIELDS if not isinstance(row, dict) or key not in row]
        if missing:
            raise DataError(path, f"row needs {', '.join(missing)}", number)
        if row["id"] in seen:
            raise DataError(path, f"duplicate id {row['id']!r}", number)
        seen.add(row["id"])
        rows.append(row)
    if not rows:
        raise DataError(path, "no gold rows")
    return rows


def read_runs(paths, known: set[str]) -> tuple[dict[str, dict[str, str]], dict[str, Path], list[str]]:
    """``{run name: {id: output}}`` from submission files and lm-eval folders, the file or folder of each run,
    and notes; an unknown id or a malformed line is an error naming file and line."""
    from naf_bench.evaluation import read_submission
    from naf_bench.report import _model_name

    runs: dict[str, dict[str, str]] = {}
    sources: dict[str, Path] = {}
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(path.rglob("samples_*.jsonl"))
            if not found:
                raise DataError(path, "no samples_*.jsonl (an lm-eval output folder was expected)")
            for samples in found:
                task = samples.name[len("samples_") :].rsplit("_", 1)[0]
                if task in SKIPPED_TASKS:
                    continue
                results = next(samples.parent.glob("results_*.json"), None)
                model_args = (
                    json.loads(results.read_text())["config"].get("model_args", "model") if results else "model"
                )
                name = _model_name(model_args)
                outputs = runs.setdefault(name, {})
                sources[name] = path
                for number, line in enumerate(samples.read_text(encoding="utf-8").splitlines(), start=1):
                    if not line.strip():
                        continue
                    try:
                        sample = json.loads(line)
                        key, text = sample["doc"]["id"], sample["resps"][0][0]
                    except (json.JSONDecodeError, KeyError, IndexError, TypeError):
                        raise DataError(samples, "not an lm-eval sample with doc.id and resps", number) from None
                    if key not in known:
                        raise DataError(samples, f"unknown id {key!r} (not in the gold set)", number)
                    outputs[key] = text
            continue
        if not path.is_file():
            raise DataError(path, "no such file or folder")
        entries, problems = read_submission(path)
        if problems:
            raise DataError(
                path, "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
            )
        lines = {key: number for number, key in _ids_by_line(path)}
        unknown = [key for key in entries if key not in known]
        if unknown:
            raise DataError(path, f"unknown id {unknown[0]!r} (not in the gold set)", lines.get(unknown[0]))
        runs[path.stem] = {key: entry["prediction"] for key, entry in entries.items()}
        sources[path.stem] = path
    notes = []
    for name, outputs in runs.items():
        missing = len(known - set(outputs))
        if missing:
            notes.append(f"{name}: {missing} gold ids have no output (counted as unanswered)")
    return runs, sources, notes


def _ids_by_line(path: Path):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            yield number, record.get("id")


def read_stored(paths) -> dict[str, dict[str, dict]]:
    """``{run name: {id: {"stored", "stored_ok"}}}``: the authors' letters (and T2S parser verdicts) that
    ``import-reference`` writes beside each output; an lm-eval folder has none."""
    stored = {}
    for path in map(Path, paths):
        if path.is_file():
            stored[path.stem] = {
                record["id"]: {"stored": record.get("stored"), "stored_ok": record.get("stored_ok")}
                for record in _records(path)
                if isinstance(record.get("id"), str)
            }
    return stored


def _records(path: Path):
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            yield record


def cluster_ci(items: list, cluster_of: Callable, statistic: Callable, n_bootstrap: int = 1000, seed: int = 0):
    """95 % percentile interval of ``statistic(items)`` resampling whole clusters; None when undefined."""
    clusters = defaultdict(list)
    for item in items:
        clusters[cluster_of(item)].append(item)
    keys = sorted(clusters)
    if not keys or n_bootstrap < 1:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(n_bootstrap):
        value = statistic([item for key in rng.choices(keys, k=len(keys)) for item in clusters[key]])
        if value is not None:
            values.append(value)
    if not values:
        return None
    values.sort()
    return [values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]]


def _cluster(item: dict) -> str:
    """The distinct program an item belongs to, for intervals (older gold rows have no ``cluster``)."""
    return item.get("cluster") or item["program_id"]


def _parsed_accuracy(items: list[dict]) -> float | None:
    parsed = [i for i in items if i["answer"] is not None]
    return sum(i["answer"] == i["gold"] for i in parsed) / len(parsed) if parsed else None


def _cell(items: list[dict], n_bootstrap: int, majority: str | None = None) -> dict:
    parsed = [i for i in items if i["answer"] is not None]
    correct = sum(i["answer"] == i["gold"] for i in parsed)
    golds = Counter(i["gold"] for i in items)
    return {
        "correct": correct,
        "n_parsed": len(parsed),
        "n": len(items),
        "accuracy": correct / len(parsed) if parsed else None,
        "strict_accuracy": correct / len(items) if items else None,
        "ci95": cluster_ci(items, _cluster, _parsed_accuracy, n_bootstrap),
        "baselines": {
            **{f"constant_{x}": golds[x] / len(items) if items else None for x in LETTERS},
            "majority": golds[majority] / len(items) if items and majority else None,
        },
    }


def reading_letters(labels: Mapping[str, str]) -> dict[str, str]:
    """The letter each reading gives (closed world = SLDNF; consensus = the shared letter, else C)."""
    letters = {reading: gold_letter(reading, labels) for reading in NAMED}
    shared = set(letters.values())
    letters["consensus"] = shared.pop() if len(shared) == 1 else "C"
    return letters


def score_items(
    rows: list[dict], outputs: Mapping[str, str], extractor: str, stored: Mapping[str, dict] | None = None
) -> list[dict]:
    """Each gold row with the run's text and answer: the stored letter (``stored`` extractor), else for a
    translate-then-solve row our reader's letter (its :class:`Translation` kept), else the extractor's."""
    from naf_bench.scoring.translation import answer_from_translation

    stored = stored or {}
    items = []
    for row in rows:
        text = outputs.get(row["id"])
        item = {**row, "text": text or "", **stored.get(row["id"], {})}
        if row.get("mitigation") == "t2s" and text is not None:
            item["translation"] = answer_from_translation(text, row["condition"])
        if extractor == STORED:
            item["answer"] = item.get("stored") if item.get("stored") in LETTERS else None
        elif "translation" in item:
            item["answer"] = item["translation"].letter
        else:
            item["answer"] = extract_answer(text, extractor)
        items.append(item)
    return items


def analyze_run(
    rows: list[dict],
    outputs: Mapping[str, str],
    extractor: str,
    n_bootstrap: int = 1000,
    stored: Mapping[str, dict] | None = None,
) -> dict:
    """Every table of one run (see the module docstring)."""
    items = score_items(rows, outputs, extractor, stored)
    named = [i for i in items if i["gold"] is not None]
    if not any(i["answer"] is not None for i in items):
        raise DataError("<run>", f"no parsable answer with the {extractor!r} extractor")
    majority = Counter(i["gold"] for i in named).most_common(1)[0][0] if named else None
    overall = _cell(named, n_bootstrap, majority)
    result = {
        "n_prompts": len(named),
        "n_parsed": overall["n_parsed"],
        "accuracy": overall["accuracy"],
        "strict_accuracy": overall["strict_accuracy"],
        "ci95": overall["ci95"],
        "baselines": overall["baselines"],
        "per_semantics": {
            c: _cell([i for i in named if i["condition"] == c], n_bootstrap, majority)
            for c in NAMED
            if any(i["condition"] == c for i in named)
        },
        "default_correspondence": _default_correspondence(items),
    }
    by_bin: dict = defaultdict(dict)
    for family in sorted({i["family"] for i in named}):
        for condition in NAMED:
            cell = [i for i in named if i["family"] == family and i["condition"] == condition]
            if cell:
                by_bin[family][condition] = _cell(cell, n_bootstrap)
        by_bin[family]["all"] = _cell([i for i in named if i["family"] == family], n_bootstrap)
    result["by_bin"] = dict(by_bin)
    result["fisher"] = _fisher(named)
    # rule orders or framings give a (program, condition) several rows; without them no group can flip
    rate, groups = flip_rate_from_items((i["program_id"], i["condition"], i["answer"]) for i in named)
    result["flip_rate"] = {"flipped": round(rate * groups) if rate is not None else 0, "groups": groups, "rate": rate}
    certified = [i for i in items if i.get("certificate")]
    certificates = {i["id"]: Certificate.from_json(i["certificate"]) for i in certified}
    result["wfs_undefined"] = _wfs_undefined(named, certificates)
    untutored = [i for i in items if i["condition"] == "none"]
    if untutored and all(i["id"] in certificates for i in untutored):
        result["default_reading"] = _default_reading(untutored, certificates)
    if named and all(i["id"] in certificates for i in named):
        result["audit"] = _audit(named, certificates)
    if len({(i.get("depth"), i.get("width")) for i in named}) > 1 and all(i.get("depth") is not None for i in named):
        result["size"] = _size(named, n_bootstrap, result.get("audit", {}).get("classes"))
    framings = sorted({i["framing"] for i in named if i.get("framing")})
    if len(framings) > 1:
        result["framing"] = {f: _cell([i for i in named if i.get("framing") == f], n_bootstrap) for f in framings}
    mitigations = {i["mitigation"] for i in named if i.get("mitigation")}
    if mitigations:
        result["mitigation"] = _mitigation(named, mitigations, n_bootstrap)
    return result


def _mitigation(named: list[dict], mitigations: set[str], n_bootstrap: int) -> dict:
    """Tables 6 and 14 for one run: parsed / strict accuracy, nulls, both intervals; T2S translation outcomes."""
    cell = _cell(named, n_bootstrap)
    result = {
        "mitigation": ", ".join(sorted(mitigations)),
        "n": cell["n"],
        "n_parsed": cell["n_parsed"],
        "nulls": cell["n"] - cell["n_parsed"],
        "correct": cell["correct"],
        "accuracy": cell["accuracy"],
        "strict_accuracy": cell["strict_accuracy"],
        "ci95": cell["ci95"],
        "n_programs": len({_cluster(i) for i in named}),
        "ci95_prompts": cluster_ci(named, lambda i: i["id"], _parsed_accuracy, n_bootstrap),
    }
    translated = [i for i in named if i.get("mitigation") == "t2s"]
    if translated:
        outcomes = Counter(i["translation"].outcome if "translation" in i else "no_output" for i in translated)
        ours = [i for i in translated if "translation" in i and i["translation"].letter is not None]
        correct = sum(i["translation"].letter == i["gold"] for i in ours)
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
                "answered": len(ours),
                "correct": correct,
                "accuracy": correct / len(ours) if ours else None,
                "strict_accuracy": correct / len(translated),
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


def _regression(scored: dict[str, list[dict]], n_bootstrap: int) -> dict:
    """E3's pooled standardized OLS over the runs' scored items (see the module docstring)."""
    named = {run: [i for i in items if i["gold"] is not None] for run, items in scored.items()}
    accuracy = {run: sum(i["answer"] == i["gold"] for i in items) / len(items) for run, items in named.items()}
    pooled = [run for run, value in accuracy.items() if value < POOLING_THRESHOLD] or list(accuracy)
    data = [i for run in pooled for i in named[run]]
    families = {i["family"] for i in data}
    reference = "control" if "control" in families else min(families)
    fits = {"without_length": ("depth", "width")}
    if all(i.get("tokens") is not None for i in data):
        fits["with_length"] = ("depth", "width", "tokens")

    def fit(sample: list[dict], columns) -> dict | None:
        return standardized_ols(
            [float(i["answer"] == i["gold"]) for i in sample],
            {c: [i[c] for i in sample] for c in columns},
            [i["family"] for i in sample],
            reference,
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
        "reference_bin": reference,
    }
    for name, columns in fits.items():
        coefficients = fit(data, columns)
        result[name] = {
            "coefficients": coefficients,
            "width_minus_depth": gap(data, columns),
            "ci95_prompts": bootstrap_interval(data, lambda s, c=columns: gap(s, c), n_bootstrap),
            "ci95_programs": bootstrap_interval(data, lambda s, c=columns: gap(s, c), n_bootstrap, cluster_of=_cluster),
        }
    return result


def _default_correspondence(items: list[dict]) -> float | None:
    default = {i["program_id"]: i["answer"] for i in items if i["condition"] == "none"}
    wrong = [
        i
        for i in items
        if i["gold"] is not None
        and i["answer"] is not None
        and i["answer"] != i["gold"]
        and default.get(i["program_id"]) is not None
    ]
    return sum(i["answer"] == default[i["program_id"]] for i in wrong) / len(wrong) if wrong else None


def _fisher(named: list[dict]) -> dict | None:
    from scipy.stats import fisher_exact

    parsed = [i for i in named if i["answer"] is not None]
    control = [i["answer"] == i["gold"] for i in parsed if i["family"] == "control"]
    divergent = [i["answer"] == i["gold"] for i in parsed if i["family"] != "control"]
    if not control or not divergent:
        return None
    table = [[sum(control), len(control) - sum(control)], [sum(divergent), len(divergent) - sum(divergent)]]
    odds, p = fisher_exact(table)
    finite = math.isfinite(odds)  # no errors on one side: the odds ratio is undefined (None), p still holds
    programs = defaultdict(list)
    for i in parsed:
        programs[(i["family"] == "control", _cluster(i))].append(i["answer"] == i["gold"])
    per_program = {key: sum(v) / len(v) for key, v in programs.items()}
    return {
        "table": table,
        "odds_ratio": float(odds) if finite else None,
        "p_value": float(p),
        "mann_whitney": mann_whitney(
            [v for (is_control, _), v in per_program.items() if is_control],
            [v for (is_control, _), v in per_program.items() if not is_control],
        ),
    }


def _wfs_undefined(named: list[dict], certificates: dict) -> dict | None:
    cell = [
        i
        for i in named
        if i["condition"] == "wfs" and i["id"] in certificates and certificates[i["id"]].labels["wfs"] == "u"
    ]
    if not cell:
        return None
    parsed = [i for i in cell if i["answer"] is not None]
    definite = sum(i["answer"] in ("A", "B") for i in parsed)
    return {
        "n": len(cell),
        "n_parsed": len(parsed),
        "definite": definite,
        "abstained": len(parsed) - definite,
        "definite_share": definite / len(parsed) if parsed else None,
    }


def _default_reading(untutored: list[dict], certificates: dict) -> dict:
    by_bin: dict = defaultdict(lambda: dict.fromkeys((*LETTERS, "unparsed"), 0))
    for i in untutored:
        by_bin[i["family"]][i["answer"] or "unparsed"] += 1
    letters = {i["id"]: reading_letters(certificates[i["id"]].labels) for i in untutored}
    agreement = {r: sum(i["answer"] == letters[i["id"]][r] for i in untutored) for r in READINGS}
    baselines = {
        f"constant_{x}": {r: sum(x == letters[i["id"]][r] for i in untutored) for r in READINGS} for x in LETTERS
    }
    best = max(READINGS, key=lambda r: agreement[r])
    beats = all(agreement[best] > baselines[f"constant_{x}"][best] for x in LETTERS)
    c_answers = [i for i in untutored if i["answer"] == "C"]
    earned = sum(
        audit(i["text"], certificates[i["id"]], "wfs")["checkpoints"]["cycle_registered"] is True for i in c_answers
    )
    return {
        "n": len(untutored),
        "by_bin": dict(by_bin),
        "agreement": agreement,
        "baselines": baselines,
        "best_fit": best if beats else None,
        "best_fit_agreement": agreement[best],
        "earned_c": {"c_answers": len(c_answers), "cycle_named": earned},
    }


def _audit(named: list[dict], certificates: dict) -> dict:
    audits = {i["id"]: audit(i["text"], certificates[i["id"]], i["condition"]) for i in named}
    correct = {i["id"]: i["answer"] == i["gold"] for i in named}
    by_correctness = {
        key: {
            name: sum(audits[i["id"]]["class"] == name for i in named if correct[i["id"]] == want)
            for name in AUDIT_CLASSES
        }
        for key, want in (("correct", True), ("wrong", False))
    }
    counts = by_correctness["correct"]
    auditable = counts["sound"] + counts["contradicted"]
    sound_by_condition = {}
    for condition in NAMED:
        cell = [audits[i["id"]]["class"] for i in named if i["condition"] == condition]
        if cell:
            judged = sum(c in ("sound", "contradicted") for c in cell)
            sound = cell.count("sound")
            sound_by_condition[condition] = {
                "sound": sound,
                "auditable": judged,
                "rate": sound / judged if judged else None,
            }
    divergent = [i for i in named if i["family"] != "control"]
    checkpoints = {}
    for name, keep in (
        ("cycle_registered", lambda i: True),
        ("no_stable_model_stated", lambda i: i["condition"] in ("cred", "skept")),
        ("several_models_considered", lambda i: i["condition"] == "skept"),
    ):
        flags = [audits[i["id"]]["checkpoints"].get(name) for i in divergent if keep(i)]
        flags = [f for f in flags if f is not None]
        checkpoints[name] = {"stated": sum(flags), "n": len(flags), "rate": sum(flags) / len(flags) if flags else None}
    odd = {
        c: [i for i in named if certificates[i["id"]].incoherent and i["condition"] == c and correct[i["id"]]]
        for c in ("skept", "cred")
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
        "skeptical_odd": {"correct": len(odd["skept"]), "earned": sum(audits[i["id"]]["earned"] for i in odd["skept"])},
        "credulous_odd": {
            "correct": len(odd["cred"]),
            "no_model_stated": sum(
                audits[i["id"]]["checkpoints"]["no_stable_model_stated"] is True for i in odd["cred"]
            ),
        },
        "classes": {key: audits[key]["class"] for key in audits},
        "reasons": {key: audits[key]["reason"] for key in audits},
    }


def _size(named: list[dict], n_bootstrap: int, classes: dict | None) -> dict:
    import numpy as np
    import statsmodels.api as sm

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
    slices = {
        c: {str(v): _parsed_accuracy([i for i in named if i.get(c) == v]) for v in sorted({i[c] for i in named})}
        for c in ("depth", "width")
    }
    best = {
        c: Counter(i["gold"] for i in named if i["condition"] == c).most_common(1)[0][0]
        for c in {i["condition"] for i in named}
    }
    cells = {}
    for column in ("depth", "width"):
        cells[column] = {}
        for value in sorted({i[column] for i in named}):
            cell = [i for i in named if i.get(column) == value]
            cells[column][str(value)] = _cell(cell, n_bootstrap)
            cells[column][str(value)]["baselines"]["best_constant_per_condition"] = sum(
                i["gold"] == best[i["condition"]] for i in cell
            ) / len(cell)
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
    rows = read_gold(gold_path)
    runs, sources, notes = read_runs(run_paths, {row["id"] for row in rows})
    stored = read_stored(run_paths)
    out = {"extractor": extractor, "gold": str(gold_path), "notes": notes, "runs": {}}
    for name, outputs in runs.items():
        try:
            out["runs"][name] = analyze_run(rows, outputs, extractor, n_bootstrap, stored.get(name))
        except DataError as exc:
            raise DataError(sources[name], exc.reason) from None
    if _is_sweep(rows) and runs:
        scored = {name: score_items(rows, outputs, extractor, stored.get(name)) for name, outputs in runs.items()}
        out["regression"] = _regression(scored, n_bootstrap)
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


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def _ci(interval) -> str:
    return "" if not interval else f" [{_pct(interval[0])}, {_pct(interval[1])}]"


def markdown(result: dict) -> str:
    """analysis.md: every table with its counts and baselines."""
    runs = result["runs"]
    lines = [
        f"# NAF-Bench analysis\n\nGold: `{result['gold']}`; answers read with the `{result['extractor']}` "
        "extractor. Accuracy is over parsed answers (parsed / n); 95% intervals resample whole programs.",
        "",
    ]
    lines += [f"- note: {note}" for note in result["notes"]]
    lines += [
        "",
        "## Table 1: accuracy per semantics",
        "",
        "| run | " + " | ".join(NAMED) + " | all (parsed) | strict | cor. |",
        "|---" * (len(NAMED) + 4) + "|",
    ]
    for name, r in runs.items():
        cells = [
            f"{_pct(c['accuracy'])}{_ci(c['ci95'])} ({c['correct']}/{c['n_parsed']} of {c['n']})"
            if (c := r["per_semantics"].get(k))
            else "–"
            for k in NAMED
        ]
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {_pct(r['accuracy'])} ({r['n_parsed']}/{r['n_prompts']})"
            f" | {_pct(r['strict_accuracy'])} | {_pct(r['default_correspondence'])} |"
        )
    if runs:
        first = next(iter(runs.values()))
        for x in (*(f"constant_{x}" for x in LETTERS), "majority"):
            cells = [
                _pct(first["per_semantics"][k]["baselines"].get(x)) if k in first["per_semantics"] else "–"
                for k in NAMED
            ]
            lines.append(f"| *{x}* | " + " | ".join(cells) + f" | {_pct(first['baselines'].get(x))} | | |")
    lines += [
        "",
        "## Table 2: accuracy by divergence bin (semantics named)",
        "",
        "| run | bin | " + " | ".join(NAMED) + " | all | Fisher control vs divergent |",
        "|---" * (len(NAMED) + 4) + "|",
    ]
    for name, r in runs.items():
        fisher = r["fisher"]
        odds = "n/a" if not fisher or fisher["odds_ratio"] is None else f"{fisher['odds_ratio']:.2f}"
        test = f"p = {fisher['p_value']:.2g}, odds ratio {odds}{_mann_whitney(fisher)}" if fisher else "n/a"
        for family, cells in r["by_bin"].items():
            row = [
                f"{_pct(c['accuracy'])} ({c['correct']}/{c['n_parsed']})" if (c := cells.get(k)) else "–"
                for k in (*NAMED, "all")
            ]
            lines.append(f"| {name} | {family} | " + " | ".join(row) + f" | {test} |")
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
                f"| {name} | {_pct(r['strict_accuracy'])} | {_pct(f['rate'])} ({f['flipped']}) | {f['groups']} "
                f"| {r['n_parsed']}/{r['n_prompts']} |"
            )
    undefined = {n: r["wfs_undefined"] for n, r in runs.items() if r.get("wfs_undefined")}
    if undefined:
        lines += [
            "",
            "## Table 5: WFS items whose certified answer is undefined",
            "",
            "| run | n | parsed | definite (A/B) | abstained (C) | definite share |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {n} | {u['n']} | {u['n_parsed']} | {u['definite']} | {u['abstained']} | {_pct(u['definite_share'])} |"
            for n, u in undefined.items()
        ]
    defaults = {n: r["default_reading"] for n, r in runs.items() if r.get("default_reading")}
    if defaults:
        lines += [
            "",
            "## Tables 9–10: untutored answers (condition none)",
            "",
            "| run | bin | A | B | C | unparsed |",
            "|---|---|---|---|---|---|",
        ]
        for name, d in defaults.items():
            lines += [
                f"| {name} | {b} | {c['A']} | {c['B']} | {c['C']} | {c['unparsed']} |" for b, c in d["by_bin"].items()
            ]
        lines += [
            "",
            "| run / baseline | " + " | ".join(READINGS) + " | best fit | C answers naming the cycle |",
            "|---" * (len(READINGS) + 3) + "|",
        ]
        for name, d in defaults.items():
            lines.append(
                f"| {name} (of {d['n']}) | "
                + " | ".join(str(d["agreement"][x]) for x in READINGS)
                + f" | {d['best_fit'] or 'none beats every constant'} | "
                f"{d['earned_c']['cycle_named']}/{d['earned_c']['c_answers']} |"
            )
        first = next(iter(defaults.values()))
        for constant, agreement in first["baselines"].items():
            lines.append(f"| *{constant}* | " + " | ".join(str(agreement[x]) for x in READINGS) + " | | |")
    audited = {n: r["audit"] for n, r in runs.items() if r.get("audit")}
    if audited:
        lines += [
            "",
            "## Tables 11–13: trace audit",
            "",
            "| run | answer | " + " | ".join(AUDIT_CLASSES) + " |",
            "|---" * (len(AUDIT_CLASSES) + 2) + "|",
        ]
        for name, a in audited.items():
            for key, counts in a["by_correctness"].items():
                lines.append(f"| {name} | {key} | " + " | ".join(str(counts[c]) for c in AUDIT_CLASSES) + " |")
        floor = result.get("audit_floor")
        floor_text = (
            (
                f"{_pct(floor['rate'])} ({floor['contradicted']}/{floor['auditable']} over {floor['runs']} "
                "run(s) with every answer correct)"
            )
            if floor
            else "n/a (no run answers every prompt correctly)"
        )
        lines += [
            "",
            f"Contradicted among correct auditable answers (audit false-positive floor: {floor_text}):",
            "",
            "| run | contradicted / auditable | rate | "
            + " | ".join(f"sound {c}" for c in NAMED)
            + " | cycle registered | odd: no stable model | skept-even: >1 model | skeptical odd: earned / correct |",
            "|---" * (len(NAMED) + 7) + "|",
        ]
        for name, a in audited.items():
            c = a["contradicted_among_correct"]
            sound = [f"{s['sound']}/{s['auditable']}" if (s := a["sound_by_condition"].get(k)) else "–" for k in NAMED]
            points = [f"{p['stated']}/{p['n']}" for p in a["checkpoints"].values()]
            odd = a["skeptical_odd"]
            lines.append(
                f"| {name} | {c['contradicted']}/{c['auditable']} | {_pct(c['rate'])} | "
                + " | ".join(sound)
                + " | "
                + " | ".join(points)
                + f" | {odd['earned']}/{odd['correct']} |"
            )
    sized = {n: r["size"] for n, r in runs.items() if r.get("size")}
    if sized:
        lines += ["", "## E3: size moderators (standardised OLS, program-bootstrap 95% intervals)", ""]
        for name, s in sized.items():
            coefficients = s["standardised_ols"] or {}
            lines.append(
                f"- {name}: "
                + ", ".join(f"z({k}) = {v:.3f}{_ci(s['ci95'].get(k))}" for k, v in coefficients.items())
                + "; accuracy by depth "
                + ", ".join(f"{k}: {_pct(v)}" for k, v in s["accuracy_by"]["depth"].items())
                + "; by width "
                + ", ".join(f"{k}: {_pct(v)}" for k, v in s["accuracy_by"]["width"].items())
                + (
                    "; sound traces by depth " + ", ".join(f"{k}: {_pct(v)}" for k, v in s["sound_by"]["depth"].items())
                    if "sound_by" in s
                    else ""
                )
            )
    lines += _render_slices(runs) + _render_regression(result.get("regression"))
    lines += _render_framing(runs) + _render_mitigation(runs)
    return "\n".join(lines) + "\n"


def _mann_whitney(fisher: dict) -> str:
    test = fisher.get("mann_whitney")
    if not test:
        return ""
    p = "n/a" if test["p_value"] is None else f"{test['p_value']:.2g}"
    return f"; Mann–Whitney p = {p} ({test['n_control']} vs {test['n_divergent']} programs)"


def _counted(c: dict) -> str:
    return f"{_pct(c['accuracy'])}{_ci(c['ci95'])} ({c['correct']}/{c['n_parsed']} of {c['n']})"


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
                    f"| {name} | {axis} | {value} | {_counted(c)} | {_pct(c['strict_accuracy'])} | "
                    f"{_pct(b['best_constant_per_condition'])} | "
                    + " / ".join(_pct(b[f"constant_{x}"]) for x in LETTERS)
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
        f"(accuracy {', '.join(f'{n} {_pct(v)}' for n, v in regression['accuracy'].items())}); n = "
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
        lines += [f"| {name} | {f} | {_counted(c)} | {_pct(c['strict_accuracy'])} |" for f, c in cells.items()]
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
            f"| {name} | {m['mitigation']} | {_pct(m['accuracy'])} ({m['correct']}/{m['n_parsed']}) | "
            f"{_pct(m['strict_accuracy'])} (of {m['n']}) | {m['nulls']} | {_ci(m['ci95'])} over {m['n_programs']} "
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
                f"| {name} | {t['stored_ok']}/{t['stored_ok_known']} | {outcomes} | {_pct(ours['accuracy'])} "
                f"({ours['correct']}/{ours['answered']}) | {_pct(ours['strict_accuracy'])} (of {t['n']}) |"
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
        cells = [r["per_semantics"].get(c) for c in NAMED]
        values = [c["accuracy"] if c and c["accuracy"] is not None else float("nan") for c in cells]
        errors = [
            [v - c["ci95"][0] if c and c["ci95"] else 0 for v, c in zip(values, cells, strict=True)],
            [c["ci95"][1] - v if c and c["ci95"] else 0 for v, c in zip(values, cells, strict=True)],
        ]
        axis.bar([x + k * width for x in range(len(NAMED))], values, width, yerr=errors, capsize=2, label=name[:24])
    axis.set_xticks([x + 0.4 - width / 2 for x in range(len(NAMED))], NAMED)
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
