"""naf_bench.verbalize.traced: a traced prompt numbers the rules and ends with the trace request and the worked
example's rules, question and gold trace; the same prompt comes from a dataset row; no trace without a reading."""

import pytest

from naf_bench.errors import ConfigError
from naf_bench.readings import NO_SEMANTICS
from naf_bench.syntax.parse import parse_program
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.traced import EXAMPLE, render_row_prompt, render_traced_prompt, traced_prompt

PROGRAM = parse_program("q :- not a.")


def test_the_final_part_asks_for_a_trace_and_works_the_example_under_the_rows_reading():
    prompt = traced_prompt(PROGRAM, "q", "wfs")
    assert prompt.numbered and prompt.rules == ("Proposition q is true if proposition a is not true.",)
    request, example_rules, question, trace = prompt.final.split("\n\n")
    assert request.startswith("Reason in a trace, one sentence per line")
    assert request.endswith("then a line 'ANSWER: X' where X is A, B, or C.")
    assert example_rules.split("\n")[:3] == [
        "Worked example. Rules:",
        "1. Proposition c is true.",
        "2. Proposition b is true if proposition c is true.",
    ]
    assert len(example_rules.split("\n")) == 1 + len(EXAMPLE.rules)
    assert question == "Question: Is proposition q true?"
    assert trace.split("\n")[0] == "Trace:"
    assert trace.split("\n")[-2:] == ["Verdict: under the well-founded semantics q is true.", "ANSWER: A"]


def test_the_worked_example_follows_the_reading_asked():
    def verdict(condition):
        return traced_prompt(PROGRAM, "q", condition).final.split("\n")[-2:]

    assert verdict("skept") == ["Verdict: q is true in every stable model.", "ANSWER: A"]
    assert verdict("closed_world") == ["Verdict: the Prolog proof of q does not terminate.", "ANSWER: C"]


def test_a_rows_prompt_is_the_traced_prompt_of_its_program_query_reading_language_and_framing():
    row = {"program": render_asp(PROGRAM), "query": "q", "condition": "cred", "language": "en", "framing": "audit"}
    text = render_row_prompt(row)
    assert text == render_traced_prompt(PROGRAM, "q", "cred", "en", "audit")
    assert "\n\nRules:\n1. The override is granted if and only if auditor a does not approve.\n\n" in text


def test_a_traced_prompt_needs_a_named_reading():
    with pytest.raises(ConfigError, match="a traced prompt needs a named condition; 'none' has no verdict"):
        traced_prompt(PROGRAM, "q", NO_SEMANTICS)
