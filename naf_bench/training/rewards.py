"""Verifiable rewards for RL (TRL's ``GRPOTrainer`` and its kin): the scoring core's verdicts on one completion.

Every reward takes TRL's keyword arguments, ``prompts``, ``completions`` (text, or a conversation's messages:
the last one's content is read) and one list per dataset column (``gold``, ``condition``, ``certificate``,
``labels``, ...; a naf-bench row's columns), ignores the rest (``completion_ids``, ``trainer_state``, ...) and
returns one ``float | None`` per completion; None where the row has nothing to score (TRL then leaves that row
out of that reward's mean).

=================  =========================================================================================
``answer_reward``  1.0 when the answer the core decides (:func:`naf_bench.scoring.core.decide_answer`, with
                   :data:`EXTRACTOR`, after ``<think>`` blocks) is the row's gold letter, else 0.0 (an
                   unreadable answer is unanswered: 0.0); None on a row without gold (condition ``none``,
                   a JOINT row). The mean over a run is the metric's ``strict_accuracy`` with that extractor.
``format_reward``  1.0 when the instructed format (``ANSWER: X``, the ``strict`` extractor) reads a letter,
                   else 0.0; on a JOINT row, the share of readings whose line reads a letter. The mean over
                   a run is the metric's ``format_valid_rate`` under ``strict``.
``proof_reward``   The step checker (:func:`naf_bench.scoring.core.check_row`) on the completion: the share of
                   its four flags that hold (parsed, valid, linear, connects; 0.25 each), so 1.0 only for a
                   trace that parses, whose every step is justified, in order, ending in the certified
                   verdict and the gold letter. A completion that does not parse gets 0.0 (its other flags
                   fail with it). None on a row without a certificate or gold.
``joint_reward``   On a JOINT row (:mod:`naf_bench.verbalize.joint_prompt`): 1.0 when every JOINT reading's line is
                   answered right (:func:`naf_bench.scoring.core.program_solved`), else 0.0; None elsewhere.
``reading_reward`` ``reading_reward(condition)``: on a JOINT row, 1.0 when that reading's line is right.
=================  =========================================================================================

``REWARDS`` names them for command lines; :func:`pooled` spreads any of them over a process pool.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from naf_bench.readings import gold_letter, joint_conditions
from naf_bench.scoring.core import check_row, decide_answer, program_solved
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR as EXTRACTOR  # the scoring core's default extractor
from naf_bench.scoring.extract import extract_answer
from naf_bench.scoring.joint_answers import joint_answers
from naf_bench.scoring.steps import FLAGS
from naf_bench.training.stream import JOINT

INSTRUCTED = "strict"  # the extractor that reads only the instructed format


def completion_text(completion) -> str:
    """A completion's text: itself, or the content of a conversation's last message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], Mapping):
        return str(completion[-1].get("content") or "")
    raise TypeError(f"a completion is text or a list of messages, got {type(completion).__name__}")


def _rows(completions: Sequence, columns: Mapping[str, Sequence], prompts: Sequence | None) -> list[dict]:
    """One dict per completion of the dataset columns TRL passed (lists as long as ``completions``), with the
    prompt's text where the columns have none (TRL passes the prompt column apart; the step checker reads the
    wording of its rules)."""
    listed = {key: value for key, value in columns.items() if isinstance(value, list | tuple)}
    if prompts is not None and "prompt" not in listed:
        listed["prompt"] = [completion_text(prompt) for prompt in prompts]
    wrong = [key for key, value in listed.items() if len(value) != len(completions)]
    if wrong:
        raise ValueError(f"columns {wrong} do not have one value per completion ({len(completions)})")
    return [{key: value[i] for key, value in listed.items()} for i in range(len(completions))]


def _labels(row: Mapping) -> Mapping[str, str]:
    labels = row.get("labels")
    if labels is None and row.get("certificate"):
        labels = json.loads(row["certificate"])["labels"]
    return labels or {}


def answer_score(text: str, row: Mapping) -> float | None:
    """:func:`answer_reward` of one completion on its row."""
    gold = row.get("gold")
    if gold is None:
        return None
    letter, _ = decide_answer(text, row, EXTRACTOR)
    return float(letter == gold)


def format_score(text: str, row: Mapping) -> float:
    """:func:`format_reward` of one completion on its row."""
    if row.get("condition") == JOINT:
        answers = joint_answers(text, INSTRUCTED)
        return sum(letter is not None for letter in answers.values()) / len(answers)
    return float(extract_answer(text, INSTRUCTED) is not None)


def proof_score(text: str, row: Mapping) -> float | None:
    """:func:`proof_reward` of one completion on its row."""
    if row.get("gold") is None or not row.get("certificate"):
        return None
    flags = check_row(text, row)
    return sum(flags[name] for name in FLAGS) / len(FLAGS)


