"""Reasoning scores: the trace audit for free-form reasoning (seed 000, appendix "Trace Analysis") and the
step checker for traces in the controlled gold-trace grammar (seed 001), with proof accuracy and the
right-for-the-wrong-reason rate.

Step checker flags, for a trace of the grammar in :mod:`naf_bench.verbalize.trace`:

- ``parsed``: the whole response (after ``<think>`` blocks) is a sentence sequence of the grammar.
- ``valid``: every step states the certified well-founded value of its atoms and justifies it locally:
  a *true* step cites a rule of that atom whose body it lists exactly, every literal established (a positive
  literal's atom true, a negated one's false); *no rule* holds only for an atom without rules; *every rule
  fails* lists each rule of the atom once with a body literal established false; an *unfounded* set gives
  every rule of its atoms a literal established false or a positive literal inside the set; an *undefined*
  step names atoms the trace states undefined, the atom has a rule none of whose literals is established false,
  and no rule whose literals are all established.
- ``linear`` (three truth values): a true/false premise is used only after the step that establishes it; an
  undefined atom may name undefined atoms of its own trailing block (cycles of undefinedness have no order),
  but all undefined steps come after every true/false step; no atom is established twice.
- ``connects``: the verdict is the certified verdict on the query under the row's condition, and the
  answer is the gold letter.

``proof_accuracy`` is the share with all four and ``rfwr`` = P(label correct and not all four), both over the
*checkable* traces only (those the grammar parses), reported with their count: on free-form reasoning the
step checker has nothing to check, and both are None ("n/a, 0 of N checkable"), never 0 (which would make
rfwr equal label accuracy). The audit (:mod:`naf_bench.scoring.audit`) covers every trace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from naf_bench.certify import Certificate
from naf_bench.errors import ParseError
from naf_bench.scoring.audit import AUDIT_CLASSES, audit
from naf_bench.scoring.extract import extract_answer, strip_thinking
from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.prompt import SEMANTICS_OF, gold_letter
from naf_bench.verbalize.trace import Trace, parse_trace, verdict


def _certificate(reference: Mapping) -> Certificate:
    certificate = reference.get("certificate")
    if certificate is None:
        raise ValueError("each reference needs the row's 'certificate' (and 'condition')")
    return Certificate.from_json(certificate) if isinstance(certificate, str) else certificate


def check_steps(response: str, certificate: Certificate, condition: str) -> dict[str, bool]:
    """The four step-checker flags of one response."""
    flags = dict.fromkeys(("parsed", "valid", "linear", "connects"), False)
    text = strip_thinking(response or "").strip()
    try:
        trace = parse_trace(text)
    except ParseError:
        return flags
    flags["parsed"] = True
    program = parse_program(certificate.program)
    flags["valid"] = _valid(trace, program, certificate)
    flags["linear"] = _linear(trace, program)
    label = certificate.labels[SEMANTICS_OF[condition]]
    expected = verdict(condition, certificate.query, label, certificate.n_stable_models)
    flags["connects"] = trace.verdict == expected and trace.answer == gold_letter(condition, certificate.labels)
    return flags


def _literal_value(literal: str, known: Mapping[str, str]) -> bool | None:
    """True/False once the literal is established, None otherwise (unknown or undefined)."""
    negative = literal.startswith("not ")
    atom = literal[4:] if negative else literal
    value = known.get(atom)
    if value not in ("T", "F"):
        return None
    return (value == "T") != negative


def _body_text(rule) -> list[str]:
    return [lit.atom if lit.positive else f"not {lit.atom}" for lit in rule.body]


def _valid(trace: Trace, program, certificate: Certificate) -> bool:
    rules = list(program.rules)
    rules_of: dict[str, list[int]] = {}
    for number, rule in enumerate(rules, start=1):
        rules_of.setdefault(rule.head, []).append(number)
    stated_undefined = {a for step in trace.steps if step.value == "u" for a in step.atoms}
    known: dict[str, str] = {}
    for step in trace.steps:
        if any(certificate.wfs_values.get(a, "F") != step.value for a in step.atoms):
            return False
        atom = step.atoms[0]
        if step.kind == "rule":
            if not (1 <= step.rule <= len(rules)) or rules[step.rule - 1].head != atom:
                return False
            listed = [lit for _, lit in step.uses]
            if listed != _body_text(rules[step.rule - 1]) or not all(_literal_value(x, known) for x in listed):
                return False
        elif step.kind == "no_rule":
            if rules_of.get(atom):
                return False
        elif step.kind == "every_rule_fails":
            numbers = [n for n, _ in step.uses]
            if sorted(numbers) != rules_of.get(atom, []) or not rules_of.get(atom):
                return False
            for number, literal in step.uses:
                if literal not in _body_text(rules[number - 1]) or _literal_value(literal, known) is not False:
                    return False
        elif step.kind == "unfounded":
            members = set(step.atoms)
            for member in members:
                for number in rules_of.get(member, []):
                    body = rules[number - 1].body
                    if not any(
                        (lit.positive and lit.atom in members)
                        or _literal_value(lit.atom if lit.positive else f"not {lit.atom}", known) is False
                        for lit in body
                    ):
                        return False
        else:  # undefined
            reads = [a for _, a in step.uses]
            if not reads or any(a not in stated_undefined for a in reads):
                return False
            bodies = [[_literal_value(x, known) for x in _body_text(rules[n - 1])] for n in rules_of.get(atom, [])]
            if not any(False not in body for body in bodies) or any(all(body) for body in bodies):
                return False
        for a in step.atoms:
            known[a] = step.value
    return True


def _linear(trace: Trace, program) -> bool:
    established: set[str] = set()
    seen_undefined = False
    for step in trace.steps:
        if any(a in established for a in step.atoms):
            return False
        if step.value == "u":
            seen_undefined = True
        elif seen_undefined:
            return False  # a true/false step after the undefined block
        if step.kind == "rule" or step.kind == "every_rule_fails":
            premises = [lit[4:] if lit.startswith("not ") else lit for _, lit in step.uses]
        else:
            premises = []
        if any(p not in established for p in premises):
            return False
        established.update(step.atoms)
    return True


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
