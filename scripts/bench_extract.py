"""Linear time of the answer extractors on degenerate model text: time at n and 8n characters, print the ratio.

A linear reader shows a ratio near 8; a quadratic one near 64.  ``python scripts/bench_extract.py``
"""

from __future__ import annotations

import time

from naf_bench.scoring.extract import EXTRACTORS, extract_answer

SHAPES = {
    "boxed + spaces": lambda n: "\\boxed{" + " " * n,
    "ANSWER: + newlines": lambda n: "ANSWER:" + "\n" * n,
    "spaces": lambda n: " " * n,
    "<think> repeated": lambda n: "<think>" * (n // 7),
    "\\boxed{ repeated": lambda n: "\\boxed{" * (n // 7),
    "final answer is repeated": lambda n: "final answer is " * (n // 16),
    "option lines": lambda n: "A.\n" * (n // 3),
    "open parentheses": lambda n: "(" * n,
}


def seconds(text: str, extractor: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        extract_answer(text, extractor)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    small, large = 20_000, 160_000
    print(f"{'input':28} {'extractor':10} {'ms at 20k':>10} {'ms at 160k':>11} {'ratio':>6}")
    for name, make in SHAPES.items():
        for extractor in EXTRACTORS:
            a, b = seconds(make(small), extractor), seconds(make(large), extractor)
            print(f"{name:28} {extractor:10} {a * 1e3:10.2f} {b * 1e3:11.2f} {b / a:6.1f}")


if __name__ == "__main__":
    main()
