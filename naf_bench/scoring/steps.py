"""The step checker (seed 001): scores a trace written in the grammar of :mod:`naf_bench.verbalize.trace`,
in any of its renderings (abstract or framed names, English or Chinese). Its rules are all here; the grammar
only reads the trace, and the row gives the program and the prompt's wording of its rules.

Flags:

- ``parsed``: the whole response (after ``<think>`` blocks) is a sentence sequence of the grammar.
- ``valid``: every step states the certified well-founded value of its atoms and justifies it locally
  (:data:`JUSTIFIED`, one rule per step kind): a *true* step cites a rule of that atom whose body it lists
  exactly, every literal established (a positive literal's atom true, a negated one's false); *no rule* holds
  only for an atom without rules; *every rule fails* lists each rule of the atom once with a body literal
  established false; an *unfounded* set gives every rule of its atoms a literal established false or a
  positive literal inside the set; an *undefined* step names atoms the trace states undefined, the atom has a
  rule none of whose literals is established false, and no rule whose literals are all established.
- ``linear`` (three truth values): a true/false premise is used only after the step that establishes it; an
  undefined atom may name undefined atoms of its own trailing block (cycles of undefinedness have no order),
  but all undefined steps come after every true/false step; no atom is established twice.
- ``connects``: the verdict is the certified verdict on the query under the row's condition, and the
  answer is the gold letter.

Public API (the traced task scores responses to :func:`naf_bench.verbalize.traced.render_traced_prompt`)::

    check_steps(response, certificate, condition, framing=None, language=None, prompt=None) -> {flag: bool}

With ``framing``/``language`` left ``None`` every rendering is tried and the best-scoring parse counts. A step
may cite a rule by its text in quotes when the prompt (whose rules it quotes) is given. On a dataset row (its
program, prompt, framing and language) it is :func:`naf_bench.scoring.core.check_row`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from naf_bench.certify import Certificate
from naf_bench.errors import ParseError
from naf_bench.readings import READINGS
from naf_bench.scoring.extract import strip_thinking
from naf_bench.syntax.ast import Literal, Program, Rule
from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.trace import (
    RENDERINGS,
    AllRulesFail,
    Derived,
    Grammar,
    NoRule,
    StepKind,
    Trace,
    Undefined,
    Unfounded,
    grammar,
    parse_trace,
)

FLAGS = ("parsed", "valid", "linear", "connects")


def check_steps(
    response: str,
    certificate: Certificate,
    condition: str,
    framing: str | None = None,
    language: str | None = None,
    prompt: str | None = None,
    program: Program | None = None,
) -> dict[str, bool]:
    """The four step-checker flags of one response, in the rendering given (or the best of all renderings);
    ``program`` defaults to the certificate's, and ``prompt`` (the row's) lets a step quote a rule's text."""
    best = dict.fromkeys(FLAGS, False)
    text = strip_thinking(response or "").strip()
    program = program or parse_program(certificate.program)
    rules = prompt_rules(prompt, len(program.rules)) if prompt is not None else ()
    for rendering in RENDERINGS:
        if (framing or rendering[0], language or rendering[1]) != rendering:
            continue
        g = grammar(*rendering, certificate.query)
        try:
            trace = parse_trace(text, g, rules)
        except ParseError:
            continue
        flags = _flags(trace, g, program, certificate, condition)
        if sum(flags.values()) > sum(best.values()):
            best = flags
    return best


def prompt_rules(prompt: str, n_rules: int) -> tuple[str, ...]:
    """The rule sentences of a row's prompt: the lines under its rules heading (its second paragraph, numbered
    or not), which must be one per rule of the program."""
    paragraphs = prompt.split("\n\n")
    lines = paragraphs[1].splitlines()[1:] if len(paragraphs) > 1 else []
    if len(lines) != n_rules:
        raise ValueError(f"the prompt's second paragraph lists {len(lines)} rules, the program has {n_rules}")
    return tuple(lines)


