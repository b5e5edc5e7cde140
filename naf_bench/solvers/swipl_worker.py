"""The SWI-Prolog worker: one persistent ``swipl`` process that runs both Prolog engines (SLDNF and WFS
tabling) on requests written to its standard input, while the Python engines run beside it.

A subprocess and not SWI-Prolog embedded in Python: tabling inside an embedded interpreter can abort it, a
Ctrl-C cannot leave a subprocess half-way through a request unnoticed, and no program text is ever loaded
into this process. Programs travel as data (terms whose atoms are numbers or prefixed names, so none is read
as an operator or calls a built-in).

Every request carries an id that its reply echoes. A worker that is behind (a request sent but never
collected, e.g. after Ctrl-C), that answers with another id, that dies, or that gives no reply within
``reply_timeout`` seconds is killed, reaped and replaced, and the requests in flight are sent once more;
only a second failure is an error.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import PROLOG_DIR, SWIPL_LOCK, swipl_executable

REPLY_TIMEOUT = 60.0  # seconds; a fault guard only (every request is bounded in inferences), never a label
START_TIMEOUT = 60.0
# Requests longer than a pipe holds are written by a thread: the worker reads the second request only once it
# has answered the first, and the caller must not wait for that (it runs the Python engines meanwhile).
WRITE_IN_THREAD = 1 << 16


@dataclass(frozen=True)
class Request:
    """``method(Id, arguments).`` for the worker; ``decode`` reads the reply's payload (after ``ok <Id> ``)."""

    method: str
    arguments: str
    decode: Callable[[str], Any]


class _WorkerFault(Exception):
    """The worker is stuck, dead or out of step; it is replaced and the requests sent again."""


