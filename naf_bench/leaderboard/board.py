"""The board: every submission of a folder scored against one gold file, ranked per track by JOINT.

A thin view over the scoring core: :func:`score_submission` reads a submission with
:func:`naf_bench.evaluation.read_submission`, scores it with the core (:func:`naf_bench.evaluation.run_scores`), keeps
the columns the board shows; the baselines (constant letters, the best constant per condition, the majority
letter, the oracle) are scored by the same function as marked reference rows. A board row holds aggregates
only: no id, gold letter, label or certificate of a gold row, and no maintainer-only metadata (the contact).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from naf_bench.errors import DataError
from naf_bench.leaderboard.metadata import (
    TRACKS,
    MetadataError,
    public_metadata,
    read_metadata,
    validate_metadata,
)

if TYPE_CHECKING:
    from naf_bench.scoring.core import Scores

BOARD_FORMAT = 1
METADATA_SUFFIX = ".metadata.json"
# with the reference leaderboard's two shares from the same classes: sound among the correct traced answers
# (their "reasoned soundly"), and sound among all traces
TRACE_COLUMNS = ("n", "reasoned_soundly", "contradicted_among_correct", "audit", "reference_definitions")


def load_gold(gold: str | Path) -> list[dict]:
    """The gold rows of a file (:func:`naf_bench.scoring.intake.read_gold`; a :class:`DataError` names the file
    and its first bad line)."""
    from naf_bench.scoring.intake import read_gold

    return read_gold(gold).rows


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
        "joint": record.joint,
        "joint_ci95": list(record.joint_ci95) if record.joint_ci95 else None,
        "joint_solved": solved,
        "n_programs": programs,
        "per_prompt_accuracy": record.per_prompt_accuracy,
        "accuracy": record.accuracy,
        "per_semantics": dict(record.per_semantics),
        "joint_per_family": {
            family: {
                "joint": joint,
                "solved": record.joint_solved_per_family[family][0],
                "programs": record.joint_solved_per_family[family][1],
            }
            for family, joint in record.joint_per_family.items()
        },
        "coverage": record.coverage,
        "format_valid_rate": record.format_valid_rate,
        "reference_definitions": dict(record.reference_definitions),
        "trace_audit": {key: traces[key] for key in TRACE_COLUMNS} if isinstance(traces, dict) else None,
        "n_prompts": record.n_prompts,
        "extractor": record.extractor,
        **(dict(problems) if problems else {}),
        "metadata": public_metadata(metadata) if metadata else None,
    }


def score_submission(
    submission: str | Path,
    gold: str | Path | Sequence[Mapping],
    *,
    metadata: Mapping | str | Path | None = None,
    name: str | None = None,
    n_bootstrap: int = 1000,
) -> dict:
    """:func:`scored_submission`'s board row."""
    return scored_submission(submission, gold, metadata=metadata, name=name, n_bootstrap=n_bootstrap)[0]


def scored_submission(
    submission: str | Path,
    gold: str | Path | Sequence[Mapping],
    *,
    metadata: Mapping | str | Path | None = None,
    name: str | None = None,
    n_bootstrap: int = 1000,
) -> tuple[dict, Scores]:
    """The board row of one submission file (``{id, prediction, trace?}`` JSONL) against ``gold`` (a gold
    JSONL path, or its rows).

    ``metadata`` is a mapping, a path, or None for ``<name>.metadata.json`` beside the submission; it must
    validate (:class:`MetadataError`, with every field and reason). A submission with malformed lines or
    duplicate ids is refused (:class:`DataError`, naming its lines); ids the gold does not have and gold ids
    without a prediction are counted in the row (``n_unknown_ids``, ``n_missing``: unanswered).
    """
    from naf_bench.evaluation import read_submission, run_record, run_scores

    submission = Path(submission)
    name = name or submission.name.removesuffix(".jsonl")
    if metadata is None or isinstance(metadata, str | Path):
        metadata = read_metadata(metadata or submission.with_name(name + METADATA_SUFFIX))
    elif problems := validate_metadata(metadata):
        raise MetadataError(submission.with_name(name + METADATA_SUFFIX), problems)
    rows = load_gold(gold) if isinstance(gold, str | Path) else list(gold)
    entries, problems = read_submission(submission)
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise DataError(submission, "; ".join(problems[:3]) + more)
    known = {row["id"] for row in rows}
    counts = {
        "n_unknown_ids": sum(key not in known for key in entries),
        "n_missing": sum(row["id"] not in entries for row in _named(rows)),
    }
    scores = run_scores(rows, entries, n_bootstrap=n_bootstrap)
    return _row(run_record(scores, name), name=name, baseline=False, metadata=metadata, problems=counts), scores


