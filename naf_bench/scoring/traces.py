"""Reasoning scores: the trace audit for free-form reasoning (seed 000, appendix "Trace Analysis") and the
step checker for traces in the controlled gold-trace grammar (seed 001, :mod:`naf_bench.scoring.steps`,
re-exported here), with proof accuracy and the right-for-the-wrong-reason rate.

``proof_accuracy`` is the share with all four and ``rfwr`` = P(label correct and not all four), both over the
*checkable* traces only (those the grammar parses), reported with their count: on free-form reasoning the
step checker has nothing to check, and both are None ("n/a, 0 of N checkable"), never 0 (which would make
rfwr equal label accuracy). The audit (:mod:`naf_bench.scoring.audit`) covers every trace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from naf_bench.certify import Certificate
from naf_bench.readings import SEMANTICS_OF, gold_letter
from naf_bench.scoring.audit import AUDIT_CLASSES, audit
from naf_bench.scoring.extract import extract_answer
from naf_bench.scoring.steps import check_steps
from naf_bench.syntax.ast import Program
from naf_bench.syntax.parse import parse_program


def _parsed(reference: Mapping) -> tuple[Certificate, Program]:
    """A row's certificate and program."""
    certificate = reference.get("certificate")
    if certificate is None:
        raise ValueError("each reference needs the row's 'certificate' (and 'condition')")
    if not isinstance(certificate, str):
        return certificate, parse_program(certificate.program)
    return _read(certificate)


@lru_cache(maxsize=64)  # a program's rows come together: read once for all of them, and only the recent kept
def _read(certificate: str) -> tuple[Certificate, Program]:
    read = Certificate.from_json(certificate)
    return read, parse_program(read.program)


def compute_proof_metrics(
    predictions: Sequence[str | None], references: Sequence[Mapping], extractor: str = "strict"
) -> dict:
    """Audit, step-checker flags, proof accuracy, reasoned_soundly and rfwr over rows with gold letters."""
    if len(predictions) != len(references):
        raise ValueError(f"references has {len(references)} entries but predictions has {len(predictions)}")
    flags_list, audits, correct = [], [], []
    for i, (prediction, reference) in enumerate(zip(predictions, references, strict=True)):
        condition = reference.get("condition")
        if condition not in SEMANTICS_OF:
            raise ValueError(f"references[{i}]['condition'] must be a named condition, got {condition!r}")
        certificate, program = _parsed(reference)  # each program parsed once, for the step checker and the audit
        gold = gold_letter(condition, certificate.labels)
        correct.append(extract_answer(prediction, extractor) == gold)
        flags_list.append(
            check_steps(
                prediction or "",
                certificate,
                condition,
                reference.get("framing"),
                reference.get("language"),
                reference.get("prompt"),
                program,
            )
        )
        audits.append(audit(prediction or "", certificate, condition, program))
    n = len(predictions)
    checkable = [i for i in range(n) if flags_list[i]["parsed"]]
    strict = [all(flags_list[i].values()) for i in checkable]
    traced_correct = [i for i in range(n) if correct[i] and audits[i]["class"] in ("sound", "contradicted")]
    by_correctness = {
        key: {name: sum(a["class"] == name for a, c in zip(audits, correct, strict=True) if c == want)
              for name in AUDIT_CLASSES}
        for key, want in (("correct", True), ("wrong", False))
    }  # fmt: skip
    result = {
        "n": n,
        "label_accuracy": sum(correct) / n if n else None,
        "n_checkable": len(checkable),
        "proof_accuracy": sum(strict) / len(checkable) if checkable else None,
        "rfwr": (
            sum(correct[i] and not s for i, s in zip(checkable, strict, strict=True)) / len(checkable)
            if checkable
            else None
        ),
        "reasoned_soundly": (
            sum(audits[i]["class"] == "sound" and audits[i]["earned"] for i in traced_correct) / len(traced_correct)
            if traced_correct
            else None
        ),
        "contradicted_among_correct": (
            sum(audits[i]["class"] == "contradicted" for i in traced_correct) / len(traced_correct)
            if traced_correct
            else None
        ),
        "audit": {name: sum(a["class"] == name for a in audits) for name in AUDIT_CLASSES},
        "audit_by_correctness": by_correctness,
        "unearned_correct": sum(c and not a["earned"] for c, a in zip(correct, audits, strict=True)),
        "flags": {name: [f[name] for f in flags_list] for name in ("parsed", "valid", "linear", "connects")},
        "audit_classes": [a["class"] for a in audits],
        "audit_reasons": [a["reason"] for a in audits],
    }
    return result
