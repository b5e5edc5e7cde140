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


def _numbered(program: Program) -> tuple[dict[str, str], Callable[[str], dict[str, str]]]:
    """The atoms' numbers (as text), and the reply's decoder: a value per atom, in ``program.atoms`` order."""
    number = {atom: str(i) for i, atom in enumerate(program.atoms)}
    atoms = program.atoms

    def decode(codes: str) -> dict[str, str]:
        if len(codes) != len(atoms) or set(codes) - set(_VALUES):
            raise SolverError(f"the SWI-Prolog worker gave no WFS values: {codes[:80]!r}")
        return {atom: _VALUES[code] for atom, code in zip(atoms, codes, strict=True)}

    return number, decode


def _rule_term(number: dict[str, str], head: str, positive: tuple[str, ...], negative: tuple[str, ...]) -> str:
    return (
        f"rule({number[head]},[{','.join([number[a] for a in positive])}],[{','.join([number[a] for a in negative])}])"
    )


def wfs_request(program: Program) -> Request:
    """``wfs(Id, [rule(Head, Positive, Negative), ...], N)`` with the atoms numbered 0..N-1 in ``program.atoms``
    order (the order of the reply's values)."""
    number, decode = _numbered(program)
    rules = ",".join(
        _rule_term(number, rule.head, *body) for rule, body in zip(program.rules, program.bodies, strict=True)
    )
    return Request("wfs", f"[{rules}],{len(number)}", decode)


def fixpoint_request(program: Program) -> Request:
    """``fixpoint(Id, [component(Atoms, Rules), ...], N)``: the components of the dependency graph, dependencies
    first, each with its atoms (ascending numbers) and the rules of those atoms."""
    number, decode = _numbered(program)
    rules_of: dict[str, list[str]] = {atom: [] for atom in program.atoms}
    for rule, body in zip(program.rules, program.bodies, strict=True):
        rules_of[rule.head].append(_rule_term(number, rule.head, *body))
    components = ",".join(
        f"component([{','.join(map(str, sorted(int(number[a]) for a in component)))}],"
        f"[{','.join(rule for atom in component for rule in rules_of[atom])}])"
        for component, _ in program.components
    )
    return Request("fixpoint", f"[{components}],{len(number)}", decode)


def solve_wfs_tabling(program: Program) -> dict[str, str]:
    """Well-founded value (T/F/u) of every atom, by SWI-Prolog tabling."""
    return ask(wfs_request(program))


def solve_wfs_prolog_fixpoint(program: Program) -> dict[str, str]:
    """Well-founded value of every atom by the alternating fixpoint written in Prolog (no tabling), one
    component at a time."""
    return ask(fixpoint_request(program))
