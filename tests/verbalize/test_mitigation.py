"""naf_bench.verbalize.mitigation: the translate-then-solve prompt (rules and question only, under a system prompt
asking for a program) and the verify-before-answer prompt (numbered rules, the three-step scaffold last)."""

from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.mitigation import (
    TRANSLATE_SYSTEM,
    render_translation_prompt,
    render_verify_prompt,
    verify_scaffold,
)

PROGRAM = parse_program("q :- r, not a.\nr.")


def test_the_translation_prompt_has_the_rules_and_question_and_no_semantics_or_options():
    system, user = render_translation_prompt(PROGRAM, "q")
    assert system == TRANSLATE_SYSTEM
    assert "QUERY: <the queried atom>" in system
    assert user == (
        "Rules:\nProposition q is true if proposition r is true and proposition a is not true.\n"
        "Proposition r is true.\n\nQuestion: Is proposition q true?"
    )


def test_the_translation_prompt_keeps_the_rows_framing():
    _, user = render_translation_prompt(PROGRAM, "q", framing="sensor")
    assert user == (
        "Rules:\nThe alarm is raised if sensor r is active and sensor a is not active.\nSensor r is active.\n\n"
        "Question: Is the alarm raised?"
    )


def test_the_verify_prompt_numbers_the_rules_and_ends_with_the_scaffold():
    text = render_verify_prompt(PROGRAM, "q", "wfs")
    assert "\n\nRules:\n1. Proposition q is true if proposition r is true and proposition a is not true.\n" in text
    assert "2. Proposition r is true.\n\nQuestion: Is proposition q true?" in text
    assert text.endswith("\n\n" + verify_scaffold("en"))
    assert "Think step by step" not in text
    assert text.startswith("Use the well-founded semantics.")


def test_the_scaffold_lists_the_letters_in_each_language():
    assert verify_scaffold("en").startswith("Before answering, reason in three explicit, labelled steps:\nSTEP 1")
    assert verify_scaffold("en").endswith("Then give your final answer as a line 'ANSWER: X' where X is A, B, or C.")
    assert verify_scaffold("zh").endswith("最后单独用一行 'ANSWER: X' 给出答案（X 为 A、B 或 C）。")
