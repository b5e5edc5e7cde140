"""Reasoner baselines with traces, so that seed 001's right-for-the-wrong-reason rate shows up here too.

- ``forward_chainer``: the seed's weak-model profile — closed-world forward chaining that never notices a
  cycle (exact on stratified programs; inside a cycle, a negated atom counts as false until it is derived);
  the query is answered yes if derived, no otherwise, whatever the semantics (never "cannot be determined").
- ``wfs_collapse``: the well-founded model with undefined collapsed to false (the seed's o4-mini failure).
- ``oracle``: the solver's certified answer with the gold trace; it must score 1.0 everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from naf_bench.certify import Certificate
from naf_bench.readings import letter_of
from naf_bench.syntax.graph import strongly_connected_components
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.structure import dependencies
from naf_bench.verbalize.trace import Derived, Grammar, grammar, render_gold_trace


def _grammar(row: Mapping) -> Grammar:
    """The trace grammar of the row's prompt (framing and language)."""
    return grammar(row["framing"], row["language"], row["query"])


def forward_chain(program) -> list[Derived]:
    """Atoms in the order a cycle-blind forward chainer derives them, with the rule used.

    Components of the dependency graph are taken dependencies first, so stratified programs get their
    perfect model; inside a cycle, ``not x`` holds whenever x is not derived *yet* (rules in program order).
    """
    derived: dict[str, Derived] = {}
    numbered = list(enumerate(program.rules, start=1))
    for component in strongly_connected_components(dependencies(program)):
        members = set(component)
        changed = True
        while changed:
            changed = False
            for number, rule in numbered:
                if rule.head not in members or rule.head in derived:
                    continue
                if all((lit.atom in derived) == lit.positive for lit in rule.body):
                    derived[rule.head] = Derived(rule.head, number, rule.body)
                    changed = True
    return list(derived.values())


def forward_chainer(row: Mapping) -> dict:
    program = parse_program(row["program"])
    derived = forward_chain(program)
    holds = any(step.atom == row["query"] for step in derived)
    g = _grammar(row)
    value = "T" if holds else "F"
    trace = g.render(derived, g.statement(row["query"], value), None)
    return {"prediction": f"ANSWER: {letter_of()[value]}", "trace": trace}


def wfs_collapse(row: Mapping) -> dict:
    certificate = Certificate.from_json(row["certificate"])
    value = "T" if certificate.wfs_values.get(row["query"], "F") == "T" else "F"
    g = _grammar(row)
    trace = g.render((), g.statement(row["query"], value), None)
    return {"prediction": f"ANSWER: {letter_of()[value]}", "trace": trace}


def oracle(row: Mapping) -> dict:
    certificate = Certificate.from_json(row["certificate"])
    program = parse_program(row["program"])
    trace = render_gold_trace(program, certificate, row["condition"], row["framing"], row["language"])
    return {"prediction": f"ANSWER: {row['gold']}", "trace": trace.rsplit("\nANSWER:", 1)[0]}


REASONERS = {"forward_chainer": forward_chainer, "wfs_collapse": wfs_collapse, "oracle": oracle}


def reasoner_predictions(rows: Sequence[Mapping]) -> dict[str, dict[str, dict]]:
    named = [row for row in rows if row["gold"] is not None]
    return {name: {row["id"]: reason(row) for row in named} for name, reason in REASONERS.items()}
