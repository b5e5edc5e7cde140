"""Instances to dataset rows: a config's generation units, each generated and rendered on its own (in parallel
processes) and merged into exactly the rows one process makes, and each program's rows in the one schema."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from naf_bench.data.planner import run_units
from naf_bench.errors import ConfigError
from naf_bench.generate.algorithm import CellStats, Instance, exclusions
from naf_bench.generate.bins import distance
from naf_bench.generate.config import GenerationConfig, Unit
from naf_bench.generate.registry import FAMILIES
from naf_bench.readings import NO_SEMANTICS, effort_keys, gold_letter
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.prompt import render_prompt
from naf_bench.verbalize.trace import render_gold_trace
from naf_bench.verbalize.traced import render_traced_prompt

# What a unit's programs of one split become where they were generated: called as render(config, split, position,
# instances); a module-level function (or a partial of one), so that it reaches worker processes by name
Render = Callable[[GenerationConfig, str, int, list[Instance]], Any]


def as_instances(config: GenerationConfig, split: str, position: int, instances: list[Instance]) -> list[Instance]:
    """The default :data:`Render`: the instances themselves."""
    return instances


def unit_splits(config: GenerationConfig, position: int, render: Render = as_instances) -> list[tuple]:
    """The one function that makes a unit's programs: unit ``position`` of ``config`` across every split, each
    cell walked (:meth:`~naf_bench.generate.algorithm.Cell.walk`) against only the unit's own earlier keys (hashed
    seeds need nothing else), each split's programs as (the keys its walk met, those it excluded, what ``render``
    makes of its programs, its statistics). A worker process (or any other engine) runs it as it is;
    :func:`generate_units` settles the cells that met another unit's programs."""
    unit = config.units()[position]
    seen: set[str] = set()
    results = []
    for split in config.splits:
        walk = config.cell(unit, split).walk(seen)
        made = render(config, split, position, walk.programs())
        seen.update(walk.keys)
        results.append((walk.met, walk.excluded, made, walk.stats))
    return results


