"""Gold traces in a controlled grammar, rendered in the prompt's own words, and the parser that inverts them.

A trace is one sentence per line. Steps establish the well-founded value of the atoms the query
depends on, each from atoms already established (the value every semantics agrees on wherever the
well-founded model is two-valued); then semantics-specific lines; then the verdict and the answer.
In the abstract English rendering::

    Step 1: f3 is true by rule 4: it is a fact.
    Step 2: s2 is true by rule 7: f3.
    Step 3: b1 is false: it has no rule.
    Step 4: c5 is true by rule 2: s2, not b1.
    Step 5: p4 is false: every rule fails: rule 5 needs not c5.
    Step 6: x1, x2 are false: they support only each other.
    Step 7: r1 is undefined: it depends on the undefined r2.
    Stable models: 0.
    Verdict: q is true in every stable model, since there is none.
    ANSWER: A

and in the audit framing the same steps read ``Step 1: auditor f3 approves by rule 4: it is a fact.``,
``Step 3: auditor b1 does not approve: it has no rule.``, ``Step 7: whether auditor r1 approves is undefined:
it depends on the undefined auditor r2.``, the query being "the override is granted"; Chinese prompts get
``步骤 1：f3 为真，依据规则 4：这是一个事实。``. Rule numbers count the rules in the order the prompt lists
them, from 1 (prompts that ask for a trace number them).

The grammar is a table of step kinds (:data:`STEP_KINDS`): one frozen dataclass per kind, holding AST
literals, with its sentence template per language and its pattern (compiled from that template); what makes a
step of each kind valid is the step checker's, in :mod:`naf_bench.scoring.steps`. A :class:`Grammar` is the
table instantiated for one (framing, language, query): :func:`grammar` builds it, :meth:`Grammar.render`
writes a trace and :func:`parse_trace` reads one back, tolerating what does not change the logic (extra
whitespace, markdown emphasis, list markers, a missing ``Step k:`` prefix, a rule cited by its text in quotes
instead of its number).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import ClassVar

from naf_bench.errors import ConfigError, ParseError
from naf_bench.readings import NO_SEMANTICS, READINGS, answer_letters
from naf_bench.syntax.ast import Literal, Program, Rule
from naf_bench.syntax.structure import relevant_atoms
from naf_bench.verbalize.framing import FRAMINGS

ATOM = r"[a-z][A-Za-z0-9_]*"
RENDERINGS = (("abstract", "en"), ("abstract", "zh"), *((framing, "en") for framing in FRAMINGS))


@dataclass(frozen=True)
class Words:
    """The fixed words of the trace grammar in one language."""

    step: str  # {n}
    stop: str  # the full stop
    atom_sep: str
    literal_sep: str
    reason_sep: str
    fact: str
    reason: str  # {rule}, {literal}
    rule: str  # how a rule is named before its number or its quoted text
    stable_models: str  # {n}
    verdict: str
    claims: dict[str, tuple[str, str]]  # abstract: value (or "many") -> (template on {x}, phrase form)
    negative: str  # abstract: {a}
    trace_request: str  # the final instruction of a traced prompt; {letters}: the table's letters, listed
    example: tuple[str, str]  # headings of the worked example: its rules, its trace


WORDS = {
    "en": Words(
        step="Step {n}: ",
        stop=".",
        atom_sep=", ",
        literal_sep=", ",
        reason_sep="; ",
        fact="it is a fact",
        reason="rule {rule} needs {literal}",
        rule="rule",
        stable_models="Stable models: {n}.",
        verdict="Verdict: ",
        claims={
            "T": ("{x} is true", "ref"),
            "F": ("{x} is false", "ref"),
            "u": ("{x} is undefined", "ref"),
            "many": ("{x} are false", "ref"),
        },
        negative="not {a}",
        trace_request=(
            "Reason in a trace, one sentence per line, written exactly like the worked example below: first steps "
            "that settle, one by one, what the question depends on, each citing the numbers of the rules it uses "
            "and only what earlier steps settled; then the verdict; then a line 'ANSWER: X' where X is {letters}."
        ),
        example=("Worked example. Rules:", "Trace:"),
    ),
    "zh": Words(
        step="步骤 {n}：",
        stop="。",
        atom_sep="、",
        literal_sep="，",
        reason_sep="；",
        fact="这是一个事实",
        reason="规则 {rule} 需要 {literal}",
        rule="规则",
        stable_models="稳定模型数：{n}。",
        verdict="结论：",
        claims={
            "T": ("{x} 为真", "ref"),
            "F": ("{x} 为假", "ref"),
            "u": ("{x} 未定义", "ref"),
            "many": ("{x} 为假", "ref"),
        },
        negative="非 {a}",
        trace_request=(
            "请按下面示例的格式逐行写出推理轨迹，每行一句：先逐步确定问题所依赖的命题，每一步引用所用规则的编号，"
            "且只使用前面步骤已确定的内容；然后写出结论；最后单独用一行 'ANSWER: X' 给出答案（X 为 {letters}）。"
        ),
        example=("示例。规则：", "推理轨迹："),
    ),
}

# A framed rendering states values in the framing's own sentences ("auditor a approves").
_FRAMED_CLAIMS = {
    "T": ("{x}", "positive"),
    "F": ("{x}", "negative"),
    "u": ("whether {x} is undefined", "positive"),
    "many": ("{x}", "negative"),
}


def _regex(template: str, slots: Mapping[str, str], named: bool = True) -> str:
    """``template`` as a regex: its text escaped, each ``{slot}`` replaced by its pattern."""
    return _built(template, tuple(slots.items()), named)


@cache  # a trace's every phrase is read through a few templates: build each regex once (the RL rewards' hot path)
def _built(template: str, slots: tuple[tuple[str, str], ...], named: bool) -> str:
    patterns = dict(slots)
    parts = re.split(r"\{(\w+)\}", template)
    return "".join(
        (f"(?P<{part}>{patterns[part]})" if named else f"(?:{patterns[part]})") if odd else re.escape(part)
        for odd, part in ((i % 2 == 1, part) for i, part in enumerate(parts))
    )


@cache
def _full(template: str, slot: str, pattern: str) -> re.Pattern:
    """``template`` with its one ``slot`` named, compiled once."""
    return re.compile(_built(template, ((slot, pattern),), True))


def _list(item: str, sep: str) -> str:
    return f"(?:{item})(?:{re.escape(sep)}(?:{item}))*"


@dataclass(frozen=True)
class Vocabulary:
    """How one rendering names atoms: a phrase per form (positive, negative, ref), the query's own phrases."""

    forms: dict[str, str]  # form -> template on {a}
    query_forms: dict[str, str]  # form -> the query's fixed phrase (a framing's outcome), or {} if none
    claims: dict[str, tuple[str, str]]
    query: str

    def phrase(self, form: str, atom: str) -> str:
        if atom == self.query and self.query_forms:
            return self.query_forms[form]
        return self.forms[form].format(a=atom)

    def pattern(self, form: str) -> str:
        own = _regex(self.forms[form], {"a": ATOM}, named=False)
        return f"{own}|{re.escape(self.query_forms[form])}" if self.query_forms else own

    def read(self, form: str, text: str) -> str:
        """The atom a phrase of ``form`` names; ValueError if it names none."""
        if self.query_forms and text == self.query_forms[form]:
            return self.query
        match = _full(self.forms[form], "a", ATOM).fullmatch(text)
        if match is None or (self.query_forms and match.group("a") == self.query):
            raise ValueError(f"{text!r} is not a statement of the prompt")
        return match.group("a")

    def literal(self, literal: Literal) -> str:
        return self.phrase("positive" if literal.positive else "negative", literal.atom)

    def literal_pattern(self) -> str:
        return f"{self.pattern('negative')}|{self.pattern('positive')}"

    def read_literal(self, text: str) -> Literal:
        try:
            return Literal(self.read("negative", text), False)
        except ValueError:
            return Literal(self.read("positive", text), True)


