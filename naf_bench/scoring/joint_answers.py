"""JOINT answers of one completion: the letter of each JOINT reading, read from the lines a JOINT prompt asks for
(:func:`naf_bench.verbalize.joint_prompt.answer_line`, ``wfs ANSWER: X``), each with the extractor a letter-only row is
read with.

After ``<think>`` blocks, a line that opens with a reading's tag (markdown and brackets allowed around it:
``**wfs** ANSWER: C``, ``[cred] ANSWER: A``, ``- skept: B``) answers that reading with the extractor's letter of
the rest of the line; the last such line that reads as a letter counts; a reading without one is unanswered. Linear in
the text: one pass over its lines.
"""

from __future__ import annotations

import re
from functools import cache

from naf_bench.readings import joint_conditions
from naf_bench.scoring.extract import extract_answer, strip_thinking


@cache
def _tagged(conditions: tuple[str, ...]) -> re.Pattern:
    names = "|".join(re.escape(condition) for condition in sorted(conditions, key=len, reverse=True))
    return re.compile(rf"[\s>#*_`-]*\[?({names})\]?(?![\w])[*_`\]]*[ \t]*[:：-]?[ \t]*(.*)", re.IGNORECASE)


def joint_answers(text: str | None, extractor: str) -> dict[str, str | None]:
    """Each JOINT reading's letter in ``text`` under ``extractor`` (None where it states none)."""
    conditions = tuple(joint_conditions())
    found: dict[str, str | None] = dict.fromkeys(conditions)
    if text is None:
        return found
    pattern = _tagged(conditions)
    for line in strip_thinking(text).split("\n"):
        if (match := pattern.match(line)) and (letter := extract_answer(match.group(2), extractor)):
            found[match.group(1).lower()] = letter
    return found
