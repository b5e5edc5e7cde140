"""Calibration of parallel generation's cost model: each unit of some configs generated, certified and rendered
into its Arrow file (what ``load_dataset`` runs in a worker) in this process and timed on its own, beside
``naf_bench.data.planner.unit_seconds``'s estimate, and the CPU seconds a worker takes to start.

    python scripts/calibrate_parallel.py [--config main hard ...] [--set KEY=VALUE ...] [--larger] [--units] [--fit]

A unit's time is the CPU seconds of this process and of its SWI-Prolog worker, which a busy machine inflates less
than wall time (though it does: compare runs at one load). Per config it prints the measured and estimated
seconds of one core, the seconds two processes would save by each, and what ``processes`` decides; ``--larger``
adds the larger configs of ``LARGER``, ``--units`` prints every unit, and ``--fit`` fits ``naf_bench.data.planner.COST``
to every unit measured by least squares. The constants in the code come from

    python scripts/calibrate_parallel.py --larger --fit

(every shipped config and the larger ones, 127 units) on the 2-core development machine at load average ~7.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from functools import partial

import numpy as np
from bench_generate import live_children_cpu  # beside this script

from naf_bench.certify import certify
from naf_bench.data.dataset import unit_file
from naf_bench.data.planner import COST, PARALLEL_MIN_SAVING, cost_terms, processes, saving, unit_seconds
from naf_bench.data.pool import run_jobs
from naf_bench.data.rows import unit_splits
from naf_bench.generate.config import CONFIGS, get_config, parse_overrides
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.structure import canonical_key

# Larger configs (name, overrides) that --larger adds: sizes and shapes the shipped configs do not have
LARGER = (
    ("sweep", {"depths": (8, 16), "widths": (4, 8), "programs_per_cell": 14}),
    ("main", {"depths": (16,), "widths": (8,)}),
    ("order", {"depths": (16,), "widths": (8,)}),
    ("sft", {"depths": (8, 16), "widths": (4, 6), "programs_per_cell": 20}),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", nargs="*", default=sorted(CONFIGS), choices=sorted(CONFIGS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=2,8")
    parser.add_argument("--larger", action="store_true", help="then the larger configs of LARGER")
    parser.add_argument("--units", action="store_true", help="print every unit")
    parser.add_argument("--fit", action="store_true", help="fit COST to every unit measured")
    args = parser.parse_args()
    certify("a :- not b.", "a")  # start the engines, the labelling library and the Arrow writer outside the timing
    canonical_key(parse_program("a :- not b."), "a")
    warm = get_config("main", programs_per_cell=1)
    with tempfile.TemporaryDirectory() as spill:
        unit_splits(warm, 0, partial(unit_file, spill))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run_jobs(unit_splits, [(warm, 0, partial(unit_file, spill))], 1)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    start_up = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; a worker takes {start_up:.2f} CPU s to "
        f"start and make one one-program unit; parallel where it saves >= {PARALLEL_MIN_SAVING:g} s"
    )
    configs = [(name, parse_overrides(args.set)) for name in args.config] + (list(LARGER) if args.larger else [])
    terms, measured_all = [], []
    for name, overrides in configs:
        config = get_config(name, **overrides)
        units = config.units()
        measured, estimated = [], []
        with tempfile.TemporaryDirectory() as spill:
            for position, unit in enumerate(units):
                start = _cpu()
                results = unit_splits(config, position, partial(unit_file, spill))
                measured.append(_cpu() - start)
                estimated.append(unit_seconds(config, unit))
                terms.append([sum(unit.counts) * term for term in cost_terms(config, unit)])
                if args.units:
                    attempts = sum(stats.attempts for *_, stats in results)
                    print(
                        f"  {unit.family:<18} {unit.axes!s:<42} programs {sum(unit.counts):4d} attempts "
                        f"{attempts:5d} CPU {measured[-1]:7.3f} s estimate {estimated[-1]:7.3f} s"
                    )
        measured_all.extend(measured)
        sets = " ".join(f"{key}={','.join(map(str, v)) if isinstance(v, tuple) else v}" for key, v in overrides.items())
        print(
            f"{name} {sets}: {len(units)} units, CPU {sum(measured):.2f} s, estimate {sum(estimated):.2f} s "
            f"({sum(estimated) / sum(measured):.2f}x); two processes save {saving(measured, 2):.2f} s measured, "
            f"{saving(estimated, 2):.2f} s estimated; num_proc=2 -> {processes(estimated, 2)} process(es); "
            f"load average {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    if args.fit:
        a, b = np.array(terms), np.array(measured_all)
        fitted, *_ = np.linalg.lstsq(a, b, rcond=None)
        error = np.abs(a @ fitted - b).sum() / b.sum()
        print(
            f"COST fitted to {len(b)} units: ({', '.join(f'{c:.2e}' for c in fitted)}), mean absolute error "
            f"{error:.0%} of the time; now ({', '.join(f'{c:.2e}' for c in COST)}), "
            f"{np.abs(a @ np.array(COST) - b).sum() / b.sum():.0%}"
        )


def _cpu() -> float:
    """CPU seconds of this process and of its live children (the SWI-Prolog worker that certifies)."""
    return time.process_time() + live_children_cpu()


if __name__ == "__main__":
    main()
