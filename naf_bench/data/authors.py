"""Import the NAF-Bench authors' published files (a clone of their repository, or any folder with its
``data/`` layout) as naf-bench gold rows and submissions.

The sets are declared in one table, :data:`SUBSETS` (files, row layout, what varies); a new set is one entry.
``import_authors(ref, out)`` writes, for each subset whose set file is found:

- ``OUT/<subset>/gold.jsonl``: one row per prompt in naf-bench's row schema; ``id`` is the authors'
  ``task_id``, ``program_id`` its ``rec_id``, ``family`` its ``divergence_bin`` (or, in the ``certified``
  layout that has none, its ``kind``: control / divergent), ``variant`` its ``order_id`` or framing, ``gold``
  its letter. ``cluster`` names the distinct program for intervals: the first ``rec_id`` with the same rules up
  to renaming of atoms (:func:`naf_bench.syntax.canonical_key`) where the rules are known, else the id with
  its theme and condition stripped (``cyc2-disj-meeting`` → ``cyc2-disj``); ``production`` and ``reorder``
  keep ``rec_id``. ``certificate`` comes from *our* certifier, run on the rules read back from the prompt (or,
  for a themed prompt, taken from the set's ``program`` field); a row whose rules cannot be known, whose
  condition has no reading in :mod:`naf_bench.readings` (the pilot's ``stable``) or that lacks a field is
  imported with the authors' labels and its reasons in ``marks``, never dropped.
- ``OUT/<subset>/runs/<model>.jsonl``: ``{"id", "prediction", "stored"}`` per prompt: the full output from
  ``<model>.raw.json`` (where a model has none, the authors' letter: said in the notes; a null letter becomes
  an empty prediction, scored as unanswered) beside ``stored``, the authors' parsed letter from
  ``<model>.json``. A translate-then-solve line holds the translation text as ``prediction``, the letter the
  authors' solver gave as ``stored`` and their parser's verdict as ``stored_ok``.

Every label on which the authors and our certifier disagree is returned, never dropped.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from naf_bench.certify import Certificate, certify
from naf_bench.data.importer import has_leaderboard, import_leaderboard
from naf_bench.errors import DataError, NafBenchError, ParseError
from naf_bench.readings import NO_SEMANTICS, all_conditions, gold_letter
from naf_bench.scoring.intake import input_file
from naf_bench.syntax.ast import Program
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.render import render_asp
from naf_bench.syntax.structure import canonical_key
from naf_bench.verbalize.read_back import program_from_prompt

LAYOUTS = {  # row layout -> the fields every record must have
    "binned": ("task_id", "rec_id", "cond", "divergence_bin", "gold", "labels", "prompt"),
    "certified": ("task_id", "rec_id", "cond", "family", "gold", "certified", "prompt"),
}
_WFS_THEMES = ("meeting", "panel", "network", "committee", "approval", "eligibility", "authority", "review")


@dataclass(frozen=True)
class Subset:
    """One of the authors' sets: its files, its row layout, what varies across its rows, and how programs cluster."""

    name: str
    set_file: str
    answers: str  # folder of <model>.json (stored letters) and <model>.raw.json (full outputs)
    layout: str  # a key of LAYOUTS
    varies: tuple[str, ...]
    themes: tuple[str, ...] = ()  # id tokens that name a theme, stripped from the id when it names the cluster
    framings: tuple[str, ...] = ()  # the framing named by each value of the records' `theme`
    language: str = "en"
    mitigation: str | None = None  # direct, verify, t2s (the answers hold translations)
    cluster_by_rules: bool = True  # False: the cluster is the rec_id, as the first imports had it
    extractor: str = "strict"  # how the paper's figure read the answers (analyze --authors uses it)


