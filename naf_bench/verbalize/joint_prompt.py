"""The JOINT prompt: one program asked under every JOINT reading at once, each reading's answer on its own line.

A letter-only prompt asks one reading; JOINT (seed 000) counts a program solved when every JOINT reading of it is
answered right. Asked in one prompt, JOINT is a property of one completion, so an RL trainer that groups
completions of one prompt (GRPO) can reward it. The prompt lists each reading's instruction under its tag (the
readings table's name, e.g. ``wfs``) and asks for one line per reading, ``wfs ANSWER: X``, which
:func:`naf_bench.scoring.joint_answers.joint_answers` reads with the extractor of a letter-only row. No published
row uses this rendering: it is a view of a row's program (the lm-eval task ``naf_bench_joint_prompt``, the
training stream).
"""

from __future__ import annotations

from naf_bench.readings import instruction, joint_conditions
from naf_bench.syntax.ast import Program
from naf_bench.verbalize.prompt import check_leakage, rule_sentences
from naf_bench.verbalize.templates import LANGUAGES, listed_letters, option_lines

# language -> (the opening, the options' title, the closing with {lines} and {letters})
WORDING = {
    "en": (
        "Answer the question below under each of the following readings of 'not', each reading on its own.",
        "For each reading, choose exactly one:",
        "Think step by step, then end with one line per reading, {lines}, where each X is {letters}.",
    ),
    "zh": (
        "请分别在以下每种对“不”的解读下回答下面的问题，各解读互不影响。",
        "每种解读请选择一项：",
        "请逐步推理，最后每种解读单独一行给出答案：{lines}（每个 X 为 {letters}）。",
    ),
}
SEPARATOR = {"en": ", ", "zh": "、"}


def answer_line(condition: str, letter: str = "X") -> str:
    """The line a JOINT completion answers ``condition`` with."""
    return f"{condition} ANSWER: {letter}"


def render_joint_prompt(program: Program, query: str, language: str = "en", framing: str = "abstract") -> str:
    """The JOINT prompt of a program: every JOINT reading's instruction under its tag, the rules (unnumbered, in
    program order), the question, the options, and the request for one answer line per reading."""
    rules, question = rule_sentences(program, query, language, framing)  # a ConfigError names a bad language
    check_leakage("\n".join(rules) + "\n" + question, language)
    opening, title, closing = WORDING[language]
    readings = "\n".join(f"[{condition}] {instruction(condition, language)}" for condition in joint_conditions())
    lines = SEPARATOR[language].join(f"'{answer_line(condition)}'" for condition in joint_conditions())
    options = title + "\n" + "\n".join(option_lines(language))
    final = closing.format(lines=lines, letters=listed_letters(language))
    parts = (opening + "\n\n" + readings, LANGUAGES[language].intro + "\n" + "\n".join(rules), question, options, final)
    return "\n\n".join(parts)
