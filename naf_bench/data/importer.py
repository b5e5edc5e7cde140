"""Import the authors' leaderboard's sets and submissions (``REF/leaderboard/``) as gold rows and submissions.

Called by :func:`naf_bench.data.authors.import_authors`; it writes under ``OUT/leaderboard/``:

- ``<set>/gold.jsonl`` for each ``REF/leaderboard/data/<set>.jsonl``: one row per prompt in naf-bench's row
  schema. Two row layouts are known: the hard sets' (``id, rec_id, axis, difficulty, cond, gold, labels,
  prompt``: ``program_id`` is the ``rec_id``, ``family`` the ``axis``, ``tier`` the ``difficulty``) and the
  dev set's (``id, cond, divergence_bin, gold, prompt``: the ``rec_id`` is the id without its
  ``-<cond>::<cond>`` ending, ``family`` the ``divergence_bin``). The sets store no program: the rules are
  read back from the prompt and certified by naf-bench; every label or gold letter on which the authors and
  our certifier disagree is listed (the authors' gold is kept in the row). A file in another layout, or
  one with a row that cannot be read, is reported with the reason and not imported; the others are.
- ``submissions/<name>.jsonl`` for each ``REF/leaderboard/submissions*/**/*.jsonl``: ``{id, prediction,
  trace?}``; the raw logs' ``text`` (the full output) becomes the trace, a null prediction stays null
  (unanswered). ``<name>`` is the file name without ``.jsonl`` / ``.raw``, prefixed by its folders under
  ``REF/leaderboard`` only where two files would get the same name.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from naf_bench.certify import certify
from naf_bench.errors import DataError, NafBenchError
from naf_bench.readings import all_conditions, gold_letter
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.read_back import program_from_prompt

LEADERBOARD_LAYOUTS = {  # name: the fields every record has (the hard sets' `labels` only from hard_v3 on)
    "hard": ("id", "rec_id", "axis", "difficulty", "cond", "gold", "prompt"),
    "dev": ("id", "cond", "divergence_bin", "gold", "prompt"),
}


def has_leaderboard(ref: str | Path) -> bool:
    """Whether ``ref`` holds the authors' leaderboard sets or submissions."""
    ref = Path(ref) / "leaderboard"
    return any((ref / "data").glob("*.jsonl")) or any(ref.glob("submissions*/**/*.jsonl"))


def _records(path: Path) -> list:
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataError(path, f"malformed JSON ({exc.msg}, column {exc.colno})", number) from None
    return records


def _layout(records: list) -> str:
    """The name of the layout every record has, or a DataError-worthy reason."""
    for name, fields in LEADERBOARD_LAYOUTS.items():
        if records and all(isinstance(r, dict) and all(key in r for key in fields) for r in records):
            return name
    first = records[0] if records and isinstance(records[0], dict) else {}
    raise ValueError(
        f"unknown row layout (fields {sorted(first)[:12]}): expected "
        + " or ".join(f"{{{', '.join(fields)}}}" for fields in LEADERBOARD_LAYOUTS.values())
    )


def _gold_rows(set_name: str, records: list, layout: str, disagreements: list[str]) -> tuple[list[dict], int]:
    """Gold rows of one set and the number of distinct programs certified; a ValueError names the bad record."""
    certificates, rows, seen = {}, [], set()
    for number, record in enumerate(records, start=1):
        task_id, condition = record["id"], record["cond"]
        where = f"record {number} ({task_id})"
        if condition not in all_conditions():
            raise ValueError(f"{where}: unknown condition {condition!r}")
        if task_id in seen:
            raise ValueError(f"{where}: duplicate id")
        seen.add(task_id)
        if layout == "dev":
            suffix = f"-{condition}::{condition}"
            if not task_id.endswith(suffix):
                raise ValueError(f"{where}: the id does not end in {suffix!r}, so it names no program")
            program_id = task_id.removesuffix(suffix)
        else:
            program_id = record["rec_id"]
        try:
            program, query = program_from_prompt(record["prompt"])
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        key = (render_asp(program), query)
        if key not in certificates:
            try:
                certificates[key] = certify(program, query)
            except NafBenchError as exc:
                raise ValueError(f"{where}: certification failed: {exc}") from None
        certificate = certificates[key]
        ours = gold_letter(condition, certificate.labels)
        labels = record.get("labels") if layout == "hard" else None
        theirs = {k: labels.get(k) for k in certificate.labels} if isinstance(labels, dict) else None
        if (theirs is not None and theirs != certificate.labels) or record["gold"] != ours:
            disagreements.append(
                f"leaderboard/{set_name} {task_id}: their labels {theirs or 'not given'} gold {record['gold']}, "
                f"ours {certificate.labels} gold {ours}"
            )
        meta = record.get("meta") if isinstance(record.get("meta"), dict) else {}
        rows.append(
            {
                "id": task_id,
                "program_id": program_id,
                "config": f"reference-leaderboard-{set_name}",
                "family": record["axis"] if layout == "hard" else record["divergence_bin"],
                "tier": record.get("difficulty"),
                "condition": condition,
                "gold": record["gold"],
                "labels": dict(certificate.labels),
                "signature": certificate.signature,
                "program": key[0],
                "query": query,
                "depth": meta.get("depth"),
                "width": meta.get("width"),
                "n_stable_models": certificate.n_stable_models,
                "certificate": certificate.to_json(),
            }
        )
    return rows, len(certificates)


