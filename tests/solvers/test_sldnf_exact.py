"""naf_bench.solvers.sldnf_exact: Prolog's SLDNF decided exactly from stream summaries (successes, divergence),
with no step budget: the summary algebra and the labels, success counts and rounds of small programs."""

from naf_bench.solvers.sldnf_exact import (
    BOTTOM,
    FAIL,
    OMEGA,
    SUCCEED,
    SLDNFResult,
    bind,
    concat,
    negate,
    solve_sldnf_exact,
)
from naf_bench.syntax.parse import parse_program


def test_negation_fails_on_a_success_succeeds_on_finite_failure_and_diverges_on_divergence():
    assert negate((2, False)) == FAIL
    assert negate(FAIL) == SUCCEED
    assert negate(BOTTOM) == BOTTOM


def test_conjunction_multiplies_counts_and_clause_order_adds_them_until_a_divergence():
    assert bind((2, False), (3, False)) == (6, False)
    assert bind((2, True), (0, False)) == (0, True)  # every success fails on, then the first call diverges
    assert bind(FAIL, BOTTOM) == FAIL  # nothing to run the rest for
    assert bind((OMEGA, False), FAIL) == BOTTOM  # infinitely many retries, none succeeds
    assert concat((1, False), (2, True)) == (3, True)
    assert concat(BOTTOM, SUCCEED) == BOTTOM  # the second clause is never reached


def test_labels_and_success_counts_of_small_programs():
    assert solve_sldnf_exact(parse_program("p :- not q."), "p") == SLDNFResult("T", 0, 1)
    assert solve_sldnf_exact(parse_program("p :- not q."), "q") == SLDNFResult("F", 0, 0)
    assert solve_sldnf_exact(parse_program("p. p. p :- q. q. q."), "p") == SLDNFResult("T", 0, 4)
    assert solve_sldnf_exact(parse_program("p :- not q."), "absent") == SLDNFResult("F", 0, 0)


def test_clause_order_decides_between_a_loop_and_infinitely_many_successes():
    assert solve_sldnf_exact(parse_program("p :- p. p."), "p") == SLDNFResult("loop", 1, 0)
    assert solve_sldnf_exact(parse_program("p. p :- p."), "p") == SLDNFResult("T", 3, OMEGA)


def test_re_entering_an_atom_that_succeeds_on_an_earlier_clause_first_gives_that_success():
    program = parse_program("r3. r3 :- y2, r1, not r1.\ny2.\nr1 :- r3.")
    assert solve_sldnf_exact(program, "r3") == SLDNFResult("T", 3, 1)


def test_failing_after_each_of_infinitely_many_successes_is_a_loop_and_so_is_its_negation():
    program = parse_program("q :- not r.\nr :- p, fail.\np.\np :- p.")
    assert solve_sldnf_exact(program, "r") == SLDNFResult("loop", 3, 0)
    assert solve_sldnf_exact(program, "q").label == "loop"
    assert solve_sldnf_exact(parse_program("p :- not p."), "p").label == "loop"