SUBSETS = (
    Subset("production", "data/production_set.json", "data/production_answers/run1", "binned", ("divergence_bin",),
           cluster_by_rules=False),
    Subset("reorder", "data/reorder_prod_set.json", "data/reorder_prod_answers", "binned", ("rule_order",),
           cluster_by_rules=False, extractor="authors"),
    Subset("grid_large", "data/grid_large_set.json", "data/grid_large_answers", "binned", ("depth", "width"),
           extractor="authors"),
    Subset("v3_sweep", "data/v3_full.json", "data/v3_answers", "binned", ("depth", "width", "divergence_bin"),
           framings=("escalation", "sensor"), extractor="stored"),
    Subset("framing", "data/verb_set.json", "data/verb_answers", "binned", ("framing",), themes=("t0", "t1", "t2"),
           framings=("escalation", "sensor", "audit"), extractor="authors"),
    Subset("wfs_big_direct", "data/wfs_big.json", "data/wfs_big_answers", "certified", ("mitigation",),
           themes=_WFS_THEMES, mitigation="direct", extractor="stored"),
    Subset("wfs_big_verify", "data/wfs_big_verify.json", "data/wfs_big_verify_answers", "certified",
           ("mitigation",), themes=_WFS_THEMES, mitigation="verify", extractor="stored"),
    Subset("wfs_big_t2s", "data/wfs_big.json", "data/t2s_big_answers", "certified", ("mitigation",),
           themes=_WFS_THEMES, mitigation="t2s", extractor="stored"),
    Subset("pilot_en", "data/eval_set.json", "data/auto_answers", "certified", ("language",), language="en",
           extractor="stored"),
    Subset("pilot_zh", "data/eval_set_zh.json", "data/zh_answers", "certified", ("language",), language="zh",
           extractor="stored"),
    # the sets below are in a layout read above but back no table of the paper that naf-bench reproduces: they
    # name no mitigation and do not vary language, so Tables 6 and 14 and English against Chinese stay as above
    *(Subset(f"headline_{run}", "data/headline.json", f"data/{folder}", "binned", ("divergence_bin",),
             themes=("t0", "t1", "t2"), extractor="stored")
      for run, folder in (("run1", "hl_run1"), ("run2", "hl_run2"), ("run3", "hl_run3"), ("tokens", "headline_tok"),
                          ("promptcheck", "promptcheck"))),
    Subset("cyclesweep", "data/cyclesweep.json", "data/cyc_answers", "binned", ("cycle_len",), extractor="stored"),
    Subset("pilot_grid", "data/pilot.json", "data/pilot_answers", "binned", ("depth", "width"), extractor="stored"),
    Subset("reorder_pilot", "data/reorder_set.json", "data/reorder_answers", "binned", ("rule_order",),
           extractor="stored"),
    Subset("v2_eval", "data/v2_eval.json", "data/v2_answers", "binned", ("depth", "width", "divergence_bin"),
           extractor="stored"),
    Subset("v2_sweep", "data/v2_full.json", "data/v2_full_answers", "binned", ("depth", "width", "divergence_bin"),
           extractor="stored"),
    Subset("v3_ext", "data/v3_ext.json", "data/ext_answers", "binned", ("depth", "width", "divergence_bin"),
           extractor="stored"),
    Subset("generalization", "data/generalization.json", "data/gen_answers", "binned", ("divergence_bin",),
           extractor="stored"),
    Subset("ladder", "data/ladder_set.json", "data/ladder_answers", "certified", ("family",), extractor="stored"),
    Subset("verify_en", "data/verify_set.json", "data/verify_answers", "certified", ("family",), extractor="stored"),
    Subset("verify_zh", "data/verify_set_zh.json", "data/verify_zh_answers", "certified", ("family",), language="zh",
           extractor="stored"),
    Subset("wfs_big_six", "data/wfs_big.json", "data/big_answers", "certified", ("family",), themes=_WFS_THEMES,
           extractor="stored"),
    Subset("smoke", "data/smoke_set.json", "data/smoke_answers", "certified", ("family",), extractor="stored"),
)  # fmt: skip

