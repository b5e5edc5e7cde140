"""Certification throughput on random programs of NAF-Bench size, per engine and end to end.

    python scripts/bench_certify.py [--programs 400] [--reference-sample 6]

Programs have 30-60 rules: a depth chain to ``q`` with negated links, a width block of shared
subgoals, a cycle through negation (even or odd) attached through a bridge atom (absent in every
fourth program, a control), and filler rules.
The reference implementation's method (one ``swipl`` process per program, a 2.5 s wall-clock timeout
as the loop test) is timed in the same run on a small sample, and the speed-up printed as a ratio.
"""

from __future__ import annotations

import argparse
import itertools
import random
import subprocess
import tempfile
import time
from pathlib import Path

from naf_bench import Literal, Program, Rule, certify, render_prolog
from naf_bench.solvers.sldnf import solve_sldnf
from naf_bench.solvers.sldnf_reference import solve_sldnf_reference
from naf_bench.solvers.stable import solve_stable
from naf_bench.solvers.stable_check import enumerate_stable_models
from naf_bench.solvers.swipl import swipl_executable
from naf_bench.solvers.wfs import solve_wfs
from naf_bench.solvers.wfs_tabling import solve_wfs_tabling


def nafbench_shaped(seed: int) -> Program:
    rng = random.Random(f"bench-certify/{seed}")
    depth, width, cycle = rng.randint(4, 10), rng.randint(2, 6), rng.choice([2, 3, 4])
    chain = ["q"] + [f"d{i}" for i in range(1, depth + 1)]
    shared = [f"w{i}" for i in range(width)]
    ring = [f"c{i}" for i in range(cycle)]
    rules = []
    for upper, lower in itertools.pairwise(chain):
        support = rng.sample(shared, 2)
        rules.append(Rule(upper, (Literal(lower, rng.random() < 0.5), *(Literal(s) for s in support))))
    for atom in shared:
        rules.append(Rule(atom, (Literal(f"f_{atom}"),)))
        rules.append(Rule(f"f_{atom}"))
    for i, atom in enumerate(ring):
        rules.append(Rule(atom, (Literal(ring[(i + 1) % cycle], False),)))
    if seed % 4:  # the bridge into the cycle; every fourth program is a control without one
        rules.append(Rule(chain[-1], (Literal(rng.choice(ring)),)))
    while len(rules) < rng.randint(30, 60):
        head = f"x{rng.randint(0, 15)}"
        body = tuple(Literal(rng.choice([*shared, f"x{rng.randint(0, 15)}"]), rng.random() < 0.7) for _ in range(2))
        rules.append(Rule(head, body))
    rng.shuffle(rules)
    return Program(tuple(rules))


def rate(label: str, programs: list[Program], run) -> float:
    start = time.perf_counter()
    for program in programs:
        run(program)
    per_second = len(programs) / (time.perf_counter() - start)
    print(f"  {label:<38} {per_second:10.1f} programs/s")
    return per_second


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
    parser.add_argument("--programs", type=int, default=400)
    parser.add_argument("--reference-sample", type=int, default=8)
    args = parser.parse_args()
    programs = [nafbench_shaped(seed) for seed in range(args.programs)]
    certify(programs[0])  # start the engines (pyswip, the tabling server) outside the timings
    print(f"{len(programs)} programs, {sum(len(p) for p in programs) / len(programs):.1f} rules on average")
    print("per engine:")
    rate("stable: clingo brave/cautious/count", programs, solve_stable)
    rate("stable check: Gelfond-Lifschitz", programs, lambda p: enumerate_stable_models(p, solve_wfs(p)))
    rate("wfs: alternating fixpoint (Python)", programs, solve_wfs)
    rate("wfs check: SWI-Prolog tabling", programs, solve_wfs_tabling)
    rate("sldnf: SWI-Prolog via pyswip", programs, lambda p: solve_sldnf(p, "q"))
    rate("sldnf check: exact fixpoint (Python)", programs, lambda p: solve_sldnf_reference(p, "q"))
    print("end to end:")
    ours = rate("certify(): both engines of every semantics", programs, certify)
    signatures: dict[str, int] = {}
    for program in programs:
        signature = certify(program).signature
        signatures[signature] = signatures.get(signature, 0) + 1
    print(f"  signatures: {dict(sorted(signatures.items()))}")
    sample = programs[: args.reference_sample]
    print(f"reference method on {len(sample)} programs (SLDNF only):")
    reference = rate("swipl per program, 2.5 s timeout", sample, reference_method)
    agree = sum(reference_method(p) == certify(p).labels["sldnf"] for p in sample)
    print(f"  labels agree with certify() on {agree}/{len(sample)}")
    print(f"speed-up of full certification over the reference's SLDNF alone: {ours / reference:.0f}x")


if __name__ == "__main__":
    main()
