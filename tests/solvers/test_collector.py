"""naf_bench.solvers.collector: Python's cyclic collector is paused while a program is certified, the pause nests,
and a caller's own setting is restored."""

import gc

from naf_bench import certify
from naf_bench.solvers.collector import collection_paused


def test_the_collector_is_paused_while_a_program_is_certified():
    seen = []
    certify("q :- not p.\np :- not q.", progress=lambda stage: seen.append(gc.isenabled()))
    assert len(seen) == 7 and not any(seen) and gc.isenabled()
    with collection_paused():
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still holds it
    assert gc.isenabled()
    gc.disable()
    try:
        certify("a.", "a")
        assert not gc.isenabled()  # a caller's own pause is kept
    finally:
        gc.enable()
