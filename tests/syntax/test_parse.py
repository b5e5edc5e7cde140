import pickle

import pytest

from naf_bench import ParseError, parse_program, render_asp, render_prolog
from naf_bench.syntax import Literal, Rule, parse_atom, parse_header


def test_rules_and_literal_order_are_kept():
    program = parse_program("q :- b, not a, c.\n% comment\nb.\nq :- a.\nb.")
    assert program.rules == (
        Rule("q", (Literal("b"), Literal("a", False), Literal("c"))),
        Rule("b"),
        Rule("q", (Literal("a"),)),
        Rule("b"),
    )
    assert program.atoms == ("q", "b", "a", "c")
    assert program.rules_by_head["q"] == (program.rules[0], program.rules[2])
    assert program.rules_by_head["c"] == ()


def test_ast_is_immutable():
    program = parse_program("a.")
    with pytest.raises(AttributeError):
        program.rules[0].head = "b"


def test_a_program_pickles_as_its_rules_and_its_indices_come_back():
    program = parse_program("q :- b, not a, c.\nb.\nq :- a.")
    assert program.atoms == ("q", "b", "a", "c")  # cached on the instance
    data = pickle.dumps(program)
    assert b"rules_by_head" not in data and len(data) < len(pickle.dumps(vars(program)))
    copy = pickle.loads(data)
    assert copy == program and copy.rules[0].body[1] == Literal("a", False) and "atoms" not in vars(copy)
    assert copy.atoms == program.atoms and copy.rules_by_head == program.rules_by_head


def test_render_round_trip():
    text = "a_1 :- bB, not c_.\nbB.\nc_ :- not a_1, not a_1.\n"
    assert render_asp(parse_program(text)) == text
    assert parse_program(render_asp(parse_program(text))) == parse_program(text)


def test_render_prolog_declares_every_atom():
    text = render_prolog(parse_program("halt :- not fail. fail."), atom_prefix="n_")
    assert text == (
        ":- dynamic n_halt/0, n_fail/0.\n:- discontiguous n_halt/0, n_fail/0.\nn_halt :- \\+ n_fail.\nn_fail.\n"
    )


@pytest.mark.parametrize(
    ("text", "line", "column", "reason"),
    [
        ("a :- X.", 1, 6, "variable 'X' is not allowed"),
        ("a :- _x.", 1, 6, "variable '_x' is not allowed"),
        ("a.\nb :- -c.", 2, 6, "classical negation"),
        ("a | b.", 1, 3, "disjunction"),
        ("a ; b.", 1, 3, "disjunction"),
        ("{a}.", 1, 1, "choice rules"),
        ("a :- #count{ b }.", 1, 6, "directives and aggregates"),
        ("#show a/0.", 1, 1, "directives and aggregates"),
        (":- initialization(main).", 1, 1, "directives (':- initialization(...)')"),
        ("a.\n  :- a, b.", 2, 3, "integrity constraints"),
        ("p(a).", 1, 2, "atoms with arguments"),
        ("a :- not not b.", 1, 10, "double negation"),
        ("not a.", 1, 1, "a rule head cannot be negated"),
        ("not.", 1, 1, "'not' is a keyword"),
        ("a :- b", 1, 7, "unexpected end of input"),
        ("a :- b,.", 1, 8, "unexpected '.'"),
        ("a :- .", 1, 6, "unexpected '.'"),
        ("a :- \\+ b.", 1, 6, "Prolog syntax"),
        ("a :- b. c", 1, 10, "unexpected end of input"),
        ("A.", 1, 1, "variable 'A'"),
        ("a :- b = c.", 1, 8, "comparisons"),
        ('a :- "b".', 1, 6, "strings"),
    ],
)
def test_parse_errors(text, line, column, reason):
    with pytest.raises(ParseError) as info:
        parse_program(text)
    error = info.value
    assert (error.line, error.column) == (line, column)
    assert reason in error.reason
    assert str(error).startswith(f"line {line}, column {column}: ")


def test_parse_error_carries_the_source_line():
    with pytest.raises(ParseError) as info:
        parse_program("a.\nb :- c, X.\nd.")
    assert info.value.source_line == "b :- c, X."


def test_parse_atom_and_header():
    assert parse_atom("q1") == "q1"
    with pytest.raises(ParseError):
        parse_atom("Q")
    with pytest.raises(ParseError):
        parse_atom("q r")
    assert parse_header("% query: a\n%expect:FTuloop\na.\n% query: b") == {"query": "a", "expect": "FTuloop"}