class PrologWorker:
    """A ``swipl`` process answering requests, started on first use; one caller at a time."""

    def __init__(self, reply_timeout: float = REPLY_TIMEOUT):
        self.process: subprocess.Popen | None = None
        self.version = ""
        self.reply_timeout = reply_timeout
        self._buffer = b""
        self._last_id = 0
        self._pending: list[tuple[int, bytes]] = []  # requests sent and not yet answered, in order
        self._writer: threading.Thread | None = None  # writing the last submission's requests, if they are long
        self._write_fault: Exception | None = None

    def _start(self) -> None:
        self._stop()
        self.process = subprocess.Popen(
            [swipl_executable(), "-q", str(PROLOG_DIR / "worker.pl")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        os.set_blocking(self.process.stdin.fileno(), False)  # written by _send, never by a blocking write
        try:
            banner = self._readline(START_TIMEOUT).split()
        except _WorkerFault as fault:
            self._stop()
            raise SolverError(f"the SWI-Prolog worker did not start: {fault}") from None
        if banner[:1] != ["ready"] or len(banner) < 2:
            self._stop()
            raise SolverError(f"the SWI-Prolog worker did not start (it said {' '.join(banner)!r})")
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

    def _send(self, data: bytes) -> None:
        """Write ``data`` while keeping the worker's replies flowing into the buffer: with several requests in
        one write, a reply larger than the pipe (a WFS value per atom) would otherwise block the worker
        while this process blocks writing to it."""
        stdin, stdout = self.process.stdin.fileno(), self.process.stdout.fileno()
        view = memoryview(data)
        while view:
            readable, writable, _ = select.select([stdout], [stdin], [], self.reply_timeout)
            if not (readable or writable):
                raise _WorkerFault(f"no progress within {self.reply_timeout:g} s")
            if readable:
                chunk = os.read(stdout, 1 << 16)
                if not chunk:
                    raise _WorkerFault("the worker died")
                self._buffer += chunk
            if writable:
                with contextlib.suppress(BlockingIOError):
                    view = view[os.write(stdin, view[: 1 << 16]) :]

    def _write(self, data: bytes) -> None:
        try:
            self._send(data)
        except (OSError, _WorkerFault):  # it died or stopped since: replace it and send once more
            self._start()
            self._send(data)

    def submit(self, *requests: Request) -> list[Callable[[], Any]]:
        """Send ``requests`` in one write; each returned callable waits for its request's decoded reply, and
        they are called in order.

        The worker works while the caller runs the Python engines. Requests that are never collected cost
        the next submission a restart of the worker, nothing else.
        """
        lines = []
        for request in requests:
            self._last_id += 1
            lines.append((self._last_id, f"{request.method}({self._last_id},{request.arguments}).\n".encode()))
        data = b"".join(line for _, line in lines)
        with contextlib.suppress(_WorkerFault):  # an earlier submission's writer, never collected: replaced below
            self._join_writer()
        try:
            if self.process is None or self.process.poll() is not None or self._pending:
                self._start()  # not started, dead (reaped here), or behind on uncollected requests
            self._pending = []
            if len(data) < WRITE_IN_THREAD:
                self._write(data)
        except (OSError, _WorkerFault) as exc:
            self._stop()
            raise SolverError(f"the SWI-Prolog worker cannot be written to: {exc}") from exc
        self._pending = list(lines)
        if len(data) >= WRITE_IN_THREAD:
            self._writer = threading.Thread(target=self._write_behind, args=(data,), daemon=True)
            self._writer.start()
        return [
            lambda request_id=request_id, request=request: request.decode(self._collect(request_id))
            for (request_id, _), request in zip(lines, requests, strict=True)
        ]

    def _write_behind(self, data: bytes) -> None:
        """The writer thread's work; a fault is kept for the first collection, which replaces the worker."""
        try:
            self._write(data)
        except (OSError, _WorkerFault, SolverError) as exc:  # SolverError: the replacement did not start
            self._write_fault = exc

    def _join_writer(self) -> None:
        """Wait for the writer thread; raise what it met as a fault of the worker."""
        if self._writer is not None:
            self._writer.join()
            self._writer = None
        fault, self._write_fault = self._write_fault, None
        if fault is not None:
            raise _WorkerFault(f"writing the requests failed: {fault}")

    def _collect(self, request_id: int) -> str:
        if not self._pending or self._pending[0][0] != request_id:
            raise SolverError(f"SWI-Prolog request {request_id} was superseded or is collected out of order")
        try:
            self._join_writer()
            reply = self._reply(request_id)
        except _WorkerFault as fault:
            try:  # a new worker (_start kills and reaps this one), the requests still in flight sent once more
                self._start()
                self._write(b"".join(line for _, line in self._pending))
                reply = self._reply(request_id)
            except (_WorkerFault, OSError) as again:
                self._stop()
                self._pending = []
                raise SolverError(f"the SWI-Prolog worker failed twice: {fault}, then {again}") from None
        self._pending.pop(0)
        status, _, rest = reply.partition(" ")
        if status != "ok":
            raise SolverError(f"the SWI-Prolog worker failed: {reply}")
        return rest.partition(" ")[2]

    def _reply(self, request_id: int) -> str:
        reply = self._readline(self.reply_timeout)
        fields = reply.split(" ", 2)
        if len(fields) < 2 or fields[1] != str(request_id):
            raise _WorkerFault(f"a stale or garbled reply {reply[:60]!r} to request {request_id}")
        return reply


_worker = PrologWorker()
atexit.register(_worker.close)


def submit(*requests: Request) -> list[Callable[[], Any]]:
    """Send requests to the worker in one write; call each result, in order, for its decoded reply.

    The caller holds :data:`naf_bench.solvers.swipl.SWIPL_LOCK` from submission to the last collection.
    """
    return _worker.submit(*requests)


def ask(request: Request) -> Any:
    """One request, answered."""
    with SWIPL_LOCK:
        (collect,) = _worker.submit(request)
        return collect()


def swipl_version() -> str:
    with SWIPL_LOCK:
        if not _worker.version:
            _worker._start()
        return _worker.version
