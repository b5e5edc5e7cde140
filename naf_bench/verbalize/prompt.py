"""Prompt assembly: rules in a given order, the question, the condition's instruction, the options, as a
typed :class:`Prompt` whose parts variants replace (mitigations, traced prompts)."""

from __future__ import annotations

from dataclasses import dataclass

from naf_bench.errors import ConfigError
from naf_bench.readings import NO_SEMANTICS, all_conditions, instruction
from naf_bench.syntax.ast import Program, Rule
from naf_bench.verbalize.framing import FRAMINGS, render_framed_rules
from naf_bench.verbalize.templates import LANGUAGES, Language, listed_letters, option_lines

# Words that would reveal a certified answer if they appeared in the rules or the question.
LEAKY_WORDS = {
    "en": ("undefined", "loop", "cycle", "stable model", "always", "never", "cannot", "definitely", "unknown"),
    "zh": ("未定义", "循环", "稳定模型", "永远", "无法", "肯定"),
}


def _language(language: str) -> Language:
    if language not in LANGUAGES:
        raise ConfigError(f"unknown language {language!r}; expected one of {sorted(LANGUAGES)}")
    return LANGUAGES[language]


def render_rule_sentence(rule: Rule, language: str = "en") -> str:
    words = _language(language)
    if rule.is_fact:
        return words.fact.format(h=rule.head)
    conditions = words.joiner.join(
        (words.positive if lit.positive else words.negative).format(a=lit.atom) for lit in rule.body
    )
    return words.rule.format(h=rule.head, conditions=conditions)


def render_rules(program: Program, language: str = "en") -> str:
    return "\n".join(render_rule_sentence(rule, language) for rule in program.rules)


def check_leakage(text: str, language: str = "en") -> None:
    """Raise if the rules or question of a prompt contain a word that names an answer."""
    lowered = text.lower()
    found = [word for word in LEAKY_WORDS[language] if word in lowered]
    if found:
        raise ConfigError(f"rendering leaks the answer through {found}")


@dataclass(frozen=True)
class Prompt:
    """A prompt part by part, so that variants are ``replace(prompt, final=...)`` in any language and framing.

    ``render`` lays the parts out like the authors' implementation (instruction, rules, question, options,
    final instruction), leaving out parts set to ``None``; ``numbered`` prefixes each rule with its number.
    """

    instruction: str | None
    intro: str
    rules: tuple[str, ...]
    question: str
    options: str | None
    final: str | None
    numbered: bool = False

    def rules_text(self) -> str:
        return "\n".join(f"{n}. {rule}" if self.numbered else rule for n, rule in enumerate(self.rules, 1))

    def render(self) -> str:
        parts = (self.instruction, self.intro + "\n" + self.rules_text(), self.question, self.options, self.final)
        return "\n\n".join(part for part in parts if part is not None)


def rule_sentences(
    program: Program, query: str, language: str = "en", framing: str = "abstract"
) -> tuple[tuple[str, ...], str]:
    """The rules (one sentence each, in program order) and the question as a prompt words them."""
    words = _language(language)
    if framing == "abstract":
        return tuple(render_rule_sentence(rule, language) for rule in program.rules), words.question.format(q=query)
    if framing in FRAMINGS and language == "en":
        return render_framed_rules(program, query, framing)
    raise ConfigError(f"unknown framing {framing!r} for language {language!r}; expected abstract or {list(FRAMINGS)}")


def build_prompt(
    program: Program,
    query: str,
    condition: str,
    language: str = "en",
    framing: str = "abstract",
    numbered: bool = False,
) -> Prompt:
    """The prompt of one row: the condition's instruction, the rules, the question, the three options and
    the answer-line instruction."""
    words = _language(language)
    if condition not in all_conditions():
        raise ConfigError(f"unknown condition {condition!r}; expected one of {all_conditions()}")
    rules, question = rule_sentences(program, query, language, framing)
    check_leakage("\n".join(rules) + "\n" + question, language)
    options = words.options_title + "\n" + "\n".join(option_lines(language))
    said = words.no_semantics if condition == NO_SEMANTICS else instruction(condition, language)
    final = words.final.format(letters=listed_letters(language))
    return Prompt(said, words.intro, rules, question, options, final, numbered)


def render_prompt(program: Program, query: str, condition: str, language: str = "en", framing: str = "abstract") -> str:
    """The letter-only prompt of one row (rules unnumbered), as text."""
    return build_prompt(program, query, condition, language, framing).render()
