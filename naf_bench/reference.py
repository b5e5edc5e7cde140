"""Import the NAF-Bench authors' reference data (a clone of their repository, or any folder with its
``data/`` layout) as naf-bench gold rows and submissions.

``import_reference(ref, out)`` writes, for each subset found (``production``, ``reorder``):

- ``OUT/<subset>/gold.jsonl``: one row per prompt in naf-bench's row schema; ``id`` is the reference's
  ``task_id``, ``program_id`` its ``rec_id``, ``family`` its ``divergence_bin``, ``variant`` its ``order_id``
  (reordered set), ``gold`` its letter, and ``certificate`` comes from *our* certifier run on the program
  (the reordered set stores no program field: the rules are read back from the prompt).
- ``OUT/<subset>/runs/<model>.jsonl``: ``{"id", "prediction"}`` per prompt, the full output from
  ``<model>.raw.json``, or, where a model has no raw file, the authors' parsed letter from ``<model>.json``
  (said in the returned notes; a null letter becomes an empty prediction, scored as unanswered).

Every label on which the reference and our certifier disagree is returned, never dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from naf_bench.certify import Certificate, certify
from naf_bench.errors import DataError, NafBenchError
from naf_bench.leaderboard.importer import has_leaderboard, import_leaderboard
from naf_bench.readings import CONDITIONS, gold_letter
from naf_bench.syntax.ast import Literal, Program, Rule
from naf_bench.syntax.render import render_asp

SUBSETS = {
    "production": ("data/production_set.json", "data/production_answers/run1"),
    "reorder": ("data/reorder_prod_set.json", "data/reorder_prod_answers"),
}
_NEEDED = ("task_id", "rec_id", "cond", "divergence_bin", "gold", "labels", "prompt")
_FACT = re.compile(r"Proposition ([a-z][A-Za-z0-9_]*) is true")
_CONDITION = re.compile(r"proposition ([a-z][A-Za-z0-9_]*) is (not )?true")
_QUESTION = re.compile(r"Question: Is proposition ([a-z][A-Za-z0-9_]*) true\?")


@dataclass
class ImportReport:
    """What an import wrote and found: files, rows per subset, label disagreements, notes."""

    written: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    programs: dict[str, int] = field(default_factory=dict)
    disagreements: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _load_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(path, "file not found") from None
    except json.JSONDecodeError as exc:
        raise DataError(path, f"malformed JSON ({exc.msg}, column {exc.colno})", exc.lineno) from None


def program_from_prompt(prompt: str) -> tuple[Program, str]:
    """The program and query of a prompt in the reference's abstract wording (``Proposition a is true if
    proposition b is true and proposition c is not true.``), rules in prompt order."""
    start = prompt.find("Rules:")
    end = prompt.find("Question:", max(start, 0))
    question = _QUESTION.search(prompt, max(end, 0))
    if start < 0 or end < 0 or question is None:
        raise ValueError("no 'Rules:' block followed by 'Question: Is proposition q true?'")
    rules = []
    for sentence in prompt[start + len("Rules:") : end].split("."):
        sentence = sentence.strip()
        if not sentence:
            continue
        head, _, conditions = sentence.partition(" if ")
        fact = _FACT.fullmatch(head)
        if fact is None:
            raise ValueError(f"cannot read the rule {sentence[:80]!r}")
        body = []
        for part in conditions.split(" and ") if conditions else ():
            literal = _CONDITION.fullmatch(part)
            if literal is None:
                raise ValueError(f"cannot read the condition {part[:80]!r}")
            body.append(Literal(literal.group(1), positive=literal.group(2) is None))
        rules.append(Rule(fact.group(1), tuple(body)))
    return Program(tuple(rules)), question.group(1)


def _rows(path: Path, records, report: ImportReport, subset: str) -> list[dict]:
    if not isinstance(records, list):
        raise DataError(path, "expected a JSON list of prompt records")
    certificates: dict[tuple[str, str], Certificate] = {}
    rows, seen = [], set()
    for number, record in enumerate(records, start=1):
        where = f"record {number}"
        missing = [key for key in _NEEDED if not isinstance(record, dict) or key not in record]
        if missing:
            raise DataError(path, f"{where}: missing {', '.join(missing)}")
        task_id, condition = record["task_id"], record["cond"]
        if condition not in CONDITIONS:
            raise DataError(path, f"{where} ({task_id}): unknown condition {condition!r}")
        if task_id in seen:
            raise DataError(path, f"{where}: duplicate task_id {task_id!r}")
        seen.add(task_id)
        try:
            program, query = program_from_prompt(record["prompt"])
        except ValueError as exc:
            raise DataError(path, f"{where} ({task_id}): {exc}") from None
        text = render_asp(program)
        if "program" in record and sorted(record["program"].split()) != sorted(text.split()):
            raise DataError(path, f"{where} ({task_id}): the prompt's rules differ from the 'program' field")
        key = (text, query)
        if key not in certificates:
            try:
                certificates[key] = certify(program, query)
            except NafBenchError as exc:
                raise DataError(path, f"{where} ({task_id}): certification failed: {exc}") from None
        certificate = certificates[key]
        gold = gold_letter(condition, certificate.labels)
        theirs = {k: record["labels"].get(k) for k in certificate.labels}
        if theirs != certificate.labels or record["gold"] != gold:
            report.disagreements.append(
                f"{subset} {task_id}: reference labels {theirs} gold {record['gold']}, "
                f"ours {certificate.labels} gold {gold}"
            )
        rows.append(
            {
                "id": task_id,
                "program_id": record["rec_id"],
                "config": f"reference-{subset}",
                "family": record["divergence_bin"],
                "condition": condition,
                "gold": record["gold"],
                "labels": dict(certificate.labels),
                "signature": certificate.signature,
                "program": text,
                "query": query,
                "depth": record.get("depth"),
                "width": record.get("width"),
                "cycle_len": record.get("cycle_len"),
                "variant": record.get("order_id"),
                "n_stable_models": certificate.n_stable_models,
                "certificate": certificate.to_json(),
            }
        )
    report.programs[subset] = len(certificates)
    return rows


def _runs(folder: Path, ids: list[str], report: ImportReport, subset: str) -> dict[str, list[dict]]:
    files = folder.glob("*.json") if folder.is_dir() else ()
    models = sorted({p.name.removesuffix(".json").removesuffix(".raw") for p in files})
    runs = {}
    for model in models:
        raw_path, parsed_path = folder / f"{model}.raw.json", folder / f"{model}.json"
        if raw_path.exists():
            outputs, path = _load_json(raw_path), raw_path
        else:
            data, path = _load_json(parsed_path), parsed_path
            outputs = data.get("answers") if isinstance(data, dict) else None
            report.notes.append(f"{subset}/{model}: no raw outputs; using the authors' parsed letters ({path.name})")
        if not isinstance(outputs, dict):
            raise DataError(path, "expected a JSON object {task_id: output}")
        unknown = sorted(set(outputs) - set(ids))
        if unknown:
            raise DataError(path, f"{len(unknown)} ids not in the {subset} set, e.g. {unknown[:3]}")
        missing = [i for i in ids if i not in outputs]
        if missing:
            report.notes.append(f"{subset}/{model}: {len(missing)} prompts have no output (scored as unanswered)")
        empty = [i for i in ids if i in outputs and outputs[i] is None]
        if empty:
            report.notes.append(f"{subset}/{model}: {len(empty)} null outputs, written as empty predictions")
        for task_id, value in outputs.items():
            if value is not None and not isinstance(value, str):
                raise DataError(path, f"output of {task_id!r} is not a string")
        runs[model] = [{"id": i, "prediction": outputs[i] or ""} for i in ids if i in outputs]
    return runs


def _write_jsonl(path: Path, records: list[dict], report: ImportReport) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    report.written.append(path)


def import_reference(ref: str | Path, out: str | Path) -> ImportReport:
    """Gold rows and submissions of every reference subset under ``ref`` (see the module docstring)."""
    ref, out = Path(ref), Path(out)
    found = {name: paths for name, paths in SUBSETS.items() if (ref / paths[0]).exists()}
    if not found and not has_leaderboard(ref):
        expected = " or ".join(paths[0] for paths in SUBSETS.values())
        raise DataError(ref, f"no reference data: expected {expected} under it")
    report = ImportReport()
    for subset, (set_file, answers) in found.items():
        rows = _rows(ref / set_file, _load_json(ref / set_file), report, subset)
        report.rows[subset] = len(rows)
        _write_jsonl(out / subset / "gold.jsonl", rows, report)
        for model, records in _runs(ref / answers, [r["id"] for r in rows], report, subset).items():
            _write_jsonl(out / subset / "runs" / f"{model}.jsonl", records, report)
    import_leaderboard(ref, out / "leaderboard", report)  # REF/leaderboard/: OUT/leaderboard/
    return report
