"""Well-founded semantics by SWI-Prolog tabling (``:- table``, ``tnot``, ``call_delays/2``), and by
the alternating fixpoint in Prolog for the atoms tabling leaves undefined but should decide.

Runs in one persistent ``swipl`` subprocess, since tabling inside the pyswip process can abort the
interpreter. The program travels as data, ``rule/3`` terms over atom numbers (no atom's name reaches the
worker: none can be read as an operator, and reading numbers is a tenth of the worker's time less than
reading names), and is interpreted there by one tabled predicate.

Every request carries an id that its reply echoes. A worker that is behind (a request sent but never
collected, e.g. after Ctrl-C), that answers with another id, that dies, or that gives no reply within
``reply_timeout`` seconds is killed, reaped and replaced, and the request is sent once more; only a
second failure is an error.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import subprocess
from collections.abc import Callable

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import PROLOG_DIR, SWIPL_LOCK, swipl_executable
from naf_bench.syntax.ast import Program

_VALUES = {"t": "T", "f": "F", "u": "u"}
REPLY_TIMEOUT = 60.0  # seconds; a fault guard only (tabling is polynomial), never what decides a label
START_TIMEOUT = 60.0


class _WorkerFault(Exception):
    """The worker is stuck, dead or out of step; it is replaced and the request sent again."""


def _request(program: Program, method: str, request_id: int) -> bytes:
    """``method(Id, [rule(Head, Positive, Negative), ...], N)`` with the atoms numbered 0..N-1 in
    ``program.atoms`` order (the order of the reply's values)."""
    number = {atom: str(i) for i, atom in enumerate(program.atoms)}
    rules = ",".join(
        f"rule({number[rule.head]},[{','.join(number[a] for a in rule.positive_body)}],"
        f"[{','.join(number[a] for a in rule.negative_body)}])"
        for rule in program.rules
    )
    return f"{method}({request_id},[{rules}],{len(number)}).\n".encode()


class WFSServer:
    """A ``swipl`` process answering WFS requests, started on first use; one caller at a time."""

    def __init__(self, reply_timeout: float = REPLY_TIMEOUT):
        self.process: subprocess.Popen | None = None
        self.version = ""
        self.reply_timeout = reply_timeout
        self._buffer = b""
        self._last_id = 0
        self._pending: int | None = None  # id of the request sent and not yet answered

    def _start(self) -> None:
        self._stop()
        self.process = subprocess.Popen(
            [swipl_executable(), "-q", str(PROLOG_DIR / "wfs_server.pl")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            banner = self._readline(START_TIMEOUT).split()
        except _WorkerFault as fault:
            self._stop()
            raise SolverError(f"the SWI-Prolog WFS server did not start: {fault}") from None
        if banner[:1] != ["ready"] or len(banner) < 2:
            self._stop()
            raise SolverError(f"the SWI-Prolog WFS server did not start (it said {' '.join(banner)!r})")
        self.version = banner[1]

    def _stop(self) -> None:
        """Kill and reap the worker, whatever state it is in (running, stopped, dead)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(OSError):  # unsent bytes of a request to a dead worker
                    stream.close()
        self.process = None
        self._buffer = b""
        self._pending = None

    def close(self) -> None:
        """End the worker politely (end of input), or kill it when it does not stop within 5 s."""
        if self.process is not None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._stop()

    def _readline(self, timeout: float) -> str:
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise _WorkerFault(f"no reply within {timeout:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise _WorkerFault("the worker died")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def _send(self, request: bytes, request_id: int) -> None:
        if self.process is None or self.process.poll() is not None or self._pending is not None:
            self._start()  # not started, dead (reaped here), or behind on an uncollected request
        try:
            self.process.stdin.write(request)
            self.process.stdin.flush()
        except OSError:  # it died since: replace it and send once more
            self._start()
            self.process.stdin.write(request)
            self.process.stdin.flush()
        self._pending = request_id

    def submit(self, program: Program, method: str = "wfs") -> Callable[[], dict[str, str]]:
        """Send ``program`` (``method``: ``wfs`` tabling, or ``fixpoint``); the returned callable waits
        for the value of every atom.

        The server works while the caller runs the other engines. A submission that is never collected
        costs the next one a restart of the worker, nothing else.
        """
        self._last_id += 1
        request_id = self._last_id
        request = _request(program, method, request_id)
        try:
            self._send(request, request_id)
        except OSError as exc:
            self._stop()
            raise SolverError(f"the SWI-Prolog WFS server cannot be written to: {exc}") from exc
        return lambda: self._collect(request, request_id, program.atoms)

    def _collect(self, request: bytes, request_id: int, atoms: tuple[str, ...]) -> dict[str, str]:
        if self._pending != request_id:
            raise SolverError(f"WFS request {request_id} was superseded by a later one before it was collected")
        try:
            reply = self._reply(request_id)
        except _WorkerFault as fault:
            self._stop()
            try:
                self._send(request, request_id)
                reply = self._reply(request_id)
            except (_WorkerFault, OSError) as again:
                self._stop()
                raise SolverError(f"the SWI-Prolog WFS server failed twice: {fault}, then {again}") from None
        self._pending = None
        status, _, rest = reply.partition(" ")
        codes = rest.partition(" ")[2]
        if status != "ok" or len(codes) != len(atoms) or set(codes) - set(_VALUES):
            raise SolverError(f"SWI-Prolog WFS server failed: {reply}")
        return {atom: _VALUES[code] for atom, code in zip(atoms, codes, strict=True)}

    def _reply(self, request_id: int) -> str:
        reply = self._readline(self.reply_timeout)
        fields = reply.split(" ", 2)
        if len(fields) < 2 or fields[1] != str(request_id):
            raise _WorkerFault(f"a stale or garbled reply {reply[:60]!r} to request {request_id}")
        return reply


_server = WFSServer()
atexit.register(_server.close)


def submit_wfs_tabling(program: Program) -> Callable[[], dict[str, str]]:
    """Start tabling in the background; call the result for the well-founded value of every atom.

    The caller holds :data:`naf_bench.solvers.swipl.SWIPL_LOCK` from submission to collection.
    """
    return _server.submit(program)


def solve_wfs_tabling(program: Program) -> dict[str, str]:
    """Well-founded value (T/F/u) of every atom, by SWI-Prolog tabling."""
    with SWIPL_LOCK:
        return _server.submit(program)()


def solve_wfs_prolog_fixpoint(program: Program) -> dict[str, str]:
    """Well-founded value of every atom by the alternating fixpoint written in Prolog (no tabling)."""
    with SWIPL_LOCK:
        return _server.submit(program, "fixpoint")()


def swipl_version() -> str:
    with SWIPL_LOCK:
        if not _server.version:
            _server._start()
        return _server.version
