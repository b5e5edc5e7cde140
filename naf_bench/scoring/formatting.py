"""How every view writes a share as a percentage: one decimal; a missing value (None, or NaN from lm-eval) as the
view's own marker."""

from __future__ import annotations

import math


def percent(value: float | None, missing: str = "n/a") -> str:
    """``0.8167`` as ``81.7``; None or NaN as ``missing``."""
    if value is None or math.isnan(value):
        return missing
    return f"{100 * value:.1f}"


def table_header(columns: list[str]) -> list[str]:
    """A markdown table's first two lines: the column names, and a separator with one cell per column."""
    return ["| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]