@dataclass(frozen=True)
class Grammar:
    """The trace grammar of one rendering: the step-kind table in one language and one vocabulary."""

    framing: str
    language: str
    words: Words
    vocabulary: Vocabulary
    _patterns: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def query(self) -> str:
        return self.vocabulary.query

    def claim(self, atoms: Sequence[str], value: str) -> str:
        template, form = self.vocabulary.claims["many" if len(atoms) > 1 or value == "many" else value]
        return template.format(x=self.words.atom_sep.join(self.vocabulary.phrase(form, a) for a in atoms))

    def statement(self, atom: str, value: str) -> str:
        """A sentence stating ``atom``'s value (a verdict without a semantics)."""
        return self.claim((atom,), value) + self.words.stop

    def claim_pattern(self, value: str) -> str:
        template, form = self.vocabulary.claims[value]
        item = self.vocabulary.pattern(form)
        return _regex(template, {"x": _list(item, self.words.atom_sep) if value == "many" else item}, named=False)

    def read_claim(self, text: str, value: str) -> tuple[str, ...]:
        template, form = self.vocabulary.claims[value]
        match = _full(template, "x", ".+").fullmatch(text)
        if match is None:
            raise ValueError(f"{text!r} does not state the value")
        items = match.group("x").split(self.words.atom_sep) if value == "many" else [match.group("x")]
        return tuple(self.vocabulary.read(form, item) for item in items)

    def body(self, body: Sequence[Literal]) -> str:
        return self.words.literal_sep.join(self.vocabulary.literal(lit) for lit in body) or self.words.fact

    def body_pattern(self) -> str:
        return f"{re.escape(self.words.fact)}|{_list(self.vocabulary.literal_pattern(), self.words.literal_sep)}"

    def read_body(self, text: str) -> tuple[Literal, ...]:
        if text == self.words.fact:
            return ()
        return tuple(self.vocabulary.read_literal(item) for item in text.split(self.words.literal_sep))

    def pattern(self, kind: type[StepKind]) -> re.Pattern:
        if kind not in self._patterns:
            self._patterns[kind] = re.compile(_regex(kind.TEMPLATE[self.language], kind.patterns(self)))
        return self._patterns[kind]

    def sentence(self, step: StepKind) -> str:
        return step.TEMPLATE[self.language].format(**step.slots(self))

    def verdict(self, condition: str, label: str, n_stable_models: int) -> str:
        """The verdict sentence (after the ``Verdict:`` prefix) on the query under ``condition``: its reading's
        sentence for the label (or for a program without stable models, where the reading has one)."""
        reading = READINGS[condition]
        if self.language not in reading.verdicts:
            raise ConfigError(f"reading {reading.name!r} has no verdict sentences in {self.language!r}")
        sentences = reading.verdicts[self.language]
        query = self.query
        slots = {
            "claim": self.claim((query,), label) if label in self.vocabulary.claims else label,
            "T": self.claim((query,), "T"),
            "F": self.claim((query,), "F"),
            "ref": self.vocabulary.phrase("ref", query),
        }
        return sentences["no_models" if n_stable_models == 0 and "no_models" in sentences else label].format(**slots)

    def render(
        self, steps: Sequence[StepKind], verdict: str, answer: str | None, n_stable_models: int | None = None
    ) -> str:
        """Numbered steps, the number of stable models if given, the verdict line and the answer line if given."""
        lines = [self.words.step.format(n=i) + self.sentence(step) for i, step in enumerate(steps, 1)]
        if n_stable_models is not None:
            lines.append(self.words.stable_models.format(n=n_stable_models))
        lines.append(self.words.verdict + verdict)
        if answer is not None:
            lines.append(f"ANSWER: {answer}")
        return "\n".join(lines)


