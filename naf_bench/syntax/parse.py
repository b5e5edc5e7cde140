"""Strict parser for ground normal programs in ASP syntax.

Accepted: facts ``a.``, rules ``h :- b1, not c1.``, ``%`` comments, atoms ``[a-z][A-Za-z0-9_]*``; lines
end in ``\n``, ``\r\n`` or a lone ``\r`` (a comment ends at either).
Everything else raises :class:`ParseError` with line, column and a one-line reason, so no
unparsed text ever reaches an engine.
"""

from __future__ import annotations

import re

from naf_bench.errors import ParseError
from naf_bench.syntax.ast import Literal, Program, Rule

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<comment>%[^\r\n]*)
  | (?P<neck>:-)
  | (?P<atom>[a-z][A-Za-z0-9_]*)
  | (?P<var>[A-Z_][A-Za-z0-9_]*)
  | (?P<punct>[.,])
  | (?P<other>.)
    """,
    re.VERBOSE,
)

# What a stray character most likely means, so the error says what is unsupported.
_UNSUPPORTED = {
    "-": "classical negation '-a' is not supported (default negation is 'not a')",
    "|": "disjunction is not supported (normal programs only)",
    ";": "disjunction is not supported (normal programs only)",
    "{": "choice rules are not supported (normal programs only)",
    "}": "choice rules are not supported (normal programs only)",
    "#": "directives and aggregates ('#...') are not supported",
    "(": "atoms with arguments are not supported (ground propositional atoms only)",
    "~": "'~' is no negation in ASP: default negation is 'not' (a :- not b.)",
    "=": "comparisons are not supported",
    "<": "comparisons are not supported",
    ">": "comparisons are not supported",
    "!": "comparisons are not supported",
    "\\": "'\\+' is Prolog syntax; write 'not a'",
    '"': "strings are not supported",
    "'": "quoted atoms are not supported",
}


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # (kind, value, offset)
        for match in _TOKEN.finditer(text):
            kind = match.lastgroup
            if kind in ("ws", "comment"):
                continue
            self.tokens.append((kind, match.group(), match.start()))
        self.tokens.append(("eof", "", len(text)))
        self.index = 0

    def position(self, offset: int) -> tuple[int, int, str]:
        """Line (``\n``, ``\r\n`` and a lone ``\r`` each end one), column and text of the line at ``offset``."""
        before = self.text[:offset]
        line = before.count("\n") + before.count("\r") - before.count("\r\n") + 1
        start = max(before.rfind("\n"), before.rfind("\r")) + 1
        ends = [i for i in (self.text.find("\n", offset), self.text.find("\r", offset)) if i >= 0]
        end = min(ends, default=len(self.text))
        return line, offset - start + 1, self.text[start:end]

    def error(self, reason: str, offset: int) -> ParseError:
        line, column, source = self.position(offset)
        return ParseError(reason, line, column, source)

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.index]

    def take(self) -> tuple[str, str, int]:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def unexpected(self, token: tuple[str, str, int], expected: str) -> ParseError:
        kind, value, offset = token
        if kind == "var":
            return self.error(f"variable '{value}' is not allowed (ground programs only)", offset)
        if kind == "other" and self.text.startswith(":~", offset):
            return self.error("weak constraints (':~') are not supported", offset)
        if kind == "other" and value in _UNSUPPORTED:
            return self.error(_UNSUPPORTED[value], offset)
        if kind == "eof":
            return self.error(f"unexpected end of input, expected {expected}", offset)
        return self.error(f"unexpected {value!r}, expected {expected}", offset)


def _atom(scanner: _Scanner, expected: str) -> str:
    token = scanner.take()
    kind, value, offset = token
    if kind != "atom":
        raise scanner.unexpected(token, expected)
    if value == "not":
        raise scanner.error("'not' is a keyword and cannot name an atom", offset)
    if scanner.peek()[1] == "(":
        raise scanner.unexpected(scanner.peek(), "")
    return value


def _literal(scanner: _Scanner) -> Literal:
    kind, value, _offset = scanner.peek()
    if kind == "atom" and value == "not":
        scanner.take()
        nxt = scanner.peek()
        if nxt[0] == "atom" and nxt[1] == "not":
            raise scanner.error("double negation 'not not' is not supported", nxt[2])
        return Literal(_atom(scanner, "an atom after 'not'"), positive=False)
    return Literal(_atom(scanner, "a literal ('a' or 'not a')"))


def _rule(scanner: _Scanner) -> Rule:
    kind, _value, offset = scanner.peek()
    if kind == "neck":
        after = scanner.tokens[scanner.index + 1 : scanner.index + 3]
        if len(after) == 2 and after[0][0] == "atom" and after[1][1] == "(":
            raise scanner.error(f"directives (':- {after[0][1]}(...)') are not supported", offset)
        raise scanner.error("integrity constraints (rules without a head) are not supported", offset)
    if (kind, _value) == ("atom", "not") and scanner.tokens[scanner.index + 1][0] == "atom":
        raise scanner.error("a rule head cannot be negated", offset)
    head = _atom(scanner, "a rule head (an atom)")
    token = scanner.take()
    if token[1] == ".":
        return Rule(head)
    if token[0] != "neck":
        if token[0] == "atom" and token[1] == "not":
            raise scanner.error("a rule head cannot be negated", token[2])
        raise scanner.unexpected(token, "'.' or ':-'")
    body = [_literal(scanner)]
    while True:
        token = scanner.take()
        if token[1] == ".":
            return Rule(head, tuple(body))
        if token[1] != ",":
            raise scanner.unexpected(token, "',' or '.'")
        body.append(_literal(scanner))


def parse_program(text: str) -> Program:
    """Parse a ground normal program; raise :class:`ParseError` on anything else."""
    if not isinstance(text, str):
        raise TypeError(f"parse_program expects str, got {type(text).__name__}")
    scanner = _Scanner(text)
    rules = []
    while scanner.peek()[0] != "eof":
        rules.append(_rule(scanner))
    return Program(tuple(rules))


def parse_atom(text: str) -> str:
    """Validate a query atom (same lexical rules as the program)."""
    scanner = _Scanner(text)
    atom = _atom(scanner, "an atom")
    if scanner.peek()[0] != "eof":
        raise scanner.unexpected(scanner.peek(), "end of input")
    return atom


_HEADER = re.compile(r"%\s*([A-Za-z_]+)\s*:(.*)")  # the value is stripped after: no backtracking


def parse_header(text: str) -> dict[str, str]:
    """``% key: value`` comment lines before the first rule (e.g. ``% query: a``)."""
    header = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            break
        match = _HEADER.match(stripped)
        if match:
            header[match.group(1).lower()] = match.group(2).strip()
    return header
