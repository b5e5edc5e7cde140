"""Wording of rules, questions, options and the no-semantics instruction, per language (abstract framing); each
reading's own instruction is in its entry of the readings table."""

from __future__ import annotations

from dataclasses import dataclass


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
    options: tuple[str, str, str]
    final: str
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
    options=("  A. Definitely yes", "  B. Definitely no", "  C. Cannot be determined"),
    final="Think step by step, then end with a line 'ANSWER: X' where X is A, B, or C.",
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
    options=("  A. 一定是", "  B. 一定否", "  C. 无法确定"),
    final="请逐步推理，最后单独用一行 'ANSWER: X' 给出答案（X 为 A、B 或 C）。",
    no_semantics="请回答关于以下规则的问题。",
)

LANGUAGES = {"en": ENGLISH, "zh": CHINESE}
