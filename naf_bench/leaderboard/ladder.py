"""The Ladder (Blum & Hardt, 2015): what a live board shows of the hidden set.

A team has one Ladder state per split, whichever track it declares: the submission shown. A new submission
replaces it only when it solves at least ``MIN_GAIN`` programs more *and* beats it by more than its standard
error, program by program: with ``d`` the per-program difference in JOINT (-1, 0 or 1) between the new
submission and the shown one and ``S = sum(d)``, the new one is shown iff ``S >= MIN_GAIN`` and
``S**2 > sum(d**2)``. The second half is ``mean(d) > std(d, ddof=1) / sqrt(n)`` squared and multiplied out
(Blum and Hardt's parameter-free rule), decided in whole numbers. A team's first submission is shown as it is.

Why a minimum gain of 4 programs: under the parameter-free rule alone, an upload that adds two guessed
programs to the shown answers is released exactly when both guesses are right, so a team reads labels back
from uploads that gain little. A minimum gain does not bound what a better guesser learns, though (one that
takes a second model's answers where the two disagree): each release can still confirm one guessed program. What
bounds every attack is :data:`RELEASES`: a team's state on a hidden set changes at most that many times (its
first submission included), so all that n uploads tell a team is which of them were released (at most
RELEASES - 1 after the first) and the JOINT shown each time: at most log2(C(n - 1, <= RELEASES - 1) x 78^RELEASES)
bits for 77 programs, 42 bits for 90 uploads, whatever it guesses with. ``scripts/bench_probe.py`` measures each
attack's labels learnt over 90 uploads (at most 6 with the cap, 8 without).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

Z95 = 1.959963984540054  # the standard normal's 97.5 % quantile
MIN_GAIN = 4  # programs a new submission must solve beyond the shown one to replace it
RELEASES = 4  # times a team's shown state on a hidden set may change; then its uploads are kept, not shown


def ladder_accepts(new: Mapping[str, bool], shown: Mapping[str, bool] | None, min_gain: int = MIN_GAIN) -> bool:
    """Whether ``new`` (program id -> solved) replaces the ``shown`` submission (None: the team has none);
    ``min_gain=1`` is the parameter-free rule."""
    if shown is None:
        return True
    if new.keys() != shown.keys():
        raise ValueError("the Ladder compares submissions on the same programs")
    d = [int(new[p]) - int(shown[p]) for p in new]
    total = sum(d)
    return total >= max(1, min_gain) and total * total > sum(x * x for x in d)


def shown_positions(
    submissions: Iterable[Mapping[str, bool]], min_gain: int = MIN_GAIN, releases: int = RELEASES
) -> list[bool]:
    """For a team's submissions in upload order, whether each one replaced the shown one when it came (at most
    ``releases`` of them)."""
    shown = None
    replaced = []
    for solved in submissions:
        accepted = sum(replaced) < releases and ladder_accepts(solved, shown, min_gain)
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
