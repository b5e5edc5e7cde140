"""naf_bench.verbalize.read_back: a prompt in the abstract English wording reads back into its program and query,
rules and literals in order; anything else is a ValueError naming what could not be read."""

import pytest

from naf_bench.readings import named_conditions
from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.prompt import build_prompt
from naf_bench.verbalize.read_back import program_from_prompt

PROGRAM = parse_program("q :- r, not a, b2.\nr.\na :- not q.\nb2 :- r.\nr.\n")


@pytest.mark.parametrize("condition", named_conditions())
def test_a_rendered_prompt_reads_back_into_the_same_program_and_query(condition):
    prompt = build_prompt(PROGRAM, "q", condition, "en", "abstract").render()
    assert program_from_prompt(prompt) == (PROGRAM, "q")


def test_the_authors_wording_reads_directly():
    prompt = (
        "Rules:\nProposition p is true if proposition x is not true.\nProposition x is true.\n\n"
        "Question: Is proposition p true?"
    )
    assert program_from_prompt(prompt) == (parse_program("p :- not x.\nx."), "p")


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("Question: Is proposition q true?", "no 'Rules:' block"),
        ("Rules:\nProposition q is true.\n", "no 'Rules:' block"),
        ("Rules:\nThe case is escalated.\n\nQuestion: Is proposition q true?", "cannot read the rule 'The case"),
        (
            "Rules:\nProposition q is true if reviewer a signs off.\n\nQuestion: Is proposition q true?",
            "cannot read the condition 'reviewer a signs off'",
        ),
    ],
)
def test_a_prompt_in_other_words_is_a_value_error(prompt, message):
    with pytest.raises(ValueError, match=message):
        program_from_prompt(prompt)
