"""ModelLog scoring speed: rho/CAcc of many small formulas (2-12 events), batched, against a naive
per-item enumeration measured in the same run.

    python scripts/bench_consistency.py [--items 100000] [--formulas 200] [--naive-sample 2000]
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import re
import time

import numpy as np

from naf_bench.scoring.consistency import compile_formula, compute_consistency, summarize

OPERATORS = ("&", "|", "->", "<->", "^")


def random_formula(rng: random.Random) -> str:
    events = [f"e{i}" for i in range(rng.randint(2, 12))]
    parts = [("~" if rng.random() < 0.3 else "") + e for e in events]
    rng.shuffle(parts)
    text = parts[0]
    for part in parts[1:]:
        text = f"({text} {rng.choice(OPERATORS)} {part})"
    return text


def naive(formula: str, probabilities: dict[str, float]) -> tuple[float, float]:
    """WMC and WMC0 by enumerating assignments one by one, evaluating the formula with Python's eval."""
    events = sorted(set(compile_formula(formula).events))
    expression = re.sub(r"~(e\d+)", r"(not \1)", formula).replace("<->", "==").replace("->", "<=")
    expression = expression.replace("&", " and ").replace("|", " or ").replace("^", "!=")
    wmc = models = 0.0
    for values in itertools.product((False, True), repeat=len(events)):
        env = dict(zip(events, values, strict=True))
        if eval(expression, {}, env):
            models += 1
            wmc += math.prod(probabilities[e] if v else 1 - probabilities[e] for e, v in env.items())
    return wmc, models / 2 ** len(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--formulas", type=int, default=200)
    parser.add_argument("--naive-sample", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(0)
    formulas = [random_formula(rng) for _ in range(args.formulas)]
    items = [rng.choice(formulas) for _ in range(args.items)]
    probabilities = [{e: rng.random() for e in compile_formula(f).events} for f in items]
    compile_formula.cache_clear()

    start = time.perf_counter()
    scores = compute_consistency(items, probabilities)
    batched = args.items / (time.perf_counter() - start)

    groups: dict[str, list[int]] = {}
    for i, text in enumerate(items):
        groups.setdefault(text, []).append(i)
    wmc, wmc0 = np.zeros(args.items), np.zeros(args.items)
    arrays = {
        text: np.array([[probabilities[i][e] for e in compile_formula(text).events] for i in rows])
        for text, rows in groups.items()
    }
    start = time.perf_counter()
    for text, rows in groups.items():
        formula = compile_formula(text)
        wmc[rows], wmc0[rows] = formula.wmc(arrays[text]), formula.wmc0
    summarize(wmc, wmc0)
    arrays_rate = args.items / (time.perf_counter() - start)

    sample = list(range(min(args.naive_sample, args.items)))
    start = time.perf_counter()
    naive_values = [naive(items[i], probabilities[i]) for i in sample]
    naive_rate = len(sample) / (time.perf_counter() - start)
    assert np.allclose([w for w, _ in naive_values], [scores["wmc"][i] for i in sample])
    assert np.allclose([w0 for _, w0 in naive_values], [scores["wmc0"][i] for i in sample])

    print(f"{args.items} items over {args.formulas} formulas with 2-12 events (checked against the naive sample)")
    print(f"  compute_consistency (dicts in, rho/CAcc out): {batched:12,.0f} items/s")
    print(f"  compiled formulas on arrays:                  {arrays_rate:12,.0f} items/s")
    print(f"  naive per-item enumeration ({len(sample)} items):     {naive_rate:12,.0f} items/s")
    print(f"  speed-up: {batched / naive_rate:,.0f}x (dict API), {arrays_rate / naive_rate:,.0f}x (arrays)")


if __name__ == "__main__":
    main()
