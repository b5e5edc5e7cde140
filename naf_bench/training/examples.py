"""What training reads: a config's rows as prompt-completion pairs and preference pairs, the held-out rows, and the
chat prompt every model call builds."""

from __future__ import annotations

import random
from collections.abc import Sequence

from naf_bench.errors import ConfigError
from naf_bench.readings import answer_letters

ANSWER_PREFIX = "ANSWER:"


def _rows(config: str, split: str | None, framings: Sequence[str], overrides: dict | None = None) -> list[dict]:
    """Named-condition rows of a config split in the given framings (rendered in them when the config lacks one),
    the config's fields overridden by ``overrides`` (``--set``)."""
    from naf_bench.data.dataset import load_dataset
    from naf_bench.generate.config import get_config

    overrides = dict(overrides or {})
    base = get_config(config, **overrides)
    if not set(framings) <= set(base.framings):
        overrides["framings"] = tuple(framings)
    dataset = load_dataset(config, **overrides)
    split = split or base.splits[-1]
    if split not in dataset:
        raise ConfigError(f"config {config!r} has no split {split!r}; it has {sorted(dataset)}")
    rows = [row for row in dataset[split] if row["gold"] is not None and row["framing"] in framings]
    if not rows:
        raise ConfigError(f"config {config!r} split {split!r} has no named-condition rows in framings {framings}")
    return rows


def training_rows(
    framings: Sequence[str], config: str = "sft", split: str = "train", overrides: dict | None = None
) -> list[dict]:
    return _rows(config, split, framings, overrides)


def evaluation_rows(
    framings: Sequence[str],
    config: str = "wfs44",
    split: str | None = None,
    limit: int | None = None,
    overrides: dict | None = None,
) -> list[dict]:
    """The held-out rows; ``limit`` keeps that many programs evenly spaced through the split (so every bin of a
    config made bin by bin), with all their framings."""
    rows = _rows(config, split, framings, overrides)
    if limit is not None:
        programs = list(dict.fromkeys(row["program_id"] for row in rows))
        kept = {programs[k * len(programs) // limit] for k in range(min(limit, len(programs)))}
        rows = [row for row in rows if row["program_id"] in kept]
    return rows


def letter_completions(rows: Sequence[dict]) -> list[dict]:
    """The rows with the assistant turn cut to its last line, 'ANSWER: X': letter-only training targets."""
    return [
        {**row, "messages": [row["messages"][0], {"role": "assistant", "content": f"{ANSWER_PREFIX} {row['gold']}"}]}
        for row in rows
    ]


def answer_line_tokens(tokenizer) -> int:
    """Tokens of the longest 'ANSWER: X' line (X in A/B/C): the fewest new tokens a generation needs to write the
    letter-only completion (five for SmolLM2: 'AN', 'SW', 'ER', ':', ' A')."""
    return max(
        len(tokenizer(f"{ANSWER_PREFIX} {letter}", add_special_tokens=False)["input_ids"])
        for letter in answer_letters()
    )


def check_disjoint(train_rows: Sequence[dict], eval_rows: Sequence[dict]) -> None:
    """ConfigError when a held-out program is a training program (by canonical key: up to renaming and order)."""
    from naf_bench.syntax import canonical_key, parse_program

    def keys(rows):
        return {canonical_key(parse_program(row["program"]), row["query"]) for row in rows}

    if shared := keys(train_rows) & keys(eval_rows):
        raise ConfigError(f"{len(shared)} evaluation programs are training programs; evaluate on another split")


def preference_pairs(rows: Sequence[dict]) -> list[dict]:
    """DPO pairs: a row's certified trace (chosen) against the trace of another reading of the same program,
    framing and rule order whose answer differs (rejected) — e.g. the closed-world answer under WFS."""
    variants: dict[tuple, list[dict]] = {}
    for row in rows:
        variants.setdefault((row["program_id"], row["framing"], row["order_id"]), []).append(row)
    pairs = [
        {"prompt": row["messages"][:1], "chosen": row["messages"][1:], "rejected": other["messages"][1:]}
        for group in variants.values()
        for row in group
        for other in group
        if other["gold"] != row["gold"]
    ]
    if not pairs:
        raise ConfigError("no program has two readings with different answers: no preference pair to train on")
    return pairs


def program_groups(rows: Sequence[dict], seed: int) -> list[list[dict]]:
    """The rows of each program, in a seeded order: one group per semantic-loss step."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["program_id"], []).append(row)
    ordered = list(groups.values())
    random.Random(seed).shuffle(ordered)
    return ordered


def chat_prompt(tokenizer, row: dict) -> str:
    """The row's user turn in the model's chat template, ready for the assistant's answer."""
    return tokenizer.apply_chat_template(row["messages"][:1], tokenize=False, add_generation_prompt=True)
