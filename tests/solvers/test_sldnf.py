"""naf_bench.solvers.sldnf: SWI-Prolog's own SLDNF answers T, F or loop under an inference limit, on the clauses
the query depends on, and can run again on the clauses it already loaded."""

import pytest

from naf_bench.errors import SolverError
from naf_bench.solvers.sldnf import INFERENCE_LIMIT, PrologResult, sldnf_request, solve_sldnf, solve_sldnf_again
from naf_bench.syntax.parse import parse_program


def test_a_negated_atom_without_rules_makes_the_query_succeed_and_itself_fail():
    program = parse_program("p :- not q.")
    assert solve_sldnf(program, "p").label == "T"
    assert solve_sldnf(program, "q").label == "F"


def test_a_positive_loop_exhausts_the_inference_limit_and_runs_again_under_a_larger_one():
    program = parse_program("p :- p.")
    first = solve_sldnf(program, "p", inference_limit=1000)
    assert (first.label, first.inferences) == ("loop", 1010)
    again = solve_sldnf_again(program, "p", 5000, first)
    assert (again.label, again.inferences, again.loaded) == ("loop", 5010, first.loaded)
    assert INFERENCE_LIMIT == 10_000


def test_running_again_on_clauses_the_worker_no_longer_holds_loads_them_once_more():
    program = parse_program("p :- not q.")
    forgotten = PrologResult("T", 0, loaded=10**9)  # a name the worker never loaded
    again = solve_sldnf_again(program, "p", 100, forgotten)
    assert again.label == "T" and again.loaded != 10**9


def test_the_request_sends_only_the_clauses_the_query_depends_on_as_prefixed_terms():
    request = sldnf_request(parse_program("p :- not q, r.\nr.\nz :- p."), "p", 77)
    assert request.method == "sldnf"
    name, _, rest = request.arguments.partition(",")
    assert rest == "[(n_p :- \\+ n_q, n_r),(n_r)],[n_p,n_r],n_p,77"
    assert request.decode("false 12") == PrologResult("F", 12, int(name))
    assert request.decode("unloaded") is None
    with pytest.raises(SolverError, match="gave no SLDNF answer: 'garbage'"):
        request.decode("garbage")