# the certified layout's labels: stable true = in every answer set, brave = in some, false = in none
_STABLE = {"true": ("T", "T"), "brave": ("T", "F"), "false": ("F", "F")}
_THREE_VALUED = {"true": "T", "false": "F", "undefined": "u", "loop": "loop"}


@dataclass
class ImportReport:
    """What an import wrote and found: files, rows per subset, label disagreements, marked rows, notes."""

    written: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    programs: dict[str, int] = field(default_factory=dict)  # distinct programs certified by naf-bench
    disagreements: list[str] = field(default_factory=list)
    marks: dict[str, Counter] = field(default_factory=dict)  # subset -> {reason: rows}
    notes: list[str] = field(default_factory=list)
    imported: dict[str, list[str]] = field(default_factory=dict)  # file under REF -> what it became
    failed: dict[str, str] = field(default_factory=dict)  # file under REF naf-bench reads -> why it could not
    skipped: dict[str, str] = field(default_factory=dict)  # every other file under REF -> why it was not read
    summary: Path | None = None  # OUT/import.json, which holds all of the above but the written paths

    def to_json(self) -> dict:
        return {
            "counts": {"imported": len(self.imported), "failed": len(self.failed), "skipped": len(self.skipped)},
            "rows": self.rows,
            "programs": self.programs,
            "disagreements": self.disagreements,
            "marks": {subset: dict(marks) for subset, marks in self.marks.items()},
            "notes": self.notes,
            "imported": self.imported,
            "failed": self.failed,
            "skipped": self.skipped,
        }

    def took(self, ref: Path, path: Path, what: str) -> None:
        self.imported.setdefault(Path(path).relative_to(ref).as_posix(), []).append(what)

    def refused(self, ref: Path, error: ValueError, what: str, path: Path | None = None) -> None:
        """A file that could not be read: ``path`` (by default a DataError's own), its line where the error names
        one, the reason, and ``what`` it was to become."""
        if isinstance(error, DataError):
            path, reason = path or Path(error.path), error.reason
            reason = reason if error.line is None else f"line {error.line}: {reason}"
        else:
            reason = str(error)
        self.failed[Path(path).relative_to(ref).as_posix()] = f"{reason} ({what})"


def _load_json(path: Path):
    try:
        return json.loads(input_file(path, "a JSON file of the authors' data/ layout").read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, f"malformed JSON ({exc.msg}, column {exc.colno})", exc.lineno) from None


def _authors_labels(record: dict, layout: str) -> dict[str, str | None]:
    """The authors' labels in naf-bench's names (cred, skept, wfs, sldnf)."""
    if layout == "binned":
        return {key: record["labels"].get(key) for key in ("cred", "skept", "wfs", "sldnf")}
    certified = record["certified"]
    cred, skept = _STABLE.get(certified.get("stable"), (None, None))
    return {
        "cred": cred,
        "skept": skept,
        "wfs": _THREE_VALUED.get(certified.get("wfs")),
        "sldnf": _THREE_VALUED.get(certified.get("sldnf")),
    }


def _rules(record: dict, marks: list[str]) -> tuple[Program, str] | None:
    """The rules and query of a record: read back from its prompt, else its ``program`` field (query ``q``)."""
    try:
        program, query = program_from_prompt(record["prompt"])
    except ValueError:
        text = record.get("program")
        if not isinstance(text, str):
            marks.append("rules not known (a themed prompt and no 'program' field): the authors' labels")
            return None
        try:
            program = parse_program(text)
        except ParseError as error:
            marks.append(f"the 'program' field does not parse ({error}): not re-certified")
            return None
        if not any(rule.head == "q" for rule in program.rules):
            marks.append("the 'program' field has no rule for the query q: not re-certified")
            return None
        marks.append("rules from the 'program' field (the themed prompt cannot be read back)")
        return program, "q"
    if "program" in record and sorted(record["program"].split()) != sorted(render_asp(program).split()):
        raise ValueError("the prompt's rules differ from the 'program' field")
    return program, query


