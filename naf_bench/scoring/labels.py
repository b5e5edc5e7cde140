"""Label metrics: accuracy and coverage, per condition and bin, JOINT, flip rate, default correspondence,
majority and constant-answer baselines on the same slices, and program-clustered bootstrap intervals.

Definitions follow seed 000 and the reference leaderboard: a program counts towards JOINT only if its
``closed_world``, ``cred``, ``skept`` and ``wfs`` answers are all present and correct; rows whose reference
is None (condition ``none``) are never scored.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from naf_bench.readings import CONDITIONS, JOINT_CONDITIONS, LETTERS
from naf_bench.scoring.extract import extract_answer
from naf_bench.scoring.records import NOT_SCORED, NotScored, Record


@dataclass(frozen=True, kw_only=True)
class LabelScores(Record):
    """The label scores of a run; ``to_dict()`` is what ``compute_label_metrics`` and the evaluate module return."""

    accuracy: float | None  # over parsed answers
    strict_accuracy: float | None  # unparsed answers count as wrong
    coverage: float | None
    n: int
    n_rows: int
    n_scored: int
    n_unparsed: int
    extractor: str
    majority_letter: str | None
    baselines: dict
    per_condition: dict | NotScored = NOT_SCORED
    per_bin: dict | NotScored = NOT_SCORED
    joint: float | NotScored | None = NOT_SCORED
    baselines_joint: dict | NotScored = NOT_SCORED
    flip_rate: float | NotScored | None = NOT_SCORED
    n_flip_groups: int | NotScored = NOT_SCORED
    default_correspondence: float | NotScored | None = NOT_SCORED
    ci95: dict


def _check_lengths(n: int, **columns) -> None:
    for name, column in columns.items():
        if column is not None and len(column) != n:
            raise ValueError(f"{name} has {len(column)} entries but predictions has {n}")


def _validate(references, conditions) -> None:
    for i, reference in enumerate(references):
        if reference is not None and reference not in LETTERS:
            raise ValueError(f"references[{i}] must be A, B, C or None, got {reference!r}")
    for i, condition in enumerate(conditions or ()):
        if condition not in CONDITIONS:
            raise ValueError(f"conditions[{i}] must be one of {CONDITIONS}, got {condition!r}")


def _accuracy(pairs: list[tuple[str | None, str]]) -> dict:
    """pairs of (parsed answer or None, gold) for scored rows."""
    n = len(pairs)
    parsed = [(a, g) for a, g in pairs if a is not None]
    correct = sum(a == g for a, g in parsed)
    return {
        "accuracy": correct / len(parsed) if parsed else None,
        "strict_accuracy": correct / n if n else None,
        "coverage": len(parsed) / n if n else None,
        "n": n,
    }


def flip_rate_from_items(items) -> tuple[float | None, int]:
    """(flip rate, groups) from (program_id, condition, answer) tuples: among (program, condition) groups
    with at least two parsed answers, the share whose answer is not constant."""
    groups = defaultdict(list)
    for program_id, condition, answer in items:
        if answer is not None:
            groups[(program_id, condition)].append(answer)
    flippable = [g for g in groups.values() if len(g) >= 2]
    return (sum(len(set(g)) > 1 for g in flippable) / len(flippable) if flippable else None), len(flippable)


def _solved(answers: dict, golds: dict) -> dict:
    """answers/golds: program -> {condition: letter}; for each program with a gold row for every reading,
    whether all four readings are answered correctly."""
    programs = [p for p in golds if all(c in golds[p] for c in JOINT_CONDITIONS)]
    return {
        p: all(answers[p].get(c) is not None and answers[p][c] == golds[p][c] for c in JOINT_CONDITIONS)
        for p in programs
    }


def _joint(answers: dict, golds: dict) -> float | None:
    """Share of programs with all four readings correct, over the programs that have a gold row for every
    reading (None when none has: e.g. wfs44 asks only under wfs)."""
    solved = _solved(answers, golds)
    return sum(solved.values()) / len(solved) if solved else None


def solved_programs(answers: Sequence[str | None], references, conditions, program_ids) -> dict:
    """``{program id: bool}``: the per-program terms of JOINT (the programs JOINT counts, and which it counts
    as solved); the leaderboard's Ladder compares submissions program by program on these."""
    _check(len(answers), references, conditions, program_ids)
    answer_table, gold_table = _tables(answers, references, conditions, program_ids, range(len(answers)))
    return _solved(answer_table, gold_table)


