"""The readings of default negation, in one table at the bottom floor that every floor above reads.

A reading is one :class:`Reading` under one key, its name (the prompt condition naming it: the rows'
``condition``, the scores' and reports' columns), with its label alphabet and gold letters, its instruction in
every language, the verdict sentences of its gold traces and what the trace audit compares, and one engine: a
function from the engines' results on a program (computed once by :func:`naf_bench.certify.certify`) to the
query's label and the effort counters it reports. Adding a semantics
is ``READINGS.register(reading, engine)``; certification, the signature, rows, prompts, gold traces, scoring,
the evaluate module and the lm-eval tasks (``scripts/lm_eval_tasks.py`` writes their reading-specific files)
follow it.

Worker processes (``naf_bench.data.pool``, Ray tasks) adopt the caller's table, which every job is handed with
(:meth:`Readings.handing`), so a reading registered at run time reaches them where its engine imports by name.

A row names a reading twice: its ``condition`` (the key) and the key of its label in the certificate's ``labels``
(:attr:`Reading.label_key`; ``sldnf`` for the condition ``closed_world``, the other readings' key itself). The
label key is written by :func:`naf_bench.certify.certify` and read by :meth:`Reading.label`, nowhere else.

Nothing here is frozen at import time: the views over the table are functions (:func:`label_keys`,
:func:`all_conditions`, :func:`named_conditions`, :func:`joint_conditions`, :func:`answer_letters`,
:func:`letter_of`, :func:`effort_keys`) that read it again after each change; :data:`CONDITIONS` is
:func:`all_conditions` as a :class:`LiveView`, for a default that must follow a reading registered later.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import inspect
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any

from naf_bench.errors import ConfigError


@dataclass(frozen=True)
class Reading:
    name: str  # the one key: the prompt condition naming it (the rows' ``condition``)
    title: str  # how the CLI names it
    label_key: str  # the key of its label in Certificate.labels (and of the signature's part): the row schema's
    letters: dict[str, str]  # label -> gold letter (one upper-case character); its keys are the label alphabet
    position: int  # place among the named conditions in prompts and reports (C1-C4 of seed 000)
    joint: bool  # JOINT counts a program only if this reading's answer is correct too
    effort: tuple[str, ...]  # Certificate.effort keys its engine reports
    instructions: dict[str, str]  # language -> the condition's instruction in the prompt
    # language -> label (or "no_models", when there is no stable model) -> the gold trace's verdict sentence on
    # the query; slots {claim} (the query has the label), {T}/{F} (the query is true/false), {ref} (the query named)
    verdicts: dict[str, dict[str, str]]
    quantifier: str | None = None  # "some" / "every" stable model: an entailment reading; None: a global one
    # (label, other reading, other label): this label implies that one, for every program; certify checks it
    implies: tuple[tuple[str, str, str], ...] = field(default=())
    implies_check: str = ""  # the name certify records for that check, if it records one
    # the trace audit of a global reading: the label it gives an atom the WFS leaves undefined, and the labels
    # it takes for one another (closed world: non-termination and "cannot be determined" are one option)
    undefined_as: str = "u"
    alike: frozenset[str] = frozenset()

    @property
    def alphabet(self) -> tuple[str, ...]:
        return tuple(self.letters)

    def label(self, labels: Mapping[str, str]) -> str:
        """This reading's label among a certificate's ``labels``."""
        return labels[self.label_key]

    def gold_letter(self, labels: Mapping[str, str]) -> str:
        return self.letters[self.label(labels)]


# An engine: (the engines' results on a program, the query) -> (the query's label, effort counters). The results
# are ``naf_bench.certify.Solved``: wfs, stable, prolog (SWI-Prolog's SLDNF) and sldnf_exact.
Engine = Callable[[Any, str], tuple[str, dict[str, int]]]


class Readings:
    """The table: readings in certificate order (the signature concatenates their labels in it), each with
    its engine."""

    no_semantics = "none"  # condition C0: the prompt names no semantics and has no gold letter
    baseline = "closed_world"  # a program's distance counts the readings whose gold letter differs from this one's
    # the reading with an undefined value (u) that the paper's WFS analyses read: Table 5 (its undefined rows), the
    # untutored C answers (audited under it), the pilot's English against Chinese (its prompts)
    undefined = "wfs"

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Reading, Engine]] = {}
        self._fingerprint: str | None = None
        self.version = 0  # counts the changes: the live views are computed again after one

    def register(self, reading: Reading, engine: Engine) -> None:
        """Add a reading and its engine (a ConfigError if its name, label key or position is taken, or an
        implication names an unknown reading or label)."""
        taken = [r for r in self if reading.name == r.name or reading.label_key == r.label_key]
        if taken or reading.name == self.no_semantics:
            raise ConfigError(f"reading {reading.name!r} (label key {reading.label_key!r}) is already in the table")
        if any(r.position == reading.position for r in self):
            raise ConfigError(f"position {reading.position} is taken; taken: {self.positions()}")
        letter_of = {label: letter for r in self for label, letter in r.letters.items()}
        for label, letter in reading.letters.items():  # a label is one option everywhere: the prompt words it once
            if len(letter) != 1 or not letter.isupper() or letter_of.get(label, letter) != letter:
                raise ConfigError(
                    f"{reading.name}: label {label!r} as letter {letter!r}: a letter is one upper-case character, "
                    f"and a label has one letter in every reading (the table's: {letter_of})"
                )
        for label, other, other_label in reading.implies:
            known = {r.name: r for r in self} | {reading.name: reading}
            if label not in reading.letters or other not in known or other_label not in known[other].letters:
                raise ConfigError(f"{reading.name}: implication {(label, other, other_label)} names an unknown label")
        self._entries[reading.name] = (reading, engine)
        self._fingerprint = None
        self.version += 1

    def unregister(self, name: str) -> None:
        if name not in self._entries:
            raise ConfigError(f"no reading {name!r}; expected one of {self.names}")
        del self._entries[name]
        self._fingerprint = None
        self.version += 1

    def portable(self) -> tuple[tuple[Reading, str], ...]:
        """Every entry in order, its engine as an import path ``module:qualname``: what a worker process
        (``naf_bench.data.pool``, a Ray task) adopts to read the table this process reads, readings registered at run
        time included. A ConfigError names a reading whose engine has no such path (a lambda, a nested
        function, a function of ``__main__``, which workers never import)."""
        entries = []
        for reading, engine in self._entries.values():
            path = _import_path(engine)
            if not _importable(path, engine):
                raise ConfigError(
                    f"reading {reading.name!r}: its engine {engine!r} cannot reach worker processes, which import it "
                    "by name: define it at the top level of an importable module (not in __main__), or generate in "
                    "one process"
                )
            entries.append((reading, path))
        return tuple(entries)

    def adopt(self, entries: Sequence[tuple[Reading, str]]) -> None:
        """Make the table exactly ``entries`` (as :meth:`portable` gives them), importing their engines; nothing
        changes where it is that table already."""
        if tuple(entries) == tuple((reading, _import_path(engine)) for reading, engine in self._entries.values()):
            return
        engines = []
        for reading, path in entries:  # every engine first: a table is replaced whole or not at all
            try:
                engine = _resolve(path)
            except ImportError as exc:
                engine, reason = None, f"{type(exc).__name__}: {exc}"
            else:
                reason = "no such function"
            if not callable(engine):
                raise ConfigError(f"reading {reading.name!r}: its engine {path} does not import here ({reason})")
            engines.append((reading, engine))
        self._entries = {}
        for reading, engine in engines:
            self.register(reading, engine)

    def positions(self) -> list[int]:
        return [r.position for r in self]

    def __iter__(self) -> Iterator[Reading]:
        return (reading for reading, _ in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, name: str) -> Reading:
        """The reading of a named condition (a ConfigError for any other name)."""
        if name not in self._entries:
            raise ConfigError(f"unknown condition {name!r}; expected one of {all_conditions()}")
        return self._entries[name][0]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def engine(self, name: str) -> Engine:
        return self._entries[name][1]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def named(self) -> list[Reading]:
        """The readings in prompt and report order."""
        return sorted(self, key=lambda reading: reading.position)

    @property
    def letters(self) -> tuple[str, ...]:
        """Every gold letter, in order (the answer options)."""
        return tuple(sorted({letter for reading in self for letter in reading.letters.values()}))

    def fingerprint(self) -> str:
        """A hash of every entry and its engine's code: the rows' code version covers the table."""
        if self._fingerprint is not None:
            return self._fingerprint
        digest = hashlib.sha256()
        for reading, engine in self._entries.values():
            digest.update(json.dumps(asdict(reading), sort_keys=True, default=sorted).encode())
            digest.update(f"{engine.__module__}.{engine.__qualname__}".encode())
            with contextlib.suppress(OSError, TypeError):  # a function without source: its name stands for it
                digest.update(inspect.getsource(engine).encode())
        self._fingerprint = digest.hexdigest()[:16]
        return self._fingerprint

    def handing(self, function: Callable) -> Callable:
        """``function`` as a worker process (``naf_bench.data.pool``, a Ray task) runs it: under this table as it is now
        (:meth:`portable`; a ConfigError here names an engine workers cannot import), which it adopts first."""
        return partial(_adopting, self.portable(), function)


def _adopting(entries: Sequence[tuple[Reading, str]], function: Callable, *args) -> Any:
    READINGS.adopt(entries)
    return function(*args)


def _import_path(engine: Engine) -> str:
    return f"{getattr(engine, '__module__', None)}:{getattr(engine, '__qualname__', '')}"


def _importable(path: str, engine: Engine) -> bool:
    module, _, qualname = path.partition(":")
    if module in ("None", "__main__") or "<" in qualname:
        return False
    try:
        return _resolve(path) is engine
    except ImportError:
        return False


def _resolve(path: str) -> Any:
    """The object an import path ``module:qualname`` names (None where the module has no such name)."""
    module, _, qualname = path.partition(":")
    value: Any = importlib.import_module(module)
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value


_VIEWS: dict[Callable, tuple[int, Any]] = {}  # per process (a pickled view carries no value of its own)


def _view(compute: Callable[[], Any]) -> Any:
    """A view's value: computed when first read and again after each change of the table (a look-up costs one
    dictionary read, where computing it walks the table)."""
    cached = _VIEWS.get(compute)
    if cached is None or cached[0] != READINGS.version:
        cached = _VIEWS[compute] = (READINGS.version, compute())
    return cached[1]


class LiveView(Sequence):
    """A tuple computed from the table, again whenever the table has changed: a default that must follow a
    reading registered later (a config's conditions, :data:`CONDITIONS`). It compares as the tuple it holds now;
    it has no hash, since what it holds can change (a set or a dict key takes ``tuple(view)``)."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, compute: Callable[[], tuple]) -> None:
        self._compute = compute

    def __getitem__(self, index):
        return _view(self._compute)[index]

    def __len__(self) -> int:
        return len(_view(self._compute))

    def __eq__(self, other) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __repr__(self) -> str:
        return repr(_view(self._compute))


def _credulous(solved, query: str) -> tuple[str, dict[str, int]]:
    return solved.stable.credulous(query), _clingo_effort(solved)


def _skeptical(solved, query: str) -> tuple[str, dict[str, int]]:
    return solved.stable.skeptical(query), _clingo_effort(solved)


def _clingo_effort(solved) -> dict[str, int]:
    return {"clingo_choices": solved.stable.choices, "clingo_conflicts": solved.stable.conflicts}


def _well_founded(solved, query: str) -> tuple[str, dict[str, int]]:
    return solved.wfs.value(query), {"wfs_iterations": solved.wfs.iterations}


def _sldnf(solved, query: str) -> tuple[str, dict[str, int]]:
    effort = {"prolog_inferences": solved.prolog.inferences, "sldnf_fixpoint_rounds": solved.sldnf_exact.iterations}
    return solved.prolog.label, effort


_BINARY = {"T": "A", "F": "B"}
_CLINGO_EFFORT = ("clingo_choices", "clingo_conflicts")

READINGS = Readings()
READINGS.register(
    Reading(
        "cred",
        "credulous",
        "cred",
        _BINARY,
        2,
        True,
        _CLINGO_EFFORT,
        instructions={
            "en": (
                "Use stable-model (answer-set) semantics and reason credulously: answer A if the statement in the "
                "question holds in at least one stable model, and B otherwise; in particular B when there is no "
                "stable model at all."
            ),
            "zh": "请使用稳定模型（回答集）语义并进行轻信推理：若该命题至少在一个稳定模型中为真选 A，否则选 B；特别地，若不存在任何稳定模型则选 B。",
        },
        verdicts={
            "en": {"T": "{T} in some stable model.", "F": "{T} in no stable model."},
            "zh": {"T": "在某个稳定模型中，{T}。", "F": "在任何稳定模型中都不是 {T}。"},
        },
        quantifier="some",
    ),
    _credulous,
)
READINGS.register(
    Reading(
        "skept",
        "skeptical",
        "skept",
        _BINARY,
        3,
        True,
        _CLINGO_EFFORT,
        instructions={
            "en": (
                "Use stable-model (answer-set) semantics and reason skeptically: answer A if the statement in the "
                "question holds in every stable model, in particular A (vacuously) when there is no stable model "
                "at all, and B if some stable model makes it false."
            ),
            "zh": (
                "请使用稳定模型（回答集）语义并进行怀疑推理：若该命题在每个稳定模型中都为真选 A，特别地，若不存在任何稳定模型则（空真地）选 A；"
                "若某个稳定模型使它为假则选 B。"
            ),
        },
        verdicts={
            "en": {
                "T": "{T} in every stable model.",
                "F": "{F} in some stable model.",
                "no_models": "{T} in every stable model, since there is none.",
            },
            "zh": {
                "T": "在每个稳定模型中，{T}。",
                "F": "在某个稳定模型中，{F}。",
                "no_models": "在每个稳定模型中，{T}，因为不存在稳定模型。",
            },
        },
        quantifier="every",
    ),
    _skeptical,
)
READINGS.register(
    Reading(
        "wfs",
        "wfs",
        "wfs",
        {**_BINARY, "u": "C"},
        4,
        True,
        ("wfs_iterations",),
        instructions={
            "en": (
                "Use the well-founded semantics. A statement is true if it is derived from facts through rules "
                "whose negated conditions are already established false; false if every way of deriving it fails, "
                "circular support included; and undefined otherwise, for example when it hangs on a cycle through "
                "negation. Answer A if the statement in the question is true, B if it is false, and C if it is "
                "undefined."
            ),
            "zh": (
                "请使用良基语义（well-founded semantics）。若一个命题能从事实出发、经由否定条件均已确定为假的规则推出，则为真；"
                "若推出它的所有途径都失败（包括循环支持），则为假；否则为未定义，例如它依赖于一个经过否定的环。为真选 A，为假选 B，未定义选 C。"
            ),
        },
        verdicts={
            "en": dict.fromkeys(("T", "F", "u"), "under the well-founded semantics {claim}."),
            "zh": dict.fromkeys(("T", "F", "u"), "在良基语义下，{claim}。"),
        },
        implies=(("T", "skept", "T"), ("F", "cred", "F")),
    ),
    _well_founded,
)
READINGS.register(
    Reading(
        "closed_world",
        "sldnf",
        "sldnf",
        {**_BINARY, "loop": "C"},
        1,
        True,
        ("prolog_inferences", "sldnf_fixpoint_rounds"),
        instructions={
            "en": (
                "Read the rules as a Prolog program under negation as failure (SLDNF resolution): rules are tried "
                "in the order given and their conditions from left to right, and 'not p' holds exactly when the "
                "attempt to prove p fails after finitely many steps. Answer A if the proof of the statement in the "
                "question succeeds, B if it fails finitely, and C if it never terminates."
            ),
            "zh": (
                "请把这些规则当作采用否定即失败（SLDNF 归结）的 Prolog 程序：按给出的顺序尝试规则，按从左到右的顺序检查条件；"
                "当证明 p 的尝试在有限步内失败时，'不为真' 的条件 'not p' 成立。若对问题的证明成功选 A，有限失败选 B，永不终止选 C。"
            ),
        },
        verdicts={
            "en": {
                "T": "the Prolog proof of {ref} succeeds.",
                "F": "the Prolog proof of {ref} fails finitely.",
                "loop": "the Prolog proof of {ref} does not terminate.",
            },
            "zh": {
                "T": "对 {ref} 的 Prolog 证明成功。",
                "F": "对 {ref} 的 Prolog 证明有限失败。",
                "loop": "对 {ref} 的 Prolog 证明不终止。",
            },
        },
        implies=(("T", "wfs", "T"), ("F", "wfs", "F")),  # SLDNF is sound for the WFS
        implies_check="sldnf:sound-for-wfs",
        undefined_as="loop",
        alike=frozenset({"u", "loop"}),
    ),
    _sldnf,
)

NO_SEMANTICS = Readings.no_semantics
BASELINE = Readings.baseline


# The views over the table: functions, computed again after each change of the table (module-level, so that a
# LiveView of one pickles into a worker process).
def _label_keys() -> tuple[str, ...]:
    return tuple(reading.label_key for reading in READINGS)


def _effort_keys() -> tuple[str, ...]:
    return tuple(dict.fromkeys(key for reading in READINGS for key in reading.effort))


def _named_conditions() -> tuple[str, ...]:
    return tuple(reading.name for reading in READINGS.named())


def _joint_conditions() -> tuple[str, ...]:
    return tuple(reading.name for reading in READINGS.named() if reading.joint)


def _answer_letters() -> tuple[str, ...]:
    return READINGS.letters


def _letter_of() -> Mapping[str, str]:
    return MappingProxyType({label: letter for reading in READINGS for label, letter in reading.letters.items()})


def label_keys() -> tuple[str, ...]:
    """The certificate's label keys, in table order (the signature's): the row schema's ``labels``."""
    return _view(_label_keys)


def effort_keys() -> tuple[str, ...]:
    """The effort counters the engines report, each once, in table order: the row schema's ``effort``."""
    return _view(_effort_keys)


def named_conditions() -> tuple[str, ...]:
    """The readings' names in prompt order (their positions): the conditions that name a semantics."""
    return _view(_named_conditions)


def all_conditions() -> tuple[str, ...]:
    """Every prompt condition: ``none`` (no semantics named), then :func:`named_conditions`."""
    return (NO_SEMANTICS, *named_conditions())


def joint_conditions() -> tuple[str, ...]:
    """The named conditions JOINT counts, in prompt order."""
    return _view(_joint_conditions)


def answer_letters() -> tuple[str, ...]:
    """The option letters the prompts offer, in order (A, B, C)."""
    return _view(_answer_letters)


def letter_of() -> Mapping[str, str]:
    """Label -> its letter (T: A, F: B, u and loop: C), read-only."""
    return _view(_letter_of)


CONDITIONS = LiveView(all_conditions)  # the docs' name for all_conditions(): a live view of it


def gold_letter(condition: str, labels: Mapping[str, str]) -> str | None:
    """A/B/C for a named condition (its reading's label through the reading's letters); None for ``none``."""
    return None if condition == NO_SEMANTICS else READINGS[condition].gold_letter(labels)


def instruction(condition: str, language: str) -> str:
    """A named condition's instruction in ``language`` (a ConfigError where the reading has none)."""
    reading = READINGS[condition]
    if language not in reading.instructions:
        raise ConfigError(f"reading {reading.name!r} has no instruction in {language!r}")
    return reading.instructions[language]
