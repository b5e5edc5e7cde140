"""Scoring of whole runs: leaderboard submissions, baselines, and the shared result record for reports.

A result record (``RunRecord``; its ``to_dict()`` in JSON files and reports) holds JOINT with its
program-clustered interval, per-prompt (strict) accuracy, accuracy over parsed answers, coverage, format-valid
rate, accuracy per semantics, per bin x semantics and per divergence distance x semantics, JOINT per family,
and — when traces are given — the trace audit and the step checker's scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from naf_bench.readings import answer_letters
from naf_bench.scoring.core import Scores, best_constants, majority_letter, score
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR
from naf_bench.scoring.metrics import RECORD, values
from naf_bench.scoring.records import NOT_SCORED, NotScored, Record


@dataclass(frozen=True, kw_only=True)
class RunRecord(Record):
    """The result record of one run (see the module docstring); the CLI and the reports read it. Its numbers are
    the metrics table's (:data:`naf_bench.scoring.metrics.METRICS`, the ``RECORD`` view)."""

    name: str
    n_prompts: int
    extractor: str
    n_unread: int  # scored prompts answered (not null) in text the extractor could not read: counted unanswered
    joint: float | None
    joint_ci95: tuple[float, float] | None
    per_prompt_accuracy: float | None  # the core's strict accuracy, under the authors' leaderboard's name
    accuracy: float | None
    coverage: float | None
    format_valid_rate: float | None
    per_semantics: dict[str, float | None]
    by_bin_semantics: dict
    joint_per_family: dict[str, float | None]
    joint_solved: tuple[int, int]  # (programs solved, programs JOINT counts)
    joint_solved_per_family: dict[str, tuple[int, int]]
    # the authors' leaderboard's coverage (non-null predictions) and format-valid rate (readable among those), under
    # the key it had before the authors' files had a name of their own
    reference_definitions: dict[str, float | None]
    by_distance_semantics: dict | NotScored = NOT_SCORED  # only when every row has its divergence distance
    traces: dict | NotScored = NOT_SCORED  # only when traces were submitted


def score_rows(
    rows: Sequence[Mapping],
    predictions: Mapping[str, Mapping],
    name: str = "submission",
    n_bootstrap: int = 1000,
    extractor: str = DEFAULT_EXTRACTOR,
) -> RunRecord:
    """The result record of ``predictions`` (id -> {"prediction", "trace"}) on the named-condition ``rows``.

    Answers are read with :data:`naf_bench.scoring.extract.DEFAULT_EXTRACTOR` unless ``extractor`` names another.
    """
    return run_record(run_scores(rows, predictions, n_bootstrap, extractor), name)


def run_scores(
    rows: Sequence[Mapping],
    predictions: Mapping[str, Mapping],
    n_bootstrap: int = 1000,
    extractor: str = DEFAULT_EXTRACTOR,
    answers: Mapping[str, str | None] | None = None,
) -> Scores:
    """The core's scores of ``predictions`` (id -> {"prediction", "trace"}) on the named-condition ``rows``;
    ``answers`` (id -> letter or None), where given, are the answers already decided (not extracted)."""
    return score(
        [row for row in rows if row["gold"] is not None],
        {key: p["prediction"] for key, p in predictions.items()},
        {key: p["trace"] for key, p in predictions.items() if p.get("trace")},
        extractor=extractor,
        answers=answers,
        n_bootstrap=n_bootstrap,
    )


def run_record(scores: Scores, name: str) -> RunRecord:
    """The result record view of a run's scores (its rows: the named-condition rows)."""
    solved = scores.solved()
    families = scores.by("family")
    record = {
        "name": name,
        "n_prompts": len(scores.rows),
        "extractor": scores.extractor,
        "n_unread": sum(scores.answered[i] and scores.answers[i] is None for i in scores.scored),
        **values(scores, RECORD),  # joint, per-prompt accuracy, accuracy, coverage, format-valid rate
        "joint_ci95": scores.intervals(("joint",)).get("joint"),
        "per_semantics": {c: scores.cell(part).strict_accuracy for c, part in scores.by("condition").items()},
        "by_bin_semantics": _by_bin_semantics(scores, families),
        "joint_per_family": {family: scores.joint(part) for family, part in families.items()},
        "joint_solved": (sum(solved.values()), len(solved)),
        "joint_solved_per_family": {
            family: (sum(terms.values()), len(terms))
            for family, terms in ((family, scores.solved(part)) for family, part in families.items())
        },
        "reference_definitions": _authors_definitions(scores),
    }
    if scores.rows and all(row.get("distance") is not None for row in scores.rows):
        record["by_distance_semantics"] = _by_bin_semantics(scores, scores.by("distance"))
    if scores.proofs is not None:
        proof = scores.proofs
        keys = ("n", "n_checkable", "audit", "audit_by_correctness", "contradicted_among_correct", "reasoned_soundly",
                "unearned_correct", "proof_accuracy", "rfwr")  # fmt: skip
        record["traces"] = {key: getattr(proof, key) for key in keys}
        correct = proof.audit_by_correctness["correct"]
        record["traces"]["reference_definitions"] = {  # the authors' leaderboard's v1 trace-soundness shares
            "sound_among_correct": correct["sound"] / sum(correct.values()) if sum(correct.values()) else None,
            "sound_of_traced": proof.audit["sound"] / proof.n,
        }
    return RunRecord(**record)


def _authors_definitions(scores: Scores) -> dict[str, float | None]:
    """Coverage and format-valid rate as the authors' leaderboard defines them: the share of scored rows
    answered (a non-null prediction), and the share of those answers that read as a letter."""
    answered = [i for i in scores.scored if scores.answered[i]]
    n = len(scores.scored)
    return {
        "coverage": len(answered) / n if n else None,
        "format_valid_rate": (
            sum(scores.answers[i] is not None for i in answered) / len(answered) if answered else None
        ),
    }


def _by_bin_semantics(scores: Scores, slices: Mapping) -> dict:
    """Strict accuracy per slice (a bin or a distance: its rows) x condition."""
    return {
        value: {c: scores.cell(cell).strict_accuracy for c, cell in scores.by("condition", part).items()}
        for value, part in slices.items()
    }


def constant_predictions(rows: Sequence[Mapping]) -> dict[str, dict[str, dict]]:
    """Input-blind baselines: each constant letter, the best constant per condition, the majority letter."""
    named = [row for row in rows if row["gold"] is not None]
    predictions = {f"constant_{x}": {row["id"]: {"prediction": x} for row in named} for x in answer_letters()}
    best = best_constants(named)
    predictions["best_constant_per_condition"] = {row["id"]: {"prediction": best[row["condition"]]} for row in named}
    majority = majority_letter(row["gold"] for row in named) or "A"
    predictions["majority"] = {row["id"]: {"prediction": majority} for row in named}
    return predictions
