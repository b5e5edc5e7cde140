"""naf_bench.syntax.render: ASP text that parses back to the same program, and Prolog clauses with ``\\+`` for
``not``, the body in source order, and every atom prefixed and declared."""

from naf_bench.syntax.ast import Literal, Program, Rule
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.render import (
    PROLOG_PREFIX,
    render_asp,
    render_asp_rule,
    render_prolog,
    render_prolog_clause,
)

RULE = Rule("p", (Literal("b"), Literal("q", False), Literal("a")))


def test_an_asp_rule_keeps_its_body_order_and_writes_not():
    assert render_asp_rule(RULE) == "p :- b, not q, a."
    assert render_asp_rule(Rule("b")) == "b."


def test_asp_text_is_one_rule_a_line_in_source_order_and_parses_back():
    program = Program((RULE, Rule("b"), Rule("p", (Literal("p", False),)), Rule("b")))
    text = render_asp(program)
    assert text == "p :- b, not q, a.\nb.\np :- not p.\nb.\n"
    assert parse_program(text) == program


def test_a_prolog_clause_is_prefixed_by_default_and_has_no_final_period():
    assert PROLOG_PREFIX == "n_"
    assert render_prolog_clause(RULE) == "n_p :- n_b, \\+ n_q, n_a"
    assert render_prolog_clause(Rule("halt")) == "n_halt"
    assert render_prolog_clause(RULE, atom_prefix="") == "p :- b, \\+ q, a"


def test_prolog_text_declares_every_atom_dynamic_and_discontiguous_before_the_clauses():
    program = Program((Rule("p", (Literal("q", False),)), Rule("r"), Rule("p", (Literal("r"),))))
    assert render_prolog(program, atom_prefix=PROLOG_PREFIX) == (
        ":- dynamic n_p/0, n_q/0, n_r/0.\n:- discontiguous n_p/0, n_q/0, n_r/0.\nn_p :- \\+ n_q.\nn_r.\nn_p :- n_r.\n"
    )


def test_an_empty_program_renders_to_empty_text():
    assert render_asp(Program(())) == ""
    assert render_prolog(Program(())) == ""
