"""Worker processes that never import the caller's main module.

``multiprocessing``'s spawn and forkserver workers re-import the ``__main__`` of whoever started them: a script
without an ``if __name__ == "__main__":`` guard runs again in every worker (which then waits on the cache lock
its parent holds, or fails in the "bootstrapping phase" while the pool restarts it), and a worker that dies is
silently replaced while its task is lost. Here each worker is ``python -m naf_bench.data.pool``, a fresh interpreter
given the caller's ``sys.path`` and readings table (readings registered at run time included) and nothing of
its ``__main__``; it answers pickled jobs on its stdin with pickled results on its stdout, one at a time. A
job's function must be importable by name (a module-level function, or a ``functools.partial`` of one), and so
must a registered reading's engine. A worker that cannot start or dies fails the whole call at once
with a :class:`~naf_bench.errors.WorkerError` naming the job, the exit status and the worker's last words; an
exception raised by a job is raised again in the caller. Nothing waits forever.

Here too is when workers pay: a config's units are generated in processes (:func:`run_units`) only where the
estimated cost of its units (:func:`unit_seconds`) saves more than starting the processes takes (:func:`processes`).
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
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from naf_bench.errors import ConfigError, WorkerError
from naf_bench.readings import READINGS

if TYPE_CHECKING:  # a worker imports only what its jobs do
    from naf_bench.generate.config import GenerationConfig, Unit

_PROTOCOL = pickle.HIGHEST_PROTOCOL


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


# A program's estimated seconds of one core, from its rules (R), its rows (W) and its rule orders (O):
# COST[0] + R x (COST[1] + COST[2] x W + COST[3] x (O - 1)), for its attempts (a bin's, half of them on the other
# side of the canonical-key partition), their certification under every order and its rows. Fitted to every shipped
# config and some larger ones (127 units, mean absolute error 14 %) by ``scripts/calibrate_parallel.py --larger
# --fit`` on the 2-core development machine at load average ~7, which makes it ~1.2x the quiet machine's.
COST = (1.3e-3, 8.4e-5, 1.9e-5, 7.5e-5)

# Parallel generation runs only where it is estimated to save at least this many seconds of one core over one
# process, about 1.5 times what a worker takes to start (an interpreter, naf-bench, ``datasets``, python-igraph and
# SWI-Prolog, and the first unit's imports: ~2 s at the load the constants were fitted under, ~1 s on idle cores).
# The environment variable NAF_BENCH_PARALLEL_MIN_SAVING sets another (0: processes wherever there are 2+ units).
PARALLEL_MIN_SAVING = 3.0


def program_rules(config: GenerationConfig, unit: Unit, samples: int = 3) -> float:
    """The mean number of rules of a unit's first ``samples`` attempts' programs, assembled only (neither keyed
    nor certified: well under a millisecond each)."""
    cell = config.cell(unit, config.splits[0])
    return sum(len(cell.assemble(index)[0].rules) for index in range(samples)) / samples


def cost_terms(config: GenerationConfig, unit: Unit) -> tuple[float, float, float, float]:
    """What :data:`COST` weighs, per program of ``unit``: 1, R, R x W and R x (O - 1)."""
    rules = program_rules(config, unit)
    return 1.0, rules, rules * config.rows_per_program(), rules * (config.n_orders - 1)


def unit_seconds(config: GenerationConfig, unit: Unit) -> float:
    """The estimated seconds of one core to generate, certify and render ``unit``'s programs (every split)."""
    return sum(unit.counts) * sum(weight * term for weight, term in zip(COST, cost_terms(config, unit), strict=True))


def saving(costs: list[float], num_proc: int) -> float:
    """The seconds of one core that ``num_proc`` processes save over one on units of these costs, the largest
    first, each to the least loaded process (so that the processes end together)."""
    loads = [0.0] * max(1, min(num_proc, len(costs)))
    for cost in sorted(costs, reverse=True):
        loads[loads.index(min(loads))] += cost
    return sum(loads) - max(loads)


