"""Differential fuzz of certify(): random small programs, every engine pair must agree, nothing may raise.

    python scripts/fuzz_certify.py [--programs 100000] [--start 0] [--failures fuzz-failures.txt]

Every program is certified with all twin engines (clingo and the Gelfond–Lifschitz enumeration, the
alternating fixpoint and SWI-Prolog tabling, SWI-Prolog SLDNF and the exact procedure) and the
cross-semantics invariants. Sizes, negation rate and fact share vary with the seed, so short chains,
duplicate rules (exponential SLDNF trees), self-loops and odd and even cycles all occur. Any exception
is an error: its type, seed and program are printed (and appended to ``--failures``); the exit status
is 1 when there is one.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from naf_bench import certify
from naf_bench.syntax.render import render_asp
from naf_bench.syntax.sample import random_program


def program_of(seed: int):
    rng = random.Random(f"fuzz-certify/{seed}")
    n_atoms = rng.randint(2, 10)
    return random_program(
        f"fuzz/{seed}",
        n_atoms=n_atoms,
        n_rules=rng.randint(1, 2 * n_atoms + 4),
        max_body=rng.randint(1, 4),
        negation=rng.choice([0.0, 0.2, 0.4, 0.6]),
        fact_share=rng.choice([0.05, 0.15, 0.3]),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=100_000)
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--failures", help="append failing programs to this file")
    args = parser.parse_args()
    errors: Counter[str] = Counter()
    signatures: Counter[str] = Counter()
    checks: Counter[str] = Counter()
    start = time.perf_counter()
    for seed in range(args.start, args.start + args.programs):
        program = program_of(seed)
        try:
            certificate = certify(program, "q")
        except Exception as exc:  # the point of a fuzz: every failure is counted, none stops the run
            errors[type(exc).__name__] += 1
            report = f"seed {seed}: {type(exc).__name__}: {exc}\n{render_asp(program)}"
            print(report, file=sys.stderr)
            if args.failures:
                with open(args.failures, "a", encoding="utf-8") as out:
                    out.write(report + "\n")
            continue
        signatures[certificate.signature] += 1
        checks.update(c.split(" (")[0] + (" (fallback)" if " (" in c else "") for c in certificate.checks)
        if (seed + 1 - args.start) % 10_000 == 0:
            done = seed + 1 - args.start
            print(f"{done} programs, {sum(errors.values())} errors, {time.perf_counter() - start:.0f} s", flush=True)
    elapsed = time.perf_counter() - start
    print(f"{args.programs} programs (seeds {args.start}..{args.start + args.programs - 1}) in {elapsed:.0f} s")
    print(f"errors: {sum(errors.values())} {dict(errors)}")
    print(f"signatures: {len(signatures)} distinct, most common {signatures.most_common(6)}")
    print(f"checks: {dict(sorted(checks.items()))}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
