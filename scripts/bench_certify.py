"""Certification throughput on the main config's programs (depth 8, width 4, the four bins), per engine
and end to end; with ``--scaling``, how its time grows with the program.

    python scripts/bench_certify.py [--programs 120] [--repeats 3] [--reference-sample 8]
    python scripts/bench_certify.py --scaling [--sizes 1000,10000,100000] [--families negation_chain,...]

Programs are the main config's candidates (each bin's ``assemble`` on its units, attempts 0, 1, ...: the programs
generation keeps and the ones it rejects look alike). Rates are best-of-``--repeats`` in wall time, and over all
repeats in the CPU time of this process and the SWI-Prolog worker together (which a loaded machine changes
little). End to end is printed beside the engines' back-to-back rate in the same run (each program through each
engine in turn: 1 / the sum of their times per program); that fraction carries over from machine to machine where
absolute rates do not. With both processes on one core (``taskset -c 0 python scripts/bench_certify.py``) it is the
fraction the README states; without ``taskset`` the worker's engines overlap Python's and it can pass 1. The cores
this process may use and the load average are printed as context.
Two baselines run in the same process: clingo as certify() called it before issue #11 (three searches on the
program's text, every model converted to names), and the reference implementation's
method (one ``swipl`` process per program, a 2.5 s wall-clock timeout as the loop test) on a small sample.

``--scaling`` certifies one program of n rules of each family in :data:`SCALING_FAMILIES` for each n in
``--sizes``, and prints per engine and end to end the wall time, beside the time to parse the same text (a linear
reference operation measured in the same run), then the exponent of a least-squares fit of log time on log n
and the load average. The program over atom numbers (``Program.numbered``), built once per program and read by
every engine, has a line of its own; each engine's line starts from the parsed program with it built, and end to
end builds it. Certification is linear where the exponent stays near parsing's. Each run, parsing
included, runs with Python's cyclic collector paused, as certify() runs (:mod:`naf_bench.solvers.collector`).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import tempfile
import time
from functools import partial
from pathlib import Path

from naf_bench import Program, certify, render_prolog
from naf_bench.certify import DEFAULT_BUDGET, FIRST_INFERENCE_LIMIT, _check_sldnf
from naf_bench.generate.config import CONFIGS
from naf_bench.generate.registry import FAMILIES
from naf_bench.generate.seeds import item_rng
from naf_bench.solvers import swipl_worker
from naf_bench.solvers.collector import collection_paused
from naf_bench.solvers.sldnf import solve_sldnf
from naf_bench.solvers.sldnf_exact import solve_sldnf_exact
from naf_bench.solvers.stable import StableResult, clingo_module, solve_stable, statistic
from naf_bench.solvers.stable_check import enumerate_stable_models
from naf_bench.solvers.swipl import swipl_executable
from naf_bench.solvers.wfs import solve_wfs
from naf_bench.solvers.wfs_tabling import solve_wfs_tabling
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.render import render_asp


def main_programs(count: int) -> list[Program]:
    units = CONFIGS["main"].units()
    programs = []
    for i in range(count):
        unit = units[i % len(units)]
        family = FAMILIES[unit.family]
        rng = item_rng(0, "main", "test", *family.coordinates(unit.axes), i // len(units))
        programs.append(family.assemble(rng, **unit.axes)[0])
    return programs


def stable_before(program: Program, model_cap: int = 1000) -> StableResult:
    """solve_stable before #11: brave, cautious and count searches, every model's symbols made names."""
    control = clingo_module().Control(["--warn=none"])
    control.add("base", [], render_asp(program))
    control.ground([("base", [])])
    effort = [0, 0]

    def consequences(mode: str, models: int) -> list[frozenset[str]]:
        control.configuration.solve.enum_mode = mode
        control.configuration.solve.models = str(models)
        found: list[frozenset[str]] = []
        control.solve(on_model=lambda m: found.append(frozenset(s.name for s in m.symbols(shown=True))))
        effort[0] += statistic(control, "solving", "solvers", "choices")
        effort[1] += statistic(control, "solving", "solvers", "conflicts")
        return found

    brave = consequences("brave", 0)
    if not brave:
        return StableResult(frozenset(), None, 0, model_cap, *effort)
    cautious = consequences("cautious", 0)
    return StableResult(brave[-1], cautious[-1], len(consequences("auto", model_cap + 1)), model_cap, *effort)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its SWI-Prolog worker (the two processes certify() runs in)."""
    worker = swipl_worker._worker.process
    ticks = Path(f"/proc/{worker.pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13] if worker else (0, 0)
    return time.process_time() + sum(map(int, ticks)) / os.sysconf("SC_CLK_TCK")


def rates(runs: dict, programs: list[Program], repeats: int) -> dict[str, tuple[float, float]]:
    """Programs per second of each run: best of ``repeats`` in wall time, and over all of them in the CPU time
    of both processes. Each repeat goes through every run in turn, so that a load that changes during the
    benchmark weighs on all of them alike."""
    wall, cpu = dict.fromkeys(runs, 0.0), dict.fromkeys(runs, 0.0)
    for _ in range(repeats):
        for label, run in runs.items():
            start, start_cpu = time.perf_counter(), cpu_seconds()
            for program in programs:
                run(program)
            wall[label] = max(wall[label], len(programs) / (time.perf_counter() - start))
            cpu[label] += cpu_seconds() - start_cpu
    out = {label: (wall[label], repeats * len(programs) / max(cpu[label], 1e-9)) for label in runs}
    for label, (best, total) in out.items():
        print(f"  {label:<48} {best:8.1f} programs/s wall {total:8.1f} CPU")
    return out


def reference_method(program: Program) -> str:
    """One swipl process per program, 2.5 s wall clock as the loop test (the reference's method)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.pl"
        path.write_text(render_prolog(program, atom_prefix="n_"))
        try:
            done = subprocess.run(
                [swipl_executable(), "-q", "-g", "(n_q -> halt(0) ; halt(1))", "-t", "halt(2)", str(path)],
                capture_output=True,
                timeout=2.5,
            )
        except subprocess.TimeoutExpired:
            return "loop"
        return {0: "T", 1: "F"}.get(done.returncode, "loop")  # 2: the goal raised (stack exhausted)


def positive_chain(n: int) -> str:
    """``q :- p1.  p1 :- p2.  ...  p(n-1).``: n rules, every atom true."""
    return "q :- p1.\n" + "".join(f"p{i} :- p{i + 1}.\n" for i in range(1, n - 1)) + f"p{n - 1}.\n"


def negation_chain(n: int) -> str:
    """``q :- not p1.  p1 :- not p2.  ...``: n rules, p(n) without rules; the alternating fixpoint over the whole
    program needs a Γ per rule."""
    return "q :- not p1.\n" + "".join(f"p{i} :- not p{i + 1}.\n" for i in range(1, n))


def _ring(n: int) -> str:
    return "q :- not p1.\n" + "".join(f"p{i} :- not p{i + 1}.\n" for i in range(1, n - 1)) + f"p{n - 1} :- not q.\n"


def even_ring(n: int) -> str:
    """One negative cycle through n atoms (n even, else n + 1): two stable models, every atom undefined."""
    return _ring(n + n % 2)


def odd_ring(n: int) -> str:
    """One negative cycle through n + 1 atoms (n even, else n): no stable model, every atom undefined."""
    return _ring(n + 1 - n % 2)


def ring_chain(n: int) -> str:
    """Rings of 2 to 16 atoms (negative and positive edges at random) joined without cycles: the first rule of
    each ring also depends on the next ring; about n rules."""
    rng = random.Random(f"bench-certify/ring-chain/{n}")
    lines, ring = [], 0
    while len(lines) < n:
        size = rng.randint(2, 16)
        atoms = ["q" if ring == 0 else f"r{ring}_0"] + [f"r{ring}_{j}" for j in range(1, size)]
        for j, atom in enumerate(atoms):
            nxt = atoms[(j + 1) % size]
            body = [nxt if rng.random() < 0.3 else f"not {nxt}"]
            if j == 0:
                body.append(rng.choice([f"r{ring + 1}_0", f"not r{ring + 1}_0"]))
            lines.append(f"{atom} :- {', '.join(body)}.\n")
        ring += 1
    return "".join(lines)


def random_components(n: int) -> str:
    """Random rules inside blocks of 2 to 16 atoms (their components hold at most 16 atoms), block b's entry
    depending on block b + 1's (so the query reaches every block once, and SLDNF's tree stays linear); about n
    rules."""
    rng = random.Random(f"bench-certify/random-components/{n}")
    lines, block = [], 0
    while len(lines) < n:
        size = rng.randint(2, 16)
        atoms = [f"b{block}_{j}" for j in range(size)]
        for _ in range(rng.randint(size, 2 * size)):
            body = [f"{'not ' if rng.random() < 0.5 else ''}{rng.choice(atoms)}" for _ in range(rng.randint(0, 3))]
            lines.append(f"{rng.choice(atoms)} :- {', '.join(body)}.\n" if body else f"{rng.choice(atoms)}.\n")
        entry = "q" if block == 0 else f"e{block}"
        lines.append(f"{entry} :- not e{block + 1}, {rng.choice(atoms)}.\n")
        block += 1
    return "".join(lines)


SCALING_FAMILIES = {
    f.__name__: f for f in (positive_chain, negation_chain, even_ring, odd_ring, ring_chain, random_components)
}


def sldnf_as_certified(program: Program) -> None:
    """SWI-Prolog's SLDNF as certify() runs it: its first limit, raised while the exact procedure finds a finite
    tree (the exact procedure's own time is its own line)."""
    first = solve_sldnf(program, "q", FIRST_INFERENCE_LIMIT)
    _check_sldnf(program, "q", first, solve_sldnf_exact(program, "q"), FIRST_INFERENCE_LIMIT, DEFAULT_BUDGET)


NUMBERED, END_TO_END = "atom numbers: Program.numbered", "certify() end to end"


def scaling(sizes: list[int], families: list[str]) -> None:
    """Per family, engine and n: seconds in wall time (the least of the runs) and in the CPU time of both processes
    (their mean: the worker's is counted in 10 ms ticks), runs repeated until they took a second (at most 20),
    each with its fitted exponent."""
    wfs: dict[int, object] = {}  # the check gets the WFS certify() hands it, computed outside its timing
    engines = {
        "parse (reference)": None,
        NUMBERED: lambda p: p.numbered,
        "wfs: by component": solve_wfs,
        "wfs check: SWI-Prolog tabling": solve_wfs_tabling,
        "stable: clingo": solve_stable,
        "stable check: Gelfond-Lifschitz": lambda p: enumerate_stable_models(p, wfs[len(p)]),
        "sldnf: SWI-Prolog (limit raised)": sldnf_as_certified,
        "sldnf check: exact procedure": lambda p: solve_sldnf_exact(p, "q"),
        END_TO_END: certify,
    }
    tiny = parse_program("q :- not p.\n")
    certify(tiny)  # start the engines outside the timings
    print(
        f"scaling: seconds per program of n rules, wall | CPU of both processes; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f} before"
    )
    header = "".join(f"{f'n={n:,}':>10}" for n in sizes)
    for family in families:
        print(f"{family}:{' ' * (33 - len(family))}{header}  exponent |{header}  exponent")
        texts = [SCALING_FAMILIES[family](n) for n in sizes]
        rules = []
        for label, run in engines.items():
            wall, cpu = [], []
            for text in texts:
                best, total_cpu, total_wall, repeats = math.inf, 0.0, 0.0, 0
                while repeats < 20 and total_wall < 1.0:
                    program = None  # the last one freed outside the timings
                    with collection_paused():  # as certify() runs the engines
                        start, start_cpu = time.perf_counter(), cpu_seconds()
                        program = parse_program(text)  # a fresh program each time: no cached indices
                        if run is not None:
                            if label not in (NUMBERED, END_TO_END):  # built once per program, shared by the engines
                                _ = program.numbered
                            wfs[len(program)] = solve_wfs(program) if "Gelfond" in label else None
                            start, start_cpu = time.perf_counter(), cpu_seconds()
                            run(program)
                        seconds = time.perf_counter() - start
                    best, total_wall = min(best, seconds), total_wall + seconds
                    total_cpu += cpu_seconds() - start_cpu
                    repeats += 1
                    certify(tiny)  # the worker frees a program's tables and clauses when the next one comes
                wall.append(best)
                cpu.append(total_cpu / repeats)
                if run is None:
                    rules.append(len(program))
            cells = "".join(f"{t:10.4f}" for t in wall), "".join(f"{t:10.4f}" for t in cpu)
            print(
                f"  {label:<33}{cells[0]}  {fitted_exponent(sizes, wall):8.2f} |"
                f"{cells[1]}  {fitted_exponent(sizes, cpu):8.2f}"
            )
        print(f"  load average {os.getloadavg()[0]:.2f}; rules: {', '.join(map(str, rules))}", flush=True)


def fitted_exponent(sizes: list[int], seconds: list[float]) -> float:
    """Slope of the least-squares line through (log n, log seconds)."""
    xs, ys = [math.log(n) for n in sizes], [math.log(max(t, 1e-6)) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-sample", type=int, default=8)
    parser.add_argument("--scaling", action="store_true", help="time one program per family and size instead")
    parser.add_argument("--sizes", default="1000,10000,100000", help="rules per program, for --scaling")
    parser.add_argument("--families", default=",".join(SCALING_FAMILIES), help="for --scaling")
    args = parser.parse_args()
    if args.scaling:
        families = args.families.split(",")
        unknown = sorted(set(families) - set(SCALING_FAMILIES))
        if unknown:
            parser.error(f"unknown families {unknown}; expected some of {', '.join(SCALING_FAMILIES)}")
        scaling([int(n) for n in args.sizes.split(",")], families)
        return
    programs = main_programs(args.programs)
    certify(programs[0])  # start the engines (clingo, the SWI-Prolog worker) outside the timings
    for program in programs:  # clingo before #11 answers as now (effort counts aside)
        then, now = stable_before(program), solve_stable(program)
        if (then.brave, then.cautious, then.n_models) != (now.brave, now.cautious, now.n_models):
            raise SystemExit(f"clingo before #11 answers differently on\n{program}")
    n = args.repeats
    print(f"{len(programs)} main-config programs, {sum(len(p) for p in programs) / len(programs):.1f} rules on average")
    cores = sorted(os.sched_getaffinity(0))
    pinned = f"on core {cores[0]} (both processes)" if len(cores) == 1 else f"on {len(cores)} cores (not pinned)"
    print(f"{pinned}; load average {os.getloadavg()[0]:.2f} before")
    first = FIRST_INFERENCE_LIMIT
    wfs = {program: solve_wfs(program) for program in programs}  # certify() hands its WFS to the check
    engines = {  # what certify() runs on each program
        "stable: clingo, one enumeration": solve_stable,
        "stable check: Gelfond-Lifschitz, given the WFS": lambda p: enumerate_stable_models(p, wfs[p]),
        "wfs: alternating fixpoint by component (Python)": solve_wfs,
        "wfs check: SWI-Prolog tabling": solve_wfs_tabling,
        f"sldnf: SWI-Prolog, limit {first:,} (certify's first)": partial(solve_sldnf, query="q", inference_limit=first),
        "sldnf check: exact procedure (Python)": lambda p: solve_sldnf_exact(p, "q"),
    }
    end_to_end = "certify(): both engines of every semantics"
    before = "  before #11: three searches, names per model"
    print("per engine, and end to end (each repeat runs every line in turn):")
    measured = rates({**engines, before: stable_before, end_to_end: certify}, programs, n)
    clingo = measured["stable: clingo, one enumeration"][0]
    print(f"  speed-up of clingo over before #11: {clingo / measured[before][0]:.2f}x")
    ours = measured[end_to_end]
    wall, cpu = (1 / sum(1 / measured[label][k] for label in engines) for k in (0, 1))
    print(
        f"  the six engines back to back: {wall:.1f} programs/s wall, {cpu:.1f} CPU; end to end is "
        f"{ours[0] / wall:.0%} of that in wall time, {ours[1] / cpu:.0%} in CPU time, {pinned}; load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    signatures: dict[str, int] = {}
    for program in programs:
        signature = certify(program).signature
        signatures[signature] = signatures.get(signature, 0) + 1
    print(f"  signatures: {dict(sorted(signatures.items()))}")
    sample = programs[: args.reference_sample]
    print(f"reference method on {len(sample)} programs (SLDNF only):")
    ((reference, _),) = rates({"swipl per program, 2.5 s timeout": reference_method}, sample, 1).values()
    agree = sum(reference_method(p) == certify(p).labels["sldnf"] for p in sample)
    print(f"  labels agree with certify() on {agree}/{len(sample)}")
    print(f"speed-up of full certification over the reference's SLDNF alone: {ours[0] / reference:.0f}x")


if __name__ == "__main__":
    main()
