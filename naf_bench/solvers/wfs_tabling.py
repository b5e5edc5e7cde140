"""Well-founded semantics by SWI-Prolog tabling (``:- table``, ``tnot``, ``call_delays/2``), and by
the alternating fixpoint in Prolog for the atoms tabling leaves undefined but should decide.

Runs in one persistent ``swipl`` subprocess, since tabling inside the pyswip process can abort the
interpreter. The program travels as data (``rule/3`` terms rendered from the AST, atoms prefixed so
that none is read as an operator) and is interpreted there by one tabled predicate.
"""

from __future__ import annotations

import atexit
import subprocess
from collections.abc import Callable

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import PROLOG_DIR, swipl_executable
from naf_bench.syntax.ast import Program

_PREFIX = "n_"
_VALUES = {"t": "T", "f": "F", "u": "u"}


def _request(program: Program, method: str) -> str:
    rules = ",".join(
        f"rule({_PREFIX}{r.head},[{','.join(_PREFIX + a for a in r.positive_body)}],"
        f"[{','.join(_PREFIX + a for a in r.negative_body)}])"
        for r in program.rules
    )
    return f"{method}([{rules}],[{','.join(_PREFIX + a for a in program.atoms)}]).\n"


class WFSServer:
    """A ``swipl`` process answering WFS requests, started on first use."""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.version = ""

    def _start(self) -> None:
        self.close()
        self.process = subprocess.Popen(
            [swipl_executable(), "-q", str(PROLOG_DIR / "wfs_server.pl")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        banner = self.process.stdout.readline().split()
        if banner[:1] != ["ready"]:
            raise SolverError("the SWI-Prolog WFS server did not start")
        self.version = banner[1]

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()
            self.process = None

    def submit(self, program: Program, method: str = "wfs") -> Callable[[], dict[str, str]]:
        """Send ``program`` (``method``: ``wfs`` tabling, or ``fixpoint``); the returned callable waits
        for the value of every atom.

        The server works while the caller runs the other engines; every submission must be collected.
        """
        if self.process is None:
            self._start()
        try:
            self.process.stdin.write(_request(program, method))
            self.process.stdin.flush()
        except BrokenPipeError as exc:
            self.process = None
            raise SolverError("the SWI-Prolog WFS server died") from exc
        return lambda: self._receive(program.atoms)

    def _receive(self, atoms: tuple[str, ...]) -> dict[str, str]:
        reply = self.process.stdout.readline().rstrip("\n")
        if not reply:
            self.process = None
            raise SolverError("the SWI-Prolog WFS server died")
        kind, _, codes = reply.partition(" ")
        if kind != "ok" or len(codes) != len(atoms):
            raise SolverError(f"SWI-Prolog WFS server failed: {reply}")
        return {atom: _VALUES[code] for atom, code in zip(atoms, codes, strict=True)}


_server = WFSServer()
atexit.register(_server.close)


def submit_wfs_tabling(program: Program) -> Callable[[], dict[str, str]]:
    """Start tabling in the background; call the result for the well-founded value of every atom."""
    return _server.submit(program)


def solve_wfs_tabling(program: Program) -> dict[str, str]:
    """Well-founded value (T/F/u) of every atom, by SWI-Prolog tabling."""
    return _server.submit(program)()


def solve_wfs_prolog_fixpoint(program: Program) -> dict[str, str]:
    """Well-founded value of every atom by the alternating fixpoint written in Prolog (no tabling)."""
    return _server.submit(program, "fixpoint")()


def swipl_version() -> str:
    if not _server.version:
        _server._start()
    return _server.version
