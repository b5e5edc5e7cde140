"""Certification throughput on the main config's programs (depth 8, width 4, the four bins), per engine
and end to end.

    python scripts/bench_certify.py [--programs 120] [--repeats 3] [--reference-sample 8]

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
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from functools import partial
from pathlib import Path

from naf_bench import Program, certify, render_prolog
from naf_bench.certify import FIRST_INFERENCE_LIMIT
from naf_bench.generate.config import CONFIGS
from naf_bench.generate.registry import FAMILIES
from naf_bench.generate.seeds import item_rng
from naf_bench.solvers import swipl_worker
from naf_bench.solvers.sldnf import solve_sldnf
from naf_bench.solvers.sldnf_reference import solve_sldnf_reference
from naf_bench.solvers.stable import StableResult, clingo_module, solve_stable, statistic
from naf_bench.solvers.stable_check import enumerate_stable_models
from naf_bench.solvers.swipl import swipl_executable
from naf_bench.solvers.wfs import solve_wfs
from naf_bench.solvers.wfs_tabling import solve_wfs_tabling
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-sample", type=int, default=8)
    args = parser.parse_args()
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
        "wfs: alternating fixpoint (Python)": solve_wfs,
        "wfs check: SWI-Prolog tabling": solve_wfs_tabling,
        f"sldnf: SWI-Prolog, limit {first:,} (certify's first)": partial(solve_sldnf, query="q", inference_limit=first),
        "sldnf check: exact procedure (Python)": lambda p: solve_sldnf_reference(p, "q"),
    }
    end_to_end = "certify(): both engines of every semantics"
    before = "  before #11: three searches, names per model"
    print("per engine, and end to end (each repeat runs every line in turn):")
    measured = rates({**engines, before: stable_before, end_to_end: certify}, programs, n)
    clingo = measured["stable: clingo, one enumeration"][0]
    print(f"  speed-up of clingo over before #11: {clingo / measured[before][0]:.2f}x")
    ours = measured[end_to_end]
    wall, cpu = (1 / sum(1 / measured[label][k] for label in engines) for k in (0, 1))
    print(f"  the six engines back to back: {wall:.1f} programs/s wall, {cpu:.1f} CPU; end to end is "
          f"{ours[0] / wall:.0%} of that in wall time, {ours[1] / cpu:.0%} in CPU time, {pinned}; load average "
          f"{os.getloadavg()[0]:.2f}")  # fmt: skip
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
