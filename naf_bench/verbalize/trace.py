"""Gold traces in a controlled grammar, and the parser that inverts them exactly.

A trace is one sentence per line. Steps establish the well-founded value of the atoms the query
depends on, each from atoms already established (the value every semantics agrees on wherever the
well-founded model is two-valued); then semantics-specific lines; then the verdict and the answer::

    Step 1: f3 is true by rule 4: it is a fact.
    Step 2: s2 is true by rule 7: f3.
    Step 3: b1 is false: it has no rule.
    Step 4: c5 is true by rule 2: s2, not b1.
    Step 5: p4 is false: every rule fails: rule 5 needs not c5.
    Step 6: x1, x2 are false: they support only each other.
    Step 7: r1 is undefined: it depends on the undefined r2.
    Stable models: 0.
    Verdict: q is true in every stable model.
    ANSWER: A

Rule numbers count the rules in the order the prompt lists them, from 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from naf_bench.errors import ParseError
from naf_bench.syntax.analysis import relevant_atoms
from naf_bench.syntax.ast import Program
from naf_bench.verbalize.prompt import SEMANTICS_OF, gold_letter

_WORD = {"T": "true", "F": "false", "u": "undefined"}
_VALUE = {word: value for value, word in _WORD.items()}


@dataclass(frozen=True)
class Step:
    """One established fact about atoms.

    ``kind``: ``rule`` (true by a rule whose body is established), ``no_rule``, ``every_rule_fails``
    (with the failing literal of each rule), ``unfounded`` (false atoms supporting only each other),
    ``undefined`` (with the undefined atoms it depends on).
    """

    atoms: tuple[str, ...]
    value: str  # T | F | u
    kind: str
    rule: int | None = None  # 1-based rule number for kind == "rule"
    uses: tuple[tuple[int, str], ...] = ()  # (rule number, literal) for every_rule_fails; (0, lit) for rule bodies


@dataclass(frozen=True)
class Trace:
    steps: tuple[Step, ...]
    n_stable_models: int | None
    verdict: str  # the verdict sentence after "Verdict: "
    answer: str | None


def _literal(atom: str, positive: bool) -> str:
    return atom if positive else f"not {atom}"


def derivation(program: Program, query: str, values: dict[str, str]) -> list[Step]:
    """Steps establishing the well-founded value of every atom ``query`` depends on, in a checkable order."""
    numbered = list(enumerate(program.rules, start=1))
    rules_of: dict[str, list] = {}
    for number, rule in numbered:
        rules_of.setdefault(rule.head, []).append((number, rule))
    pending = [a for a in reversed(relevant_atoms(program, query))]  # dependencies tend to come first
    known: dict[str, str] = {}
    steps: list[Step] = []

    def holds(lit) -> bool | None:  # True / False once established, None while unknown or undefined
        value = known.get(lit.atom)
        if value is None or value == "u":
            return None
        return (value == "T") == lit.positive

    progress = True
    while pending and progress:
        progress = False
        for atom in list(pending):
            target = values.get(atom, "F")
            if target == "T":
                for number, rule in rules_of.get(atom, []):
                    if all(holds(lit) is True for lit in rule.body):
                        uses = tuple((0, _literal(lit.atom, lit.positive)) for lit in rule.body)
                        steps.append(Step((atom,), "T", "rule", number, uses))
                        break
                else:
                    continue
            elif target == "F":
                rules = rules_of.get(atom, [])
                if not rules:
                    steps.append(Step((atom,), "F", "no_rule"))
                else:
                    failing = []
                    for number, rule in rules:
                        lit = next((lit for lit in rule.body if holds(lit) is False), None)
                        if lit is None:
                            break
                        failing.append((number, _literal(lit.atom, lit.positive)))
                    else:
                        steps.append(Step((atom,), "F", "every_rule_fails", uses=tuple(failing)))
                        failing = None
                    if failing is not None:
                        continue
            else:
                continue
            known[atom] = target
            pending.remove(atom)
            progress = True
        if not progress:
            unfounded = [a for a in pending if values.get(a, "F") == "F"]
            if unfounded:
                steps.append(Step(tuple(unfounded), "F", "unfounded"))
                for atom in unfounded:
                    known[atom] = "F"
                    pending.remove(atom)
                progress = True
    for atom in pending:  # the rest is undefined: name the undefined atoms each one reads
        known[atom] = "u"
    for atom in pending:
        reads = sorted({lit.atom for _, rule in rules_of.get(atom, []) for lit in rule.body if known[lit.atom] == "u"})
        steps.append(Step((atom,), "u", "undefined", uses=tuple((0, a) for a in reads)))
    return steps


def _step_text(number: int, step: Step) -> str:
    atoms = ", ".join(step.atoms)
    if step.kind == "rule":
        body = ", ".join(lit for _, lit in step.uses) or "it is a fact"
        return f"Step {number}: {atoms} is true by rule {step.rule}: {body}."
    if step.kind == "no_rule":
        return f"Step {number}: {atoms} is false: it has no rule."
    if step.kind == "every_rule_fails":
        reasons = "; ".join(f"rule {n} needs {lit}" for n, lit in step.uses)
        return f"Step {number}: {atoms} is false: every rule fails: {reasons}."
    if step.kind == "unfounded":
        return f"Step {number}: {atoms} are false: they support only each other."
    reads = ", ".join(a for _, a in step.uses)
    return f"Step {number}: {atoms} is undefined: it depends on the undefined {reads}."


def verdict(condition: str, query: str, label: str, n_stable_models: int) -> str:
    if condition == "wfs":
        return f"under the well-founded semantics {query} is {_WORD[label]}."
    if condition == "closed_world":
        outcome = {"T": "succeeds", "F": "fails finitely", "loop": "does not terminate"}[label]
        return f"the Prolog proof of {query} {outcome}."
    if condition == "cred":
        return f"{query} is true in {'some' if label == 'T' else 'no'} stable model."
    if n_stable_models == 0:
        return f"{query} is true in every stable model, since there is none."
    return f"{query} is true in every stable model." if label == "T" else f"some stable model makes {query} false."


def render_gold_trace(program: Program, certificate, condition: str) -> str:
    """The certified derivation of ``certificate.query`` under the row's condition ('' for ``none``)."""
    if condition == "none":
        return ""
    query = certificate.query
    lines = [_step_text(i, step) for i, step in enumerate(derivation(program, query, certificate.wfs_values), 1)]
    if condition in ("cred", "skept"):
        lines.append(f"Stable models: {certificate.n_stable_models}.")
    label = certificate.labels[SEMANTICS_OF[condition]]
    lines.append("Verdict: " + verdict(condition, query, label, certificate.n_stable_models))
    lines.append(f"ANSWER: {gold_letter(condition, certificate.labels)}")
    return "\n".join(lines)