@cache
def grammar(framing: str = "abstract", language: str = "en", query: str = "q") -> Grammar:
    """The trace grammar of a prompt in ``framing`` and ``language`` whose question is about ``query``."""
    if (framing, language) not in RENDERINGS:
        raise ConfigError(f"no trace rendering for framing {framing!r} in {language!r}; expected one of {RENDERINGS}")
    words = WORDS[language]
    if framing == "abstract":
        forms = {"positive": "{a}", "negative": words.negative, "ref": "{a}"}
        return Grammar(framing, language, words, Vocabulary(forms, {}, words.claims, query))
    frame = FRAMINGS[framing]
    forms = {"positive": frame.holds, "negative": frame.fails, "ref": "{x}"}
    forms = {form: text.format(x=frame.actor) for form, text in forms.items()}
    query_forms = {"positive": frame.outcome, "negative": frame.no_outcome, "ref": frame.subject}
    return Grammar(framing, language, words, Vocabulary(forms, query_forms, _FRAMED_CLAIMS, query))


class StepKind:
    """A kind of step: its sentence per language (``TEMPLATE``), the value it establishes, the text of its slots
    (``slots``), their patterns (``patterns``: the sentence pattern is the template compiled with them), the step
    read back from a match (``read``); its local justification is the step checker's
    (:mod:`naf_bench.scoring.steps`)."""

    TEMPLATE: ClassVar[dict[str, str]]
    value: ClassVar[str]

    @property
    def atoms(self) -> tuple[str, ...]:
        return (self.atom,)

    @property
    def premises(self) -> tuple[str, ...]:
        """Atoms that must be established before this step (the linearity check)."""
        return ()


