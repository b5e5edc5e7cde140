"""How many distinct programs a generation unit can reach: the bound behind a config's size and a hidden set's
secrecy (``scripts/cell_bound.py``, ``naf-bench leaderboard new-set``)."""

from __future__ import annotations

from collections import Counter

from naf_bench.generate.config import GenerationConfig, Unit
from naf_bench.syntax.structure import canonical_key


def chao1(counts: Counter) -> float | None:
    """The bias-corrected Chao1 estimate of the distinct values behind ``counts`` (value: times drawn); None when
    no value was drawn twice or more (no repeat: nothing to estimate from)."""
    if all(n == 1 for n in counts.values()):
        return None
    singletons = sum(n == 1 for n in counts.values())
    doubletons = sum(n == 2 for n in counts.values())
    return len(counts) + singletons * (singletons - 1) / (2 * (doubletons + 1))


def no_repeat_bound(draws: int) -> float:
    """Where ``draws`` equally likely draws repeated no value, the number of values is above this at 95 %: a
    Poisson count of repeats, mean about draws^2 / (2 M), is 0 with probability under 5 % once the mean passes 3."""
    return draws * draws / 6


def reach(
    config: GenerationConfig, unit: Unit, split: str, attempts: int, exclude: frozenset[str] = frozenset()
) -> dict:
    """Attempts 0 .. ``attempts``-1 of a unit in one split, assembled and keyed as the walk would (not certified):
    ``{"attempts", "distinct", "once", "twice", "chao1", "at_least", "excluded"}``, ``chao1`` None where no key
    was drawn twice and ``at_least`` the bound that leaves (else the distinct keys drawn); ``excluded``, the
    distinct keys drawn that are in ``exclude`` (programs another set already took)."""
    cell = config.cell(unit, split)
    counts = Counter(canonical_key(cell.assemble(index)[0], "q") for index in range(attempts))
    estimate = chao1(counts)
    return {
        "attempts": attempts,
        "distinct": len(counts),
        "once": sum(n == 1 for n in counts.values()),
        "twice": sum(n == 2 for n in counts.values()),
        "chao1": estimate,
        "at_least": no_repeat_bound(attempts) if estimate is None else len(counts),
        "excluded": len(exclude & counts.keys()),
    }
