"""The attack on a hidden set with the public code only: draw every tier of the set's config from root seeds of
one's own choosing, key each draw up to renaming, and count the hidden programs met.

    python scripts/hidden_attack.py [--config hidden] [--draws 1000000] [--seeds 2] [--jobs 1] [--key KEYFILE]

A fresh hidden set is drawn like ``--config`` (``naf-bench leaderboard new-set``; from ``--key``, else from a
random key that is not kept), then ``--draws`` draws per tier are made, split evenly over ``--seeds`` root seeds
(1, 2, ...; ``--jobs`` processes, one seed each) with :func:`naf_bench.generate.bound.search`. The script prints
the programs found per tier. On public ``hard`` (``--config hard``), 2 x 2,000 draws per tier find 60 of 77: the
decided, loopy, parity and coupled tiers reach 32-128 programs. ``tests/leaderboard/test_hidden_sets.py`` runs
2 x 10^4 draws per tier on ``hidden``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from naf_bench import parse_program
from naf_bench.generate.bound import search
from naf_bench.generate.config import CONFIGS, HIDDEN_CONFIGS, get_config
from naf_bench.leaderboard.secret import new_set, read_key
from naf_bench.syntax.structure import canonical_key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="hidden", choices=sorted({**CONFIGS, **HIDDEN_CONFIGS}))
    parser.add_argument("--draws", type=int, default=1_000_000, help="draws per tier, over all seeds")
    parser.add_argument("--seeds", type=int, default=2, help="the attacker's root seeds (1 .. N)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (one seed each)")
    parser.add_argument("--key", help="the hidden set's key file (default: a random key, not kept)")
    args = parser.parse_args()
    key = read_key(args.key) if args.key else secrets.token_bytes(32)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        manifest = new_set(key, args.config, folder, attempts=50)  # the set only: its reach is not the point here
        rows = [json.loads(line) for line in (Path(folder) / "gold.jsonl").read_text().splitlines()]
    programs = {row["program_id"]: parse_program(row["program"]) for row in rows}
    tier_of = {
        canonical_key(program, "q"): program_id.rsplit("-i", 1)[0].split("-", 2)[2]
        for program_id, program in programs.items()
    }
    print(
        f"hidden set of {args.config!r}: {manifest['programs']} programs in {len(manifest['tiers'])} tiers "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )
    per_seed = -(-args.draws // args.seeds)
    config = get_config(args.config)
    attack = partial(search, config, list(programs.values()), attempts=per_seed)
    with ProcessPoolExecutor(args.jobs) as pool:
        found = set().union(*pool.map(attack, [[seed] for seed in range(1, args.seeds + 1)]))
    hidden, met = Counter(tier_of.values()), Counter(tier_of[key] for key in found)
    for tier in hidden:
        print(f"{tier:16} {met[tier]:3d} of {hidden[tier]:2d} found")
    print(
        f"{len(found)} of {len(programs)} hidden programs found with {args.seeds} x {per_seed:,} draws per tier "
        f"({args.seeds * per_seed * len(hidden):,} in all); {time.perf_counter() - started:.0f} s, load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )


if __name__ == "__main__":
    main()
