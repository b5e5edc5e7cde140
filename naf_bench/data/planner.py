"""When worker processes pay: a config's units are generated in processes (:func:`run_units`, over the pool
:func:`naf_bench.data.pool.run_jobs`) only where the estimated cost of its units (:func:`unit_seconds`) saves more
than starting the processes takes (:func:`processes`). Outside ``generate/``, whose files are in the dataset
cache key: a better estimate makes no other rows."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from naf_bench.data.pool import run_jobs
from naf_bench.errors import ConfigError

if TYPE_CHECKING:
    from naf_bench.generate.config import GenerationConfig, Unit


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