@dataclass(frozen=True)
class Derived(StepKind):
    """True by a rule whose body is established."""

    atom: str
    rule: int
    body: tuple[Literal, ...]
    TEMPLATE: ClassVar = {"en": "{claim} by rule {rule}: {body}.", "zh": "{claim}，依据规则 {rule}：{body}。"}
    value: ClassVar = "T"

    @property
    def premises(self) -> tuple[str, ...]:
        return tuple(lit.atom for lit in self.body)

    def slots(self, g: Grammar) -> dict[str, str]:
        return {"claim": g.claim(self.atoms, "T"), "rule": str(self.rule), "body": g.body(self.body)}

    @staticmethod
    def patterns(g: Grammar) -> dict[str, str]:
        return {"claim": g.claim_pattern("T"), "rule": r"\d+", "body": g.body_pattern()}

    @classmethod
    def read(cls, match: re.Match, g: Grammar) -> Derived:
        (atom,) = g.read_claim(match.group("claim"), "T")
        return cls(atom, int(match.group("rule")), g.read_body(match.group("body")))


@dataclass(frozen=True)
class NoRule(StepKind):
    """False: the atom heads no rule."""

    atom: str
    TEMPLATE: ClassVar = {"en": "{claim}: it has no rule.", "zh": "{claim}：它没有规则。"}
    value: ClassVar = "F"

    def slots(self, g: Grammar) -> dict[str, str]:
        return {"claim": g.claim(self.atoms, "F")}

    @staticmethod
    def patterns(g: Grammar) -> dict[str, str]:
        return {"claim": g.claim_pattern("F")}

    @classmethod
    def read(cls, match: re.Match, g: Grammar) -> NoRule:
        return cls(*g.read_claim(match.group("claim"), "F"))


@dataclass(frozen=True)
class AllRulesFail(StepKind):
    """False: each rule of the atom has a body literal established false (one per rule, as (number, literal))."""

    atom: str
    failing: tuple[tuple[int, Literal], ...]
    TEMPLATE: ClassVar = {"en": "{claim}: every rule fails: {reasons}.", "zh": "{claim}：每条规则都不成立：{reasons}。"}
    value: ClassVar = "F"

    @property
    def premises(self) -> tuple[str, ...]:
        return tuple(lit.atom for _, lit in self.failing)

    def slots(self, g: Grammar) -> dict[str, str]:
        reasons = (g.words.reason.format(rule=n, literal=g.vocabulary.literal(lit)) for n, lit in self.failing)
        return {"claim": g.claim(self.atoms, "F"), "reasons": g.words.reason_sep.join(reasons)}

    @staticmethod
    def patterns(g: Grammar) -> dict[str, str]:
        reason = _regex(g.words.reason, {"rule": r"\d+", "literal": g.vocabulary.literal_pattern()}, named=False)
        return {"claim": g.claim_pattern("F"), "reasons": _list(reason, g.words.reason_sep)}

    @classmethod
    def read(cls, match: re.Match, g: Grammar) -> AllRulesFail:
        (atom,) = g.read_claim(match.group("claim"), "F")
        reason = re.compile(_regex(g.words.reason, {"rule": r"\d+", "literal": ".+"}))
        failing = []
        for text in match.group("reasons").split(g.words.reason_sep):
            found = reason.fullmatch(text)
            failing.append((int(found.group("rule")), g.vocabulary.read_literal(found.group("literal"))))
        return cls(atom, tuple(failing))


@dataclass(frozen=True)
class Unfounded(StepKind):
    """False: atoms supporting only each other (every rule has a false literal or a positive one in the set)."""

    members: tuple[str, ...]
    TEMPLATE: ClassVar = {"en": "{claim}: they support only each other.", "zh": "{claim}：它们只相互支持。"}
    value: ClassVar = "F"

    @property
    def atoms(self) -> tuple[str, ...]:
        return self.members

    def slots(self, g: Grammar) -> dict[str, str]:
        return {"claim": g.claim(self.members, "many")}

    @staticmethod
    def patterns(g: Grammar) -> dict[str, str]:
        return {"claim": g.claim_pattern("many")}

    @classmethod
    def read(cls, match: re.Match, g: Grammar) -> Unfounded:
        return cls(g.read_claim(match.group("claim"), "many"))


