"""Instances to dataset rows: a config's generation units, its splits generated (in parallel processes, merged
into exactly the rows one process makes), and each program's rows in the one schema."""

from __future__ import annotations

import json
from collections.abc import Iterator

from naf_bench.errors import ConfigError
from naf_bench.generate.algorithm import CellStats, Instance, generate
from naf_bench.generate.bins import distance
from naf_bench.generate.config import GenerationConfig, Unit
from naf_bench.generate.registry import FAMILIES
from naf_bench.readings import EFFORT_KEYS, gold_letter
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.prompt import render_prompt
from naf_bench.verbalize.trace import render_gold_trace
from naf_bench.verbalize.traced import render_traced_prompt


def _generate(config: GenerationConfig, unit: Unit, count: int, split: str, seen: set[str]):
    training = config.is_training(split)
    return generate(unit.family, unit.axes, config.seed, config.name, split, count, seen, config.n_orders, training)


def _unit_splits(job: tuple[GenerationConfig, int]) -> list[tuple[list[Instance], CellStats]]:
    """One unit across every split with its own ``seen`` (a worker's job: hashed seeds need nothing else)."""
    config, position = job
    unit = config.units()[position]
    seen: set[str] = set()
    return [_generate(config, unit, n, split, seen) for n, split in zip(unit.counts, config.splits, strict=True)]


def generate_splits(
    config: GenerationConfig, num_proc: int | None = None, shard: tuple[int, int] | None = None
) -> tuple[dict[str, list[Instance]], list[tuple[str, Unit, CellStats]]]:
    """Every split's instances and each (split, unit)'s statistics, exactly as one process makes them.

    One process walks the splits and, in each, the units, with one ``seen`` set of canonical keys. Here each
    unit runs across the splits with only its own keys (in ``num_proc`` worker processes), and the merge
    replays the walk: a unit none of whose programs another unit already used took the very same attempts,
    so it is kept; otherwise it is generated again against the true ``seen`` (cells differ in signature or
    size, so this is rare). ``shard=(i, n)`` generates the i-th of n contiguous ranges of units only.
    """
    units = config.units()
    positions = list(range(len(units)))
    if shard is not None:
        index, total = shard
        if not 0 <= index < total:
            raise ConfigError(f"shard {index}/{total}: expected 0 <= i < N")
        positions = positions[index * len(units) // total : (index + 1) * len(units) // total]
    jobs = [(config, position) for position in positions]
    if num_proc is not None and num_proc > 1 and len(jobs) > 1:
        import multiprocessing

        # spawn: the parent may hold an embedded SWI-Prolog and a swipl subprocess, which fork would share
        with multiprocessing.get_context("spawn").Pool(min(num_proc, len(jobs))) as pool:
            results = pool.map(_unit_splits, jobs, chunksize=1)
    else:
        results = [_unit_splits(job) for job in jobs]
    seen: set[str] = set()
    stale: set[int] = set()  # units regenerated in an earlier split: their later splits assumed other keys
    splits: dict[str, list[Instance]] = {split: [] for split in config.splits}
    stats = []
    for s, split in enumerate(config.splits):
        for position, per_split in zip(positions, results, strict=True):
            kept, unit_stats = per_split[s]
            if position in stale or any(instance.key in seen for instance in kept):
                kept, unit_stats = _generate(config, units[position], units[position].counts[s], split, seen)
                stale.add(position)
            else:
                seen.update(instance.key for instance in kept)
            splits[split].extend(kept)
            stats.append((split, units[position], unit_stats))
    return splits, stats


def row_indices(
    config: GenerationConfig, split: str, instances: list[Instance], shard: tuple[int, int] | None = None
) -> list[int]:
    """Each instance's index within its group (tier, or family) in the split; a shard's count starts after the
    units before it, whose sizes are fixed."""
    counters: dict[str, int] = {}
    if shard is not None:
        units = config.units()
        for unit in units[: shard[0] * len(units) // shard[1]]:
            group = FAMILIES[unit.family].group(unit.axes)
            counters[group] = counters.get(group, 0) + unit.counts[config.splits.index(split)]
    indices = []
    for instance in instances:
        indices.append(counters.get(instance.group, 0))
        counters[instance.group] = indices[-1] + 1
    return indices


def instance_rows(config: GenerationConfig, instance: Instance, index: int) -> Iterator[dict]:
    """The rows of one program: every condition, and every certified rule order for named conditions."""
    program_id = f"{config.prefix}-{instance.group}-i{index}"
    variants = [(order_id, framing) for order_id in range(config.n_orders) for framing in config.framings]
    for condition in config.conditions:
        for order_id, framing in variants if condition != "none" else variants[:1]:
            program, certificate = instance.orders[order_id]
            render = render_traced_prompt if config.traced else render_prompt
            prompt = render(program, instance.query, condition, config.language, framing)
            gold_trace = render_gold_trace(program, certificate, condition, framing, config.language)
            suffix = (f"-o{order_id}" if config.n_orders > 1 else "") + (
                f"-{framing}" if len(config.framings) > 1 else ""
            )
            yield {
                "id": f"{program_id}-{condition}{suffix}::{condition}",
                "program_id": program_id,
                "config": config.name,
                "family": instance.family,
                "condition": condition,
                "gold": gold_letter(condition, certificate.labels),
                "labels": dict(certificate.labels),
                "signature": certificate.signature,
                "distance": distance(certificate.labels),
                "program": render_asp(program),
                "query": instance.query,
                "depth": instance.axes["depth"],
                "width": instance.axes["width"],
                "cycle_len": instance.axes.get("cycle_len", instance.axes.get("size"))
                if instance.family != "control"
                else 0,
                "framing": framing,
                "language": config.language,
                "order_id": order_id,
                "n_stable_models": certificate.n_stable_models,
                "effort": {key: certificate.effort[key] for key in EFFORT_KEYS},
                "certificate": certificate.to_json(),
                "gold_trace": gold_trace,
                "prompt": prompt,
                "messages": [{"role": "user", "content": prompt}]
                + ([{"role": "assistant", "content": gold_trace}] if gold_trace else []),
                "seed": instance.seed,
            }


def build_rows(
    config: GenerationConfig, num_proc: int | None = None, shard: tuple[int, int] | None = None
) -> dict[str, list[dict]]:
    """Rows of every split (of one shard); canonical keys never repeat across splits."""
    splits, _ = generate_splits(config, num_proc, shard)
    return {
        split: [
            row
            for instance, index in zip(instances, row_indices(config, split, instances, shard), strict=True)
            for row in instance_rows(config, instance, index)
        ]
        for split, instances in splits.items()
    }


def rows_json(rows: list[dict]) -> str:
    """Rows as canonical JSON lines (for byte-identity checks and ``generate --out x.jsonl``)."""
    return "".join(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n" for row in rows)
