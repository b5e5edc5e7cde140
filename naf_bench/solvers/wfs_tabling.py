"""Well-founded semantics by SWI-Prolog tabling (``:- table``, ``tnot``, ``call_delays/2``), and by
the alternating fixpoint in Prolog for the atoms tabling leaves undefined but should decide.

Runs in the SWI-Prolog worker (:mod:`naf_bench.solvers.swipl_worker`). The program travels as data,
``rule/3`` terms over atom numbers (no atom's name reaches the worker, and numbers are quicker to read),
and is interpreted there by one tabled predicate.
"""

from __future__ import annotations

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl_worker import Request, ask
from naf_bench.syntax.ast import Program

_VALUES = {"t": "T", "f": "F", "u": "u"}


def wfs_request(program: Program, method: str = "wfs") -> Request:
    """``method(Id, [rule(Head, Positive, Negative), ...], N)`` with the atoms numbered 0..N-1 in ``program.atoms``
    order (the order of the reply's values); ``method``: ``wfs`` (tabling) or ``fixpoint``."""
    number = {atom: str(i) for i, atom in enumerate(program.atoms)}
    rules = ",".join(
        f"rule({number[rule.head]},[{','.join([number[a] for a in positive])}],"
        f"[{','.join([number[a] for a in negative])}])"
        for rule, (positive, negative) in zip(program.rules, program.bodies, strict=True)
    )
    atoms = program.atoms

    def decode(codes: str) -> dict[str, str]:
        if len(codes) != len(atoms) or set(codes) - set(_VALUES):
            raise SolverError(f"the SWI-Prolog worker gave no WFS values: {codes[:80]!r}")
        return {atom: _VALUES[code] for atom, code in zip(atoms, codes, strict=True)}

    return Request(method, f"[{rules}],{len(number)}", decode)


def solve_wfs_tabling(program: Program) -> dict[str, str]:
    """Well-founded value (T/F/u) of every atom, by SWI-Prolog tabling."""
    return ask(wfs_request(program))


def solve_wfs_prolog_fixpoint(program: Program) -> dict[str, str]:
    """Well-founded value of every atom by the alternating fixpoint written in Prolog (no tabling)."""
    return ask(wfs_request(program, "fixpoint"))
