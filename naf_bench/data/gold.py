"""The gold a submission is scored on, found from the data stage: a config split's rows (:func:`config_gold`,
:func:`gold_rows`), the split a submission's ids belong to (:func:`gold_for`), and what to say of ids that are
another set's (:func:`whose`, the intake's ``check(..., explain=whose)``). The intake (:mod:`naf_bench.scoring.intake`)
reads and checks files; finding a set builds datasets, which is this stage's work."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from naf_bench.data.dataset import load_dataset
from naf_bench.errors import ConfigError
from naf_bench.generate.config import CONFIGS, get_config
from naf_bench.scoring.intake import Gold, read_gold


def gold_rows(config: str = "hard", split: str | None = None, gold: str | Path | None = None) -> list[dict]:
    """Gold rows from a config split (default: its last, ``test`` for every evaluation config), or from a gold
    file (:func:`naf_bench.scoring.intake.read_gold`: ours, or an authors' layout)."""
    return (read_gold(gold) if gold is not None else config_gold(config, split)).rows


def config_gold(config: str, split: str | None = None) -> Gold:
    """A config split's rows (generated and certified on first use, then cached); ``split`` defaults to the
    config's last (``test`` for every evaluation config)."""
    split = split or get_config(config).splits[-1]
    return Gold(load_dataset(config, split=split).to_list(), f"{config}/{split}")


def gold_for(
    ids: Collection[str], config: str | None = None, split: str | None = None, gold: str | Path | None = None
) -> Gold:
    """The gold a submission with these ids is scored on: the file ``gold``, the config split asked for, or,
    with neither, the config split whose ids they are (a ConfigError naming the candidates where ids cannot
    tell)."""
    if gold is not None:
        if config or split:
            raise ConfigError("give --gold FILE or --config/--split, not both")
        return read_gold(gold)
    if config is not None:
        return config_gold(config, split)
    named = _config_of(ids)
    if named is None:
        raise ConfigError(
            f"the submission's ids name no naf-bench config ({_examples(ids)}): give the gold they "
            "belong to with --gold FILE, or --config CONFIG"
        )
    splits = [split] if split else list(get_config(named).splits)
    if len(splits) == 1:
        return config_gold(named, splits[0])
    best, dataset = _best_splits(ids, named, splits)
    if len(best) > 1:
        candidates = ", ".join(f"--config {named} --split {name}" for name in best)
        raise ConfigError(
            f"the submission's ids are in {len(best)} splits of {named} alike, so "
            f"they cannot tell which it answers: give one of {candidates}"
        )
    return Gold(dataset[best[0]].to_list(), f"{named}/{best[0]}")


def _best_splits(ids: Collection[str], config: str, splits: list[str]):
    """The splits of ``config`` (among ``splits``) that hold the most of ``ids``, and the config's dataset."""
    dataset = load_dataset(config)
    found = {name: len(set(ids) & set(dataset[name]["id"])) for name in splits}
    return [name for name in splits if found[name] == max(found.values())], dataset


def _config_of(ids: Collection[str]) -> str | None:
    """The config whose id prefix most of ``ids`` carry, or None."""
    counts = {name: sum(key.startswith(f"{c.prefix}-") for key in ids) for name, c in CONFIGS.items()}
    name = max(counts, key=counts.get)
    return name if counts[name] * 2 > len(ids) else None


def _examples(ids: Collection[str]) -> str:
    return "ids such as " + ", ".join(repr(key) for key in sorted(ids)[:2])


def whose(ids: Collection[str], gold: Gold) -> str:
    """Which set ``ids`` name, and how to score them on it."""
    named = _config_of(ids)
    if named is None:
        return f"those not in it name no naf-bench config ({_examples(ids)}): give their gold with --gold FILE"
    others = [split for split in CONFIGS[named].splits if f"{named}/{split}" != gold.name]
    if not others:
        return f"they carry {named}'s id prefix but are not its rows (other settings?): give their gold, --gold FILE"
    if len(CONFIGS[named].splits) == 1:
        return f"they are {named}/{others[0]}'s ids: score them with --config {named}"
    if gold.name.startswith(f"{named}/"):  # another split of the config just read: which one is cheap to tell
        others = _best_splits(ids, named, others)[0]
    return f"they are {named}'s ids: score them with --config {named} --split {' or '.join(others)}"
