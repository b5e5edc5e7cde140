"""Wording of rules, questions, options and the no-semantics instruction, per language (abstract framing); each
reading's own instruction is in its entry of the readings table."""

from __future__ import annotations

from dataclasses import dataclass

from naf_bench.errors import ConfigError
from naf_bench.readings import answer_letters, letter_of


@dataclass(frozen=True)
class Language:
    fact: str  # {h}
    rule: str  # {h}, {conditions}
    positive: str  # {a}
    negative: str  # {a}
    joiner: str
    intro: str
    question: str  # {q}
    options_title: str
    options: dict[str, str]  # label -> the wording of the option the table gives it (readings.letter_of())
    letter_seps: tuple[str, str]  # between the letters an instruction lists, and before the last
    final: str  # {letters}: the table's letters, listed
    no_semantics: str  # the instruction of condition none, which names no reading


ENGLISH = Language(
    fact="Proposition {h} is true.",
    rule="Proposition {h} is true if {conditions}.",
    positive="proposition {a} is true",
    negative="proposition {a} is not true",
    joiner=" and ",
    intro="Rules:",
    question="Question: Is proposition {q} true?",
    options_title="Choose exactly one:",
    options={"T": "Definitely yes", "F": "Definitely no", "u": "Cannot be determined"},
    letter_seps=(", ", ", or "),
    final="Think step by step, then end with a line 'ANSWER: X' where X is {letters}.",
    no_semantics="Answer the question about the rules below.",
)

CHINESE = Language(
    fact="命题 {h} 为真。",
    rule="如果{conditions}，则命题 {h} 为真。",
    positive="命题 {a} 为真",
    negative="命题 {a} 不为真",
    joiner="且",
    intro="规则：",
    question="问题：命题 {q} 为真吗？",
    options_title="请选择一项：",
    options={"T": "一定是", "F": "一定否", "u": "无法确定"},
    letter_seps=("、", " 或 "),
    final="请逐步推理，最后单独用一行 'ANSWER: X' 给出答案（X 为 {letters}）。",
    no_semantics="请回答关于以下规则的问题。",
)

LANGUAGES = {"en": ENGLISH, "zh": CHINESE}


def listed_letters(language: str) -> str:
    """The table's letters as an instruction lists them ("A, B, or C")."""
    between, before_last = LANGUAGES[language].letter_seps
    *first, last = answer_letters()
    return between.join(first) + before_last + last if first else last


def option_lines(language: str) -> list[str]:
    """The options, one line per letter of the table, each worded by the labels it stands for."""
    wording: dict[str, str] = {}
    for label, text in LANGUAGES[language].options.items():
        if label in letter_of():
            wording.setdefault(letter_of()[label], text)
    if missing := [letter for letter in answer_letters() if letter not in wording]:
        raise ConfigError(f"no wording in {language!r} for the option(s) {missing}: add it to the options of its label")
    return [f"  {letter}. {wording[letter]}" for letter in answer_letters()]