@dataclass(frozen=True)
class Undefined(StepKind):
    """Undefined: the atom reads the undefined atoms ``reads``, and no rule of it is settled."""

    atom: str
    reads: tuple[str, ...]
    TEMPLATE: ClassVar = {
        "en": "{claim}: it depends on the undefined {refs}.",
        "zh": "{claim}：它依赖于未定义的 {refs}。",
    }
    value: ClassVar = "u"

    def slots(self, g: Grammar) -> dict[str, str]:
        return {
            "claim": g.claim(self.atoms, "u"),
            "refs": g.words.atom_sep.join(g.vocabulary.phrase("ref", a) for a in self.reads),
        }

    @staticmethod
    def patterns(g: Grammar) -> dict[str, str]:
        return {"claim": g.claim_pattern("u"), "refs": _list(g.vocabulary.pattern("ref"), g.words.atom_sep)}

    @classmethod
    def read(cls, match: re.Match, g: Grammar) -> Undefined:
        (atom,) = g.read_claim(match.group("claim"), "u")
        reads = tuple(g.vocabulary.read("ref", text) for text in match.group("refs").split(g.words.atom_sep))
        return cls(atom, reads)


STEP_KINDS: tuple[type[StepKind], ...] = (Derived, NoRule, AllRulesFail, Unfounded, Undefined)


@dataclass(frozen=True)
class Trace:
    steps: tuple[StepKind, ...]
    n_stable_models: int | None
    verdict: str  # the verdict sentence after the verdict prefix
    answer: str | None


def derivation(program: Program, query: str, values: dict[str, str]) -> list[StepKind]:
    """Steps establishing the well-founded value of every atom ``query`` depends on, in a checkable order."""
    rules_of: dict[str, list[tuple[int, Rule]]] = {}
    for number, rule in enumerate(program.rules, start=1):
        rules_of.setdefault(rule.head, []).append((number, rule))
    pending = list(reversed(relevant_atoms(program, query)))  # dependencies tend to come first
    known: dict[str, str] = {}
    steps: list[StepKind] = []

    def holds(lit: Literal) -> bool | None:  # True / False once established, None while unknown or undefined
        value = known.get(lit.atom)
        if value is None or value == "u":
            return None
        return (value == "T") == lit.positive

    def settle(atom: str) -> StepKind | None:
        rules = rules_of.get(atom, [])
        if values.get(atom, "F") == "T":
            return next((Derived(atom, n, r.body) for n, r in rules if all(holds(x) is True for x in r.body)), None)
        if not rules:
            return NoRule(atom)
        failing = [(n, next((x for x in r.body if holds(x) is False), None)) for n, r in rules]
        return AllRulesFail(atom, tuple(failing)) if all(lit for _, lit in failing) else None

    progress = True
    while pending and progress:
        progress = False
        for atom in list(pending):
            if values.get(atom, "F") == "u" or (step := settle(atom)) is None:
                continue
            steps.append(step)
            known[atom] = step.value
            pending.remove(atom)
            progress = True
        if not progress:
            unfounded = tuple(a for a in pending if values.get(a, "F") == "F")
            if unfounded:
                steps.append(Unfounded(unfounded))
                for atom in unfounded:
                    known[atom] = "F"
                    pending.remove(atom)
                progress = True
    for atom in pending:  # the rest is undefined: name the undefined atoms each one reads
        known[atom] = "u"
    for atom in pending:
        reads = sorted({lit.atom for _, rule in rules_of.get(atom, []) for lit in rule.body if known[lit.atom] == "u"})
        steps.append(Undefined(atom, tuple(reads)))
    return steps


def render_gold_trace(
    program: Program, certificate, condition: str, framing: str = "abstract", language: str = "en"
) -> str:
    """The certified derivation of ``certificate.query`` under the row's condition ('' for ``none``),
    in the words of the row's framing and language."""
    if condition == NO_SEMANTICS:
        return ""
    g = grammar(framing, language, certificate.query)
    steps = derivation(program, certificate.query, certificate.wfs_values)
    reading = READINGS[condition]
    models = certificate.n_stable_models if reading.quantifier else None
    verdict = g.verdict(condition, reading.label(certificate.labels), certificate.n_stable_models)
    return g.render(steps, verdict, reading.gold_letter(certificate.labels), models)


# What a model writing in the grammar does that does not change the logic (each scan is linear).
_EMPHASIS = re.compile(r"[*`]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_LIST_MARKER = re.compile(r"(?:[-+•]|\d+[.)]) ")
_SPACE_BEFORE = re.compile(r" (?=[,.:;，。：；])")
_NO_SPACE_AFTER = re.compile(r"(?<=[,:;])(?=\S)")
_QUOTED_RULE = re.compile(r"[\"“「]([^\"”」\n]*)[\"”」]")


