"""The scoring core: :func:`score` reads a run once and returns :class:`Scores`, the one record every score is
computed from.

A run is gold rows (``id``, ``gold``, and where known ``condition``, ``program_id``, ``family``, ``variant``,
``cluster``, ``certificate``...), the predictions (id -> model output, None where unanswered) and, where given,
the traces (id -> reasoning, read when scored). Each prediction's answer is extracted once (or given, e.g. the
authors' stored letters), each program parsed once for the step checker and the trace audit (a bounded cache:
a program's rows come together), each trace read once. Every aggregate is a method of :class:`Scores` over a
slice of its rows (accuracy, coverage, constant baselines, JOINT and the programs it counts, flip rate,
default correspondence, program-clustered intervals) or a field (the proof metrics and the audit of the traces).
``naf-bench score``, ``analyze``, the reports, the leaderboard, the evaluate module and the lm-eval aggregations
are views over it.

Definitions follow seed 000 and the authors' leaderboard: a program counts towards JOINT only if it has a gold
row under every JOINT reading, and is solved when each of those answers is present and correct; rows whose gold
is None (condition ``none``) are never scored.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any

from naf_bench.certify import Certificate
from naf_bench.readings import NO_SEMANTICS, READINGS, answer_letters, gold_letter, joint_conditions
from naf_bench.scoring.audit import AUDIT_CLASSES, audit
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR, extract_answer, unalias_extractor
from naf_bench.scoring.records import Record
from naf_bench.scoring.statistics import cluster_resamples, percentile_interval
from naf_bench.scoring.steps import FLAGS, check_steps
from naf_bench.syntax.ast import Program
from naf_bench.syntax.parse import parse_program


@dataclass(frozen=True, kw_only=True)
class Tally:
    """Answers against gold on a slice of scored rows (one cell of a table): correct, parsed and all."""

    correct: int
    n_parsed: int
    n: int

    @property
    def accuracy(self) -> float | None:  # over parsed answers
        return self.correct / self.n_parsed if self.n_parsed else None

    @property
    def strict_accuracy(self) -> float | None:  # unparsed answers count as wrong
        return self.correct / self.n if self.n else None

    @property
    def coverage(self) -> float | None:
        return self.n_parsed / self.n if self.n else None


@dataclass(frozen=True, kw_only=True)
class Proofs(Record):
    """The step checker and the trace audit of the traced rows, with the scores over them.

    ``proof_accuracy`` is the share with all four flags and ``rfwr`` = P(label correct and not all four), both
    over the *checkable* traces only (those the grammar parses): None, never 0, when none is.
    """

    n: int
    label_accuracy: float | None
    n_checkable: int
    proof_accuracy: float | None
    rfwr: float | None
    reasoned_soundly: float | None
    contradicted_among_correct: float | None
    audit: dict[str, int]
    audit_by_correctness: dict[str, dict[str, int]]
    unearned_correct: int
    flags: dict[str, list[bool]]
    audit_classes: list[str]
    audit_reasons: list[str]
    audits: Audits = field(metadata={"output": False})  # per row, with its checkpoints (not in ``to_dict()``)


@lru_cache(maxsize=64)  # a program's rows come together: read once for all of them, and only the recent kept
def _certificate(text: str) -> Certificate:
    return Certificate.from_json(text)


@lru_cache(maxsize=64)
def _program(text: str) -> Program:
    return parse_program(text)


def _read_once(read: dict | None, parse: Callable[[str], Any], text: str) -> Any:
    """``parse(text)``, kept in ``read`` (one scoring pass's: (parse, text) -> what it gave) for the rest of the
    pass; without ``read``, only the recent texts are kept (``parse``'s own cache)."""
    if read is None:
        return parse(text)
    if (parse, text) not in read:
        read[parse, text] = parse(text)
    return read[parse, text]


def _certified(row: Mapping, read: dict | None = None) -> tuple[Certificate, Program]:
    """A row's certificate and its program, each text read once in a pass (``read``): the row's own program text
    where it has one (its rule order, as its prompt words the rules), else the certificate's."""
    certificate = row.get("certificate")
    if certificate is None:
        raise ValueError("each reference needs the row's 'certificate' (and 'condition')")
    if isinstance(certificate, str):
        certificate = _read_once(read, _certificate, certificate)
    return certificate, _read_once(read, _program, row.get("program") or certificate.program)


def check_row(text: str | None, row: Mapping, read: dict | None = None) -> dict[str, bool]:
    """The step checker's four flags of one text on its row: the row's certificate, program, condition and, where
    it has them, framing, language and prompt (whose wording of the rules a step may quote). ``read`` is the
    scoring pass's texts already read (:func:`proofs` gives one), so that a pass parses each program once."""
    certificate, program = _certified(row, read)
    return check_steps(
        text or "", certificate, row["condition"], row.get("framing"), row.get("language"), row.get("prompt"), program
    )


@dataclass(frozen=True, kw_only=True)
class Audits:
    """The trace audit (:func:`naf_bench.scoring.audit.audit`) of texts on their rows, per row: its class and
    reason, its structural checkpoints, whether a right answer was earned, and whether the answer is right."""

    classes: list[str]
    reasons: list[str]
    checkpoints: list[dict[str, bool | None]]
    earned: list[bool]
    correct: list[bool]

    @property
    def by_correctness(self) -> dict[str, dict[str, int]]:
        return audit_by_correctness(self.classes, self.correct)


def audits(
    texts: Iterable[str | None],
    rows: Sequence[Mapping],
    answers: Sequence[str | None],
    condition: str | None = None,
    read: dict | None = None,
) -> Audits:
    """The audit of each text (read one at a time) on its row under its condition (or ``condition`` for all), each
    program read once in the pass (``read``, shared with the step checker by :func:`proofs`). An answer is right
    when it is the row's ``gold`` or, for a row without one (the evaluate module's references), the certificate's
    gold letter for the condition."""
    found: dict[str, list] = {"classes": [], "reasons": [], "checkpoints": [], "earned": [], "correct": []}
    read = {} if read is None else read
    for i, (text, row, answer) in enumerate(zip(texts, rows, answers, strict=True)):
        reading = condition or row.get("condition")
        if reading not in READINGS:
            raise ValueError(f"references[{i}]['condition'] must be a named condition, got {reading!r}")
        certificate, program = _certified(row, read)
        gold = row["gold"] if "gold" in row else gold_letter(reading, certificate.labels)
        audited = audit(text or "", certificate, reading, program)
        found["classes"].append(audited["class"])
        found["reasons"].append(audited["reason"])
        found["checkpoints"].append(audited["checkpoints"])
        found["earned"].append(audited["earned"])
        found["correct"].append(answer is not None and answer == gold)
    return Audits(**found)


def proofs(texts: Iterable[str | None], rows: Sequence[Mapping], answers: Sequence[str | None]) -> Proofs:
    """The step checker (:func:`check_row`) and the audit (:func:`audits`) of each text on its row, and their
    scores. One pass: each certificate and program text is read once for the audit and the step checker both."""
    texts = list(texts)
    read: dict = {}  # this pass's texts already read, forgotten with it
    audited = audits(texts, rows, answers, read=read)  # checks each row's condition first
    flags: dict[str, list[bool]] = {name: [] for name in FLAGS}
    for text, row in zip(texts, rows, strict=True):
        found = check_row(text, row, read)
        for name in FLAGS:
            flags[name].append(found[name])
    classes, earned, correct = audited.classes, audited.earned, audited.correct
    n = len(correct)
    checkable = [i for i in range(n) if flags["parsed"][i]]
    strict = [all(flags[name][i] for name in FLAGS) for i in checkable]
    traced_correct = [i for i in range(n) if correct[i] and classes[i] in ("sound", "contradicted")]
    return Proofs(
        n=n,
        label_accuracy=sum(correct) / n if n else None,
        n_checkable=len(checkable),
        proof_accuracy=sum(strict) / len(checkable) if checkable else None,
        rfwr=sum(correct[i] and not s for i, s in zip(checkable, strict, strict=True)) / len(checkable)
        if checkable
        else None,
        reasoned_soundly=_share([classes[i] == "sound" and earned[i] for i in traced_correct]),
        contradicted_among_correct=_share([classes[i] == "contradicted" for i in traced_correct]),
        audit={name: classes.count(name) for name in AUDIT_CLASSES},
        audit_by_correctness=audited.by_correctness,
        unearned_correct=sum(right and not e for right, e in zip(correct, earned, strict=True)),
        flags=flags,
        audit_classes=classes,
        audit_reasons=audited.reasons,
        audits=audited,
    )


def audit_by_correctness(classes: Sequence[str], correct: Sequence[bool]) -> dict[str, dict[str, int]]:
    """The count of each audit class among the right answers and among the wrong ones."""
    return {
        key: {
            name: sum(c == name for c, r in zip(classes, correct, strict=True) if r == want) for name in AUDIT_CLASSES
        }
        for key, want in (("correct", True), ("wrong", False))
    }


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


STORED = "stored"  # the extractor that reads the authors' stored letters (import-authors' run lines)


def decide_answer(text: str | None, row: Mapping, extractor: str = DEFAULT_EXTRACTOR, stored: str | None = None):
    """The one answer policy for a run's output on ``row``: ``(letter or None, translation or None)``.

    With the ``stored`` extractor, the authors' stored letter (``stored``); else, on a translate-then-solve row
    (``mitigation`` t2s), our reader's letter of the model's program (its :class:`Translation` returned, kept
    for the translation table whatever the extractor); else ``extractor``'s letter of ``text``."""
    from naf_bench.scoring.translation import answer_from_translation

    translation = None
    if row.get("mitigation") == "t2s" and text is not None:
        translation = answer_from_translation(text, row["condition"])
    if extractor == STORED:
        return (stored if stored in answer_letters() else None), translation
    if translation is not None:
        return translation.letter, translation
    return extract_answer(text, extractor), None


def constant_hits(gold: str | None) -> dict[str, bool]:
    """Whether each constant answer is right on one row; their means are the constant baselines."""
    return {f"constant_{x}": gold == x for x in answer_letters()}


def majority_letter(golds: Iterable[str | None]) -> str | None:
    """The most frequent gold letter, the first in A/B/C order among equals (the one tie rule of every
    baseline); None when no row has gold."""
    counts = Counter(gold for gold in golds if gold is not None)
    return max(answer_letters(), key=lambda letter: counts[letter]) if counts else None


def best_constants(rows: Iterable[Mapping]) -> dict[str, str]:
    """The best constant answer per condition: the majority gold letter of each condition with gold."""
    golds: dict[str, list] = defaultdict(list)
    for row in rows:
        golds[row["condition"]].append(row["gold"])
    return {condition: letter for condition, g in golds.items() if (letter := majority_letter(g)) is not None}


def program_solved(answers: Mapping[str, str | None], golds: Mapping[str, str]) -> bool | None:
    """One program's JOINT term from its answers and gold letters by condition: None when JOINT does not count
    it (a JOINT reading without gold), else whether every JOINT reading is answered right."""
    joint = joint_conditions()
    if not all(c in golds for c in joint):
        return None
    return all(answers.get(c) is not None and answers[c] == golds[c] for c in joint)


def flip_rate(items: Iterable[tuple[Hashable, str, str | None]]) -> tuple[float | None, int]:
    """(flip rate, groups) from (program, condition, answer): among the (program, condition) groups with at
    least two parsed answers (rule orders or framings), the share whose answer is not constant."""
    groups = defaultdict(list)
    for program, condition, answer in items:
        if answer is not None:
            groups[(program, condition)].append(answer)
    flippable = [g for g in groups.values() if len(g) >= 2]
    return (sum(len(set(g)) > 1 for g in flippable) / len(flippable) if flippable else None), len(flippable)


def program_cluster(row: Mapping) -> Hashable:
    """The distinct program a row belongs to, for intervals (older gold rows have no ``cluster``: its program)."""
    return row.get("cluster") or row["program_id"]


# what a row is resampled with in the intervals
CLUSTERS: dict[str, Callable[[Mapping, int], Hashable]] = {
    "program": lambda row, i: row["program_id"],
    "cluster": lambda row, i: program_cluster(row),
    "id": lambda row, i: row["id"],
    "row": lambda row, i: i,
}


@dataclass(frozen=True)
class Scores:
    """A run scored: its rows, the answer read from each, whether each was answered (a non-null prediction),
    the traces' proofs, and every aggregate as a method over a slice (row indexes) of it."""

    rows: Sequence[Mapping]
    answers: Sequence[str | None]
    answered: Sequence[bool]
    extractor: str
    format_valid_rate: float | None  # the share of the run's non-null predictions that read as a letter
    proofs: Proofs | None = None
    n_bootstrap: int = 1000
    seed: int = 0

    @cached_property
    def scored(self) -> list[int]:
        """The rows with gold (the none condition's are never scored)."""
        return [i for i, row in enumerate(self.rows) if row["gold"] is not None]

    def where(self, **values) -> list[int]:
        """The scored rows whose columns have the given values."""
        return [i for i in self.scored if all(self.rows[i].get(k) == v for k, v in values.items())]

    def by(self, column: str, indices: Sequence[int] | None = None) -> dict:
        """``{value: rows}`` of a column over scored rows (all by default), in sorted order."""
        slices = defaultdict(list)
        for i in self.scored if indices is None else indices:
            slices[self.rows[i][column]].append(i)
        return dict(sorted(slices.items()))

    def right(self, i: int) -> bool:
        return self.answers[i] == self.rows[i]["gold"]

    def cell(self, indices: Sequence[int] | None = None) -> Tally:
        """Correct, parsed and all answers over scored rows (all by default)."""
        indices = self.scored if indices is None else indices
        return Tally(
            correct=sum(self.right(i) for i in indices),
            n_parsed=sum(self.answers[i] is not None for i in indices),
            n=len(indices),
        )

    @cached_property
    def majority(self) -> str | None:
        """The most frequent gold letter over every row."""
        return majority_letter(row["gold"] for row in self.rows)

    @cached_property
    def best_constants(self) -> dict[str, str]:
        """The best constant answer per condition over every scored row (:func:`best_constants`)."""
        return best_constants(self.rows[i] for i in self.scored)

    def best_constant_accuracy(self, indices: Sequence[int] | None = None) -> float | None:
        """The accuracy on the slice of answering each condition's best constant (over every scored row)."""
        indices = self.scored if indices is None else indices
        best = self.best_constants
        hits = [self.rows[i]["gold"] == best.get(self.rows[i]["condition"]) for i in indices]
        return sum(hits) / len(hits) if hits else None

    def baselines(self, indices: Sequence[int] | None = None, majority: str | None = None) -> dict:
        """The accuracy of each constant answer on the slice's gold letters, and of the ``majority`` letter."""
        golds = Counter(self.rows[i]["gold"] for i in (self.scored if indices is None else indices))
        n = sum(golds.values())
        out = {f"constant_{x}": golds[x] / n if n else None for x in answer_letters()}
        out["majority"] = out[f"constant_{majority}"] if majority else None
        return out

    def solved(self, indices: Sequence[int] | None = None) -> dict:
        """``{program: solved}`` of the programs JOINT counts over the slice (all scored rows by default)."""
        answers: dict = defaultdict(dict)
        golds: dict = defaultdict(dict)
        for i in self.scored if indices is None else indices:
            row = self.rows[i]
            golds[row["program_id"]][row["condition"]] = row["gold"]
            answers[row["program_id"]][row["condition"]] = self.answers[i]
        terms = {program: program_solved(answers[program], golds[program]) for program in golds}
        return {program: term for program, term in terms.items() if term is not None}

    def joint(self, indices: Sequence[int] | None = None, answer: str | None = None) -> float | None:
        """Share of counted programs solved (None when JOINT counts none: e.g. wfs44 asks only under wfs);
        with ``answer``, that of answering that constant letter everywhere."""
        solved = self.solved(indices) if answer is None else self._constant(answer).solved(indices)
        return sum(solved.values()) / len(solved) if solved else None

    def _constant(self, letter: str) -> Scores:
        return Scores(self.rows, [letter] * len(self.rows), [True] * len(self.rows), self.extractor, None)

    def flip_rate(self, indices: Sequence[int] | None = None) -> tuple[float | None, int]:
        """(flip rate, flippable groups) over the slice (see :func:`flip_rate`)."""
        indices = self.scored if indices is None else indices
        return flip_rate((self.rows[i]["program_id"], self.rows[i]["condition"], self.answers[i]) for i in indices)

    @cached_property
    def default_correspondence(self) -> float | None:
        """Of the wrong answers on programs the model answered untutored (condition ``none``), the share equal to
        that untutored answer; None without such errors."""
        default = {
            row["program_id"]: self.answers[i] for i, row in enumerate(self.rows) if row["condition"] == NO_SEMANTICS
        }
        wrong = [
            i
            for i in self.scored
            if self.answers[i] is not None and not self.right(i) and default.get(self.rows[i]["program_id"]) is not None
        ]
        return _share([self.answers[i] == default[self.rows[i]["program_id"]] for i in wrong])

    def intervals(
        self,
        statistics: Sequence[str],
        cluster: str = "program",
        indices: Sequence[int] | None = None,
        n_bootstrap: int | None = None,
    ) -> dict[str, tuple[float, float]]:
        """95 % percentile intervals of ``statistics`` (``strict_accuracy``, ``accuracy``: over parsed answers,
        ``joint``) resampling whole clusters (:data:`CLUSTERS`; JOINT's terms need ``program``) with
        replacement: the draws of :func:`naf_bench.scoring.statistics.cluster_resamples`, each resample scored from
        per-cluster counts. A resample where a statistic is undefined is left out of its interval."""
        import numpy as np

        key = CLUSTERS[cluster]
        by_cluster = defaultdict(list)
        for i in self.scored if indices is None else indices:
            by_cluster[key(self.rows[i], i)].append(i)
        keys = sorted(by_cluster)
        n_bootstrap = self.n_bootstrap if n_bootstrap is None else n_bootstrap
        if not keys or n_bootstrap < 1:
            return {}
        members = [by_cluster[k] for k in keys]
        counts = {
            "size": [len(rows) for rows in members],
            "right": [sum(self.right(i) for i in rows) for rows in members],
            "parsed": [sum(self.answers[i] is not None for i in rows) for rows in members],
        }
        if "joint" in statistics:  # a cluster's JOINT term: counted (every reading has gold), solved
            terms = [next(iter(self.solved(rows).values()), None) for rows in members]
            counts["counted"] = [term is not None for term in terms]
            counts["solved"] = [term is True for term in terms]
        arrays = {name: np.array(values) for name, values in counts.items()}
        ratios = {"strict_accuracy": ("right", "size"), "accuracy": ("right", "parsed"), "joint": ("solved", "counted")}
        samples: dict[str, list] = defaultdict(list)
        for draws in cluster_resamples(len(keys), n_bootstrap, self.seed):
            for name in statistics:
                top, bottom = (arrays[part][draws].sum(axis=1) for part in ratios[name])
                samples[name].append(top[bottom > 0] / bottom[bottom > 0])
        values = {name: np.concatenate(parts) for name, parts in samples.items()}
        return {name: percentile_interval(v.tolist()) for name, v in values.items() if len(v)}


def score(
    rows: Sequence[Mapping],
    predictions: Mapping[Hashable, str | None],
    traces: Mapping[Hashable, object] | None = None,
    *,
    extractor: str = DEFAULT_EXTRACTOR,
    answers: Mapping[Hashable, str | None] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> Scores:
    """The run's :class:`Scores`: each prediction's answer extracted once with ``extractor`` (or ``answers``
    given by id, already decided), each row's by its id.

    ``traces`` (id -> trace, ``str()`` its text, read when scored) are checked on the traced scored rows when
    each of them has a certificate: the step checker and the audit read each trace followed by its answer line
    (``ANSWER: X``, the prediction's answer, as a traced response ends).
    """
    if answers is None:
        answers = {key: extract_answer(text, extractor) for key, text in predictions.items() if text is not None}
        read = list(answers.values())
    else:
        read = [answers.get(key) for key, text in predictions.items() if text is not None]
    scores = Scores(
        rows=rows,
        answers=[answers.get(row["id"]) for row in rows],
        answered=[predictions.get(row["id"]) is not None for row in rows],
        extractor=unalias_extractor(extractor),
        format_valid_rate=sum(answer is not None for answer in read) / len(read) if read else None,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    traced = [i for i in scores.scored if traces.get(rows[i]["id"])] if traces else []
    if not traced or not all("certificate" in rows[i] for i in traced):
        return scores

    def text(i: int) -> str:  # read from its file when scored (a SubmittedTrace), or given as text
        return str(traces[rows[i]["id"]]) + "\nANSWER: " + (scores.answers[i] or "")

    found = proofs((text(i) for i in traced), [rows[i] for i in traced], [scores.answers[i] for i in traced])
    return replace(scores, proofs=found)
