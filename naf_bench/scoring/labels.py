"""Label metrics of columns (the evaluate module's ``label`` config): accuracy and coverage, per condition and
bin, JOINT, flip rate, default correspondence, majority and constant-answer baselines on the same slices, and
program-clustered bootstrap intervals; a view over :mod:`naf_bench.scoring.core`, whose definitions they are.

A column not given (None) leaves out the scores that need it: no program ids or no conditions, no JOINT, flip
rate or default correspondence, and intervals over rows; with variants, the flip rate instead of JOINT.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from naf_bench.readings import NO_SEMANTICS, all_conditions, answer_letters
from naf_bench.scoring.core import Scores, Tally, score
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR
from naf_bench.scoring.metrics import LABEL, values
from naf_bench.scoring.records import NOT_SCORED, NotScored, Record

BY_COLUMNS = ("joint", "flip_rate", "default_correspondence")  # metrics given only where their columns are


@dataclass(frozen=True, kw_only=True)
class LabelScores(Record):
    """The label scores of a run; ``to_dict()`` is what ``compute_label_metrics`` and the evaluate module return.
    Its numbers are the metrics table's (:data:`naf_bench.scoring.metrics.METRICS`, the ``LABEL`` view)."""

    accuracy: float | None  # over parsed answers
    strict_accuracy: float | None  # unparsed answers count as wrong
    coverage: float | None
    n: int
    n_rows: int
    n_scored: int
    n_unparsed: int
    extractor: str
    majority_letter: str | None
    baselines: dict
    per_condition: dict | NotScored = NOT_SCORED
    per_bin: dict | NotScored = NOT_SCORED
    joint: float | NotScored | None = NOT_SCORED
    baselines_joint: dict | NotScored = NOT_SCORED
    flip_rate: float | NotScored | None = NOT_SCORED
    n_flip_groups: int | NotScored = NOT_SCORED
    default_correspondence: float | NotScored | None = NOT_SCORED
    ci95: dict


def _check_lengths(n: int, **columns) -> None:
    for name, column in columns.items():
        if column is not None and len(column) != n:
            raise ValueError(f"{name} has {len(column)} entries but predictions has {n}")


def _validate(references, conditions) -> None:
    for i, reference in enumerate(references):
        if reference is not None and reference not in answer_letters():
            raise ValueError(f"references[{i}] must be A, B, C or None, got {reference!r}")
    for i, condition in enumerate(conditions or ()):
        if condition not in all_conditions():
            raise ValueError(f"conditions[{i}] must be one of {all_conditions()}, got {condition!r}")


def compute_label_metrics(
    predictions: Sequence[str | None],
    references: Sequence[str | None],
    conditions: Sequence[str] | None = None,
    program_ids: Sequence[str] | None = None,
    variants: Sequence[str] | None = None,
    bins: Sequence[str] | None = None,
    extractor: str = DEFAULT_EXTRACTOR,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> dict:
    """Scores of model responses against gold letters (see the module docstring)."""
    _check(len(predictions), references, conditions, program_ids, variants, bins)
    rows = _rows(references, conditions, program_ids, variants, bins)
    scores = score(rows, dict(enumerate(predictions)), extractor=extractor, n_bootstrap=n_bootstrap, seed=seed)
    return _label_scores(scores, conditions, program_ids, variants, bins).to_dict()


def score_answers(
    answers: Sequence[str | None],
    references: Sequence[str | None],
    conditions=None,
    program_ids=None,
    variants=None,
    bins=None,
    extractor: str = DEFAULT_EXTRACTOR,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> LabelScores:
    """``compute_label_metrics`` of answers already extracted (None: unanswered), with its options (``extractor``
    names the extractor the answers were read with)."""
    _check(len(answers), references, conditions, program_ids, variants, bins)
    rows = _rows(references, conditions, program_ids, variants, bins)
    given = dict(enumerate(answers))
    scores = score(rows, given, answers=given, extractor=extractor, n_bootstrap=n_bootstrap, seed=seed)
    return _label_scores(scores, conditions, program_ids, variants, bins)


def _check(n: int, references, conditions=None, program_ids=None, variants=None, bins=None) -> None:
    _check_lengths(
        n, references=references, conditions=conditions, program_ids=program_ids, variants=variants, bins=bins
    )
    _validate(references, conditions)


def _rows(references, conditions, program_ids, variants, bins) -> list[dict]:
    """The columns as gold rows (ids: row numbers), a column not given read as None."""
    columns = {"condition": conditions, "program_id": program_ids, "variant": variants, "family": bins}
    return [
        {"id": i, "gold": gold, **{key: column[i] if column is not None else None for key, column in columns.items()}}
        for i, gold in enumerate(references)
    ]


def _label_scores(scores: Scores, conditions, program_ids, variants, bins) -> LabelScores:
    """The label view of a run's scores: the slices its given columns allow."""
    majority = scores.majority
    overall = scores.cell()
    shown = values(scores, LABEL)  # the metrics table's: those that need columns are kept only where given
    result = {
        **{key: value for key, value in shown.items() if key not in BY_COLUMNS},
        "n": overall.n,
        "n_rows": len(scores.rows),
        "n_scored": overall.n,
        "n_unparsed": overall.n - overall.n_parsed,
        "extractor": scores.extractor,
        "majority_letter": majority,
        "baselines": scores.baselines(majority=majority),
    }
    for name, column, key in (("condition", conditions, "condition"), ("bin", bins, "family")):
        if column is not None:
            result[f"per_{name}"] = {
                value: {**_accuracy(scores.cell(rows)), "baselines": scores.baselines(rows, majority)}
                for value, rows in scores.by(key).items()
            }
    if program_ids is not None and conditions is not None:
        if variants is None:
            result["joint"] = shown["joint"]
            result["baselines_joint"] = {f"constant_{x}": scores.joint(answer=x) for x in answer_letters()}
            constants = result["baselines_joint"]
            constants["majority"] = constants[f"constant_{majority}"] if majority else None
        else:
            result["flip_rate"], result["n_flip_groups"] = shown["flip_rate"], scores.flip_rate()[1]
        if NO_SEMANTICS in conditions:
            result["default_correspondence"] = shown["default_correspondence"]
        result["ci95"] = scores.intervals(("strict_accuracy", "joint"), "program")
    else:
        result["ci95"] = scores.intervals(("strict_accuracy",), "row")
    return LabelScores(**result)


def _accuracy(cell: Tally) -> dict:
    return {"accuracy": cell.accuracy, "strict_accuracy": cell.strict_accuracy, "coverage": cell.coverage, "n": cell.n}
