"""naf_bench.verbalize.joint_prompt: one prompt lists every JOINT reading's instruction under its tag and asks
for one ``<tag> ANSWER: X`` line per reading, in English or Chinese, refusing a bad language or a leaky atom."""

import pytest

from naf_bench.errors import ConfigError
from naf_bench.readings import instruction, joint_conditions
from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.joint_prompt import answer_line, render_joint_prompt

PROGRAM = parse_program("q :- not a.\na :- not q.")


def test_an_answer_line_is_the_tag_then_answer_and_the_letter():
    assert answer_line("wfs", "C") == "wfs ANSWER: C"
    assert answer_line("cred") == "cred ANSWER: X"


def test_the_english_prompt_tags_each_reading_lists_the_rules_and_asks_for_a_line_each():
    parts = render_joint_prompt(PROGRAM, "q").split("\n\n")
    assert parts[0] == (
        "Answer the question below under each of the following readings of 'not', each reading on its own."
    )
    assert parts[1].split("\n") == [f"[{c}] {instruction(c, 'en')}" for c in joint_conditions()]
    assert parts[2] == (
        "Rules:\nProposition q is true if proposition a is not true.\n"
        "Proposition a is true if proposition q is not true."
    )
    assert parts[3] == "Question: Is proposition q true?"
    assert parts[4].startswith("For each reading, choose exactly one:\n  A. Definitely yes")
    assert parts[5] == (
        "Think step by step, then end with one line per reading, 'closed_world ANSWER: X', 'cred ANSWER: X', "
        "'skept ANSWER: X', 'wfs ANSWER: X', where each X is A, B, or C."
    )
    assert len(parts) == 6


def test_the_chinese_prompt_joins_the_answer_lines_with_the_chinese_comma():
    text = render_joint_prompt(PROGRAM, "q", language="zh")
    assert text.endswith(
        "请逐步推理，最后每种解读单独一行给出答案：'closed_world ANSWER: X'、'cred ANSWER: X'、'skept ANSWER: X'、"
        "'wfs ANSWER: X'（每个 X 为 A、B 或 C）。"
    )
    assert "如果命题 a 不为真，则命题 q 为真。" in text


def test_a_bad_language_and_an_atom_that_names_an_answer_are_config_errors():
    with pytest.raises(ConfigError, match="unknown language 'fr'"):
        render_joint_prompt(PROGRAM, "q", language="fr")
    with pytest.raises(ConfigError, match=r"rendering leaks the answer through \['loop'\]"):
        render_joint_prompt(parse_program("q :- not loop."), "q")
