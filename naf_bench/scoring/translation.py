"""Scoring of translate-then-solve (seed 000's mitigation): the model only writes a program; our strict parser
reads it (nothing else reaches an engine) and our certifier answers. The prompt is in
:mod:`naf_bench.verbalize.mitigation`.

What is read: the text after any ``<think>`` block; within it the last fenced code block if there is one
(its ``QUERY:`` line may stand after the block), else the lines that end in ``.`` or start with ``QUERY:``.
Ground atoms with constant arguments (``tier(y, t1)``, spacing ignored) are renamed to propositional names
(``tier_y_t1``) before parsing, so the core parser stays propositional; two spellings that rename to one name
(``tier_y(t1)`` beside ``tier_y_t1``) fail the translation, and a variable argument is refused with the
reason. Every line read must parse: one that does not (``not a :- b.``) fails the translation with its line
(in the model's text), column and the parser's reason; nothing is dropped silently. The query line is read
with or without a trailing period.

Each translation has one outcome (:data:`OUTCOMES`): ``answered`` (the certifier's letter under the
condition), ``undefined_query`` (the program has no rule for the query atom: no letter, counted apart rather
than read as "false"), ``no_query`` (not exactly one ``QUERY:`` line), ``unparseable`` or ``uncertifiable``
(the engines disagree or the budget runs out), the last three with the reason.
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

OUTCOMES = ("answered", "undefined_query", "no_query", "unparseable", "uncertifiable")


@dataclass(frozen=True)
class Translation:
    """What a model's translation yields: the parsed program and query, the solver's letter, or why not."""

    program: Program | None
    query: str | None
    letter: str | None
    error: str | None
    outcome: str = "answered"


_FENCE = re.compile(r"[ \t]*```")
_QUERY = "QUERY:"
_NAME = re.compile(r"[a-z][A-Za-z0-9_]*")
_CONSTANT = re.compile(r"[a-z][A-Za-z0-9_]*|[0-9]+")
_VARIABLE = re.compile(r"[A-Z_][A-Za-z0-9_]*")


class _Renamer:
    """Renames ground atoms with arguments to propositional names, remembering every spelling of each name."""

    def __init__(self):
        self.spelling: dict[str, str] = {}  # propositional name -> the atom it stands for, as first read

    def line(self, text: str, number: int) -> tuple[str, list[tuple[int, int]]]:
        """The line with each ``name(args)`` renamed, and (renamed offset, source offset) anchors of each
        renamed atom's start and end, so a parser column maps back to the model's text."""
        out, anchors, i = [], [], 0
        while (match := _NAME.search(text, i)) is not None:
            out.append(text[i : match.start()])
            name, end = match.group(), match.end()
            rest = end + len(text[end:]) - len(text[end:].lstrip(" \t"))
            if rest >= len(text) or text[rest] != "(":
                self._claim(name, name, number, match.start() + 1)
                out.append(name)
                i = end
                continue
            closing = text.find(")", rest)
            if closing < 0:
                raise ParseError("an argument list without ')'", number, rest + 1, text)
            arguments, offset = [], rest + 1
            for part in text[rest + 1 : closing].split(","):
                argument = part.strip()
                column = offset + len(part) - len(part.lstrip()) + 1
                if _VARIABLE.fullmatch(argument):
                    raise ParseError(
                        f"variable '{argument}' is not allowed (ground programs only)", number, column, text
                    )
                if not _CONSTANT.fullmatch(argument):
                    raise ParseError(f"cannot read the argument {argument!r} (a constant)", number, column, text)
                arguments.append(argument)
                offset += len(part) + 1
            renamed = "_".join((name, *arguments))
            self._claim(renamed, f"{name}({', '.join(arguments)})", number, match.start() + 1)
            anchors.append((len("".join(out)), match.start()))
            out.append(renamed)
            anchors.append((len("".join(out)), closing + 1))
            i = closing + 1
        out.append(text[i:])
        return "".join(out), anchors

    def _claim(self, name: str, spelling: str, number: int, column: int) -> None:
        if name == "not":
            return
        first = self.spelling.setdefault(name, spelling)
        if first != spelling:
            raise ParseError(f"the atoms {first} and {spelling} would both read as {name}", number, column)


def _source_column(column: int, anchors: list[tuple[int, int]]) -> int:
    """The model's column of a parser column on the renamed line (inside a renamed atom: the atom's start)."""
    offset, shift = column - 1, 0
    for k in range(0, len(anchors), 2):
        (start, source_start), (end, source_end) = anchors[k], anchors[k + 1]
        if offset < start:
            break
        if offset < end:
            return source_start + 1
        shift = source_end - end
    return offset + shift + 1


def _selected(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(program lines, query lines), each as (line number in ``text``, stripped line)."""
    lines = [(n, line.strip()) for n, line in enumerate(strip_thinking(text, keep_lines=True).split("\n"), 1)]
    fences = [k for k, (_, line) in enumerate(lines) if _FENCE.match(line)]
    if fences:
        # pairs of fences; a last opening fence without its closing one runs to the end
        start = fences[-2] if len(fences) % 2 == 0 else fences[-1]
        end = fences[-1] if len(fences) % 2 == 0 else len(lines)
        block = [(n, line) for n, line in lines[start + 1 : end] if line]
        queries = [(n, line) for n, line in block if line.startswith(_QUERY)]
        if not queries:
            queries = [(n, line) for n, line in lines if line.startswith(_QUERY)]
        return [(n, line) for n, line in block if not line.startswith(_QUERY)], queries
    program = [(n, line) for n, line in lines if line.endswith(".") and not line.startswith(_QUERY)]
    return program, [(n, line) for n, line in lines if line.startswith(_QUERY)]


