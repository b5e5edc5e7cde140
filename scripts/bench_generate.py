"""Generation speed: a config generated, certified and rendered from scratch, with Algorithm 1's rejections.

    python scripts/bench_generate.py [--config main]

Prints rows/s, the seconds taken (target for ``main``: <= 2 s on one core), and per bin the attempts and
rejection rate (wrong signature, isomorphic duplicate, order-sensitive, uncertifiable).
"""

from __future__ import annotations

import argparse
import time

from naf_bench.certify import certify
from naf_bench.dataset import generate_instances, instance_rows
from naf_bench.generate.config import CONFIGS, get_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="main", choices=sorted(CONFIGS))
    args = parser.parse_args()
    config = get_config(args.config)
    certify("a :- not b.", "a")  # start the engines outside the timing
    start = time.perf_counter()
    rows, stats = [], []
    for split in config.splits:
        instances, split_stats = generate_instances(config, split, set())
        stats.extend(split_stats.items())
        counters: dict[str, int] = {}
        for instance in instances:
            counters[instance.family] = counters.get(instance.family, 0) + 1
            rows.extend(instance_rows(config, instance, counters[instance.family] - 1))
    elapsed = time.perf_counter() - start
    print(f"{args.config}: {len(rows)} rows in {elapsed:.2f} s = {len(rows) / elapsed:.0f} rows/s")
    for bin_name in config.bins:
        cells = [cell_stats for cell, cell_stats in stats if cell.bin == bin_name]
        attempts = sum(c.attempts for c in cells)
        rejected = attempts - sum(c.attempts - round(c.rejection_rate * c.attempts) for c in cells)
        print(
            f"  {bin_name:<16} attempts {attempts:5d}  rejection rate {rejected / attempts:6.1%}  (wrong signature "
            f"{sum(c.wrong_signature for c in cells)}, duplicates {sum(c.duplicates for c in cells)}, "
            f"order-sensitive {sum(c.order_sensitive for c in cells)}; left to the other side of the "
            f"training/evaluation partition {sum(c.other_side for c in cells)})"
        )


if __name__ == "__main__":
    main()
