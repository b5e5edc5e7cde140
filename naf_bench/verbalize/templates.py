"""Wording of rules, questions, options and condition instructions, per language (abstract framing)."""

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
    instructions: dict[str, str]


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
    instructions={
        "none": "Answer the question about the rules below.",
        "closed_world": (
            "Read the rules as a Prolog program under negation as failure (SLDNF resolution): rules are tried "
            "in the order given and their conditions from left to right, and 'not p' holds exactly when the "
            "attempt to prove p fails after finitely many steps. Answer A if the proof of the statement in the "
            "question succeeds, B if it fails finitely, and C if it never terminates."
        ),
        "wfs": (
            "Use the well-founded semantics. A statement is true if it is derived from facts through rules "
            "whose negated conditions are already established false; false if every way of deriving it fails, "
            "circular support included; and undefined otherwise, for example when it hangs on a cycle through "
            "negation. Answer A if the statement in the question is true, B if it is false, and C if it is undefined."
        ),
        "cred": (
            "Use stable-model (answer-set) semantics and reason credulously: answer A if the statement in the question "
            "holds in at least one stable model, and B otherwise; in particular B when there is no stable model at all."
        ),
        "skept": (
            "Use stable-model (answer-set) semantics and reason skeptically: answer A if the statement in the question "
            "holds in every stable model, in particular A (vacuously) when there is no stable model at all, and B if "
            "some stable model makes it false."
        ),
    },
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
    instructions={
        "none": "请回答关于以下规则的问题。",
        "closed_world": (
            "请把这些规则当作采用否定即失败（SLDNF 归结）的 Prolog 程序：按给出的顺序尝试规则，按从左到右的顺序检查条件；"
            "当证明 p 的尝试在有限步内失败时，'不为真' 的条件 'not p' 成立。若对问题的证明成功选 A，有限失败选 B，永不终止选 C。"
        ),
        "wfs": (
            "请使用良基语义（well-founded semantics）。若一个命题能从事实出发、经由否定条件均已确定为假的规则推出，则为真；"
            "若推出它的所有途径都失败（包括循环支持），则为假；否则为未定义，例如它依赖于一个经过否定的环。为真选 A，为假选 B，未定义选 C。"
        ),
        "cred": "请使用稳定模型（回答集）语义并进行轻信推理：若该命题至少在一个稳定模型中为真选 A，否则选 B；特别地，若不存在任何稳定模型则选 B。",
        "skept": (
            "请使用稳定模型（回答集）语义并进行怀疑推理：若该命题在每个稳定模型中都为真选 A，特别地，若不存在任何稳定模型则（空真地）选 A；"
            "若某个稳定模型使它为假则选 B。"
        ),
    },
)

LANGUAGES = {"en": ENGLISH, "zh": CHINESE}
