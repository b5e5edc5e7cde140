"""How every view writes a share as a percentage: one decimal; a missing value (None, or NaN from lm-eval) as the
view's own marker."""

from __future__ import annotations

import math


def percent(value: float | None, missing: str = "n/a") -> str:
    """``0.8167`` as ``81.7``; None or NaN as ``missing``."""
    if value is None or math.isnan(value):
        return missing
    return f"{100 * value:.1f}"


def nan_if_undefined(value: float | None) -> float:
    """An aggregate for a harness whose metrics must be floats (lm-eval, inspect_ai, lighteval): None (undefined)
    as NaN, never 0.0."""
    return math.nan if value is None else value


def table_header(columns: list[str]) -> list[str]:
    """A markdown table's first two lines: the column names, and a separator with one cell per column."""
    return ["| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]
