"""naf_bench.solvers.stable_check: the stable models enumerated in Python from the well-founded model (guessing
only its undefined atoms), equal to clingo's, and no answer when the guess space is too large."""

from naf_bench.solvers.stable import solve_stable
from naf_bench.solvers.stable_check import GUESS_LIMIT, enumerate_stable_models
from naf_bench.solvers.wfs import solve_wfs
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.sample import random_program


def models(text: str, guess_limit: int = GUESS_LIMIT):
    program = parse_program(text)
    found = enumerate_stable_models(program, solve_wfs(program), guess_limit)
    return found if found is None else set(found)


def test_an_even_cycle_gives_one_model_per_side_with_their_consequences():
    assert models("a :- not b.\nb :- not a.\nc :- a.\nd :- not c.") == {
        frozenset({"a", "c"}),
        frozenset({"b", "d"}),
    }


def test_a_program_the_well_founded_model_decides_has_that_model_alone():
    assert models("a.\nb :- not a.\nc :- b.\nd :- not c.") == {frozenset({"a", "d"})}


def test_an_odd_loop_has_no_stable_model():
    assert models("p :- not p.\nq.") == set()


def test_a_guess_space_over_the_limit_gives_no_answer():
    four_cycles = "".join(f"a{i} :- not b{i}.\nb{i} :- not a{i}.\n" for i in range(4))  # 2**8 guesses
    assert models(four_cycles, guess_limit=255) is None
    assert len(models(four_cycles, guess_limit=256)) == 16


def test_the_models_agree_with_clingos_count_and_consequences_on_random_programs():
    counts = []
    for seed in range(40):  # no facts, one literal a body, mostly negated: 0 to 4 models among them
        program = random_program(seed, n_atoms=8, n_rules=12, max_body=1, negation=0.9, fact_share=0.0)
        found = enumerate_stable_models(program, solve_wfs(program))
        clingo = solve_stable(program)
        assert len(found) == clingo.n_models, seed
        assert frozenset().union(*found) == clingo.brave, seed
        counts.append(len(found))
    assert set(counts) == {0, 1, 2, 3, 4}
