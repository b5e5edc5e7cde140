"""Differential run: every engine pair agrees on thousands of seeded random programs."""

from collections import Counter

from naf_bench import certify
from naf_bench.syntax.sample import random_program


def test_differential_random_programs():
    signatures = Counter()
    for seed in range(2000):
        signatures[certify(random_program(seed, n_atoms=8, n_rules=14), "q").signature] += 1
    for seed in range(200):
        signatures[certify(random_program(f"large-{seed}", n_atoms=20, n_rules=40), "q").signature] += 1
    assert sum(signatures.values()) == 2200
    # the run must exercise every label of every semantics, not only easy programs
    for bin_signature in ("TTTT", "TFuloop", "FTuloop", "TTuloop", "FFFloop", "TTTloop", "FTFF"):
        assert signatures[bin_signature] > 0, bin_signature


def test_random_programs_are_deterministic():
    assert random_program(7) == random_program(7)
    assert random_program(7) != random_program(8)