def _cluster_from_id(task_id: str, themes: tuple[str, ...]) -> str:
    """The id without its condition and theme tokens: ``cyc2-disj-meeting::wfs`` → ``cyc2-disj``."""
    base = task_id.split("::", 1)[0]
    kept = [token for token in base.split("-") if token not in themes and token not in all_conditions()]
    return "-".join(kept) or base


def _rows(path: Path, records, report: ImportReport, subset: Subset) -> list[dict]:
    if not isinstance(records, list):
        raise DataError(path, "expected a JSON list of prompt records")
    needed = LAYOUTS[subset.layout]
    certificates: dict[tuple[str, str], Certificate] = {}
    clusters: dict[str, str] = {}
    failed: dict[tuple[str, str], str] = {}
    marked = report.marks.setdefault(subset.name, Counter())
    rows, seen = [], set()
    for number, record in enumerate(records, start=1):
        where = f"record {number}"
        missing = [key for key in needed if not isinstance(record, dict) or key not in record]
        if missing:
            raise DataError(path, f"{where}: missing {', '.join(missing)}")
        task_id, condition, marks = record["task_id"], record["cond"], []
        if task_id in seen:
            raise DataError(path, f"{where}: duplicate task_id {task_id!r}")
        seen.add(task_id)
        if subset.layout == "certified":
            marks.append("no divergence_bin: family is the authors' kind (control / divergent)")
            kind = record.get("kind") or {True: "divergent", False: "control"}.get(record.get("divergent"))
        known = condition in all_conditions()
        if not known:
            marks.append(f"condition {condition!r} has no reading in naf-bench's table: gold is the authors'")
        try:
            rules = _rules(record, marks)
        except ValueError as exc:
            raise DataError(path, f"{where} ({task_id}): {exc}") from None
        theirs = _authors_labels(record, subset.layout)
        certificate = None
        if rules is not None:
            program, query = rules
            key = (render_asp(program), query)
            if key not in certificates and key not in failed:
                try:
                    certificates[key] = certify(program, query)
                except NafBenchError as exc:
                    failed[key] = f"certification failed ({type(exc).__name__}: {exc}): not re-certified"
            if key in failed:
                marks.append(failed[key])
            else:
                certificate = certificates[key]
        gold = record["gold"]
        if certificate is not None:
            ours = gold_letter(condition, certificate.labels) if known else gold
            if theirs != certificate.labels or gold != ours:
                report.disagreements.append(
                    f"{subset.name} {task_id}: their labels {theirs} gold {gold}, ours {certificate.labels} gold {ours}"
                )
        if condition == NO_SEMANTICS and gold is not None:
            marks.append(f"the authors give the untutored prompt gold {gold}; naf-bench's rows have none")
            gold = None
        cluster = record["rec_id"]
        if subset.cluster_by_rules:
            if certificate is not None:
                cluster = clusters.setdefault(canonical_key(program, query), record["rec_id"])
            else:
                cluster = _cluster_from_id(task_id, subset.themes)
        theme = record.get("theme")
        framing = subset.framings[theme] if isinstance(theme, int) and theme < len(subset.framings) else None
        labels = dict(certificate.labels) if certificate is not None else theirs
        for mark in marks:
            marked[mark] += 1
        rows.append(
            {
                "id": task_id,
                "program_id": record["rec_id"],
                "cluster": cluster,
                "config": f"reference-{subset.name}",
                "family": record["divergence_bin"] if subset.layout == "binned" else kind,
                "condition": condition,
                "gold": gold,
                "labels": labels,
                "signature": certificate.signature if certificate is not None else None,
                "program": certificate.program if certificate is not None else None,
                "query": certificate.query if certificate is not None else None,
                "depth": record.get("depth"),
                "width": record.get("width"),
                "cycle_len": record.get("cycle_len"),
                "variant": record.get("order_id", framing),
                "framing": framing,
                "language": subset.language,
                "mitigation": subset.mitigation,
                "tokens": (record.get("length") or {}).get("tokens"),
                "n_stable_models": certificate.n_stable_models if certificate is not None else None,
                "certificate": certificate.to_json() if certificate is not None else None,
                "marks": marks,
            }
        )
    report.programs[subset.name] = len(certificates)
    return rows


