"""Renderers at the edge: ASP text (round-trips through the parser) and Prolog text for SWI."""

from __future__ import annotations

from naf_bench.syntax.ast import Literal, Program, Rule


def _asp_literal(lit: Literal) -> str:
    return lit.atom if lit.positive else f"not {lit.atom}"


def render_rule(rule: Rule) -> str:
    if rule.is_fact:
        return f"{rule.head}."
    return f"{rule.head} :- {', '.join(_asp_literal(lit) for lit in rule.body)}."


def render_asp(program: Program) -> str:
    """One rule per line, in source order; ``parse_program(render_asp(p)) == p``."""
    return "".join(render_rule(rule) + "\n" for rule in program.rules)


def render_prolog(program: Program, atom_prefix: str = "") -> str:
    """Prolog text: ``:- dynamic`` and ``:- discontiguous`` for every atom (an atom without clauses fails,
    and rules of one head may be apart), ``\\+`` for ``not``.

    Engines pass ``atom_prefix`` so that no atom can collide with a Prolog built-in (``halt``, ``fail``).
    """
    lines = []
    if program.atoms:
        indicators = ", ".join(f"{atom_prefix}{a}/0" for a in program.atoms)
        lines.append(f":- dynamic {indicators}.")
        lines.append(f":- discontiguous {indicators}.")
    for rule in program.rules:
        if rule.is_fact:
            lines.append(f"{atom_prefix}{rule.head}.")
            continue
        body = ", ".join(
            f"{atom_prefix}{lit.atom}" if lit.positive else f"\\+ {atom_prefix}{lit.atom}" for lit in rule.body
        )
        lines.append(f"{atom_prefix}{rule.head} :- {body}.")
    return "".join(line + "\n" for line in lines)
