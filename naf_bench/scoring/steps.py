"""The step checker (seed 001): scores a trace written in the grammar of :mod:`naf_bench.verbalize.trace`,
in any of its renderings (abstract or framed names, English or Chinese).

Flags:

- ``parsed``: the whole response (after ``<think>`` blocks) is a sentence sequence of the grammar.
- ``valid``: every step states the certified well-founded value of its atoms and justifies it locally:
  a *true* step cites a rule of that atom whose body it lists exactly, every literal established (a positive
  literal's atom true, a negated one's false); *no rule* holds only for an atom without rules; *every rule
  fails* lists each rule of the atom once with a body literal established false; an *unfounded* set gives
  every rule of its atoms a literal established false or a positive literal inside the set; an *undefined*
  step names atoms the trace states undefined, the atom has a rule none of whose literals is established false,
  and no rule whose literals are all established. (Each kind's ``check`` in the step-kind table.)
- ``linear`` (three truth values): a true/false premise is used only after the step that establishes it; an
  undefined atom may name undefined atoms of its own trailing block (cycles of undefinedness have no order),
  but all undefined steps come after every true/false step; no atom is established twice.
- ``connects``: the verdict is the certified verdict on the query under the row's condition, and the
  answer is the gold letter.

Public API (the traced task scores responses to :func:`naf_bench.verbalize.traced.render_traced_prompt`)::

    check_steps(response, certificate, condition, framing=None, language=None) -> {flag: bool}
    check_row(response, row) -> {flag: bool}    # framing and language from the dataset row

With ``framing``/``language`` left ``None`` every rendering is tried and the best-scoring parse counts.
"""

from __future__ import annotations

from collections.abc import Mapping

from naf_bench.certify import Certificate
from naf_bench.errors import ParseError
from naf_bench.readings import SEMANTICS_OF, gold_letter
from naf_bench.scoring.extract import strip_thinking
from naf_bench.syntax.ast import Program
from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.prompt import rule_sentences
from naf_bench.verbalize.trace import RENDERINGS, Context, Grammar, Trace, grammar, parse_trace

FLAGS = ("parsed", "valid", "linear", "connects")


def check_steps(
    response: str, certificate: Certificate, condition: str, framing: str | None = None, language: str | None = None
) -> dict[str, bool]:
    """The four step-checker flags of one response, in the rendering given (or the best of all renderings)."""
    best = dict.fromkeys(FLAGS, False)
    text = strip_thinking(response or "").strip()
    program = parse_program(certificate.program)
    for rendering in RENDERINGS:
        if (framing or rendering[0], language or rendering[1]) != rendering:
            continue
        g = grammar(*rendering, certificate.query)
        rules, _ = rule_sentences(program, certificate.query, rendering[1], rendering[0])
        try:
            trace = parse_trace(text, g, rules)
        except ParseError:
            continue
        flags = _flags(trace, g, program, certificate, condition)
        if sum(flags.values()) > sum(best.values()):
            best = flags
    return best


def check_row(response: str, row: Mapping) -> dict[str, bool]:
    """:func:`check_steps` on a dataset row, in the row's framing and language."""
    certificate = Certificate.from_json(row["certificate"])
    return check_steps(response, certificate, row["condition"], row["framing"], row["language"])


def _flags(trace: Trace, g: Grammar, program: Program, certificate: Certificate, condition: str) -> dict[str, bool]:
    label = certificate.labels[SEMANTICS_OF[condition]]
    expected = g.verdict(condition, label, certificate.n_stable_models)
    return {
        "parsed": True,
        "valid": _valid(trace, program, certificate),
        "linear": _linear(trace),
        "connects": trace.verdict == expected and trace.answer == gold_letter(condition, certificate.labels),
    }


def _valid(trace: Trace, program: Program, certificate: Certificate) -> bool:
    rules_of: dict[str, list[int]] = {}
    for number, rule in enumerate(program.rules, start=1):
        rules_of.setdefault(rule.head, []).append(number)
    stated_undefined = frozenset(a for step in trace.steps if step.value == "u" for a in step.atoms)
    context = Context(program.rules, rules_of, stated_undefined)
    for step in trace.steps:
        if any(certificate.wfs_values.get(a, "F") != step.value for a in step.atoms) or not step.check(context):
            return False
        context.known.update(dict.fromkeys(step.atoms, step.value))
    return True


def _linear(trace: Trace) -> bool:
    established: set[str] = set()
    seen_undefined = False
    for step in trace.steps:
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