def _runs(ref: Path, subset: Subset, rows: list[dict], report: ImportReport) -> dict[str, tuple[list[dict], list]]:
    """Each model's records and the files they were read from; a model whose files cannot be read is listed in
    ``report.failed`` and left out, the others are kept."""
    folder = ref / subset.answers
    files = folder.glob("*.json") if folder.is_dir() else ()
    runs = {}
    for model in sorted({p.name.removesuffix(".json").removesuffix(".raw") for p in files}):
        try:
            runs[model] = _run(folder, model, rows, report, subset)
        except DataError as exc:
            report.refused(ref, exc, f"{model}'s run of {subset.name}")
    return runs


def _run(folder: Path, model: str, rows: list[dict], report: ImportReport, subset: Subset) -> tuple[list[dict], list]:
    ids = [row["id"] for row in rows]
    raw_path, parsed_path = folder / f"{model}.raw.json", folder / f"{model}.json"
    parsed = _load_json(parsed_path) if parsed_path.exists() else None
    stored = parsed.get("answers") if isinstance(parsed, dict) else None
    if parsed is not None and not isinstance(stored, dict):
        raise DataError(parsed_path, 'expected {"answers": {task_id: letter or null}}')
    stored = stored or {}
    where = f"{subset.name}/{model}"
    extra: dict[str, dict] = {}
    if subset.mitigation == "t2s":
        translations = parsed.get("translations") if isinstance(parsed, dict) else None
        if not isinstance(translations, dict):
            raise DataError(parsed_path, 'expected {"translations": {rec_id: {text, ok, query}}}')
        outputs, path = {}, parsed_path
        for row in rows:
            entry = translations.get(row["program_id"])
            if isinstance(entry, dict):
                outputs[row["id"]] = entry.get("text")
                extra[row["id"]] = {"stored_ok": entry.get("ok")}
    elif raw_path.exists():
        outputs, path = _load_json(raw_path), raw_path
    else:
        outputs, path = stored, parsed_path
        report.notes.append(f"{where}: no raw outputs; using the authors' parsed letters ({path.name})")
    if not isinstance(outputs, dict):
        raise DataError(path, "expected a JSON object {task_id: output}")
    unknown = sorted(set(outputs) - set(ids))
    if unknown:
        raise DataError(path, f"{len(unknown)} ids not in the {subset.name} set, e.g. {unknown[:3]}")
    missing = [i for i in ids if i not in outputs]
    if missing:
        report.notes.append(f"{where}: {len(missing)} prompts have no output (scored as unanswered)")
    empty = [i for i in ids if i in outputs and outputs[i] is None]
    if empty:
        report.notes.append(f"{where}: {len(empty)} null outputs, written as empty predictions")
    for task_id, value in outputs.items():
        if value is not None and not isinstance(value, str):
            raise DataError(path, f"output of {task_id!r} is not a string")
    records = [
        {"id": i, "prediction": outputs[i] or "", "stored": stored.get(i), **extra.get(i, {})}
        for i in ids
        if i in outputs
    ]
    return records, [p for p in (raw_path, parsed_path) if p.exists()]


def _write_jsonl(path: Path, records: list[dict], report: ImportReport) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    report.written.append(path)


