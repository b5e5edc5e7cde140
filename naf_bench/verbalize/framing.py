"""Narrative framings: the same program in escalation, sensor/alarm and audit/override vocabularies.

Every atom becomes an actor (``reviewer r3``) and the query the outcome (``the case is escalated``).
The mutual-exclusion phrasing "X ... if and only if Y does not ..." is used only where it is faithful:
the atom has exactly one rule, and that rule's body is exactly ``not Y``.
"""

from __future__ import annotations

from dataclasses import dataclass

from naf_bench.syntax.ast import Literal, Program, Rule


@dataclass(frozen=True)
class Framing:
    actor: str  # "reviewer {a}"
    holds: str  # "{x} signs off"
    fails: str  # "{x} does not sign off"
    outcome: str  # "the case is escalated"
    no_outcome: str  # "the case is not escalated"
    question: str  # "Question: Is the case escalated?"
    subject: str  # the outcome named in a trace: "the escalation"


FRAMINGS = {
    "escalation": Framing(
        "reviewer {a}", "{x} signs off", "{x} does not sign off",
        "the case is escalated", "the case is not escalated", "Question: Is the case escalated?", "the escalation",
    ),
    "sensor": Framing(
        "sensor {a}", "{x} is active", "{x} is not active",
        "the alarm is raised", "the alarm is not raised", "Question: Is the alarm raised?", "the alarm",
    ),
    "audit": Framing(
        "auditor {a}", "{x} approves", "{x} does not approve",
        "the override is granted", "the override is not granted", "Question: Is the override granted?", "the override",
    ),
}  # fmt: skip


def _phrase(framing: Framing, literal: Literal, query: str) -> str:
    if literal.atom == query:
        return framing.outcome if literal.positive else framing.no_outcome
    actor = framing.actor.format(a=literal.atom)
    return (framing.holds if literal.positive else framing.fails).format(x=actor)


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def render_framed_rule(rule: Rule, program: Program, query: str, framing: Framing) -> str:
    head = _phrase(framing, Literal(rule.head), query)
    if rule.is_fact:
        return _sentence(head)
    if len(program.rules_by_head[rule.head]) == 1 and len(rule.body) == 1 and not rule.body[0].positive:
        return _sentence(f"{head} if and only if {_phrase(framing, rule.body[0], query)}")
    return _sentence(f"{head} if " + " and ".join(_phrase(framing, lit, query) for lit in rule.body))


def render_framed_rules(program: Program, query: str, framing: str) -> tuple[tuple[str, ...], str]:
    """The rules (one sentence each) and the question in a narrative framing."""
    words = FRAMINGS[framing]
    return tuple(render_framed_rule(rule, program, query, words) for rule in program.rules), words.question
