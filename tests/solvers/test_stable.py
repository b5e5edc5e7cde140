"""naf_bench.solvers.stable: clingo's brave and cautious consequences and capped model count, the credulous and
skeptical labels read from them, and the conflict budget."""

import pytest

from naf_bench.errors import BudgetExceeded
from naf_bench.solvers.stable import StableResult, search_conflicts, solve_stable
from naf_bench.syntax.parse import parse_program

EVEN_CYCLE = "a :- not b.\nb :- not a.\nc :- a.\nc :- b.\n"
FOUR_CYCLES = "".join(f"a{i} :- not b{i}.\nb{i} :- not a{i}.\n" for i in range(4)) + "c :- a0.\nc :- b0.\n"


def test_an_even_cycle_has_two_models_whose_union_is_brave_and_intersection_cautious():
    result = solve_stable(parse_program(EVEN_CYCLE))
    assert (result.brave, result.cautious, result.n_models) == ({"a", "b", "c"}, {"c"}, 2)
    assert not result.incoherent
    assert (result.credulous("a"), result.skeptical("a"), result.skeptical("c")) == ("T", "F", "T")
    assert result.credulous("absent") == "F"


def test_an_odd_loop_has_no_model_and_then_every_atom_is_skeptically_true():
    result = solve_stable(parse_program("p :- not p.\nq."))
    assert (result.brave, result.cautious, result.n_models) == (frozenset(), None, 0)
    assert result.incoherent
    assert (result.credulous("q"), result.skeptical("q"), result.skeptical("p")) == ("F", "T", "T")


def test_past_the_cap_the_count_is_cap_plus_one_and_consequences_come_from_clingos_modes():
    capped = solve_stable(parse_program(FOUR_CYCLES), model_cap=5)
    assert (capped.n_models, capped.model_cap) == (6, 5)
    assert capped.brave == {f"{x}{i}" for x in "ab" for i in range(4)} | {"c"}
    assert capped.cautious == {"c"}
    assert solve_stable(parse_program(FOUR_CYCLES)).n_models == 16


def test_a_search_stopped_by_the_conflict_limit_raises_budget_exceeded():
    with pytest.raises(BudgetExceeded, match="budget clingo_conflicts=0 exceeded") as info:
        solve_stable(parse_program(FOUR_CYCLES), conflict_limit=0)
    assert (info.value.budget, info.value.limit) == ("clingo_conflicts", 0)


def test_propagation_alone_decides_an_even_cycle_with_no_conflict():
    assert search_conflicts(parse_program(EVEN_CYCLE)) == 0
    assert StableResult(frozenset(), None, 0, 10, 0, 0).incoherent
