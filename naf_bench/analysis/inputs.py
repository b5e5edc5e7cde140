"""What the analyses read: runs (submission JSONL files or lm-eval output folders, one run per model; the gold rows
are read by :func:`naf_bench.scoring.intake.read_gold`), the authors' stored letters, and each run's items with
their answers decided once by the core's policy (:func:`score_items`, :func:`naf_bench.scoring.core.decide_answer`).
The tables are in :mod:`naf_bench.analysis.tables`, their rendering in :mod:`naf_bench.analysis.outputs`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from naf_bench.errors import DataError
from naf_bench.runs.lm_eval_output import MITIGATION_TASKS, MULTIPLE_CHOICE_TASKS, read_output_folder
from naf_bench.scoring.core import decide_answer


def read_runs(paths, known: set[str]) -> tuple[dict[str, dict[str, str]], dict[str, Path], list[str]]:
    """``{run name: {id: output}}`` from submission files and lm-eval folders, the file or folder of each run,
    and notes; an unknown id or a malformed line is an error naming file and line."""
    from naf_bench.scoring.intake import RUN, input_file, read_submission

    runs: dict[str, dict[str, str]] = {}
    sources: dict[str, Path] = {}
    for path in map(Path, paths):
        if path.is_dir():
            for logged in read_output_folder(path):
                if logged.task in MULTIPLE_CHOICE_TASKS + MITIGATION_TASKS:
                    continue
                outputs = runs.setdefault(logged.model, {})
                sources[logged.model] = path
                for number, sample in logged.samples:
                    try:
                        key, text = sample["doc"]["id"], sample["resps"][0][0]
                    except (KeyError, IndexError, TypeError):
                        raise DataError(logged.path, "not an lm-eval sample with doc.id and resps", number) from None
                    if key not in known:
                        raise DataError(logged.path, f"unknown id {key!r} (not in the gold set)", number)
                    outputs[key] = text
            continue
        run = read_submission(input_file(path, RUN))
        if problems := run.line_problems(refused=False):
            raise DataError(
                path, "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
            )
        unknown = [key for key in run.entries if key not in known]
        if unknown:
            raise DataError(path, f"unknown id {unknown[0]!r} (not in the gold set)", run.line_of[unknown[0]])
        runs[path.stem] = {key: entry["prediction"] for key, entry in run.entries.items()}
        sources[path.stem] = path
    notes = []
    for name, outputs in runs.items():
        missing = len(known - set(outputs))
        if missing:
            notes.append(f"{name}: {missing} gold ids have no output (counted as unanswered)")
    return runs, sources, notes


def read_stored(paths) -> dict[str, dict[str, dict]]:
    """``{run name: {id: {"stored", "stored_ok"}}}``: the authors' letters (and T2S parser verdicts) that
    ``import-authors`` writes beside each output; an lm-eval folder has none."""
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


def score_items(
    rows: list[dict], outputs: Mapping[str, str], extractor: str, stored: Mapping[str, dict] | None = None
) -> list[dict]:
    """Each gold row with the run's text and answer, decided by :func:`naf_bench.scoring.core.decide_answer`
    (the stored letter with the ``stored`` extractor; a translate-then-solve row's :class:`Translation` kept)."""
    stored = stored or {}
    items = []
    for row in rows:
        text = outputs.get(row["id"])
        item = {**row, "text": text or "", **stored.get(row["id"], {})}
        item["answer"], translation = decide_answer(text, row, extractor, item.get("stored"))
        if translation is not None:
            item["translation"] = translation
        items.append(item)
    return items
