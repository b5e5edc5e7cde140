"""SLDNF by SWI-Prolog: Prolog's computation rule on the program as written, in the SWI-Prolog worker
(:mod:`naf_bench.solvers.swipl_worker`).

Non-termination is an exhausted *inference* limit, never a wall-clock limit, so labels are
reproducible. Programs reach Prolog only as clause terms rendered from the AST, atoms prefixed so none
can name a built-in; the worker asserts them into a module of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl_worker import Request, ask
from naf_bench.syntax.ast import Program
from naf_bench.syntax.render import PROLOG_PREFIX, render_prolog_clause
from naf_bench.syntax.structure import relevant_atoms

INFERENCE_LIMIT = 10_000
_LABELS = {"true": "T", "false": "F", "loop": "loop"}


@dataclass(frozen=True)
class PrologResult:
    label: str  # "T" | "F" | "loop"
    inferences: int


def _decode(payload: str) -> PrologResult:
    result, _, inferences = payload.partition(" ")
    if result not in _LABELS or not inferences.isdigit():
        raise SolverError(f"the SWI-Prolog worker gave no SLDNF answer: {payload[:80]!r}")
    return PrologResult(_LABELS[result], int(inferences))


def sldnf_request(program: Program, query: str, inference_limit: int) -> Request:
    """``sldnf(Id, Clauses, Atoms, Goal, Limit)`` for ``?- query.``: the clauses of the atoms the query depends
    on, as terms, and the atoms they define."""
    relevant = set(relevant_atoms(program, query))
    rules = [rule for rule in program.rules if rule.head in relevant]
    clauses = ",".join(f"({render_prolog_clause(rule)})" for rule in rules)
    atoms = ",".join(dict.fromkeys(PROLOG_PREFIX + rule.head for rule in rules))
    return Request("sldnf", f"[{clauses}],[{atoms}],{PROLOG_PREFIX}{query},{int(inference_limit)}", _decode)


def solve_sldnf(program: Program, query: str, inference_limit: int = INFERENCE_LIMIT) -> PrologResult:
    """``?- query.`` in SWI-Prolog: T (succeeds), F (finitely fails) or loop (limit exhausted)."""
    return ask(sldnf_request(program, query, inference_limit))
