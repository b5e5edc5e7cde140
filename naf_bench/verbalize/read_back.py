"""Prompts read back into programs: the inverse of the abstract English wording (``render_prompt``'s, which the
NAF-Bench authors' prompts share), so that a set that stores only its prompts can be certified again."""

from __future__ import annotations

import re

from naf_bench.syntax.ast import Literal, Program, Rule

_FACT = re.compile(r"Proposition ([a-z][A-Za-z0-9_]*) is true")
_CONDITION = re.compile(r"proposition ([a-z][A-Za-z0-9_]*) is (not )?true")
_QUESTION = re.compile(r"Question: Is proposition ([a-z][A-Za-z0-9_]*) true\?")


def program_from_prompt(prompt: str) -> tuple[Program, str]:
    """The program and query of a prompt in the authors' abstract wording (``Proposition a is true if
    proposition b is true and proposition c is not true.``), rules in prompt order."""
    start = prompt.find("Rules:")
    end = prompt.find("Question:", max(start, 0))
    question = _QUESTION.search(prompt, max(end, 0))
    if start < 0 or end < 0 or question is None:
        raise ValueError("no 'Rules:' block followed by 'Question: Is proposition q true?'")
    rules = []
    for sentence in prompt[start + len("Rules:") : end].split("."):
        sentence = sentence.strip()
        if not sentence:
            continue
        head, _, conditions = sentence.partition(" if ")
        fact = _FACT.fullmatch(head)
        if fact is None:
            raise ValueError(f"cannot read the rule {sentence[:80]!r}")
        body = []
        for part in conditions.split(" and ") if conditions else ():
            literal = _CONDITION.fullmatch(part)
            if literal is None:
                raise ValueError(f"cannot read the condition {part[:80]!r}")
            body.append(Literal(literal.group(1), positive=literal.group(2) is None))
        rules.append(Rule(fact.group(1), tuple(body)))
    return Program(tuple(rules)), question.group(1)
