"""Answer extraction from model text: the option letters of the readings table (A: definitely yes, B: definitely
no, C: cannot be determined), each a truth value's letter there (true, false, undefined).

Three named modes (lm-eval calls them filters); each returns the letter or None, and None is counted as
unanswered, never as a wrong letter:

``strict``
    The last ``ANSWER: X`` (markdown emphasis and parentheses allowed around X), else the last "final answer
    is X", else the last line that is only the letter. ``<think>…</think>`` is removed first (an unclosed
    block runs to the end). The instructed format and nothing else.
``flexible``
    ``strict``, else the last ``\\boxed{…}`` (a letter or an answer word), else option lines such as
    ``C. Cannot be determined``, ``**B**`` or ``(A)`` when they all name one letter (a restated option list
    names three and is ignored), else "the answer is X", else the option wording ("definitely no", "无法确定")
    or a truth word (true / false / undefined) in the concluding sentence. Hedges such as "the answer is
    probably A" stay unanswered.
``authors``
    The NAF-Bench authors' reasoning extractor, as their tables used it (its old name ``reference`` is read as
    ``authors`` wherever an extractor is named, :func:`unalias_extractor`): their instructed-format parser (an
    ``ANSWER: X`` not followed by a letter, in the visible text and then in the raw text; an answer phrase;
    a line that is only the letter), then a free-form conclusion about the query atom: the last ``\\boxed{}``,
    else up to 160 characters after the last "answer"/"conclusion", else the last 200 characters, read for
    undefined / false / true keywords in that order, the query atom's name meaning true. Only closed
    ``<think>`` blocks are removed, as theirs does.

Every mode runs in time linear in the text: patterns are anchored on literals, whitespace runs are single
character classes, and lines are scanned one by one. The letters are the table's
(:func:`naf_bench.readings.answer_letters`); words name truth values (``T``, ``F``, ``u``), whose letters the
table gives (:func:`naf_bench.readings.letter_of`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from naf_bench.readings import answer_letters, letter_of

EXTRACTORS = ("strict", "flexible", "authors")
EXTRACTOR_ALIASES = {"reference": "authors"}  # old name -> name, for options users typed before issue 57
# The one default: the metric, `score`, the board, the lm-eval group's headline filter, training and RL rewards.
# flexible reads every answer strict reads, as the same letter, and adds the answers the NAF-Bench authors'
# leaderboard scorer accepts (a bare letter, "A. Definitely yes", true / false / unknown) and more (\boxed{},
# option lines); hedges stay unanswered. So the board reads a submission as their scorer does, and a model that
# answers in words is not scored as silent where the instructed format would have called it right.
DEFAULT_EXTRACTOR = "flexible"

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")

# truth value -> the option's wording (the prompt's, in every language, and its variants)
_OPTION_WORDS = {
    "T": ("definitely yes", "一定是"),
    "F": ("definitely no", "一定否"),
    "u": ("cannot be determined", "can't be determined", "无法确定", "不能确定"),
}
# yes / no count only as the sentence's first word standing alone ("No, …"), never inside prose ("no idea")
_KEYWORDS = (
    ("u", re.compile(r"cannot be determined|can't be determined|undetermined|undefined|unknown|无法确定")),
    ("F", re.compile(r"\bfalse\b|^\W*no\b(?![ \t]*\w)")),
    ("T", re.compile(r"\btrue\b|^\W*yes\b(?![ \t]*\w)")),
)


@dataclass(frozen=True)
class _Patterns:
    """The patterns that name a letter, over one alphabet (compiled once per alphabet the table has had)."""

    letters: tuple[str, ...]
    answer: re.Pattern  # (keyword, letter): a lower-case letter counts only after an upper-case ANSWER
    final: re.Pattern
    letter_only: re.Pattern
    option_line: re.Pattern
    phrase: re.Pattern
    ref_answer: re.Pattern
    ref_phrase: re.Pattern
    ref_sole: re.Pattern


@functools.cache
def _compiled(letters: tuple[str, ...]) -> _Patterns:
    upper = "".join(re.escape(letter) for letter in letters)
    one, either = f"[{upper}]", f"[{upper}{upper.lower()}]"  # e.g. [ABC] and [ABCabc]
    return _Patterns(
        letters,
        answer=re.compile(rf"(answer)[ \t]*:[\s*_]*\(?({one})\b", re.IGNORECASE),
        final=re.compile(rf"(final answer)[ \t]*(?:is|:)[\s:*_]*\(?({one})\b", re.IGNORECASE),
        letter_only=re.compile(rf"[*_(\[]*({either})[*_)\].:]*"),
        option_line=re.compile(rf"[#>*_ \t-]*\(?({one})(?:\)|\.|:|\*\*|[ \t]*$)[*_ \t]*(.*)"),
        phrase=re.compile(rf"\bthe answer is[ \t]*[*_(]*({one})(?![A-Za-z])", re.IGNORECASE),
        ref_answer=re.compile(rf"ANSWER:\s*\(?({one})\)?(?![A-Za-z])", re.IGNORECASE),
        ref_phrase=re.compile(rf"\b(?:final\s+)?answer\b\s*(?:is|:|=|->)\s*\(?({one})\)?\b", re.IGNORECASE),
        ref_sole=re.compile(rf"\s*\(?({one})\)?[.):]?\s*"),
    )


def _patterns() -> _Patterns:
    return _compiled(answer_letters()[:])  # one look-up of the live view


def strip_thinking(text: str, keep_lines: bool = False) -> str:
    """The text without ``<think>…</think>`` blocks (an unclosed one runs to the end); with ``keep_lines`` each
    block leaves its line breaks, so the rest keeps its line numbers."""
    lowered, kept, start = text.lower(), [], 0
    while (opening := lowered.find("<think>", start)) >= 0:
        kept.append(text[start:opening])
        closing = lowered.find("</think>", opening + 7)
        block = text[opening : len(text) if closing < 0 else closing + 8]
        if keep_lines:
            kept.append("\n" * (block.count("\n")))
        if closing < 0:
            return "".join(kept)
        start = closing + 8
    kept.append(text[start:])
    return "".join(kept)


def thinking(text: str) -> str:
    """The reasoning inside ``<think>…</think>`` blocks (an unclosed one runs to the end), blocks joined by a
    blank line; empty when there is none."""
    lowered, blocks, start = text.lower(), [], 0
    while (opening := lowered.find("<think>", start)) >= 0:
        closing = lowered.find("</think>", opening + 7)
        blocks.append(text[opening + 7 : len(text) if closing < 0 else closing].strip())
        if closing < 0:
            break
        start = closing + 8
    return "\n\n".join(block for block in blocks if block)


def _boxed(text: str, end_at_first_brace: bool) -> str | None:
    """The content of the last ``\\boxed{…}``: up to the first ``}`` (the authors' reading) or balanced."""
    last, start = None, 0
    while (opening := text.find("\\boxed{", start)) >= 0:
        content_start = opening + 7
        if end_at_first_brace:
            closing = text.find("}", content_start)
        else:
            depth, closing = 1, -1
            for i in range(content_start, min(len(text), content_start + 400)):
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                if depth == 0:
                    closing = i
                    break
        if closing < 0:
            return last
        last, start = text[content_start:closing], closing + 1
    return last


def _word_letter(word: str, patterns: _Patterns) -> str | None:
    """A letter for a short answer: the letter itself, an option's wording, or a truth word."""
    word = word.replace("\\text{", "").replace("\\textbf{", "").replace("{", "").replace("}", "")
    bare = word.strip().strip("*_.():$ ").upper()
    if bare in patterns.letters:
        return bare
    return _keyword_letter(word.lower())


def _keyword_letter(text: str) -> str | None:
    for value, words in _OPTION_WORDS.items():
        if any(w in text for w in words):
            return letter_of()[value]
    for value, pattern in _KEYWORDS:
        if pattern.search(text):
            return letter_of()[value]
    return None


def _strict(visible: str, patterns: _Patterns) -> str | None:
    for pattern in (patterns.answer, patterns.final):
        letters = [letter for keyword, letter in pattern.findall(visible) if letter.isupper() or keyword.isupper()]
        if letters:
            return letters[-1].upper()
    for line in reversed(visible.split("\n")):
        if match := patterns.letter_only.fullmatch(line.strip()):
            return match.group(1).upper()
    return None


def _flexible(visible: str, patterns: _Patterns) -> str | None:
    boxed = _boxed(visible, end_at_first_brace=False)
    if boxed is not None and (letter := _word_letter(boxed, patterns)):
        return letter
    named, prose = set(), []
    for line in visible.split("\n"):
        match = patterns.option_line.match(line)
        if match and (not match.group(2) or _keyword_letter(match.group(2).lower()) in (None, match.group(1))):
            named.add(match.group(1))
        else:
            prose.append(line)
    if len(named) == 1:
        return named.pop()
    rest = "\n".join(prose)  # option lines naming several letters restate the options: not a conclusion
    if matches := patterns.phrase.findall(rest):
        return matches[-1].upper()
    sentences = [s for s in _SENTENCE_END.split(rest.strip()) if s.strip()]
    return _keyword_letter(sentences[-1].lower()) if sentences else None


_REF_CUE = re.compile(r"(?:final answer|answer|conclusion)\b", re.IGNORECASE)
_REF_KEYS = (  # (truth value, phrases, patterns), in the order the authors' extractor reads them
    (
        "u",
        (
            "cannot be determined",
            "cannot determine",
            "cannot be established",
            "cannot conclude",
            "not be determined",
            "undefined",
            "unknown",
            "insufficient",
            "indeterminate",
        ),
        (),
    ),
    ("F", ("not true", "is false", "does not hold", "cannot be true"), (r"\bfalse\b", r"\bno\b")),
    ("T", ("is true", "holds", "must be true", "definitely yes"), (r"\btrue\b", r"\byes\b")),
)


def _strip_closed_thinking(text: str) -> str:
    """The authors' extractor's removal: closed ``<think>…</think>`` blocks only, case-sensitive."""
    kept, start = [], 0
    while (opening := text.find("<think>", start)) >= 0:
        closing = text.find("</think>", opening + 7)
        if closing < 0:
            break
        kept.append(text[start:opening])
        start = closing + 8
    kept.append(text[start:])
    return "".join(kept)


def _authors(text: str, query: str, patterns: _Patterns) -> str | None:
    visible = _strip_closed_thinking(text)
    for pattern in (patterns.ref_answer, patterns.ref_phrase):
        for source in (visible, text):
            if matches := pattern.findall(source):
                return matches[-1].upper()
    for line in reversed(visible.splitlines()):
        if match := patterns.ref_sole.fullmatch(line):
            return match.group(1).upper()
    if not text:
        return None
    boxed = _boxed(visible, end_at_first_brace=True)
    if boxed is not None:
        candidate = boxed.strip()
    elif cues := list(_REF_CUE.finditer(visible)):
        end = cues[-1].end()
        end += len(visible[end:]) - len(visible[end:].lstrip())
        if visible[end : end + 1] in (":", "-"):
            end += 1
            end += len(visible[end:]) - len(visible[end:].lstrip())
        candidate = visible[end : end + 160]
    else:
        candidate = visible[-200:]
    bare = candidate.strip().strip(".):(").upper()
    if bare in patterns.letters:
        return bare
    lowered = candidate.lower()
    for value, phrases, keys in _REF_KEYS:
        if any(p in lowered for p in phrases) or any(re.search(p, lowered) for p in keys):
            return letter_of()[value]
    return letter_of()["T"] if re.search(rf"\b{re.escape(query)}\b", candidate) else None


def unalias_extractor(name: str) -> str:
    """The extractor ``name`` names: an old name (:data:`EXTRACTOR_ALIASES`) read as its new one, any other as is."""
    return EXTRACTOR_ALIASES.get(name, name)


def extract_answer(text: str | None, extractor: str = DEFAULT_EXTRACTOR, *, query: str = "q") -> str | None:
    """The answer letter under the named extractor, or None when the response states none.

    ``query`` (the queried atom) is read only by the ``authors`` extractor, which takes a bare mention of
    the query atom in the conclusion as "true".
    """
    extractor = unalias_extractor(extractor)
    if extractor not in EXTRACTORS:
        raise ValueError(f"extractor must be one of {EXTRACTORS}, got {extractor!r}")
    if text is None:
        return None
    patterns = _patterns()
    if extractor == "authors":
        return _authors(text, query, patterns)
    visible = strip_thinking(text)
    letter = _strict(visible, patterns)
    if letter is None and extractor == "flexible":
        letter = _flexible(visible, patterns)
    return letter
