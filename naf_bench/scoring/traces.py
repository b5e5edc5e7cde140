"""Reasoning scores: the trace audit for free-form reasoning (seed 000, appendix "Trace Analysis") and the
step checker for traces in the controlled gold-trace grammar (seed 001, :mod:`naf_bench.scoring.steps`,
re-exported here), with proof accuracy and the right-for-the-wrong-reason rate.

``proof_accuracy`` is the share with all four; ``rfwr`` = P(label correct and not all four).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from naf_bench.certify import Certificate
from naf_bench.scoring.extract import extract_answer, strip_thinking
from naf_bench.scoring.steps import check_steps
from naf_bench.syntax.analysis import dependencies, is_recursive, relevant_atoms, strongly_connected_components
from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.prompt import SEMANTICS_OF, gold_letter

AUDIT_CLASSES = ("sound", "contradicted", "unverifiable", "no_derivation")


def _certificate(reference: Mapping) -> Certificate:
    certificate = reference.get("certificate")
    if certificate is None:
        raise ValueError("each reference needs the row's 'certificate' (and 'condition')")
    return Certificate.from_json(certificate) if isinstance(certificate, str) else certificate


_VALUE_WORDS = [
    ("u", r"undefined|unknown|cannot be determined|neither true nor false"),
    ("loop", r"does not terminate|never terminates|loops(?: forever)?|runs forever"),
    ("F", r"not true|false|does not hold|fails"),
    ("T", r"true|holds|succeeds"),
]
_NO_MODEL = re.compile(
    r"no stable model|no answer set|zero stable models|not have any stable model"
    r"|stable models: 0\b|since there is none",
    re.IGNORECASE,
)


def stated_value(text: str, atom: str) -> str | None:
    """The last truth value the text states for ``atom`` (T, F, u or loop), or None."""
    name = re.escape(atom)
    words = "|".join(w for _, w in _VALUE_WORDS)
    found: list[tuple[int, str]] = []
    plain = rf"(?:proposition\s+)?\b{name}\b\s+(?:is|would be|must be|=|evaluates to|)\s*({words})"
    for match in re.finditer(plain, text, re.IGNORECASE):
        value = next(v for v, w in _VALUE_WORDS if re.fullmatch(w, match.group(1), re.IGNORECASE))
        found.append((match.start(), value))
    in_models = (
        rf"\b{name}\b\s+is\s+(true|false)\s+in\s+(no|some|every|all|each|at least one)\s+(?:stable model|answer set)"
    )
    for match in re.finditer(in_models, text, re.IGNORECASE):
        true = (match.group(1).lower() == "true") != (match.group(2).lower() == "no")
        found.append((match.start() + 1, "T" if true else "F"))
    for match in re.finditer(rf"makes\s+\b{name}\b\s+(true|false)", text, re.IGNORECASE):
        found.append((match.start(), "T" if match.group(1).lower() == "true" else "F"))
    return max(found)[1] if found else None


def bridge_atom(program, query: str) -> str | None:
    """Where a negation cycle meets the chain: the first relevant non-recursive atom reading a recursive one."""
    deps = dependencies(program)
    components = strongly_connected_components(deps)
    recursive = {atom for component in components if is_recursive(component, deps) for atom in component}
    for atom in relevant_atoms(program, query):
        if atom not in recursive and any(d in recursive for d in deps.get(atom, ())):
            return atom
    return None


def audit(response: str, certificate: Certificate, condition: str) -> dict:
    """Trace audit of free-form reasoning: class, and whether a correct skeptical-odd answer is earned."""
    text = strip_thinking(response or "")
    reasoning = re.sub(r"ANSWER\s*:\s*\S*", "", text).strip()
    label = certificate.labels[SEMANTICS_OF[condition]]
    query_value = stated_value(reasoning, certificate.query)
    program = parse_program(certificate.program)
    bridge = bridge_atom(program, certificate.query)
    bridge_value = stated_value(reasoning, bridge) if bridge and condition in ("wfs", "closed_world") else None
    if len(reasoning.split()) < 3:
        verdict_class = "no_derivation"
    elif query_value is None and bridge_value is None:
        verdict_class = "unverifiable"
    elif (query_value is not None and not _agrees(query_value, label)) or (
        bridge_value is not None and not _agrees(bridge_value, _bridge_label(certificate, bridge, condition))
    ):
        verdict_class = "contradicted"
    else:
        verdict_class = "sound"
    earned = True
    if condition == "skept" and certificate.incoherent:
        earned = bool(_NO_MODEL.search(reasoning))
    return {"class": verdict_class, "earned": earned}


def _agrees(stated: str, certified: str) -> bool:
    """Prolog's non-termination may be stated as undefined (its well-founded reading)."""
    return stated == certified or {stated, certified} == {"u", "loop"}


def _bridge_label(certificate: Certificate, bridge: str, condition: str) -> str:
    value = certificate.wfs_values.get(bridge, "F")
    return "loop" if condition == "closed_world" and value == "u" else value


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
        certificate = _certificate(reference)
        gold = gold_letter(condition, certificate.labels)
        correct.append(extract_answer(prediction, extractor) == gold)
        flags_list.append(check_steps(prediction or "", certificate, condition))
        audits.append(audit(prediction or "", certificate, condition))
    n = len(predictions)
    strict = [all(f.values()) for f in flags_list]
    traced_correct = [i for i in range(n) if correct[i] and audits[i]["class"] in ("sound", "contradicted")]
    result = {
        "n": n,
        "label_accuracy": sum(correct) / n if n else None,
        "proof_accuracy": sum(strict) / n if n else None,
        "rfwr": sum(c and not s for c, s in zip(correct, strict, strict=True)) / n if n else None,
        "reasoned_soundly": (
            sum(audits[i]["class"] == "sound" and audits[i]["earned"] for i in traced_correct) / len(traced_correct)
            if traced_correct
            else None
        ),
        "audit": {name: sum(a["class"] == name for a in audits) for name in AUDIT_CLASSES},
        "unearned_correct": sum(c and not a["earned"] for c, a in zip(correct, audits, strict=True)),
        "flags": {name: [f[name] for f in flags_list] for name in ("parsed", "valid", "linear", "connects")},
        "audit_classes": [a["class"] for a in audits],
    }
    return result
