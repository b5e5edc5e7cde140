"""naf_bench.syntax.sample: seeded random programs within the asked bounds, the same for the same seed, and
seeded rule orders that permute rules without changing them (order 0 keeps the program)."""

from collections import Counter

from naf_bench.syntax.ast import Literal, Program, Rule
from naf_bench.syntax.sample import random_program, reorder


def test_a_random_program_is_the_same_for_the_same_seed_and_differs_for_another():
    assert random_program("x") == random_program("x")
    assert random_program(1) != random_program(2)
    assert len(random_program(1).rules) == 12


def test_a_random_program_stays_within_its_atoms_and_body_size():
    program = random_program(5, n_atoms=3, n_rules=40, max_body=2)
    assert len(program.rules) == 40
    assert set(program.atoms) <= {"q", "a1", "a2"}
    assert all(len(rule.body) <= 2 for rule in program.rules)


def test_the_negation_and_fact_shares_reach_their_extremes():
    assert all(rule.is_fact for rule in random_program(3, fact_share=1.0).rules)
    no_facts_all_negated = random_program(3, fact_share=0.0, negation=1.0)
    assert all(rule.body and not rule.positive_body for rule in no_facts_all_negated.rules)
    assert all(not rule.negative_body for rule in random_program(3, negation=0.0).rules)


def test_order_zero_keeps_the_program_and_other_orders_are_seeded_permutations():
    program = Program(tuple(Rule(f"a{i}", (Literal("q", False),)) for i in range(8)))
    assert reorder(program, 0, seed=9) is program
    shuffled = reorder(program, 1, seed=9)
    assert shuffled == reorder(program, 1, seed=9)
    assert shuffled.rules != program.rules
    assert Counter(shuffled.rules) == Counter(program.rules)
    assert reorder(program, 2, seed=9).rules != shuffled.rules
