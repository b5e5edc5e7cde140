"""Well-founded semantics computed by SWI-Prolog, in one persistent ``swipl`` subprocess.

Tabling (``:- table``, ``tnot``, ``call_delays/2``) runs there because inside the pyswip process it
can abort the interpreter. Since SWI-Prolog 9.0's tabling is incomplete for WFS on some programs, the
same server also runs the alternating fixpoint written in Prolog (see ``prolog/wfs_server.pl``).
Programs reach it only as text rendered from the AST, never as user text.
"""

from __future__ import annotations

import atexit
import subprocess
from collections.abc import Callable

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import PROLOG_DIR, swipl_executable
from naf_bench.syntax.ast import Program

_PREFIX = "n_"  # keeps program atoms apart from Prolog built-ins
_VALUES = {"t": "T", "f": "F", "u": "u"}


def _tabled_text(program: Program) -> str:
    lines = []
    if program.atoms:
        lines.append(":- table " + ", ".join(f"{_PREFIX}{a}/0" for a in program.atoms) + ".")
    # tnot/1 needs a tabled predicate: an atom without rules gets one that fails
    lines.extend(f"{_PREFIX}{atom} :- fail." for atom, rules in program.rules_by_head.items() if not rules)
    for rule in program.rules:
        if rule.is_fact:
            lines.append(f"{_PREFIX}{rule.head}.")
        else:
            body = ", ".join(
                f"{_PREFIX}{lit.atom}" if lit.positive else f"tnot({_PREFIX}{lit.atom})" for lit in rule.body
            )
            lines.append(f"{_PREFIX}{rule.head} :- {body}.")
    return "\\n".join(lines)


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

    def _send(self, request: str) -> None:
        if self.process is None:
            self._start()
        try:
            self.process.stdin.write(request)
            self.process.stdin.flush()
        except BrokenPipeError as exc:
            self.process = None
            raise SolverError("the SWI-Prolog WFS server died") from exc

    def _receive(self, atoms: tuple[str, ...]) -> dict[str, str] | str:
        """The value of every atom, or SWI-Prolog's error message."""
        reply = self.process.stdout.readline().rstrip("\n")
        if not reply:
            self.process = None
            raise SolverError("the SWI-Prolog WFS server died")
        kind, _, codes = reply.partition(" ")
        if kind != "ok":
            return reply
        if len(codes) != len(atoms):
            raise SolverError(f"the SWI-Prolog WFS server answered {reply!r} for {len(atoms)} atoms")
        return {atom: _VALUES[code] for atom, code in zip(atoms, codes, strict=True)}

    def _ask(self, request: str, atoms: tuple[str, ...]) -> dict[str, str] | str:
        self._send(request)
        return self._receive(atoms)

    def submit_tabling(self, program: Program) -> Callable[[], dict[str, str] | str]:
        """Start tabling ``program`` in the server; the returned callable waits for the answer.

        The server works while the caller runs the other engines; every submission must be collected.
        """
        atoms = ", ".join(_PREFIX + a for a in program.atoms)
        self._send(f'tabling("{_tabled_text(program)}", [{atoms}]).\n')
        return lambda: self._receive(program.atoms)

    def fixpoint(self, program: Program) -> dict[str, str]:
        rules = ", ".join(
            f"r({_PREFIX}{r.head}, [{', '.join(_PREFIX + a for a in r.positive_body)}], "
            f"[{', '.join(_PREFIX + a for a in r.negative_body)}])"
            for r in program.rules
        )
        atoms = ", ".join(_PREFIX + a for a in program.atoms)
        answer = self._ask(f"fixpoint([{rules}], [{atoms}]).\n", program.atoms)
        if isinstance(answer, str):
            raise SolverError(f"the SWI-Prolog alternating fixpoint failed: {answer}")
        return answer


_server = WFSServer()
atexit.register(_server.close)


def submit_wfs_tabling(program: Program) -> Callable[[], dict[str, str] | str]:
    """Start tabling in the background; call the result for the values (or SWI-Prolog's error message)."""
    return _server.submit_tabling(program)


def solve_wfs_tabling(program: Program) -> dict[str, str] | str:
    """Well-founded value (T/F/u) of every atom by SWI-Prolog tabling, or its error message."""
    return _server.submit_tabling(program)()


def solve_wfs_prolog_fixpoint(program: Program) -> dict[str, str]:
    """Well-founded value of every atom by the alternating fixpoint written in Prolog."""
    return _server.fixpoint(program)


def swipl_version() -> str:
    if not _server.version:
        _server._start()
    return _server.version
