"""The Ladder (Blum & Hardt, 2015, parameter-free): what a live board shows of the hidden set.

A team's shown JOINT changes only when a new submission beats the shown one by more than its standard
error, program by program: with ``d`` the per-program difference in JOINT (-1, 0 or 1) between the new
submission and the shown one and ``S = sum(d)``, the new one is shown iff ``S > 0`` and ``S**2 > sum(d**2)``.
That is ``mean(d) > std(d, ddof=1) / sqrt(n)`` squared and multiplied out, so it is decided in whole
numbers. A team's first submission is shown as it is. Small changes (a flip or a few) never move the board,
which is what keeps the board from reading labels back one upload at a time.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

Z95 = 1.959963984540054  # the standard normal's 97.5 % quantile


def ladder_accepts(new: Mapping[str, bool], shown: Mapping[str, bool] | None) -> bool:
    """Whether ``new`` (program id -> solved) replaces the ``shown`` submission (None: the team has none)."""
    if shown is None:
        return True
    if new.keys() != shown.keys():
        raise ValueError("the Ladder compares submissions on the same programs")
    d = [int(new[p]) - int(shown[p]) for p in new]
    total = sum(d)
    return total > 0 and total * total > sum(x * x for x in d)


def shown_positions(submissions: Iterable[Mapping[str, bool]]) -> list[bool]:
    """For a team's submissions in upload order, whether each one replaced the shown one when it came."""
    shown = None
    replaced = []
    for solved in submissions:
        accepted = ladder_accepts(solved, shown)
        replaced.append(accepted)
        if accepted:
            shown = solved
    return replaced


def wilson_interval(solved: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson's score interval for ``solved`` of ``n`` programs: a function of the shown JOINT and ``n``
    alone, so it says nothing of which programs are solved (None when ``n`` is 0)."""
    if n <= 0:
        return None
    p = solved / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