def import_authors(ref: str | Path, out: str | Path) -> ImportReport:
    """Gold rows and submissions of every subset of the authors' files under ``ref`` (see the module docstring)."""
    ref, out = Path(ref), Path(out)
    if not ref.is_dir():
        what = "a file" if ref.exists() else "no such folder"
        raise DataError(
            ref,
            f"{what}, where a clone of the authors' repository (a folder with their data/ or "
            "leaderboard/ layout) was expected",
        )
    found = [subset for subset in SUBSETS if (ref / subset.set_file).exists()]
    # a set read by several subsets is written once more only for a subset that has answers of its own
    first = {subset.set_file: subset for subset in reversed(found)}
    found = [subset for subset in found if (ref / subset.answers).is_dir() or first[subset.set_file] is subset]
    if not found and not has_leaderboard(ref):
        raise DataError(
            ref,
            f"none of the authors' files: expected their {SUBSETS[0].set_file} (or another of "
            "their sets, or leaderboard/data/*.jsonl) under it",
        )
    report = ImportReport()
    for subset in found:
        try:
            rows = _rows(ref / subset.set_file, _load_json(ref / subset.set_file), report, subset)
        except DataError as exc:
            report.refused(ref, exc, f"the {subset.name} set")
            continue
        report.rows[subset.name] = len(rows)
        _write_jsonl(out / subset.name / "gold.jsonl", rows, report)
        report.took(ref, ref / subset.set_file, f"{subset.name}/gold.jsonl")
        for model, (records, paths) in _runs(ref, subset, rows, report).items():
            _write_jsonl(out / subset.name / "runs" / f"{model}.jsonl", records, report)
            for path in paths:
                report.took(ref, path, f"{subset.name}/runs/{model}.jsonl")
    import_leaderboard(ref, out / "leaderboard", report)  # REF/leaderboard/: OUT/leaderboard/
    _list_the_rest(ref, report)
    report.summary = out / "import.json"
    report.summary.parent.mkdir(parents=True, exist_ok=True)
    report.summary.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


_NOT_DATA = {".png": "a figure", ".jpg": "a figure", ".svg": "a figure", ".pdf": "a figure",
             ".py": "a script: naf-bench runs none of the authors' code", ".md": "documentation",
             ".txt": "documentation", ".html": "a web page"}  # fmt: skip


def _list_the_rest(ref: Path, report: ImportReport) -> None:
    """Give every other file under ``ref/data`` and ``ref/leaderboard`` the reason it was not read."""
    for top in ("data", "leaderboard"):
        for path in sorted(p for p in (ref / top).rglob("*") if p.is_file()):
            name = path.relative_to(ref).as_posix()
            if name not in report.imported and name not in report.failed and name not in report.skipped:
                report.skipped[name] = _NOT_DATA.get(path.suffix.lower()) or _why_not(ref, path)


def _why_not(ref: Path, path: Path) -> str:
    """Why a JSON file no subset reads is not imported: its layout, or the set it answers is not imported."""
    folder = path.parent.relative_to(ref).as_posix()
    if folder.startswith("leaderboard"):
        return "not a leaderboard set or submission: sets are leaderboard/data/*.jsonl, submissions *.jsonl"
    if folder != "data":
        owners = [subset for subset in SUBSETS if subset.answers == folder]
        if owners:
            return f"answers to no imported set: {owners[0].name}'s set ({owners[0].set_file}) was not imported"
        return f"answers to no imported set: no set naf-bench imports reads {folder}/"
    try:
        text = path.read_text(encoding="utf-8")
        records = (
            [json.loads(line) for line in text.splitlines() if line.strip()]
            if path.suffix == ".jsonl"
            else (json.loads(text))
        )
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"not JSON ({exc})"
    if not isinstance(records, list) or not records or not isinstance(records[0], dict):
        keys = f" with keys {sorted(records)[:4]}" if isinstance(records, dict) else ""
        return f"not a set: a JSON {type(records).__name__}{keys}, not a list of prompt records"
    gaps = {name: [f for f in fields if f not in records[0]] for name, fields in LAYOUTS.items()}
    closest = min(gaps, key=lambda name: len(gaps[name]))
    return f"a set in no layout naf-bench reads: its records lack {', '.join(gaps[closest])} of the {closest} layout"
