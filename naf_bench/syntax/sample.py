"""Seeded random ground normal programs (for property tests, differential runs and benchmarks) and seeded
rule orders (for the generator's rule-order variants)."""

from __future__ import annotations

import random

from naf_bench.syntax.ast import Literal, Program, Rule


def random_program(
    seed: int | str,
    n_atoms: int = 8,
    n_rules: int = 12,
    max_body: int = 3,
    negation: float = 0.4,
    fact_share: float = 0.2,
) -> Program:
    """A program over atoms ``q, a1, a2, ...``; duplicates, self-loops and unused atoms are allowed."""
    rng = random.Random(f"naf-bench-random-program/{seed}")
    atoms = ["q"] + [f"a{i}" for i in range(1, n_atoms)]
    rules = []
    for _ in range(n_rules):
        head = rng.choice(atoms)
        size = 0 if rng.random() < fact_share else rng.randint(1, max_body)
        body = tuple(Literal(rng.choice(atoms), rng.random() >= negation) for _ in range(size))
        rules.append(Rule(head, body))
    return Program(tuple(rules))


def reorder(program: Program, order_id: int, seed: int) -> Program:
    """Rule order ``order_id``: 0 keeps the program's order, others are seeded permutations."""
    if order_id == 0:
        return program
    rules = list(program.rules)
    random.Random(f"naf-bench-order/{seed}/{order_id}").shuffle(rules)
    return Program(tuple(rules))