_ATOMS = r"[a-z][A-Za-z0-9_]*(?:, [a-z][A-Za-z0-9_]*)*"
_LIT = r"(?:not )?[a-z][A-Za-z0-9_]*"
_PATTERNS = [
    ("rule", re.compile(rf"Step (\d+): ({_ATOMS}) is true by rule (\d+): (it is a fact|{_LIT}(?:, {_LIT})*)\.")),
    ("no_rule", re.compile(rf"Step (\d+): ({_ATOMS}) is false: it has no rule\.")),
    (
        "every_rule_fails",
        re.compile(
            rf"Step (\d+): ({_ATOMS}) is false: every rule fails: (rule \d+ needs {_LIT}(?:; rule \d+ needs {_LIT})*)\."
        ),
    ),
    ("unfounded", re.compile(rf"Step (\d+): ({_ATOMS}) are false: they support only each other\.")),
    ("undefined", re.compile(rf"Step (\d+): ({_ATOMS}) is undefined: it depends on the undefined ({_ATOMS})?\.")),
]


def parse_trace(text: str) -> Trace:
    """Invert :func:`render_gold_trace`; raise :class:`ParseError` (with the line) on anything else."""
    steps: list[Step] = []
    n_models = None
    verdict_text = None
    answer = None
    for line_no, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if verdict_text is not None and not line.startswith("ANSWER:"):
            raise ParseError("nothing but 'ANSWER: X' may follow the verdict", line_no, 1, line)
        if line.startswith("Stable models: "):
            match = re.fullmatch(r"Stable models: (\d+)\.", line)
            if not match:
                raise ParseError("expected 'Stable models: N.'", line_no, 1, line)
            n_models = int(match.group(1))
            continue
        if line.startswith("Verdict: "):
            verdict_text = line[len("Verdict: ") :]
            continue
        if line.startswith("ANSWER:"):
            match = re.fullmatch(r"ANSWER: ([ABC])", line)
            if not match:
                raise ParseError("expected 'ANSWER: A', 'ANSWER: B' or 'ANSWER: C'", line_no, 1, line)
            answer = match.group(1)
            continue
        kind, match = next(((k, m) for k, p in _PATTERNS if (m := p.fullmatch(line))), (None, None))
        if match is None:
            raise ParseError("not a sentence of the trace grammar", line_no, 1, line)
        if int(match.group(1)) != len(steps) + 1:
            raise ParseError(f"expected step {len(steps) + 1}", line_no, 1, line)
        atoms = tuple(match.group(2).split(", "))
        if kind == "rule":
            body = match.group(4)
            uses = () if body == "it is a fact" else tuple((0, lit) for lit in body.split(", "))
            steps.append(Step(atoms, "T", kind, int(match.group(3)), uses))
        elif kind == "every_rule_fails":
            reasons = re.findall(rf"rule (\d+) needs ({_LIT})", match.group(3))
            steps.append(Step(atoms, "F", kind, uses=tuple((int(n), lit) for n, lit in reasons)))
        elif kind == "undefined":
            reads = match.group(3).split(", ") if match.group(3) else []
            steps.append(Step(atoms, "u", kind, uses=tuple((0, a) for a in reads)))
        else:
            steps.append(Step(atoms, "F", kind))
    if verdict_text is None:
        raise ParseError("the trace has no 'Verdict:' line", len(text.splitlines()) or 1, 1, "")
    return Trace(tuple(steps), n_models, verdict_text, answer)


def trace_values(trace: Trace) -> dict[str, str]:
    """The value each step establishes, by atom."""
    return {atom: step.value for step in trace.steps for atom in step.atoms}