def generate_units(
    config: GenerationConfig,
    render: Render = as_instances,
    num_proc: int | None = None,
    shard: tuple[int, int] | None = None,
    min_saving: float | None = None,
    exclude: frozenset[str] = frozenset(),
) -> tuple[dict[str, list], list[tuple[str, Unit, CellStats]]]:
    """Each split's units in order, as ``render`` makes them (by default their instances), and each (split, unit)'s
    statistics, exactly as one walk of the config's cells in order makes them.

    Each unit runs across the splits with only its own keys (:func:`unit_splits`), and is rendered, where it runs
    (in worker processes where they pay: :func:`naf_bench.data.planner.run_units`, and ``min_saving``). Where cells
    meet, :func:`~naf_bench.generate.algorithm.exclusions` says which keys each must exclude (those an earlier cell
    kept); a cell that excluded others is walked again against them, in passes until none changes, and rendered here
    (cells differ in signature or size, so this is rare). ``shard=(i, n)`` generates the i-th of n contiguous ranges
    of units only. A worker that dies fails the call with a ``WorkerError``. ``exclude`` holds canonical keys no
    split may use (a hidden set's: every public program), as if a cell before the first had kept them.
    """
    units = config.units()
    positions = list(range(len(units)))
    if shard is not None:
        index, total = shard
        if not 0 <= index < total:
            raise ConfigError(f"shard {index}/{total}: expected 0 <= i < N")
        positions = positions[index * len(units) // total : (index + 1) * len(units) // total]
    results = run_units(unit_splits, config, positions, (render,), num_proc, min_saving)
    cells = [(s, position) for s in range(len(config.splits)) for position in positions]
    decided = [results[position][s] for s, position in cells]
    walks: dict[int, list] = {}  # a cell walked again here: the attempts it made so far
    while True:
        met = [(key, -1, True) for key in exclude]
        met += [(key, order, kept) for order, (keys, *_) in enumerate(decided) for key, kept in keys]
        conflicts = exclusions(met)
        changed = [order for order, (_, excluded, *_) in enumerate(decided) if conflicts.get(order, set()) != excluded]
        if not changed:
            break
        for order in changed:
            s, position = cells[order]
            cell = config.cell(units[position], config.splits[s])
            walk = cell.walk(conflicts.get(order, ()), walks.setdefault(order, []))
            decided[order] = (walk.met, walk.excluded, walk, walk.stats)
    splits: dict[str, list] = {split: [] for split in config.splits}
    stats = []
    for order, (s, position) in enumerate(cells):
        split, made = config.splits[s], decided[order][2]
        if order in walks:
            made = render(config, split, position, made.programs())
        splits[split].append(made)
        stats.append((split, units[position], decided[order][3]))
    return splits, stats


def first_index(config: GenerationConfig, split: str, position: int) -> int:
    """The index of a unit's first program within its group (tier, or family) in the split: the units before it
    in the group hold a fixed number of programs each."""
    units = config.units()
    group = FAMILIES[units[position].family].group(units[position].axes)
    s = config.splits.index(split)
    return sum(unit.counts[s] for unit in units[:position] if FAMILIES[unit.family].group(unit.axes) == group)


def unit_rows(
    config: GenerationConfig, split: str, position: int, instances: list[Instance], start: int = 0
) -> list[dict]:
    """The rows of a unit's programs in one split (a :data:`Render`), or of its programs from the ``start``-th on:
    the one function that makes a unit's or a chunk's rows, whoever calls it."""
    first = first_index(config, split, position) + start
    return [row for j, instance in enumerate(instances) for row in instance_rows(config, instance, first + j, split)]


def kept_rows(config: GenerationConfig, split: str, position: int, attempts: list[int], start: int) -> list[dict]:
    """The rows of a unit's kept programs ``start``, ``start + 1``, ... of one split, from the attempts that the
    walk kept for them: each attempt, a function of its coordinates alone, is made again where it is rendered."""
    cell = config.cell(config.units()[position], split)
    return unit_rows(config, split, position, [cell.attempt(index).instance for index in attempts], start)


def instance_rows(config: GenerationConfig, instance: Instance, index: int, split: str = "test") -> Iterator[dict]:
    """The rows of one program: every condition, and every certified rule order for named conditions. A split
    other than ``test`` is named in the id (indices restart in each split), so ids are unique across splits."""
    program_id = f"{config.prefix}-{instance.group}-i{index}"
    if split != "test":
        program_id = f"{config.prefix}-{split}-{instance.group}-i{index}"
    variants = [(order_id, framing) for order_id in range(config.n_orders) for framing in config.framings]
    render = render_traced_prompt if config.traced else render_prompt
    certificates = {}  # an order's certificate as JSON, asked for by every condition and framing
    for condition in config.conditions:
        for order_id, framing in variants if condition != NO_SEMANTICS else variants[:1]:
            program, certificate = instance.orders[order_id]
            prompt = render(program, instance.query, condition, config.language, framing)
            gold_trace = render_gold_trace(program, certificate, condition, framing, config.language)
            suffix = (f"-o{order_id}" if config.n_orders > 1 else "") + (
                f"-{framing}" if len(config.framings) > 1 else ""
            )
            if order_id not in certificates:
                certificates[order_id] = certificate.to_json()
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
                "effort": {key: certificate.effort[key] for key in effort_keys()},
                "certificate": certificates[order_id],
                "gold_trace": gold_trace,
                "prompt": prompt,
                "messages": [{"role": "user", "content": prompt}]
                + ([{"role": "assistant", "content": gold_trace}] if gold_trace else []),
                "seed": instance.seed,
            }


def build_rows(
    config: GenerationConfig,
    num_proc: int | None = None,
    shard: tuple[int, int] | None = None,
    exclude: frozenset[str] = frozenset(),
) -> dict[str, list[dict]]:
    """Rows of every split (of one shard); canonical keys never repeat across splits, nor name a program of
    ``exclude``."""
    splits, _ = generate_units(config, unit_rows, num_proc, shard, exclude=exclude)
    return {split: [row for rows in units for row in rows] for split, units in splits.items()}


def rows_json(rows: list[dict]) -> str:
    """Rows as canonical JSON lines (for byte-identity checks and ``generate --out x.jsonl``)."""
    return "".join(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n" for row in rows)
