"""Prompts that ask for a checkable trace: numbered rules, and a request for a trace in the grammar of
:mod:`naf_bench.verbalize.trace` with one worked example, in the row's framing and language.

Public API for a traced task (the sft config's user turns use the same prompt)::

    render_traced_prompt(program, query, condition, language="en", framing="abstract") -> str
    traced_prompt(...) -> Prompt            # the same, part by part
    render_row_prompt(row) -> str           # from a dataset row (program, query, condition, language, framing)

and :func:`naf_bench.scoring.steps.check_steps` (or ``check_row``) scores the response.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from naf_bench.errors import ConfigError
from naf_bench.readings import NO_SEMANTICS, READINGS
from naf_bench.syntax.ast import Program
from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.prompt import Prompt, build_prompt
from naf_bench.verbalize.templates import listed_letters
from naf_bench.verbalize.trace import WORDS, render_gold_trace

# Every step kind appears: facts and bodies, no rule, every rule fails, an unfounded pair, undefined atoms.
EXAMPLE = parse_program(
    "c. b :- c. d :- e. d :- not c. f :- g. g :- f. x :- not y. y :- not x. q :- b, not d, not f. q :- x."
)


@cache
def _example_certificate(readings: str):
    """The worked example's certificate under the readings table whose fingerprint is ``readings``."""
    from naf_bench.certify import certify

    return certify(EXAMPLE, "q")


def traced_prompt(
    program: Program, query: str, condition: str, language: str = "en", framing: str = "abstract"
) -> Prompt:
    """The row's prompt with numbered rules, asking for a trace with a worked example in the same words."""
    if condition == NO_SEMANTICS:
        raise ConfigError(f"a traced prompt needs a named condition; {NO_SEMANTICS!r} has no verdict to trace")
    words = WORDS[language]
    example = build_prompt(EXAMPLE, "q", condition, language, framing, numbered=True)
    trace = render_gold_trace(EXAMPLE, _example_certificate(READINGS.fingerprint()), condition, framing, language)
    rules_heading, trace_heading = words.example
    parts = [
        words.trace_request.format(letters=listed_letters(language)),
        rules_heading + "\n" + example.rules_text(),
        example.question,
        trace_heading + "\n" + trace,
    ]
    final = "\n\n".join(parts)
    return replace(build_prompt(program, query, condition, language, framing, numbered=True), final=final)


def render_traced_prompt(
    program: Program, query: str, condition: str, language: str = "en", framing: str = "abstract"
) -> str:
    return traced_prompt(program, query, condition, language, framing).render()


def render_row_prompt(row: Mapping) -> str:
    """The traced prompt of a dataset row."""
    return render_traced_prompt(
        parse_program(row["program"]), row["query"], row["condition"], row["language"], row["framing"]
    )