def normalize_line(line: str) -> str:
    """A line without markdown emphasis, list markers and extra whitespace."""
    line = " ".join(_EMPHASIS.sub("", line).split())
    if _LIST_MARKER.match(line):
        line = line[_LIST_MARKER.match(line).end() :]
    return _NO_SPACE_AFTER.sub(" ", _SPACE_BEFORE.sub("", line))


def _rule_key(text: str) -> str:
    text = normalize_line(text)
    text = re.sub(r"^\d+\. ", "", text)
    return text.rstrip(".。").casefold()


def _cite_numbers(sentence: str, g: Grammar, rule_texts: Sequence[str]) -> str:
    """Replace each rule cited by its text in quotes (``rule "Proposition a is true."``) by its number."""
    if not _QUOTED_RULE.search(sentence):
        return sentence
    numbers: dict[str, int] = {}
    for number, text in enumerate(rule_texts, start=1):
        numbers.setdefault(_rule_key(text), number)
    pieces, end = [], 0
    for match in _QUOTED_RULE.finditer(sentence):
        number = numbers.get(_rule_key(match.group(1)))
        if number is None:
            raise ValueError(f"cites a rule the prompt does not list: {match.group(1)!r}")
        before = sentence[end : match.start()].rstrip().removesuffix(g.words.rule).rstrip().removesuffix(" the")
        space = " " if (before[-1:].isascii() and before[-1:].isalnum()) or before.endswith(":") else ""
        pieces.append(f"{before}{space}{g.words.rule} {number}")
        end = match.end()
    return "".join(pieces) + sentence[end:]


def parse_trace(text: str, g: Grammar | None = None, rule_texts: Sequence[str] = ()) -> Trace:
    """Invert :meth:`Grammar.render` (by default the abstract English grammar); ``rule_texts`` are the
    prompt's rule sentences, so that a step may cite a rule by its text. Raise :class:`ParseError` with
    the line and the reason on anything else."""
    g = g or grammar()
    words = g.words
    step_prefix = re.compile(_regex(words.step, {"n": r"\d+"}))
    stable = re.compile(_regex(words.stable_models, {"n": r"\d+"}))
    steps: list[StepKind] = []
    n_models = None
    verdict_text = None
    answer = None
    lines = text.splitlines()
    for line_no, raw in enumerate(lines, start=1):
        line = normalize_line(raw)
        if not line:
            continue
        if verdict_text is not None and not line.startswith("ANSWER:"):
            raise ParseError("nothing but 'ANSWER: X' may follow the verdict", line_no, 1, raw)
        if line.startswith("ANSWER:"):
            match = re.fullmatch(rf"ANSWER: ?([{re.escape(''.join(answer_letters()))}])", line)
            if not match:
                *first, last = (f"'ANSWER: {letter}'" for letter in answer_letters())
                raise ParseError(f"expected {', '.join(first)} or {last}", line_no, 1, raw)
            answer = match.group(1)
            continue
        if line.startswith(words.verdict):
            verdict_text = line[len(words.verdict) :]
            continue
        if line.startswith(words.stable_models.split("{")[0]):
            match = stable.fullmatch(line)
            if not match:
                raise ParseError(f"expected '{words.stable_models.format(n='N')}'", line_no, 1, raw)
            n_models = int(match.group("n"))
            continue
        sentence = line
        if prefix := step_prefix.match(line):
            if int(prefix.group("n")) != len(steps) + 1:
                raise ParseError(f"expected step {len(steps) + 1}", line_no, 1, raw)
            sentence = line[prefix.end() :]
        try:
            sentence = _cite_numbers(sentence, g, rule_texts)
            kind, match = next(((k, m) for k in STEP_KINDS if (m := g.pattern(k).fullmatch(sentence))), (None, None))
            if match is None:
                raise ValueError(f"not a sentence of the trace grammar ({g.framing}, {g.language})")
            steps.append(kind.read(match, g))
        except ValueError as exc:
            raise ParseError(str(exc), line_no, 1, raw) from None
    if verdict_text is None:
        raise ParseError(f"the trace has no '{words.verdict.strip()}' line", len(lines) or 1, 1, "")
    return Trace(tuple(steps), n_models, verdict_text, answer)


def trace_values(trace: Trace) -> dict[str, str]:
    """The value each step establishes, by atom."""
    return {atom: step.value for step in trace.steps for atom in step.atoms}