def read_translation(text: str) -> tuple[Program, str]:
    """The program and query atom a translation states (see the module docstring); raises
    :class:`ParseError` (line and column in ``text``) for a line that does not parse and ``ValueError``
    without exactly one ``QUERY:`` line."""
    program_lines, query_lines = _selected(text)
    if len(query_lines) != 1:
        raise ValueError(f"expected one QUERY line, found {len(query_lines)}")
    renamer, rules = _Renamer(), []
    for number, line in program_lines:
        renamed, anchors = renamer.line(line, number)
        try:
            rules += parse_program(renamed).rules
        except ParseError as exc:
            raise ParseError(exc.reason, number, _source_column(exc.column, anchors), line) from None
    number, line = query_lines[0]
    query = line[len(_QUERY) :].strip()
    query = query[:-1].rstrip() if query.endswith(".") else query
    start = line.index(query, len(_QUERY)) if query else len(line)
    renamed, anchors = renamer.line(query, number)
    try:
        atom = parse_atom(renamed)
    except ParseError as exc:
        raise ParseError(f"query: {exc.reason}", number, start + _source_column(exc.column, anchors), line) from None
    return Program(tuple(rules)), atom


def answer_from_translation(text: str, condition: str, budget: Budget = DEFAULT_BUDGET) -> Translation:
    """Read a model's program strictly, certify it (within ``budget``), and answer under ``condition``."""
    try:
        program, query = read_translation(text)
    except ParseError as exc:
        return Translation(None, None, None, f"unparseable translation: {exc}", "unparseable")
    except ValueError as exc:
        return Translation(None, None, None, str(exc), "no_query")
    if not any(rule.head == query for rule in program.rules):
        return Translation(program, query, None, f"no rule defines the query atom {query!r}", "undefined_query")
    try:
        certificate = certify(program, query, budget=budget)
    except NafBenchError as exc:  # disagreement, budget exceeded, engine failure: never ends the run
        error = f"uncertifiable translation ({type(exc).__name__}): {exc}"
        return Translation(program, query, None, error, "uncertifiable")
    return Translation(program, query, gold_letter(condition, certificate.labels), None)
