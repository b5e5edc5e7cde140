"""Generation speed: a config generated, certified, rendered and written from scratch, in 1 and in N processes.

    python scripts/bench_generate.py [--config main] [--set KEY=VALUE ...] [--num-proc 1 2]

For each process count, ``naf_bench.load_dataset(config, num_proc=n)`` runs into a fresh cache folder; the
script checks that every run wrote the same rows (Arrow tables equal) and prints rows/s, the speed-up over the
first count, the CPUs and the load average (a busy machine cannot show the speed-up), the CPU seconds of the
serial part and of the workers (what the wall time would be on idle cores), and with ``--stats`` per bin
Algorithm 1's attempts and rejections. The 20,000-program sft set of the README (320,000 rows):

    python scripts/bench_generate.py --config sft --set depths=8,10,12,14,16 --set widths=4,6 \\
        --set programs_per_cell=250 --num-proc 1 2

On the 2-core development machine, otherwise quiet: 1,108 s in one process, 536 s with two (2.07x wall; 1,105 CPU s
in one process against 7.0 s in the main process + 1,031 s in the workers with two, ~522 s on idle cores: 2.12x).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time

from naf_bench.certify import certify
from naf_bench.cli import _overrides
from naf_bench.dataset import load_dataset
from naf_bench.generate.config import CONFIGS, get_config
from naf_bench.rows import generate_units


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="main", choices=sorted(CONFIGS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=2,8")
    parser.add_argument("--num-proc", type=int, nargs="+", default=[1], help="process counts to time, in order")
    parser.add_argument("--stats", action="store_true", help="then Algorithm 1's attempts and rejections per bin")
    args = parser.parse_args()
    overrides = _overrides(args.set)
    config = get_config(args.config, **overrides)
    certify("a :- not b.", "a")  # start the engines outside the timing
    print(f"{args.config}: {len(config.units())} units x {len(config.splits)} "
          f"splits; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} before")  # fmt: skip
    first = None
    for num_proc in args.num_proc:
        with tempfile.TemporaryDirectory() as cache:
            start, before = time.perf_counter(), _cpu()
            dataset = load_dataset(args.config, num_proc=num_proc, cache_dir=cache, **overrides)
            elapsed = time.perf_counter() - start
            main_cpu, workers_cpu = (after - then for after, then in zip(_cpu(), before, strict=True))
            tables = {split: part.data.table for split, part in dataset.items()}
            rows = sum(part.num_rows for part in dataset.values())
            # CPU seconds: this process (the serial part) and its finished workers; on num_proc idle cores the
            # wall time would be about serial + workers / num_proc, whatever the load now
            idle = main_cpu + workers_cpu / num_proc
            if first is None:
                first = (elapsed, tables, idle)
            same = all(tables[split].equals(first[1][split]) for split in tables)
            print(
                f"  num_proc={num_proc}: {rows} rows ({', '.join(f'{s} {t.num_rows}' for s, t in tables.items())}) in "
                f"{elapsed:.1f} s = {rows / elapsed:.0f} rows/s; speed-up {first[0] / elapsed:.2f}x; "
                f"{'same rows' if same else 'DIFFERENT ROWS'}; load average {os.getloadavg()[0]:.2f}; CPU s: main "
                f"{main_cpu:.1f} + workers {workers_cpu:.1f} -> on idle cores ~{idle:.1f} s, {first[2] / idle:.2f}x",
                flush=True,
            )
            if not same:
                raise SystemExit("parallel generation changed the rows")
    if not args.stats:
        return
    _, stats = generate_units(config)
    groups: dict[str, list] = {}
    for _, unit, unit_stats in stats:
        groups.setdefault(unit.family, []).append(unit_stats)
    for group, cells in groups.items():
        attempts = sum(c.attempts for c in cells)
        rejected = sum(c.wrong_signature + c.duplicates + c.uncertifiable + c.order_sensitive for c in cells)
        print(
            f"  {group:<16} attempts {attempts:6d}  rejection rate {rejected / attempts:6.1%}  (wrong signature "
            f"{sum(c.wrong_signature for c in cells)}, duplicates {sum(c.duplicates for c in cells)}, "
            f"order-sensitive {sum(c.order_sensitive for c in cells)}; left to the other side of the "
            f"training/evaluation partition {sum(c.other_side for c in cells)})"
        )


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


if __name__ == "__main__":
    main()
