"""Per-item seeds by hashing the item's coordinates, never ``seed + index`` (streams cannot overlap)."""

from __future__ import annotations

import hashlib
import random


def item_seed(*coordinates: object) -> int:
    """A 63-bit seed (fits an int64 column) from (root seed, config, split, family, index, ...)."""
    text = "\x1f".join(repr(c) for c in coordinates)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def item_rng(*coordinates: object) -> random.Random:
    return random.Random(item_seed(*coordinates))
