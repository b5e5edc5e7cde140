"""The two mitigation prompts of seed 000's appendix: translate-then-solve and verify-before-answer.

Translate-then-solve: the model only writes a program; :mod:`naf_bench.scoring.translation` parses it,
certifies it and answers.
"""

from __future__ import annotations

from dataclasses import replace

from naf_bench.readings import NO_SEMANTICS
from naf_bench.syntax.ast import Program
from naf_bench.verbalize.prompt import build_prompt
from naf_bench.verbalize.templates import listed_letters

TRANSLATE_SYSTEM = (
    "You translate natural-language rule sets into a ground normal logic program. Output ONLY the program, "
    "one statement per line, in this grammar:\nfact.\nhead :- b1, b2, not c1.\nQUERY: <the queried atom>\n"
    "Use short ground atom names (no variables). Encode 'X holds if and only if Y does not' as the rule "
    "'x :- not y.' (one rule per such statement). Encode 'P unless Q' as 'p :- <conditions>, not q.'. "
    "Do not solve or explain; output only the program and the QUERY line."
)

# language -> the verify-before-answer scaffold; {letters}: the table's letters, listed
VERIFY_SCAFFOLDS = {
    "en": (
        "Before answering, reason in three explicit, labelled steps:\n"
        "STEP 1 - State the exact semantics you must apply and its rule for 'true'/'false'/'undefined'.\n"
        "STEP 2 - For EACH atom that appears, determine its truth value under THAT semantics, citing the numbers of "
        "the rules you use. For any atom whose support runs through a cycle of negations, check whether it is grounded "
        "in facts; if it is not, it is 'undefined' (do NOT case-split into separate consistent worlds unless the "
        "semantics tells you to).\n"
        "STEP 3 - Evaluate the queried atom from the Step-2 values (undefined propagates: anything that depends on "
        "an undefined atom and is not otherwise grounded is itself undefined).\n"
        "Then give your final answer as a line 'ANSWER: X' where X is {letters}."
    ),
    "zh": (
        "回答之前，请分三个明确标注的步骤推理：\n"
        "步骤 1 - 说明你必须采用的语义，以及它判定'真'/'假'/'未定义'的规则。\n"
        "步骤 2 - 对出现的每个命题，按该语义确定其真值，并引用所用规则的编号。若某命题的支持经过一个否定环，"
        "检查它是否以事实为根据；若不是，则它为'未定义'（除非语义要求，不要拆分成若干各自一致的世界）。\n"
        "步骤 3 - 由步骤 2 的真值求出所问命题的值（未定义会传播：依赖于未定义命题且没有其他根据的命题本身也未定义）。\n"
        "最后单独用一行 'ANSWER: X' 给出答案（X 为 {letters}）。"
    ),
}


def verify_scaffold(language: str) -> str:
    return VERIFY_SCAFFOLDS[language].format(letters=listed_letters(language))


def render_translation_prompt(
    program: Program, query: str, framing: str = "abstract", language: str = "en"
) -> tuple[str, str]:
    """(system prompt, user prompt): the rules and the question, no semantics and no options."""
    prompt = build_prompt(program, query, NO_SEMANTICS, language, framing)
    return TRANSLATE_SYSTEM, replace(prompt, instruction=None, options=None, final=None).render()


def render_verify_prompt(
    program: Program, query: str, condition: str, framing: str = "abstract", language: str = "en"
) -> str:
    """The row's prompt, rules numbered, with the verify-before-answer scaffold as the final instruction."""
    prompt = build_prompt(program, query, condition, language, framing, numbered=True)
    return replace(prompt, final=verify_scaffold(language)).render()