def min_saving_now() -> float:
    """:data:`PARALLEL_MIN_SAVING`, or the seconds that the environment variable NAF_BENCH_PARALLEL_MIN_SAVING
    sets."""
    text = os.environ.get("NAF_BENCH_PARALLEL_MIN_SAVING")
    if text is None:
        return PARALLEL_MIN_SAVING
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:  # a negative number, NaN or not a number
        raise ConfigError(f"NAF_BENCH_PARALLEL_MIN_SAVING={text!r}: expected seconds >= 0")
    return seconds


def available_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def gate(costs: list[float], num_proc: int, min_saving: float, cores: int) -> tuple[int, float, float]:
    """(processes asked for, at most one per unit; the seconds of one core they would save over one process on
    ``cores`` cores; the seconds that pay for starting them: ``min_saving`` for each round of start-ups, since
    more workers than cores start a core's worth at a time)."""
    count = min(num_proc, len(costs))
    running = max(1, min(count, cores))
    return count, saving(costs, running), min_saving * -(-count // running)


def processes(
    costs: list[float], num_proc: int | None, min_saving: float | None = None, cores: int | None = None
) -> int:
    """How many processes generate units of these estimated costs (:func:`unit_seconds`) when ``num_proc`` are
    asked for: all of them (at most one per unit) where, on ``cores`` cores (by default :func:`available_cores`),
    they save at least ``min_saving`` seconds of one core over one process (by default :func:`min_saving_now`)
    for each round of worker start-ups (see :func:`gate`); else one."""
    if num_proc is None or num_proc <= 1 or len(costs) <= 1:
        return 1
    threshold = min_saving_now() if min_saving is None else min_saving
    count, saved, needed = gate(costs, num_proc, threshold, cores or available_cores())
    return count if saved >= needed else 1


def run_units(
    function: Callable,
    config: GenerationConfig,
    positions: list[int],
    args: tuple,
    num_proc: int | None,
    min_saving: float | None = None,
) -> dict[int, Any]:
    """``{position: function(config, position, *args)}`` for these units of ``config``: in ``num_proc`` worker
    processes, largest units first, where they are estimated to pay for starting them (:func:`processes`, and
    ``min_saving``), else in this one, with a warning where processes were asked for."""
    parallel = num_proc is not None and num_proc > 1
    units = config.units()
    costs = {position: unit_seconds(config, units[position]) for position in positions} if parallel else {}
    threshold = min_saving_now() if min_saving is None else min_saving
    count = processes(list(costs.values()), num_proc, threshold)
    if count > 1:
        largest_first = sorted(positions, key=lambda p: -costs[p])
        jobs = [(config, position, *args) for position in largest_first]
        names = [f"unit {p} of {config.name!r} ({units[p].family} {units[p].axes})" for p in largest_first]
        return dict(zip(largest_first, run_jobs(function, jobs, count, names), strict=True))
    if parallel:
        cores = available_cores()
        asked, saved, needed = gate(list(costs.values()), num_proc, threshold, cores)
        warnings.warn(
            f"num_proc={num_proc}: {config.name!r} is generated in one process ({len(positions)} units, an "
            f"estimated {sum(costs.values()):.1f} s of one core; {asked} processes on {cores} cores would "
            f"save {saved:.1f} s, less than the {needed:g} s that pay for starting them)",
            stacklevel=3,
        )
    return {position: function(config, position, *args) for position in positions}


class _Worker:
    """One ``python -m naf_bench.data.pool`` process; its stderr goes on to ours, its last lines kept for an error."""

    def __init__(self):
        root = str(Path(__file__).resolve().parents[2])  # this naf_bench, whatever the worker's cwd and path
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "naf_bench.data.pool"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
        except OSError as exc:
            raise WorkerError(
                f"cannot start a worker process ({sys.executable} -m naf_bench.data.pool): {exc}"
            ) from exc
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


if __name__ == "__main__":
    worker_loop()
