"""The translate-then-solve reader on translations written for these tests, in the shapes models produce."""

import pytest

from naf_bench.scoring.translation import OUTCOMES, answer_from_translation, read_translation
from naf_bench.syntax.render import render_asp


def test_program_after_thinking_with_arguments_renamed():
    text = (
        "<think>\nFirst, eligible(y) :- tier(y, t1).\nQUERY: eligible.\n</think>\n\n"
        "tier(y, t1).\neligible(y)  :- tier(y,t1), not disqualified( y ).\nQUERY: eligible(y).\n"
    )
    program, query = read_translation(text)
    assert render_asp(program) == "tier_y_t1.\neligible_y :- tier_y_t1, not disqualified_y.\n"
    assert query == "eligible_y"
    answer = answer_from_translation(text, "wfs")
    assert (answer.letter, answer.outcome, answer.error) == ("A", "answered", None)


def test_the_last_fenced_block_wins_and_prose_is_not_read():
    draft, final = "```\na :- not b.\n```", "```prolog\nb.\na :- not b.\nQUERY: a\n```"
    text = f"Here is a draft:\n{draft}\nOn reflection b is a fact.\n{final}"
    answer = answer_from_translation(text, "wfs")
    assert (render_asp(answer.program), answer.query, answer.letter) == ("b.\na :- not b.\n", "a", "B")


def test_without_a_fence_lines_ending_in_a_period_are_read():
    text = "a :- not b.\nb :- not a.\nThat is all\nQUERY: a"
    answer = answer_from_translation(text, "wfs")
    assert (answer.letter, answer.query) == ("C", "a")
    prose = answer_from_translation("The rules say this.\na.\nQUERY: a", "wfs")
    assert prose.outcome == "unparseable"
    assert prose.error.startswith("unparseable translation: line 1, column 1: variable 'The' is not allowed")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("a.\nnot b :- a.\nQUERY: b", "line 2, column 1: a rule head cannot be negated"),
        ("t3(y).\nt2(X) :- t3(X).\nQUERY: t2(y)", "line 2, column 4: variable 'X' is not allowed"),
        ("p(a).\np_a :- q.\nQUERY: p_a", "line 2, column 1: the atoms p(a) and p_a would both read as p_a"),
        ("a :- b(c, d.\nQUERY: a", "line 1, column 7: an argument list without ')'"),
        ("x.\nonline(1) :- not online(2) x.\nQUERY: x", "line 2, column 28: unexpected 'x', expected ',' or '.'"),
        ("a.\nQUERY: A", "line 2, column 8: query: variable 'A' is not allowed"),
    ],
)  # fmt: skip
def test_a_line_that_does_not_parse_fails_the_translation_with_its_place(text, error):
    answer = answer_from_translation(text, "wfs")
    assert (answer.program, answer.letter, answer.outcome) == (None, None, "unparseable")
    assert answer.error.startswith(f"unparseable translation: {error}")


def test_a_query_no_rule_defines_is_its_own_outcome():
    answer = answer_from_translation("t1 :- t2.\neligible :- t1.\nQUERY: eligible(y).", "wfs")
    assert (answer.letter, answer.query, answer.outcome) == (None, "eligible_y", "undefined_query")
    assert answer.error == "no rule defines the query atom 'eligible_y'"
    only_query = answer_from_translation("<think>a :- not b.</think>\nQUERY: a.", "wfs")
    assert only_query.outcome == "undefined_query" and only_query.program.rules == ()


def test_query_lines_are_counted():
    assert answer_from_translation("a.", "wfs").outcome == "no_query"
    twice = answer_from_translation("a.\nQUERY: a\nQUERY: a.", "wfs")
    assert (twice.outcome, twice.error) == ("no_query", "expected one QUERY line, found 2")
    assert answer_from_translation("<think>a.\nQUERY: a", "wfs").error == "expected one QUERY line, found 0"
    assert set(OUTCOMES) >= {"answered", "undefined_query", "no_query", "unparseable", "uncertifiable"}