def baseline_rows(gold: Sequence[Mapping], n_bootstrap: int = 1000) -> list[dict]:
    """The reference rows: each constant letter, the best constant per condition, the majority letter, and the
    oracle (the gold letter everywhere), scored like submissions."""
    from naf_bench.evaluation import constant_predictions, score_rows

    predictions = constant_predictions(gold)
    predictions["oracle"] = {row["id"]: {"prediction": row["gold"]} for row in _named(gold)}
    return [
        _row(score_rows(gold, p, name=name, n_bootstrap=n_bootstrap), name=name, baseline=True, metadata=None)
        for name, p in predictions.items()
    ]


def dataset_summary(gold: Sequence[Mapping], name: str | None = None) -> dict:
    """What the board was scored on: the set's name, its configs, sizes and families, and the code version."""
    from naf_bench import __version__
    from naf_bench.dataset import code_version

    named = _named(gold)
    return {
        "name": name,
        "configs": sorted({str(row.get("config")) for row in gold if row.get("config") is not None}),
        "n_prompts": len(named),
        "n_programs": len({row["program_id"] for row in named}),
        "families": sorted({row["family"] for row in named}),
        "naf_bench_version": __version__,
        "code_hash": code_version(),
    }


def _rank_key(row: Mapping):
    joint = row["joint"]
    return (joint is None, -(joint or 0.0), -(row["per_prompt_accuracy"] or 0.0), row["name"])


def assemble_board(rows: Sequence[Mapping], baselines: Sequence[Mapping], dataset: Mapping) -> dict:
    """The board JSON from scored rows: per track, submissions ranked by JOINT (then per-prompt accuracy,
    then name; equal JOINT shares a rank), the baselines beside them, and the dataset it was scored on."""
    tracks = {}
    for track in TRACKS:
        ranked = sorted((row for row in rows if row["track"] == track), key=_rank_key)
        tracks[track] = []
        for position, row in enumerate(ranked, start=1):
            tied = tracks[track] and tracks[track][-1]["joint"] == row["joint"]
            tracks[track].append({"rank": tracks[track][-1]["rank"] if tied else position, **row})
    return {
        "format": BOARD_FORMAT,
        "ranked_by": "joint",
        "dataset": dict(dataset),
        "tracks": tracks,
        "baselines": sorted(baselines, key=_rank_key),
    }


def build_board(
    submissions: str | Path, gold: str | Path, *, n_bootstrap: int = 1000, dataset_name: str | None = None
) -> tuple[dict, dict[str, list[tuple[str, str]]]]:
    """The board of every ``<name>.jsonl`` (with ``<name>.metadata.json``) in the folder ``submissions``,
    and the refused submissions: ``{name: [(field, reason), ...]}`` (nothing of those is on the board)."""
    folder, gold = Path(submissions), Path(gold)
    if not folder.is_dir():
        what = "a file" if folder.exists() else "no such folder"
        raise DataError(folder, f"{what}, where a folder of submissions (NAME.jsonl, NAME.metadata.json) was expected")
    rows = load_gold(gold)
    scored, refused = [], {}
    for path in sorted(folder.glob("*.jsonl")):
        name = path.name.removesuffix(".jsonl")
        try:
            scored.append(score_submission(path, rows, name=name, n_bootstrap=n_bootstrap))
        except MetadataError as exc:
            refused[name] = [(f"metadata.{field}", reason) for field, reason in exc.problems]
        except DataError as exc:
            refused[name] = [("metadata" if exc.path.endswith(METADATA_SUFFIX) else "submission", exc.reason)]
    if dataset_name is None:
        dataset_name = gold.parent.name if gold.name == "gold.jsonl" else gold.name.removesuffix(".jsonl")
    board = assemble_board(scored, baseline_rows(rows, n_bootstrap), dataset_summary(rows, dataset_name))
    return board, refused
