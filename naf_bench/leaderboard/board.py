"""The board: every submission of a folder scored against one gold file, ranked per track by JOINT.

A thin view over the scoring core: a submission is read and checked once by the intake
(:func:`naf_bench.scoring.intake.read_submission`, :func:`~naf_bench.scoring.intake.check`), and
:func:`submission_row` scores the checked record with the core (:func:`naf_bench.scoring.evaluation.run_scores`) and
keeps the columns the board shows; the baselines (constant letters, the best constant per condition, the majority
letter, the oracle) are scored by the same function as marked baseline rows. A board row holds aggregates only: no
id, gold letter, label or certificate of a gold row, and no maintainer-only metadata (the contact).

A submission that answers only part of the set (a line for fewer than all its scored prompts) is shown apart
from the full runs, not ranked among them; one that answers no id of it, or has malformed lines, duplicate ids
or invalid metadata, is refused (the intake's rules, :mod:`naf_bench.scoring.intake`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from naf_bench.errors import DataError
from naf_bench.scoring.metadata import TRACKS, public_metadata
from naf_bench.scoring.metrics import BOARD, shown_in

if TYPE_CHECKING:
    from naf_bench.scoring.core import Scores
    from naf_bench.scoring.intake import Checked, Submission

BOARD_FORMAT = 1
METADATA_SUFFIX = ".metadata.json"
# with the authors' leaderboard's two shares from the same classes: sound among the correct traced answers
# (their "reasoned soundly"), and sound among all traces
TRACE_COLUMNS = ("n", "reasoned_soundly", "contradicted_among_correct", "audit", "reference_definitions")


def _named(rows: Sequence[Mapping]) -> list[Mapping]:
    return [row for row in rows if row["gold"] is not None]


def _row(record, *, name: str, baseline: bool, metadata: Mapping | None, problems: Mapping | None = None) -> dict:
    """A board row from a result record: the columns the board shows, aggregates only."""
    solved, programs = record.joint_solved
    traces = getattr(record, "traces", None)
    return {
        "name": name,
        "model": metadata["model_name"] if metadata else name,
        "track": metadata["track"] if metadata else None,
        "baseline": baseline,
        **{metric.name: getattr(record, metric.name) for metric in shown_in(BOARD)},  # the metrics table's numbers
        "joint_ci95": list(record.joint_ci95) if record.joint_ci95 else None,
        "joint_solved": solved,
        "n_programs": programs,
        "per_semantics": dict(record.per_semantics),
        "joint_per_family": {
            family: {
                "joint": joint,
                "solved": record.joint_solved_per_family[family][0],
                "programs": record.joint_solved_per_family[family][1],
            }
            for family, joint in record.joint_per_family.items()
        },
        "reference_definitions": dict(record.reference_definitions),
        "trace_audit": {key: traces[key] for key in TRACE_COLUMNS} if isinstance(traces, dict) else None,
        "n_prompts": record.n_prompts,
        "extractor": record.extractor,
        "n_unread": record.n_unread,
        **(dict(problems) if problems else {}),
        "metadata": public_metadata(metadata) if metadata else None,
    }


def submission_row(checked: Checked, n_bootstrap: int = 1000) -> tuple[dict, Scores]:
    """The board row of a checked submission (:func:`naf_bench.scoring.intake.check`) and its scores (the
    service's Ladder compares its programs solved): its ids not in the gold (``n_unknown_ids``, ignored), the
    gold's without a line (``n_missing``: unanswered), how many of the set's prompts it answers (``n_given`` of
    ``n_prompts``) and whether that is only part of them (``partial``). With no prediction for any of the set's
    prompts (every one null), coverage and the format-valid rate are undefined (None), not 0 or 100."""
    from naf_bench.scoring.evaluation import run_record, run_scores

    submission = checked.submission
    scores = run_scores(checked.gold.rows, submission.entries, n_bootstrap=n_bootstrap)
    row = _row(
        run_record(scores, submission.name),
        name=submission.name,
        baseline=False,
        metadata=submission.metadata,
        problems=checked.counts(),
    )
    row["partial"] = checked.partial
    if not checked.n_answered:  # nothing answered: no share of it is 0 or 100, it is undefined (shown as —)
        row.update(
            coverage=None, format_valid_rate=None, reference_definitions=dict.fromkeys(row["reference_definitions"])
        )
    return row, scores


REFUSAL_LINES = 3  # a refused file's line problems shown; the rest are counted


def refusal(submission: Submission) -> list[tuple[str, str]]:
    """Why the board refuses a submission, as (field, reason): its metadata's problems, then its lines' (the
    first few, then a count); empty when it may be scored."""
    reasons = [(f"metadata.{field}" if field else "metadata", reason) for field, reason in submission.metadata_problems]
    lines = submission.line_problems(refused=True)
    reasons += [("submission", problem) for problem in lines[:REFUSAL_LINES]]
    if len(lines) > REFUSAL_LINES:
        reasons.append(("submission", f"... and {len(lines) - REFUSAL_LINES} more problems of its lines"))
    return reasons


def baseline_rows(gold: Sequence[Mapping], n_bootstrap: int = 1000) -> list[dict]:
    """The baseline rows: each constant letter, the best constant per condition, the majority letter, and the
    oracle (the gold letter everywhere), scored like submissions."""
    from naf_bench.scoring.evaluation import constant_predictions, score_rows

    predictions = constant_predictions(gold)
    predictions["oracle"] = {row["id"]: {"prediction": row["gold"]} for row in _named(gold)}
    return [
        _row(score_rows(gold, p, name=name, n_bootstrap=n_bootstrap), name=name, baseline=True, metadata=None)
        for name, p in predictions.items()
    ]


def dataset_summary(gold: Sequence[Mapping], name: str | None = None, gold_file: str | None = None) -> dict:
    """What the board was scored on: the set's name and gold file (its name and folder, no more of the maintainer's
    path), its configs, sizes and families, and the code version."""
    from naf_bench.data.dataset import code_version
    from naf_bench.version import __version__

    named = _named(gold)
    return {
        "name": name,
        "gold_file": gold_file,
        "configs": sorted({str(row.get("config")) for row in gold if row.get("config") is not None}),
        "n_prompts": len(named),
        "n_programs": len({row["program_id"] for row in named}),
        "families": _registry_order({row["family"] for row in named}),
        "naf_bench_version": __version__,
        "code_hash": code_version(),
    }


def _registry_order(families: set[str]) -> list[str]:
    """Families in the registry's order (``naf_bench.generate.registry.FAMILIES``), others (an authors' set's)
    after them, by name."""
    from naf_bench.generate.registry import FAMILIES

    return [name for name in FAMILIES if name in families] + sorted(families - set(FAMILIES))


def _rank_key(row: Mapping):
    joint = row["joint"]
    return (joint is None, -(joint or 0.0), -(row["per_prompt_accuracy"] or 0.0), row["name"])


def assemble_board(rows: Sequence[Mapping], baselines: Sequence[Mapping], dataset: Mapping) -> dict:
    """The board JSON from scored rows: per track, full runs ranked by JOINT (then per-prompt accuracy, then
    name; equal JOINT shares a rank) and, apart and unranked, those answering only part of the set
    (``partial``); the baselines beside them, and the dataset it was scored on."""
    tracks, partial = {}, {}
    for track in TRACKS:
        partial[track] = sorted((row for row in rows if row["track"] == track and row.get("partial")), key=_rank_key)
        ranked = sorted((row for row in rows if row["track"] == track and not row.get("partial")), key=_rank_key)
        tracks[track] = []
        for position, row in enumerate(ranked, start=1):
            tied = tracks[track] and tracks[track][-1]["joint"] == row["joint"]
            tracks[track].append({"rank": tracks[track][-1]["rank"] if tied else position, **row})
    return {
        "format": BOARD_FORMAT,
        "ranked_by": "joint",
        "dataset": dict(dataset),
        "tracks": tracks,
        "partial": partial,
        "baselines": sorted(baselines, key=_rank_key),
    }


def build_board(
    submissions: str | Path, gold: str | Path, *, n_bootstrap: int = 1000, dataset_name: str | None = None
) -> tuple[dict, dict[str, list[tuple[str, str]]]]:
    """The board of every ``<name>.jsonl`` or inspect log ``<name>.eval`` (with ``<name>.metadata.json``) in the
    folder ``submissions``, and the refused submissions: ``{name: [(field, reason), ...]}`` (nothing of those is on
    the board)."""
    from naf_bench.data.gold import whose
    from naf_bench.runs.inspect_log import read_inspect_log, submission_bytes
    from naf_bench.scoring.intake import SUBMISSION, check, input_file, read_gold, read_submission

    folder, gold = Path(submissions), Path(gold)
    if not folder.is_dir():
        what = "a file" if folder.exists() else "no such folder"
        raise DataError(folder, f"{what}, where a folder of submissions (NAME.jsonl, NAME.metadata.json) was expected")
    found = sorted([*folder.glob("*.jsonl"), *folder.glob("*.eval")])  # .eval: an inspect log's answers
    if not found:  # a board of baselines alone is no board: say so before the gold is read
        raise DataError(
            folder,
            "no submissions (NAME.jsonl or an inspect log NAME.eval, with NAME.metadata.json) in "
            "this folder; nothing to rank",
        )
    answers = read_gold(gold)
    scored, refused = [], {}
    for path in found:
        name = path.name.removesuffix(path.suffix)
        try:
            source = (
                input_file(path, SUBMISSION) if path.suffix == ".jsonl" else submission_bytes(read_inspect_log(path))
            )
            submission = read_submission(
                source, name=name, origin=str(path), metadata=path.with_name(name + METADATA_SUFFIX)
            )
            reasons = refusal(submission)
            checked = None if reasons else check(submission, answers, explain=whose)
        except DataError as exc:
            reasons = [("metadata" if exc.path.endswith(METADATA_SUFFIX) else "submission", exc.reason)]
        if reasons:
            refused[name] = reasons
        else:
            scored.append(submission_row(checked, n_bootstrap)[0])
    folder_name = gold.resolve().parent.name  # "gold.jsonl" in the current folder is named by that folder
    if dataset_name is None:
        dataset_name = folder_name if gold.name == "gold.jsonl" else gold.name.removesuffix(".jsonl")
    gold_file = f"{folder_name}/{gold.name}" if folder_name else gold.name
    rows = answers.rows
    board = assemble_board(scored, baseline_rows(rows, n_bootstrap), dataset_summary(rows, dataset_name, gold_file))
    return board, refused
