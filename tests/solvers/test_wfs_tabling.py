"""naf_bench.solvers.wfs_tabling: well-founded values by SWI-Prolog tabling and by the alternating fixpoint in
Prolog, from programs sent as numbered rule terms; the fixpoint settles what tabling leaves undefined."""

from naf_bench.solvers.wfs_tabling import (
    fixpoint_request,
    solve_wfs_prolog_fixpoint,
    solve_wfs_tabling,
    wfs_request,
)
from naf_bench.syntax.parse import parse_program

MIXED = "a :- not b.\nb :- not a.\nc.\nd :- not c.\ne :- e.\n"


def test_both_engines_give_true_false_and_undefined_per_atom_in_program_order():
    expected = {"a": "u", "b": "u", "c": "T", "d": "F", "e": "F"}
    assert solve_wfs_tabling(parse_program(MIXED)) == expected
    assert solve_wfs_prolog_fixpoint(parse_program(MIXED)) == expected
    assert list(solve_wfs_tabling(parse_program(MIXED))) == ["a", "b", "c", "d", "e"]


def test_the_requests_carry_numbered_rules_and_the_components_dependencies_first():
    program = parse_program("a :- not b, c.\nc.")
    assert wfs_request(program).arguments == "[rule(0,[2],[1]),rule(2,[],[])],3"
    assert fixpoint_request(program).arguments == (
        "[component([1],[]),component([2],[rule(2,[],[])]),component([0],[rule(0,[2],[1])])],3"
    )
    assert (wfs_request(program).method, fixpoint_request(program).method) == ("wfs", "fixpoint")


def test_a_positive_loop_through_conditional_answers_is_undefined_by_tabling_but_decided_by_the_fixpoint():
    program = parse_program(
        "a7 :- not a5, not a5, not a2.\na6 :- not a2, a2.\na4 :- not a6, not a7, a6.\na2 :- not a5, not a4.\na7.\n"
    )
    tabled, fixpoint = solve_wfs_tabling(program), solve_wfs_prolog_fixpoint(program)
    assert [tabled[a] for a in ("a2", "a6", "a4")] == ["u", "u", "u"]
    assert fixpoint == {"a7": "T", "a5": "F", "a2": "T", "a6": "F", "a4": "F"}