@dataclass(frozen=True)
class Context:
    """What the step checker knows while it reads a trace: the program's rules and the values established."""

    rules: tuple[Rule, ...]
    rules_of: dict[str, list[int]]
    stated_undefined: frozenset[str]
    known: dict[str, str] = field(default_factory=dict)

    def holds(self, literal: Literal) -> bool | None:
        """True/False once the literal is established, None otherwise (unknown or undefined)."""
        value = self.known.get(literal.atom)
        if value not in ("T", "F"):
            return None
        return (value == "T") == literal.positive

    def rule(self, number: int) -> Rule | None:
        return self.rules[number - 1] if 1 <= number <= len(self.rules) else None

    def rules_for(self, atom: str) -> list[Rule]:
        return [self.rules[n - 1] for n in self.rules_of.get(atom, [])]


def _derived(step: Derived, context: Context) -> bool:
    rule = context.rule(step.rule)
    return (
        rule is not None
        and rule.head == step.atom
        and rule.body == step.body
        and all(context.holds(lit) for lit in step.body)
    )


def _no_rule(step: NoRule, context: Context) -> bool:
    return not context.rules_of.get(step.atom)


def _all_rules_fail(step: AllRulesFail, context: Context) -> bool:
    numbers = [n for n, _ in step.failing]
    if not numbers or sorted(numbers) != context.rules_of.get(step.atom, []):
        return False
    return all(lit in context.rules[n - 1].body and context.holds(lit) is False for n, lit in step.failing)


def _unfounded(step: Unfounded, context: Context) -> bool:
    members = set(step.members)
    return all(
        any((lit.positive and lit.atom in members) or context.holds(lit) is False for lit in rule.body)
        for member in members
        for rule in context.rules_for(member)
    )


def _undefined(step: Undefined, context: Context) -> bool:
    if not step.reads or any(a not in context.stated_undefined for a in step.reads):
        return False
    bodies = [[context.holds(lit) for lit in rule.body] for rule in context.rules_for(step.atom)]
    return any(False not in body for body in bodies) and not any(all(body) for body in bodies)


# Each step kind of the grammar (verbalize.trace.STEP_KINDS) and what justifies a step of it locally.
JUSTIFIED: dict[type[StepKind], Callable[[StepKind, Context], bool]] = {
    Derived: _derived,
    NoRule: _no_rule,
    AllRulesFail: _all_rules_fail,
    Unfounded: _unfounded,
    Undefined: _undefined,
}


def _flags(trace: Trace, g: Grammar, program: Program, certificate: Certificate, condition: str) -> dict[str, bool]:
    reading = READINGS[condition]
    expected = g.verdict(condition, reading.label(certificate.labels), certificate.n_stable_models)
    return {
        "parsed": True,
        "valid": _valid(trace.steps, program, certificate.wfs_values),
        "linear": _linear(trace.steps),
        "connects": trace.verdict == expected and trace.answer == reading.gold_letter(certificate.labels),
    }


def _valid(steps: Sequence[StepKind], program: Program, wfs_values: Mapping[str, str]) -> bool:
    rules_of: dict[str, list[int]] = {}
    for number, rule in enumerate(program.rules, start=1):
        rules_of.setdefault(rule.head, []).append(number)
    stated_undefined = frozenset(a for step in steps if step.value == "u" for a in step.atoms)
    context = Context(program.rules, rules_of, stated_undefined)
    for step in steps:
        if any(wfs_values.get(a, "F") != step.value for a in step.atoms) or not JUSTIFIED[type(step)](step, context):
            return False
        context.known.update(dict.fromkeys(step.atoms, step.value))
    return True


def _linear(steps: Sequence[StepKind]) -> bool:
    established: set[str] = set()
    seen_undefined = False
    for step in steps:
        if any(a in established for a in step.atoms):
            return False
        if step.value == "u":
            seen_undefined = True
        elif seen_undefined:
            return False  # a true/false step after the undefined block
        if any(p not in established for p in step.premises):
            return False
        established.update(step.atoms)
    return True
