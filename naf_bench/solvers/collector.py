"""Python's cyclic garbage collector, paused while a program is certified.

Parsing and solving a program of n rules allocate a few container objects per rule and free them together at the
end; while they live, every full collection Python starts walks all of them, and one starts each time the objects
that survived younger collections grow by a quarter: on 10⁵ rules the engines spent a third of their time there,
and more the larger the program (`scripts/bench_certify.py --scaling`). The engines make no reference cycles
that outlive a call, so reference counting frees what they make; a collection runs as usual once the pause ends.
The collector is process-wide: another thread's cyclic garbage waits for the pause to end (seconds, on a program
of 10⁵ rules).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0  # how many callers are inside collection_paused(), over all threads
_was_enabled = False


@contextmanager
def collection_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block, and restore it as it was when the outermost block ends;
    blocks nest and may overlap across threads (the collector is process-wide)."""
    global _paused, _was_enabled
    with _lock:
        if not _paused:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if not _paused and _was_enabled:
                gc.enable()
