"""Worker processes that never import the caller's main module.

``multiprocessing``'s spawn and forkserver workers re-import the ``__main__`` of whoever started them: a script
without an ``if __name__ == "__main__":`` guard runs again in every worker (which then waits on the cache lock
its parent holds, or fails in the "bootstrapping phase" while the pool restarts it), and a worker that dies is
silently replaced while its task is lost. Here each worker is a fresh interpreter running :func:`worker_loop`
(:data:`WORKER`), given the caller's ``sys.path`` and readings table (readings registered at run time included)
and nothing of its ``__main__``; it answers pickled jobs on its stdin with pickled results on its stdout, one at
a time. A job's function must be importable by name (a module-level function, or a ``functools.partial`` of one),
and so must a registered reading's engine. A worker that cannot start or dies fails the whole call at once
with a :class:`~naf_bench.errors.WorkerError` naming the job, the exit status and the worker's last words; an
exception raised by a job is raised again in the caller. Nothing waits forever.

The pool knows nothing of what its jobs are: whether processes pay for a config's units is the planner's call
(:mod:`naf_bench.data.planner`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from naf_bench.errors import WorkerError
from naf_bench.readings import READINGS

_PROTOCOL = pickle.HIGHEST_PROTOCOL
# a worker's program: ``python -c``, not ``-m``, since the package imports this module (rows -> planner -> pool)
# before ``-m`` would run it again as ``__main__``
WORKER = "from naf_bench.data.pool import worker_loop; worker_loop()"


def run_jobs(function: Callable, jobs: Sequence, num_proc: int, names: Sequence[str] | None = None) -> list:
    """``[function(*job) for job in jobs]``, computed in ``num_proc`` worker processes (jobs handed out in
    order, each to the next free worker). ``names[i]`` says what job ``i`` is, in a :class:`WorkerError`."""
    names = list(names) if names is not None else [f"job {i}" for i in range(len(jobs))]
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(jobs)):
        pending.put(index)
    function = READINGS.handing(function)  # a ConfigError here, before any worker starts, names an engine they lack
    results: list[Any] = [None] * len(jobs)
    failures: list[BaseException] = []  # the first is raised; the rest follow from killing the other workers
    workers: list[_Worker] = []
    done = False
    try:
        for _ in range(min(num_proc, len(jobs))):
            workers.append(_Worker())
        threads = [
            threading.Thread(target=_serve, args=(w, function, jobs, names, pending, results, failures, workers))
            for w in workers
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        done = True
    finally:
        if not done:  # interrupted, or a worker did not start: nobody waits for the busy ones
            _stop(workers)
        for worker in workers:
            worker.close()
    if failures:
        raise failures[0]
    return results


class _Worker:
    """One worker process (:data:`WORKER`); its stderr goes on to ours, its last lines kept for an error."""

    def __init__(self):
        root = str(Path(__file__).resolve().parents[2])  # this naf_bench, whatever the worker's cwd and path
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as exc:
            raise WorkerError(f"cannot start a worker process ({sys.executable} -c {WORKER!r}): {exc}") from exc
        self.last_words: deque[str] = deque(maxlen=20)
        self._stderr = threading.Thread(target=self._relay, daemon=True)
        self._stderr.start()
        try:
            pickle.dump(sys.path, self.process.stdin, _PROTOCOL)  # so that jobs' functions import as they do here
            self.process.stdin.flush()
        except OSError as exc:
            raise WorkerError(f"a worker process could not start: {self.death()}") from exc

    def _relay(self) -> None:
        for line in iter(self.process.stderr.readline, b""):
            text = line.decode(errors="replace")
            self.last_words.append(text.rstrip("\n"))
            sys.stderr.write(text)

    def ask(self, request: tuple) -> tuple[bool, Any]:
        """Send one job and wait for its answer (OSError or EOFError where the worker is gone)."""
        pickle.dump(request, self.process.stdin, _PROTOCOL)
        self.process.stdin.flush()
        return pickle.load(self.process.stdout)

    def death(self) -> str:
        """How the worker ended: its exit status and its last lines on stderr."""
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._stderr.join(timeout=5)
        if code < 0:
            status = f"killed by signal {-code} ({signal.Signals(-code).name})"
        else:
            status = f"exited with status {code}"
        words = "\n".join(self.last_words)
        return f"worker process {self.process.pid} {status}" + (f"; its last output:\n{words}" if words else "")

    def close(self) -> None:
        """End the worker: EOF on its stdin ends a waiting one; one still busy (the call failed) is killed."""
        with contextlib.suppress(OSError):  # a broken pipe: it is gone already
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self._stderr.join(timeout=5)
        self.process.stderr.close()


def _serve(worker, function, jobs, names, pending, results, failures, workers) -> None:
    """One worker's thread: the next job while there is one and no job has failed."""
    while not failures:
        try:
            index = pending.get_nowait()
        except queue.Empty:
            return
        try:
            ok, value = worker.ask((function, jobs[index]))
        except (OSError, EOFError, pickle.UnpicklingError):
            if not failures:
                failures.append(WorkerError(f"{names[index]}: {worker.death()}"))
                _stop(workers)
            return
        if ok:
            results[index] = value
        else:
            if not failures:
                failures.append(WorkerError(f"{names[index]}: {value}") if isinstance(value, WorkerError) else value)
                _stop(workers)
            return


def _stop(workers) -> None:
    """The call has failed: kill every worker, so that the threads waiting on them return at once."""
    for worker in workers:
        if worker.process.poll() is None:
            worker.process.kill()


def _import_igraph_without_matplotlib() -> None:
    """python-igraph (the canonical key's labelling) imports matplotlib for plots, ~0.6 s of a worker's start-up
    that no job uses: imported here while matplotlib cannot be found, igraph keeps its stand-in for plotting, and
    matplotlib itself still imports as usual afterwards."""
    sys.modules["matplotlib"] = None  # a fresh worker: "import matplotlib" now raises ImportError, as igraph expects
    try:
        import igraph  # noqa: F401
    finally:
        del sys.modules["matplotlib"]


def worker_loop() -> None:
    """A worker's loop: read ``sys.path``, then ``(function, job)`` requests until EOF (each function handed with the
    caller's readings table: :meth:`~naf_bench.readings.Readings.handing`),
    answering each with ``(True, result)`` or ``(False, exception)``. Anything the jobs print goes to stderr, never
    into the replies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the caller ends us
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    requests = sys.stdin.buffer
    _import_igraph_without_matplotlib()  # before any job or reading's engine can import it
    sys.path[:] = pickle.load(requests)
    while True:
        try:
            function, job = pickle.load(requests)
        except EOFError:
            return
        try:
            reply = (True, function(*job))
        except Exception as exc:  # the caller raises it again
            reply = (False, exc)
        try:
            data = pickle.dumps(reply, _PROTOCOL)
        except Exception as exc:  # an exception (or result) that does not pickle: say what it was
            data = pickle.dumps((False, WorkerError(f"unpicklable reply: {reply[1]!r} ({exc})")))
        replies.write(data)
        replies.flush()
