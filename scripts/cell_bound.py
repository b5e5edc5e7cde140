"""How many distinct programs a cell can give: the bound on a config's size (README "Beyond one machine").

    python scripts/cell_bound.py [--config sft] [--set KEY=VALUE ...] [--attempts 5000] [--split train]

For each unit of the config, the script assembles attempts 0 .. N-1 of its cell in one split, as the walk would
(the same seeds), and keys each (the canonical key: programs equal up to renaming and order are one), without
certifying them. It prints the distinct keys, how many keys were drawn once and twice, and the Chao1 estimate
of the distinct programs the cell's draws can reach, S + f1 (f1 - 1) / (2 (f2 + 1)) (S distinct keys, f1 and f2
drawn once and twice). With no key drawn twice there is no estimate, only a bound: were the cell's programs M
equally likely draws, N draws would repeat about N^2 / (2 M) times, and none repeating puts M above N^2 / 6 at
95 % (a Poisson count of 0 has a mean under 3). Certification, the family's acceptance and the
training/evaluation partition then keep a share of these programs (the walk's keep rate); the walk gives up on a
cell after ``attempts_per_item`` attempts per wanted program.
"""

from __future__ import annotations

import argparse
import time

from naf_bench.generate.bound import reach
from naf_bench.generate.config import CONFIGS, HIDDEN_CONFIGS, get_config, parse_overrides


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="sft", choices=sorted({**CONFIGS, **HIDDEN_CONFIGS}))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=8")
    parser.add_argument("--attempts", type=int, default=5000, help="attempts assembled per cell")
    parser.add_argument("--split", help="the split whose attempts are drawn (default: the config's first)")
    args = parser.parse_args()
    config = get_config(args.config, **parse_overrides(args.set))
    split = args.split or config.splits[0]
    if split not in config.splits:
        raise SystemExit(f"config {args.config!r} has no split {split!r}; it has {list(config.splits)}")
    n = args.attempts
    for unit in config.units():
        start = time.process_time()
        cell = reach(config, unit, split, n)
        seconds = (time.process_time() - start) / n
        bound = (
            f"no key twice: more than {cell['at_least']:,.0f} at 95 %"
            if cell["chao1"] is None
            else f"Chao1 {cell['chao1']:,.0f}"
        )
        print(
            f"{unit.family} {dict(unit.axes)}: {n} attempts in {split}, {cell['distinct']} distinct keys "
            f"({cell['once']} once, {cell['twice']} twice); "
            f"distinct programs the cell reaches: {bound}; {1e3 * seconds:.2f} ms an attempt (assembled and keyed)",
            flush=True,
        )


if __name__ == "__main__":
    main()
