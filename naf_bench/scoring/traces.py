"""Reasoning scores of whole responses (the evaluate module's ``proof`` config): :func:`compute_proof_metrics`
decides each answer once and hands the responses to the scoring core's :func:`naf_bench.scoring.core.proofs`,
which runs the trace audit on free-form reasoning (seed 000, appendix "Trace Analysis", :mod:`naf_bench.scoring.audit`)
and the step checker on traces in the controlled gold-trace grammar (seed 001, :mod:`naf_bench.scoring.steps`),
with proof accuracy and the right-for-the-wrong-reason rate.

``proof_accuracy`` is the share with all four and ``rfwr`` = P(label correct and not all four), both over the
*checkable* traces only (those the grammar parses), reported with their count: on free-form reasoning the
step checker has nothing to check, and both are None ("n/a, 0 of N checkable"), never 0 (which would make
rfwr equal label accuracy). The audit (:mod:`naf_bench.scoring.audit`) covers every trace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from naf_bench.scoring.core import decide_answer, proofs
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR


def compute_proof_metrics(
    predictions: Sequence[str | None], references: Sequence[Mapping], extractor: str = DEFAULT_EXTRACTOR
) -> dict:
    """Audit, step-checker flags, proof accuracy, reasoned_soundly and rfwr over rows with gold letters
    (:func:`naf_bench.scoring.core.proofs`): each prediction is the whole response, its answer decided once by
    the core's policy (:func:`naf_bench.scoring.core.decide_answer`)."""
    if len(predictions) != len(references):
        raise ValueError(f"references has {len(references)} entries but predictions has {len(predictions)}")
    if withheld := [i for i, row in enumerate(references) if not row.get("certificate")]:
        raise ValueError(
            f"{len(withheld)} of {len(references)} rows have no certificate (rows {withheld[:5]}"
            f"{', ...' if len(withheld) > 5 else ''}): a trace is audited against its row's certificate, which a "
            "split published without gold (hard's test split) withholds, so these rows cannot be scored here; "
            "score their answers through the leaderboard"
        )
    answers = [decide_answer(p, row, extractor)[0] for p, row in zip(predictions, references, strict=True)]
    return proofs(predictions, references, answers).to_dict()
