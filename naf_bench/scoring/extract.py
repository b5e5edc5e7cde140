"""Answer extraction from model text: A (definitely yes), B (definitely no), C (cannot be determined).

``strict``: the last ``ANSWER: X`` (after removing ``<think>…</think>``), else a "final answer is X"
phrase, else a line that is only the letter. Nothing else: no guessing from the last capital letter, so
an unparseable response is visibly unanswered (None). ``reasoning`` adds the last ``\\boxed{…}`` and a
keyword reading of the concluding sentence, for reasoning models that answer in their own format.
"""

from __future__ import annotations

import re

EXTRACTORS = ("strict", "reasoning")
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_ANSWER = re.compile(r"ANSWER\s*:\s*\**\s*\(?([ABC])\b", re.IGNORECASE)
_FINAL = re.compile(r"final answer\s*(?:is|:)\s*[:*\s]*\(?([ABC])\b", re.IGNORECASE)
_LETTER_LINE = re.compile(r"^\s*\**\(?([ABCabc])[).:]?\**\s*$", re.MULTILINE)
_BOXED = re.compile(r"\\boxed\{\s*(?:\\text\{)?\s*([^{}]*?)\s*\}?\s*\}")
_KEYWORDS = (
    ("C", re.compile(r"cannot be determined|can't be determined|undetermined|undefined|unknown", re.IGNORECASE)),
    ("B", re.compile(r"\b(?:false|no)\b", re.IGNORECASE)),
    ("A", re.compile(r"\b(?:true|yes)\b", re.IGNORECASE)),
)


def strip_thinking(text: str) -> str:
    """The text without ``<think>…</think>`` blocks (an unclosed one runs to the end)."""
    return _THINK.sub("", text)


def _letter(word: str) -> str | None:
    word = word.strip().strip("*.()").upper()
    if word in ("A", "B", "C"):
        return word
    for letter, pattern in _KEYWORDS:
        if pattern.search(word):
            return letter
    return None


def extract_answer(text: str | None, extractor: str = "strict") -> str | None:
    """The answer letter, or None when the response states none."""
    if extractor not in EXTRACTORS:
        raise ValueError(f"extractor must be one of {EXTRACTORS}, got {extractor!r}")
    if text is None:
        return None
    visible = strip_thinking(text)
    for pattern in (_ANSWER, _FINAL, _LETTER_LINE):
        matches = pattern.findall(visible)
        if matches:
            return matches[-1].upper()
    if extractor == "reasoning":
        boxed = _BOXED.findall(visible)
        if boxed and (letter := _letter(boxed[-1])):
            return letter
        sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", visible.strip()) if s.strip()]
        if sentences:
            for letter, pattern in _KEYWORDS:
                if pattern.search(sentences[-1]):
                    return letter
    return None