def joint_golds(row: Mapping) -> dict[str, str]:
    """A JOINT row's gold letter per JOINT reading, from its labels."""
    labels = _labels(row)
    return {condition: gold_letter(condition, labels) for condition in joint_conditions()}


def joint_score(text: str, row: Mapping) -> float | None:
    """:func:`joint_reward` of one completion on its row."""
    if row.get("condition") != JOINT:
        return None
    solved = program_solved(joint_answers(text, EXTRACTOR), joint_golds(row))
    return None if solved is None else float(solved)


def reading_score(condition: str, text: str, row: Mapping) -> float | None:
    """:func:`reading_reward` of one completion on its row."""
    if row.get("condition") != JOINT:
        return None
    return float(joint_answers(text, EXTRACTOR)[condition] == joint_golds(row)[condition])


def _reward(score: Callable[[str, Mapping], float | None], name: str) -> Callable[..., list[float | None]]:
    """``score`` (of one completion's text on its row) as a reward function over TRL's keyword arguments."""

    def reward(prompts=None, completions=(), **columns) -> list[float | None]:
        rows = _rows(completions, columns, prompts)
        return [score(completion_text(c), row) for c, row in zip(completions, rows, strict=True)]

    reward.__name__ = reward.__qualname__ = name  # TRL logs rewards/<name>/mean
    reward.score = score
    reward.__doc__ = f"{name}: one value (or None) per completion, in TRL's signature (see the module's table)"
    return reward


answer_reward = _reward(answer_score, "answer_reward")
format_reward = _reward(format_score, "format_reward")
proof_reward = _reward(proof_score, "proof_reward")
joint_reward = _reward(joint_score, "joint_reward")


def reading_reward(condition: str) -> Callable[..., list[float | None]]:
    """The reward of one JOINT reading's line on JOINT rows (``reading_reward("wfs")``: ``answer_wfs``)."""
    if condition not in joint_conditions():
        raise ValueError(f"condition must be one of {joint_conditions()}, got {condition!r}")
    return _reward(partial(reading_score, condition), f"answer_{condition}")


REWARDS: dict[str, Callable[[], Callable[..., list[float | None]]]] = {
    "answer": lambda: answer_reward,
    "format": lambda: format_reward,
    "proof": lambda: proof_reward,
    "joint": lambda: joint_reward,
    **{f"answer_{condition}": partial(reading_reward, condition) for condition in joint_conditions()},
}


def rewards(names: Sequence[str]) -> list[Callable[..., list[float | None]]]:
    """The reward functions ``names`` name (keys of :data:`REWARDS`)."""
    if unknown := [name for name in names if name not in REWARDS]:
        raise ValueError(f"unknown rewards {unknown}; expected some of {list(REWARDS)}")
    return [REWARDS[name]() for name in names]


def _score_chunk(name: str, texts: list[str], rows: list[dict]) -> list[float | None]:
    score = REWARDS[name]().score
    return [score(text, row) for text, row in zip(texts, rows, strict=True)]


def pooled(name: str, processes: int, chunk: int = 64) -> Callable[..., list[float | None]]:
    """The reward ``name`` spread over a pool of ``processes`` worker processes, ``chunk`` completions a task (the
    same values as the reward itself, in order); the pool lives as long as the returned function."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(processes)

    def reward(prompts=None, completions=(), **columns) -> list[float | None]:
        texts = [completion_text(c) for c in completions]
        rows = _rows(completions, columns, prompts)
        chunks = [(texts[s : s + chunk], rows[s : s + chunk]) for s in range(0, len(texts), chunk)]
        parts = pool.map(partial(_score_chunk, name), [t for t, _ in chunks], [r for _, r in chunks])
        return [value for part in parts for value in part]

    reward.__name__ = reward.__qualname__ = REWARDS[name]().__name__
    reward.pool = pool
    return reward


def ground_truth(row: Mapping) -> str:
    """What a framework that passes the ground truth as one string (verl, OpenRLHF) carries for a row: the
    columns :func:`verifiable_score` reads, as JSON."""
    return json.dumps({key: row[key] for key in ("id", "condition", "gold", "labels")}, sort_keys=True)


def verifiable_score(text: str, truth: str) -> float:
    """One completion's reward from its row's :func:`ground_truth`: the JOINT reward on a JOINT row, else the
    answer reward; 0.0 where the row has no gold (a framework wants a number for every completion)."""
    row = json.loads(truth)
    value = joint_score(text, row) if row["condition"] == JOINT else answer_score(text, row)
    return 0.0 if value is None else value
