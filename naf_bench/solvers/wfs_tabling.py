"""Well-founded semantics by SWI-Prolog tabling (``:- table``, ``tnot``, ``call_delays/2``).

Runs in one persistent ``swipl`` subprocess: tabling inside the pyswip process can abort the
interpreter. Programs reach it only as text rendered from the AST, never as user text.
"""

from __future__ import annotations

import atexit
import subprocess

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import PROLOG_DIR, swipl_executable
from naf_bench.syntax.ast import Program

_PREFIX = "n_"  # keeps program atoms apart from Prolog built-ins
_VALUES = {"t": "T", "f": "F", "u": "u"}


def _tabled_text(program: Program, module: str) -> str:
    lines = [f":- module({module}, [])."]
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


class TablingServer:
    """A ``swipl`` process answering WFS queries; restarted every ``recycle`` programs."""

    def __init__(self, recycle: int = 5000):
        self.recycle = recycle
        self.process: subprocess.Popen | None = None
        self.served = 0
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
            raise SolverError("the SWI-Prolog tabling server did not start")
        self.version = banner[1]
        self.served = 0

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()
            self.process = None

    def solve(self, program: Program) -> dict[str, str]:
        if self.process is None or self.served >= self.recycle:
            self._start()
        self.served += 1
        module = f"naf_wfs_{self.served}"
        atoms = ", ".join(_PREFIX + a for a in program.atoms)
        request = f'run({module}, "{_tabled_text(program, module)}", [{atoms}]).\n'
        try:
            self.process.stdin.write(request)
            self.process.stdin.flush()
            reply = self.process.stdout.readline().split()
        except BrokenPipeError as exc:
            self.process = None
            raise SolverError("the SWI-Prolog tabling server died") from exc
        codes = reply[1] if reply[:1] == ["ok"] and len(reply) == 2 else "" if reply == ["ok"] else None
        if codes is None or len(codes) != len(program.atoms):
            self.process = None
            raise SolverError(f"SWI-Prolog tabling failed: {' '.join(reply).strip() or 'no reply'}")
        return {atom: _VALUES[code] for atom, code in zip(program.atoms, codes, strict=False)}


_server = TablingServer()
atexit.register(_server.close)


def solve_wfs_tabling(program: Program) -> dict[str, str]:
    """Well-founded value (T/F/u) of every atom, computed by SWI-Prolog."""
    return _server.solve(program)


def swipl_version() -> str:
    if not _server.version:
        _server._start()
    return _server.version
