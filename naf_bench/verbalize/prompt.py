"""Prompt assembly: rules in a given order, the question, the condition's instruction, the options."""

from __future__ import annotations

import random

from naf_bench.errors import ConfigError
from naf_bench.syntax.ast import Program, Rule
from naf_bench.verbalize.framing import FRAMINGS, render_framed_rules
from naf_bench.verbalize.templates import LANGUAGES, Language

# `none` (C0) names no semantics; closed_world is scored against the SLDNF label.
CONDITIONS = ("none", "closed_world", "cred", "skept", "wfs")
SEMANTICS_OF = {"closed_world": "sldnf", "cred": "cred", "skept": "skept", "wfs": "wfs"}
_LETTERS = {"T": "A", "F": "B", "u": "C", "loop": "C"}

# Words that would reveal a certified answer if they appeared in the rules or the question.
LEAKY_WORDS = {
    "en": ("undefined", "loop", "cycle", "stable model", "always", "never", "cannot", "definitely", "unknown"),
    "zh": ("未定义", "循环", "稳定模型", "永远", "无法", "肯定"),
}


def gold_letter(condition: str, labels: dict[str, str]) -> str | None:
    """A/B/C for a named condition (cred/skept: T→A, F→B; wfs: u→C; closed_world: loop→C); None for none."""
    if condition == "none":
        return None
    if condition not in SEMANTICS_OF:
        raise ConfigError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    return _LETTERS[labels[SEMANTICS_OF[condition]]]


def _language(language: str) -> Language:
    if language not in LANGUAGES:
        raise ConfigError(f"unknown language {language!r}; expected one of {sorted(LANGUAGES)}")
    return LANGUAGES[language]


def render_rule(rule: Rule, language: str = "en") -> str:
    words = _language(language)
    if rule.is_fact:
        return words.fact.format(h=rule.head)
    conditions = words.joiner.join(
        (words.positive if lit.positive else words.negative).format(a=lit.atom) for lit in rule.body
    )
    return words.rule.format(h=rule.head, conditions=conditions)


def render_rules(program: Program, language: str = "en") -> str:
    return "\n".join(render_rule(rule, language) for rule in program.rules)


def reorder(program: Program, order_id: int, seed: int) -> Program:
    """Rule order ``order_id``: 0 keeps the program's order, others are seeded permutations."""
    if order_id == 0:
        return program
    rules = list(program.rules)
    random.Random(f"naf-bench-order/{seed}/{order_id}").shuffle(rules)
    return Program(tuple(rules))


def check_leakage(text: str, language: str = "en") -> None:
    """Raise if the rules or question of a prompt contain a word that names an answer."""
    lowered = text.lower()
    found = [word for word in LEAKY_WORDS[language] if word in lowered]
    if found:
        raise ConfigError(f"rendering leaks the answer through {found}")


def render_prompt(program: Program, query: str, condition: str, language: str = "en", framing: str = "abstract") -> str:
    """The full prompt of one row, laid out like the reference implementation's: instruction, rules,
    question, the three options, the answer-line instruction."""
    words = _language(language)
    if condition not in CONDITIONS:
        raise ConfigError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    if framing == "abstract":
        rules, question = render_rules(program, language), words.question.format(q=query)
    elif framing in FRAMINGS and language == "en":
        rules, question = render_framed_rules(program, query, framing)
    else:
        raise ConfigError(
            f"unknown framing {framing!r} for language {language!r}; expected abstract or {list(FRAMINGS)}"
        )
    check_leakage(rules + "\n" + question, language)
    options = words.options_title + "\n" + "\n".join(words.options)
    return "\n\n".join([words.instructions[condition], words.intro + "\n" + rules, question, options, words.final])