def _submission(path: Path) -> list[dict]:
    """``{id, prediction, trace?}`` records of one submission file; a ValueError names the bad line."""
    out = []
    for number, record in enumerate(_records(path), start=1):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str) or "prediction" not in record:
            raise ValueError(f"record {number}: unknown layout (needs 'id' and 'prediction')")
        if not isinstance(record["prediction"], str | None):
            raise ValueError(f"record {number} ({record['id']}): 'prediction' is neither a string nor null")
        trace = record.get("trace", record.get("text"))
        if trace is not None and not isinstance(trace, str):
            raise ValueError(f"record {number} ({record['id']}): the 'text' or 'trace' is not a string")
        out.append({"id": record["id"], "prediction": record["prediction"], **({"trace": trace} if trace else {})})
    return out


def submission_names(root: Path, paths: list[Path]) -> dict[Path, str]:
    """Each file's submission name: its name without ``.jsonl`` / ``.raw``, prefixed by its folders under
    ``root`` (joined with ``-``) only where two files would get the same name."""
    base = {path: path.name.removesuffix(".jsonl").removesuffix(".raw") for path in paths}
    taken = Counter(base.values())
    return {
        path: name if taken[name] == 1 else "-".join([*path.parent.relative_to(root).parts, name])
        for path, name in base.items()
    }


def _home(ids: set[str], sets: dict[str, set[str]]) -> tuple[str | None, str]:
    """The set a submission belongs to, and how: the smallest set whose every id it answers (ties by name), else
    the set sharing the most ids with it (a partial run), else none."""
    complete = sorted((len(members), name) for name, members in sets.items() if members <= ids)
    if complete:
        home = complete[0][1]
        also = [name for _, name in complete[1:]]
        extra = len(ids - sets[home])
        return home, (
            f"answers every id of {home}"
            + (f" and {extra} ids it does not have" if extra else "")
            + (f"; it also answers every id of {', '.join(also)}" if also else "")
        )
    overlap = max(sets, key=lambda name: (len(ids & sets[name]), name), default=None)
    if overlap is None or not ids & sets[overlap]:
        return None, "its ids belong to no leaderboard set here"
    return overlap, f"partial: answers {len(ids & sets[overlap])} of the {len(sets[overlap])} ids of {overlap}"


def import_leaderboard(ref: str | Path, out: str | Path, report) -> None:
    """Write the leaderboard sets and submissions found under ``ref/leaderboard`` to ``out`` (see the module
    docstring), recording files, rows, programs, disagreements and notes in ``report`` (an ImportReport)."""
    ref, out = Path(ref), Path(out)
    root = ref / "leaderboard"

    def write(path: Path, records: list[dict]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
        report.written.append(path)

    sets = {}
    for path in sorted((root / "data").glob("*.jsonl")):
        set_name = path.name.removesuffix(".jsonl")
        try:
            records = _records(path)
            layout = _layout(records)
            rows, programs = _gold_rows(set_name, records, layout, report.disagreements)
        except (ValueError, DataError) as exc:
            report.refused(ref, exc, f"the leaderboard set {set_name}", path)
            continue
        if not any(isinstance(record.get("labels"), dict) for record in records):
            report.notes.append(
                f"leaderboard/{set_name}: the set carries no labels, only gold letters: only those "
                "are checked against naf-bench's certificates"
            )
        report.rows[f"leaderboard/{set_name}"] = len(rows)
        report.programs[f"leaderboard/{set_name}"] = programs
        write(out / set_name / "gold.jsonl", rows)
        report.took(ref, path, f"leaderboard/{set_name}/gold.jsonl")
        sets[set_name] = {row["id"] for row in rows}
    placed: dict[str, list[tuple[Path, list[dict]]]] = {}
    for path in sorted(root.rglob("*.jsonl")):
        if path.parent == root / "data":
            continue
        try:
            records = _submission(path)
        except (ValueError, DataError) as exc:
            report.refused(ref, exc, "a submission", path)
            continue
        home, how = _home({record["id"] for record in records}, sets)
        if home is None:
            report.skipped[path.relative_to(ref).as_posix()] = f"a submission to no set: {how}"
            continue
        report.notes.append(f"{path.relative_to(ref).as_posix()}: {how}")
        placed.setdefault(home, []).append((path, records))
    for home, files in placed.items():
        for path, name in submission_names(root, [path for path, _ in files]).items():
            records = dict(files)[path]
            unanswered = sum(record["prediction"] is None for record in records)
            if unanswered:
                report.notes.append(f"leaderboard submission {home}/{name}: {unanswered} null predictions (unanswered)")
            write(out / home / "submissions" / f"{name}.jsonl", records)
            report.took(ref, path, f"leaderboard/{home}/submissions/{name}.jsonl")
