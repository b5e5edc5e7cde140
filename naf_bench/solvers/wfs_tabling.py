"""Well-founded semantics by SWI-Prolog tabling (``:- table``, ``tnot``, ``call_delays/2``), and by
the alternating fixpoint in Prolog (component by component) for the atoms tabling leaves undefined but should
decide.

Runs in the SWI-Prolog worker (:mod:`naf_bench.solvers.swipl_worker`). The program travels as data,
``rule/3`` terms over atom numbers (no atom's name reaches the worker, and numbers are quicker to read),
and is interpreted there by one tabled predicate.
"""

from __future__ import annotations

from collections.abc import Callable

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl_worker import Request, ask
from naf_bench.syntax.ast import Program

_VALUES = {"t": "T", "f": "F", "u": "u"}


def _decoder(program: Program) -> Callable[[str], dict[str, str]]:
    """The reply's decoder: a value per atom, in ``program.atoms`` order."""
    atoms = program.atoms

    def decode(codes: str) -> dict[str, str]:
        if len(codes) != len(atoms) or set(codes) - set(_VALUES):
            raise SolverError(f"the SWI-Prolog worker gave no WFS values: {codes[:80]!r}")
        return {atom: _VALUES[code] for atom, code in zip(atoms, codes, strict=True)}

    return decode


def _rule_terms(program: Program) -> list[str]:
    """``rule(Head, Positive, Negative)`` of each rule, over the atoms' numbers (``program.atoms`` order)."""
    numbered = program.numbered
    terms = []
    for head, literals in zip(numbered.heads, numbered.bodies, strict=True):
        positive = ",".join([str(b) for b in literals if b >= 0])
        negative = ",".join([str(~b) for b in literals if b < 0])
        terms.append(f"rule({head},[{positive}],[{negative}])")
    return terms


def wfs_request(program: Program) -> Request:
    """``wfs(Id, [rule(Head, Positive, Negative), ...], N)`` with the atoms numbered 0..N-1 in ``program.atoms``
    order (the order of the reply's values)."""
    return Request("wfs", f"[{','.join(_rule_terms(program))}],{len(program.atoms)}", _decoder(program))


def fixpoint_request(program: Program) -> Request:
    """``fixpoint(Id, [component(Atoms, Rules), ...], N)``: the components of the dependency graph, dependencies
    first, each with its atoms (ascending numbers) and the rules of those atoms."""
    numbered, terms = program.numbered, _rule_terms(program)
    order, bounds, _ = numbered.components
    parts = []
    for c in range(len(bounds) - 1):
        atoms = order[bounds[c] : bounds[c + 1]]
        own = [terms[r] for a in atoms for r in numbered.rules[a]]
        parts.append(f"component([{','.join(map(str, sorted(atoms)))}],[{','.join(own)}])")
    components = ",".join(parts)
    return Request("fixpoint", f"[{components}],{len(program.atoms)}", _decoder(program))


def solve_wfs_tabling(program: Program) -> dict[str, str]:
    """Well-founded value (T/F/u) of every atom, by SWI-Prolog tabling."""
    return ask(wfs_request(program))


def solve_wfs_prolog_fixpoint(program: Program) -> dict[str, str]:
    """Well-founded value of every atom by the alternating fixpoint written in Prolog (no tabling), one
    component at a time."""
    return ask(fixpoint_request(program))
