"""Renderers at the edge: ASP text (round-trips through the parser) and Prolog text, where SWI-Prolog's SLDNF
gets its clauses from (its tabling gets numbered rules as data: ``naf_bench.solvers.wfs_tabling``)."""

from __future__ import annotations

from naf_bench.syntax.ast import Literal, Program, Rule

PROLOG_PREFIX = "n_"  # engines prefix every atom, so that none names a built-in (halt, fail) or an operator


def _asp_literal(lit: Literal) -> str:
    return lit.atom if lit.positive else f"not {lit.atom}"


def render_asp_rule(rule: Rule) -> str:
    if rule.is_fact:
        return f"{rule.head}."
    return f"{rule.head} :- {', '.join(_asp_literal(lit) for lit in rule.body)}."


def render_asp(program: Program) -> str:
    """One rule per line, in source order; ``parse_program(render_asp(p)) == p``."""
    return "".join(render_asp_rule(rule) + "\n" for rule in program.rules)


def render_prolog_clause(rule: Rule, atom_prefix: str = PROLOG_PREFIX) -> str:
    """``h :- b, \\+ c`` (no final period), body literals in source order: SLDNF's computation rule."""
    if rule.is_fact:
        return f"{atom_prefix}{rule.head}"
    body = ", ".join(
        f"{atom_prefix}{lit.atom}" if lit.positive else f"\\+ {atom_prefix}{lit.atom}" for lit in rule.body
    )
    return f"{atom_prefix}{rule.head} :- {body}"


def render_prolog(program: Program, atom_prefix: str = "") -> str:
    """Prolog text: ``:- dynamic`` and ``:- discontiguous`` for every atom (an atom without clauses fails,
    and rules of one head may be apart), ``\\+`` for ``not``.

    Pass ``atom_prefix=PROLOG_PREFIX`` (as the engines do) so that no atom can collide with a built-in.
    """
    lines = []
    if program.atoms:
        indicators = ", ".join(f"{atom_prefix}{a}/0" for a in program.atoms)
        lines.append(f":- dynamic {indicators}.")
        lines.append(f":- discontiguous {indicators}.")
    lines.extend(render_prolog_clause(rule, atom_prefix) + "." for rule in program.rules)
    return "".join(line + "\n" for line in lines)
