"""SLDNF by SWI-Prolog: Prolog's computation rule on the program as written, in the SWI-Prolog worker
(:mod:`naf_bench.solvers.swipl_worker`).

Non-termination is an exhausted *inference* limit, never a wall-clock limit, so labels are
reproducible. Programs reach Prolog only as clause terms rendered from the AST, atoms prefixed so none
can name a built-in; the worker asserts them into a module of their own.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl_worker import Request, ask
from naf_bench.syntax.ast import Program
from naf_bench.syntax.render import PROLOG_PREFIX, render_prolog_clause
from naf_bench.syntax.structure import depended_on

INFERENCE_LIMIT = 10_000
_LABELS = {"true": "T", "false": "F", "loop": "loop"}
_names = itertools.count(1)  # names of the programs loaded into the worker, unique in this process


@dataclass(frozen=True)
class PrologResult:
    label: str  # "T" | "F" | "loop"
    inferences: int
    loaded: int = 0  # the name the worker keeps the program under, for a run under another limit


def _decoder(loaded: int):
    def decode(payload: str) -> PrologResult | None:
        if payload == "unloaded":
            return None
        result, _, inferences = payload.partition(" ")
        if result not in _LABELS or not inferences.isdigit():
            raise SolverError(f"the SWI-Prolog worker gave no SLDNF answer: {payload[:80]!r}")
        return PrologResult(_LABELS[result], int(inferences), loaded)

    return decode


def sldnf_request(program: Program, query: str, inference_limit: int) -> Request:
    """``sldnf(Id, Name, Clauses, Atoms, Goal, Limit)`` for ``?- query.``: the clauses of the atoms the query
    depends on, as terms, and the atoms they define, loaded under a new name."""
    rules = depended_on(program, [query]).rules
    clauses = ",".join(f"({render_prolog_clause(rule)})" for rule in rules)
    atoms = ",".join(dict.fromkeys(PROLOG_PREFIX + rule.head for rule in rules))
    name = next(_names)
    arguments = f"{name},[{clauses}],[{atoms}],{PROLOG_PREFIX}{query},{int(inference_limit)}"
    return Request("sldnf", arguments, _decoder(name))


def solve_sldnf(program: Program, query: str, inference_limit: int = INFERENCE_LIMIT) -> PrologResult:
    """``?- query.`` in SWI-Prolog: T (succeeds), F (finitely fails) or loop (limit exhausted)."""
    return ask(sldnf_request(program, query, inference_limit))


def solve_sldnf_again(program: Program, query: str, inference_limit: int, previous: PrologResult) -> PrologResult:
    """``?- query.`` again under ``inference_limit``, on the clauses the run that gave ``previous`` loaded when
    the worker still holds them (the same inferences as :func:`solve_sldnf`, without sending and asserting a
    large program once more), else as :func:`solve_sldnf`."""
    name = previous.loaded
    again = Request("sldnf_again", f"{name},{PROLOG_PREFIX}{query},{int(inference_limit)}", _decoder(name))
    return ask(again) or solve_sldnf(program, query, inference_limit)