def majority_letter(golds) -> str | None:
    """The most frequent gold letter (the first seen among equals), None when no row has gold."""
    counts = Counter(gold for gold in golds if gold is not None)
    return counts.most_common(1)[0][0] if counts else None


def constant_hits(gold: str | None) -> dict[str, bool]:
    """Whether each constant answer is right on one row; their means are the constant baselines."""
    return {f"constant_{x}": gold == x for x in LETTERS}


def constant_baselines(golds: list[str], majority: str | None) -> dict:
    """The accuracy of each constant answer on the gold letters, and of the majority letter."""
    hits = [constant_hits(gold) for gold in golds]
    out = {key: (sum(hit[key] for hit in hits) / len(hits) if hits else None) for key in constant_hits(None)}
    out["majority"] = out[f"constant_{majority}"] if majority else None
    return out


def compute_label_metrics(
    predictions: Sequence[str | None],
    references: Sequence[str | None],
    conditions: Sequence[str] | None = None,
    program_ids: Sequence[str] | None = None,
    variants: Sequence[str] | None = None,
    bins: Sequence[str] | None = None,
    extractor: str = "strict",
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> dict:
    """Scores of model responses against gold letters (see the module docstring)."""
    _check(len(predictions), references, conditions, program_ids, variants, bins)
    answers = [extract_answer(p, extractor) for p in predictions]
    return _scores(answers, references, conditions, program_ids, variants, bins, extractor, n_bootstrap, seed).to_dict()


def score_answers(answers: Sequence[str | None], references: Sequence[str | None], **options) -> LabelScores:
    """``compute_label_metrics`` of answers already extracted (None: unanswered), with its options (``extractor``
    names the extractor the answers were read with)."""
    _check(len(answers), references, **options)
    return _scores(answers, references, **options)


def _check(n: int, references, conditions=None, program_ids=None, variants=None, bins=None, **_) -> None:
    _check_lengths(
        n, references=references, conditions=conditions, program_ids=program_ids, variants=variants, bins=bins
    )
    _validate(references, conditions)


def _scores(answers, references, conditions=None, program_ids=None, variants=None, bins=None, extractor="strict",
            n_bootstrap=1000, seed=0) -> LabelScores:  # fmt: skip
    n = len(answers)
    scored = [i for i in range(n) if references[i] is not None]
    result = _accuracy([(answers[i], references[i]) for i in scored])
    result.update(
        n_rows=n, n_scored=len(scored), n_unparsed=sum(answers[i] is None for i in scored), extractor=extractor
    )
    majority = majority_letter(references)
    result["majority_letter"] = majority
    result["baselines"] = constant_baselines([references[i] for i in scored], majority)
    for name, column in (("condition", conditions), ("bin", bins)):
        if column is None:
            continue
        slices = defaultdict(list)
        for i in scored:
            slices[column[i]].append(i)
        result[f"per_{name}"] = {
            key: {
                **_accuracy([(answers[i], references[i]) for i in rows]),
                "baselines": constant_baselines([references[i] for i in rows], majority),
            }
            for key, rows in sorted(slices.items())
        }
    if program_ids is not None and conditions is not None:
        result.update(_program_metrics(answers, references, conditions, program_ids, variants, majority))
        result["ci95"] = _bootstrap(answers, references, conditions, program_ids, n_bootstrap, seed)
    else:
        result["ci95"] = _bootstrap(answers, references, None, list(range(n)), n_bootstrap, seed)
    return LabelScores(**result)


def _tables(answers, references, conditions, program_ids, rows):
    answer_table: dict = defaultdict(dict)
    gold_table: dict = defaultdict(dict)
    for i in rows:
        if references[i] is not None:
            gold_table[program_ids[i]][conditions[i]] = references[i]
            answer_table[program_ids[i]][conditions[i]] = answers[i]
    return answer_table, gold_table


def _program_metrics(answers, references, conditions, program_ids, variants, majority) -> dict:
    out = {}
    answer_table, gold_table = _tables(answers, references, conditions, program_ids, range(len(answers)))
    if variants is None:
        out["joint"] = _joint(answer_table, gold_table)
        out["baselines_joint"] = {
            f"constant_{x}": _joint({p: dict.fromkeys(g, x) for p, g in gold_table.items()}, gold_table)
            for x in LETTERS
        }
        out["baselines_joint"]["majority"] = out["baselines_joint"][f"constant_{majority}"] if majority else None
    else:
        out["flip_rate"], out["n_flip_groups"] = flip_rate_from_items(
            (program_ids[i], conditions[i], answer) for i, answer in enumerate(answers) if references[i] is not None
        )
    default = {program_ids[i]: answers[i] for i in range(len(answers)) if conditions[i] == "none"}
    if default:
        wrong = [
            i
            for i in range(len(answers))
            if references[i] is not None
            and answers[i] is not None
            and answers[i] != references[i]
            and default.get(program_ids[i]) is not None
        ]
        out["default_correspondence"] = (
            sum(answers[i] == default[program_ids[i]] for i in wrong) / len(wrong) if wrong else None
        )
    return out


def _bootstrap(answers, references, conditions, clusters, n_bootstrap: int, seed: int) -> dict:
    """95% percentile intervals, resampling whole programs (clusters) with replacement: resample ``b`` draws
    the clusters ``random.Random(seed).choices(sorted clusters, k=len(clusters))`` would draw on its ``b``-th
    call, read from the same Mersenne Twister stream by numpy in blocks of resamples, and scores each from
    per-cluster counts (so the intervals are those of resampling row by row, at array speed)."""
    import numpy as np

    by_cluster = defaultdict(list)
    for i, cluster in enumerate(clusters):
        if references[i] is not None:
            by_cluster[cluster].append(i)
    keys = sorted(by_cluster)
    if not keys or n_bootstrap < 1:
        return {}
    members = [by_cluster[key] for key in keys]
    size = np.array([len(rows) for rows in members])
    right = np.array([sum(answers[i] == references[i] for i in rows) for rows in members])
    if conditions is not None:  # a cluster's JOINT terms: counted (every reading has gold), solved
        terms = [
            _solved({0: {conditions[i]: answers[i] for i in rows}}, {0: {conditions[i]: references[i] for i in rows}})
            for rows in members
        ]
        counted = np.array([0 in term for term in terms])
        solved = np.array([term.get(0, False) for term in terms])
    generator = np.random.RandomState()
    state = random.Random(seed).getstate()[1]  # 624 words and a position: random.Random's very stream
    generator.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1]))
    n = len(keys)
    samples: dict[str, list] = defaultdict(list)
    block = max(1, 2**21 // n)  # resamples at a time: 16 MB of draws
    for start in range(0, n_bootstrap, block):
        # choices(): population[floor(random() * n)], k at a time
        draws = np.floor(generator.random_sample((min(block, n_bootstrap - start), n)) * n).astype(np.intp)
        samples["strict_accuracy"].append(right[draws].sum(axis=1) / size[draws].sum(axis=1))
        if conditions is not None:
            programs = counted[draws].sum(axis=1)
            samples["joint"].append(solved[draws].sum(axis=1)[programs > 0] / programs[programs > 0])
    intervals = {name: np.concatenate(parts) for name, parts in samples.items()}
    return {name: _percentiles(values.tolist()) for name, values in intervals.items() if len(values)}


def _percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return ordered[int(0.025 * (len(ordered) - 1))], ordered[int(0.975 * (len(ordered) - 1))]
