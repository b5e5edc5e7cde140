"""Generation speed: a config generated, certified, rendered and written from scratch, in 1 and in N processes.

    python scripts/bench_generate.py [--config main] [--set KEY=VALUE ...] [--num-proc 1 2] [--baseline-key]
        [--engine ray]

For each process count, in a fresh Python process, ``naf_bench.load_dataset(config, num_proc=n)`` runs into a fresh
cache folder; the script checks that every run wrote the same rows (Arrow tables equal) and prints rows/s, the
speed-up over the first count, the CPUs and the load average (a busy machine cannot show the speed-up), the CPU
seconds of the serial part and of the workers (what the wall time would be on idle cores), and with ``--stats`` per bin
Algorithm 1's attempts and rejections. ``--baseline-key`` then times one process with dataset version 0.1.0's
canonical key (``replaced_key`` of ``scripts/check_canonical_key.py``: individualisation-refinement in Python)
in place of BLISS's, the per-core speed-up of the new key (other programs are kept, the partition being another,
so it compares kept programs per CPU second). ``--engine ray`` then runs ``naf-bench generate CONFIG --engine ray``
as a fresh process (a local Ray with this machine's CPUs, started inside the command), checks its Parquet folder
holds the same rows, and prints its wall time against the process counts, the driver's peak memory and the bytes
per kept program of the decision its manifest holds. The 20,000-program sft set of the README (320,000 rows):

    python scripts/bench_generate.py --config sft --set depths=8,10,12,14,16 --set widths=4,6 \\
        --set programs_per_cell=250 --num-proc 1 2

On the 2-core development machine, otherwise quiet, with dataset version 0.1.0's key: 1,108 s in one process, 536 s
with two (2.07x wall; 1,105 CPU s in one process against 7.0 s in the main process + 1,031 s in the workers with two,
~522 s on idle cores: 2.12x).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    import pyarrow.ipc

    from naf_bench.data.rows import generate_units
    from naf_bench.generate.config import CONFIGS, get_config, parse_overrides

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="main", choices=sorted(CONFIGS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=2,8")
    parser.add_argument("--num-proc", type=int, nargs="*", default=[1], help="process counts to time, in order")
    parser.add_argument("--stats", action="store_true", help="then Algorithm 1's attempts and rejections per bin")
    parser.add_argument("--baseline-key", action="store_true", help="first one process with the 0.1.0 canonical key")
    parser.add_argument("--engine", choices=("ray",), help="then the same rows on a local Ray (one fresh process)")
    args = parser.parse_args()
    overrides = parse_overrides(args.set)
    config = get_config(args.config, **overrides)
    print(
        f"{args.config}: {len(config.units())} units x {len(config.splits)} "
        f"splits; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} before"
    )
    programs = sum(sum(unit.counts) for unit in config.units())
    first = None
    timings: dict[int, float] = {}
    for num_proc in args.num_proc:
        with tempfile.TemporaryDirectory() as out:
            # each count in a fresh process, as a user runs it: in one process the counts after the first ran
            # slower (its heap and the caches the first run left)
            run = _fresh(["count_run", args.config, args.set, num_proc, out])
            elapsed, main_cpu, engine_cpu, workers_cpu = run["elapsed"], *run["cpu"]
            tables = {split: pyarrow.ipc.open_file(Path(out) / f"{split}.arrow").read_all() for split in run["splits"]}
            rows = sum(table.num_rows for table in tables.values())
            # CPU seconds: the process and its SWI-Prolog worker (the serial part) and its finished workers (with
            # theirs); on num_proc idle cores the wall time would be about serial + workers / num_proc, whatever the
            # load now
            idle = main_cpu + engine_cpu + workers_cpu / num_proc
            if first is None:
                first = (elapsed, tables, idle, num_proc)
            timings[num_proc] = elapsed
            same = all(tables[split].equals(first[1][split]) for split in tables)
            print(
                f"  num_proc={num_proc}: {rows} rows ({', '.join(f'{s} {t.num_rows}' for s, t in tables.items())}) in "
                f"{elapsed:.1f} s = {rows / elapsed:.0f} rows/s; speed-up {first[0] / elapsed:.2f}x; "
                f"{'same rows' if same else 'DIFFERENT ROWS'}; load average {os.getloadavg()[0]:.2f}; CPU s: main "
                f"{main_cpu:.1f} + its SWI-Prolog {engine_cpu:.1f} + workers {workers_cpu:.1f} -> on idle cores "
                f"~{idle:.1f} s, {first[2] / idle:.2f}x",
                flush=True,
            )
            if not same:
                raise SystemExit("parallel generation changed the rows")
            if args.baseline_key and num_proc == 1:
                _warm_up()
                baseline = _baseline_key_run(args.config, overrides, programs)
                print(
                    f"  one process: {programs / main_cpu:.1f} programs per CPU second with BLISS's key, "
                    f"{baseline / main_cpu:.2f}x the 0.1.0 key"
                )
    if args.engine == "ray":
        _ray_run(args, programs, first, timings)
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


def _fresh(call: list) -> dict:
    """``call`` (a function of this script and its arguments) run in a fresh Python process; its last line of
    output, JSON."""
    name, *arguments = call
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_generate; "
        f"bench_generate.{name}(*{arguments!r})"
    )
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    if done.returncode:
        raise SystemExit(f"{name}{tuple(arguments)} failed (status {done.returncode})")
    return json.loads(done.stdout.splitlines()[-1])


def _warm_up() -> None:
    """The engines, the labelling library and the datasets builder and writer started outside the timing."""
    from naf_bench.certify import certify
    from naf_bench.data.dataset import load_dataset
    from naf_bench.syntax.parse import parse_program
    from naf_bench.syntax.structure import canonical_key

    certify("a :- not b.", "a")
    canonical_key(parse_program("a :- not b."), "a")
    with tempfile.TemporaryDirectory() as cache:  # ~1-2 s on first use
        load_dataset("framing", cache_dir=cache, programs_per_cell=1)


def count_run(config: str, pairs: list[str], num_proc: int, out: str) -> None:
    """One process count's run (in a fresh process): ``load_dataset(config, num_proc=...)`` into a cache under
    ``out``, each split's table written to ``out/SPLIT.arrow``, then (the last line, JSON) the wall time, the CPU
    seconds (``_cpu``) and the splits."""
    import pyarrow.ipc

    from naf_bench.data.dataset import load_dataset
    from naf_bench.generate.config import parse_overrides

    _warm_up()
    start, before = time.perf_counter(), _cpu()
    dataset = load_dataset(config, num_proc=num_proc, cache_dir=str(Path(out) / "cache"), **parse_overrides(pairs))
    elapsed = time.perf_counter() - start
    cpu = [after - then for after, then in zip(_cpu(), before, strict=True)]
    for split, part in dataset.items():
        table = part.data.table
        with pyarrow.ipc.new_file(Path(out) / f"{split}.arrow", table.schema) as writer:
            writer.write_table(table)
    print(json.dumps({"elapsed": elapsed, "cpu": cpu, "splits": list(dataset)}))


def _baseline_key_run(config: str, overrides: dict, programs: int) -> float:
    """CPU seconds of one process generating the config with the 0.1.0 canonical key."""
    from check_canonical_key import replaced_key  # beside this script

    import naf_bench.generate.algorithm as algorithm
    from naf_bench.data.dataset import load_dataset
    from naf_bench.syntax.structure import canonical_key

    with tempfile.TemporaryDirectory() as cache:
        start, before = time.perf_counter(), _cpu()[0]  # this process alone, as in the README's figures
        algorithm.canonical_key = replaced_key
        try:
            load_dataset(config, cache_dir=cache, **overrides)
        finally:
            algorithm.canonical_key = canonical_key
        elapsed, cpu = time.perf_counter() - start, _cpu()[0] - before
    print(
        f"  num_proc=1 with the 0.1.0 key: {elapsed:.1f} s, CPU {cpu:.1f} s = {programs / cpu:.1f} programs per CPU "
        f"second; load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    return cpu


def _ray_run(args, programs: int, first, timings: dict[int, float]) -> None:
    """``naf-bench generate --engine ray`` in a fresh process: its wall time, rows, CPU seconds, driver memory and
    decision."""
    import datasets

    with tempfile.TemporaryDirectory() as out:
        cli = ["generate", args.config, "--engine", "ray", "--out", out, *(f"--set={pair}" for pair in args.set)]
        start = time.perf_counter()
        report = _fresh(["ray_driver", cli])
        elapsed = time.perf_counter() - start
        manifest = json.loads((Path(out) / "data" / args.config / "manifest.json").read_text())
        decision = len(json.dumps([entry["attempts"] for files in manifest["files"].values() for entry in files]))
        dataset = datasets.load_dataset(out, args.config, cache_dir=str(Path(out) / "hf"))
        same = first is None or all(dataset[split].data.table.equals(table) for split, table in first[1].items())
        ratios = ", ".join(f"{timings[n] / elapsed:.2f}x num_proc={n}" for n in timings)
        cpu = report["cpu"]
        cpus = os.cpu_count()
        # on idle cores the wall time would be about the CPU seconds of every process over the CPUs (the work
        # is chunks and files of every cell at once), against the first process count's
        idle = sum(cpu.values()) / cpus
        against = ""
        if first is not None:
            what = "one process" if first[3] == 1 else f"num_proc={first[3]}"
            against = f", {first[2] / idle:.2f}x {what}'s ~{first[2]:.1f} s"
        print(
            f"  ray ({cpus} CPUs): {elapsed:.1f} s; {ratios}; {'same rows' if same else 'DIFFERENT ROWS'}; "
            f"{manifest['passes']} passes across cells; CPU s: driver {cpu['driver']:.1f} + keepers "
            f"{cpu['keepers']:.1f} + tasks {cpu['tasks']:.1f} + Ray's own processes {cpu['ray']:.1f} (processes: "
            f"{', '.join(f'{kind} {n}' for kind, n in report['processes'].items())}) -> on idle "
            f"cores ~{idle:.1f} s{against}; driver peak memory {report['peak'] / 1024:.0f} MiB (the largest Ray "
            f"process {report['largest'] / 1024:.0f} MiB) for {programs} programs; the decision "
            f"{decision / programs:.1f} bytes per kept program; load average {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        if not same:
            raise SystemExit("generation on Ray changed the rows")


def ray_driver(cli: list[str]) -> None:
    """The Ray run's driver: ``naf-bench generate`` with ``cli``, then (the last line, JSON) its own peak resident
    memory in KiB (VmHWM), the largest peak among the processes of the local Ray it starts, and the CPU seconds of
    itself and of those processes: the keepers, the tasks' workers with their SWI-Prolog children, and Ray's
    own (raylet, GCS, ...), each process read every 0.5 s until it ends (a worker's last fraction of a
    second may be missed), and how many processes of each kind it saw."""
    import threading

    import psutil

    from naf_bench.cli import main as generate

    seen: dict[int, tuple[str, float, int]] = {}  # pid: kind, CPU seconds, peak RSS in KiB
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.5):
            for child in psutil.Process().children(recursive=True):
                try:
                    with child.oneshot():
                        title = " ".join(child.cmdline()[:1]) or child.name()
                        times, rss = child.cpu_times(), child.memory_info().rss // 1024
                except psutil.Error:
                    continue
                kind, _, peak = seen.get(child.pid, ("ray", 0.0, 0))
                if title.startswith("ray::_Keeper"):
                    kind = "keepers"  # an actor's title stays; a worker's names its task, once it has one
                elif kind != "keepers" and (title.startswith("ray::") or child.name() == "swipl"):
                    kind = "tasks"
                seen[child.pid] = (kind, times.user + times.system, max(peak, rss))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    status = generate(cli)
    stop.set()
    sampler.join()
    own = resource.getrusage(resource.RUSAGE_SELF)
    cpu = {"driver": own.ru_utime + own.ru_stime, "keepers": 0.0, "tasks": 0.0, "ray": 0.0}
    for kind, seconds, _ in seen.values():
        cpu[kind] += seconds
    largest = max((peak for _, _, peak in seen.values()), default=0)
    processes = {kind: sum(k == kind for k, _, _ in seen.values()) for kind in cpu if kind != "driver"}
    # VmHWM, not ru_maxrss: a process started by fork or vfork and exec keeps its parent's peak in ru_maxrss (this
    # one's parent, the benchmark, holds the rows of the runs before)
    status_lines = Path("/proc/self/status").read_text().splitlines()
    peak = next(int(line.split()[1]) for line in status_lines if line.startswith("VmHWM:"))
    print(json.dumps({"peak": peak, "largest": largest, "cpu": cpu, "processes": processes}))
    sys.exit(status)


def _cpu() -> tuple[float, float, float]:
    """CPU seconds of this process, of its live children (its SWI-Prolog worker) and of its finished children
    (the worker processes, their SWI-Prolog workers included)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, live_children_cpu(), children.ru_utime + children.ru_stime


def live_children_cpu() -> float:
    """CPU seconds of this process's children that are still running, read from /proc (0 where there is none)."""
    seconds, tick = 0.0, os.sysconf("SC_CLK_TCK")
    tasks = Path("/proc/self/task")
    for task in tasks.iterdir() if tasks.exists() else ():
        for pid in (task / "children").read_text().split():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # it ended meanwhile
                continue
            seconds += (int(fields[11]) + int(fields[12])) / tick
    return seconds


if __name__ == "__main__":
    main()
