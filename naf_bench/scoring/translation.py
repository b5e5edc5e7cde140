"""Scoring of translate-then-solve (seed 000's mitigation): the model only writes a program (after its
``<think>`` block, which is dropped); our strict parser reads it (nothing else reaches an engine) and our
certifier answers. A translation that does not parse, that the engines cannot certify, or that exceeds the
certification budget is an unanswered item with the reason. The prompt is in
:mod:`naf_bench.verbalize.mitigation`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from naf_bench.certify import DEFAULT_BUDGET, Budget, certify
from naf_bench.errors import NafBenchError, ParseError
from naf_bench.readings import gold_letter
from naf_bench.scoring.extract import strip_thinking
from naf_bench.syntax.ast import Program
from naf_bench.syntax.parse import parse_atom, parse_program


@dataclass(frozen=True)
class Translation:
    """What a model's translation yields: the parsed program and query, the solver's letter, or why not."""

    program: Program | None
    query: str | None
    letter: str | None
    error: str | None


_FENCE = re.compile(r"^```[A-Za-z]*\s*$", re.MULTILINE)


def answer_from_translation(text: str, condition: str, budget: Budget = DEFAULT_BUDGET) -> Translation:
    """Parse a model's program strictly, certify it (within ``budget``), and answer under ``condition``."""
    lines = [line for line in _FENCE.sub("", strip_thinking(text)).splitlines() if line.strip()]
    queries = [line.split(":", 1)[1].strip() for line in lines if line.strip().startswith("QUERY:")]
    if len(queries) != 1:
        return Translation(None, None, None, f"expected one QUERY line, found {len(queries)}")
    source = "\n".join(line for line in lines if not line.strip().startswith("QUERY:"))
    try:
        program = parse_program(source)
        query = parse_atom(queries[0])
    except ParseError as exc:
        return Translation(None, None, None, f"unparseable translation: {exc}")
    try:
        certificate = certify(program, query, budget=budget)
    except NafBenchError as exc:  # disagreement, budget exceeded, engine failure: never ends the run
        return Translation(program, query, None, f"uncertifiable translation ({type(exc).__name__}): {exc}")
    return Translation(program, query, gold_letter(condition, certificate.labels), None)
