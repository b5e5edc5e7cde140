"""An endless, seeded stream of certified items for training, with a curriculum (reasoning-gym's manner).

Item ``i`` of a stream is a function of its :class:`Stream` (seed, curriculum levels, language, framing, prompt
kind) and ``i`` alone: its attempts ``j = 0, 1, ...`` are drawn from the seed hashed from ``(seed, "stream", i,
j)`` (:func:`naf_bench.generate.seeds.item_seed`, never ``seed + i``), the first one certified, of its drawn
bin and on the training side of the canonical-key partition is the item. No walk, no memory of earlier items:
item 10⁶ costs what item 0 costs, and items may repeat a program (as any generator's stream may).

Each item is one row of the one row schema (``config`` ``stream``), asking one reading drawn from the level's
readings, or (``joint=True``) a JOINT row: condition ``joint``, gold None, the JOINT prompt
(:mod:`naf_bench.verbalize.joint_prompt`) and the labels from which each reading's gold follows.

What the stream never draws, in one rule (:func:`drawable`): hidden sets (``leaderboard new-set``) draw the
leaderboard families (``hard``'s tiers, which no bin program can be: their query's one rule is positive) or a bin
config's evaluation side of the partition, as every published evaluation split does; the stream draws only the
partitioned families (the divergence bins), and only programs on the training side, so none of its programs is
(up to renaming) in any evaluation split of any config or in a hidden set.

The curriculum (:data:`CURRICULUM`) has one ladder per attribute: depth, width, bins and readings; a level is
an index into each, raised by a trainer as reward rises (:meth:`Stream.harder`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from naf_bench.certify import certify
from naf_bench.errors import CertificationError, ConfigError
from naf_bench.generate.algorithm import Instance, is_training_key
from naf_bench.generate.config import GenerationConfig
from naf_bench.generate.registry import FAMILIES
from naf_bench.generate.seeds import item_rng, item_seed
from naf_bench.readings import BASELINE, named_conditions
from naf_bench.syntax.structure import canonical_key
from naf_bench.verbalize.joint_prompt import render_joint_prompt

STREAM = "stream"  # the rows' config, and a coordinate of every item's seed
JOINT = "joint"  # a JOINT row's condition
ATTEMPTS = 200  # attempts per item before the stream gives up on its settings (ConfigError)
EVEN_CYCLE_LENS = (2, 4)  # the odd bin's cycle is 3 long

# One ladder per attribute; level k of an attribute is its k-th entry (reasoning-gym's scalar attributes).
CURRICULUM: dict[str, tuple] = {
    "depth": (1, 2, 4, 8),
    "width": (0, 1, 2, 4),
    "bins": (
        ("control", "control_false"),  # the four readings agree
        ("control", "control_false", "even_one_sided", "even_both_sided", "even_conjunctive"),  # even cycles
        ("control", "control_false", "even_one_sided", "even_both_sided", "even_conjunctive", "odd"),  # no model
    ),
    "conditions": ((BASELINE,), (BASELINE, "wfs"), tuple(named_conditions())),
}


def levels_of(values: Sequence[int] | None) -> dict[str, int]:
    """Curriculum levels from one value per attribute in :data:`CURRICULUM`'s order (as ``--level`` gives them);
    none given: every attribute at 0."""
    if not values:
        return dict.fromkeys(CURRICULUM, 0)
    if len(values) != len(CURRICULUM):
        raise ConfigError(f"give one level per curriculum attribute ({', '.join(CURRICULUM)}), got {list(values)}")
    return dict(zip(CURRICULUM, values, strict=True))


def drawable(family: str) -> bool:
    """Whether the stream may draw ``family``: the one rule that keeps it off hidden sets and evaluation splits
    (see the module docstring); with it, only keys on the training side of the partition are kept."""
    return FAMILIES[family].partitioned


@dataclass(frozen=True)
class Stream:
    """An endless stream: its seed, its level on each :data:`CURRICULUM` attribute, its language and framing,
    and what its prompts ask (``traced``: a trace in the gold-trace grammar; ``joint``: every reading at once)."""

    seed: int = 0
    levels: Mapping[str, int] = field(default_factory=lambda: dict.fromkeys(CURRICULUM, 0))
    language: str = "en"
    framing: str = "abstract"
    traced: bool = False
    joint: bool = False

    def __post_init__(self):
        levels = {**dict.fromkeys(CURRICULUM, 0), **self.levels}
        problems = []
        if unknown := sorted(set(levels) - set(CURRICULUM)):
            problems.append(f"unknown curriculum attributes {unknown}; expected {list(CURRICULUM)}")
        problems += [
            f"{name} level {level} is not in 0..{len(CURRICULUM[name]) - 1}"
            for name, level in levels.items()
            if name in CURRICULUM and not (isinstance(level, int) and 0 <= level < len(CURRICULUM[name]))
        ]
        if not problems and (reserved := [f for f in CURRICULUM["bins"][levels["bins"]] if not drawable(f)]):
            problems.append(f"{reserved} are reserved for hidden sets and evaluation splits")
        if self.traced and self.joint:
            problems.append("a JOINT prompt asks for four letters, not a trace: traced and joint exclude each other")
        if problems:
            raise ConfigError("stream: " + "; ".join(problems))
        object.__setattr__(self, "levels", levels)
        self.config()  # checks language and framing

    def value(self, attribute: str):
        """The attribute's value at the stream's level."""
        return CURRICULUM[attribute][self.levels[attribute]]

    def harder(self, attribute: str | None = None) -> Stream:
        """The stream one level up on ``attribute`` (on every attribute not at its top, when None); itself at
        the top."""
        names = [attribute] if attribute else list(CURRICULUM)
        levels = {name: min(level + (name in names), len(CURRICULUM[name]) - 1) for name, level in self.levels.items()}
        return replace(self, levels=levels)

    @property
    def at_top(self) -> bool:
        return all(level == len(CURRICULUM[name]) - 1 for name, level in self.levels.items())

    def config(self, condition: str = BASELINE) -> GenerationConfig:
        """The generation config a row of ``condition`` is rendered with (never among the published configs)."""
        return GenerationConfig(
            STREAM,
            "an endless training stream",
            prefix=f"nb-{STREAM}",
            seed=self.seed,
            conditions=(condition,),
            language=self.language,
            framings=(self.framing,),
            training=True,
            traced=self.traced,
        ).validate()

    def instance(self, index: int) -> tuple[Instance, str]:
        """Item ``index``'s certified program (an :class:`Instance`) and the condition it asks."""
        if index < 0:
            raise ConfigError(f"stream items are numbered from 0, got {index}")
        bins = self.value("bins")
        for attempt in range(ATTEMPTS):
            coordinates = (self.seed, STREAM, index, attempt)
            rng = item_rng(*coordinates)
            family = rng.choice(bins)
            condition = rng.choice(self.value("conditions"))
            axes = {
                "depth": self.value("depth"),
                "width": self.value("width"),
                "cycle_len": 3 if family == "odd" else rng.choice(EVEN_CYCLE_LENS),
            }
            program, drawn = FAMILIES[family].assemble(rng, **axes)
            key = canonical_key(program, "q")
            if not is_training_key(key):
                continue
            try:
                certificate = certify(program, "q")
            except CertificationError:
                continue
            if FAMILIES[family].accept(certificate, program):
                seed = item_seed(*coordinates)
                made = {**axes, **drawn}
                return Instance(
                    program, "q", certificate, family, family, made, seed, key, ((program, certificate),)
                ), condition
        raise ConfigError(
            f"stream item {index}: no certified program of {bins} at {dict(self.levels)} in {ATTEMPTS} attempts"
        )

    def __getitem__(self, index: int) -> dict:
        """Item ``index`` as a row of the one row schema."""
        from naf_bench.data.rows import instance_rows

        instance, condition = self.instance(index)
        if not self.joint:
            (row,) = instance_rows(self.config(condition), instance, index)
            return row
        (row,) = instance_rows(self.config(BASELINE), instance, index)
        prompt = render_joint_prompt(instance.program, instance.query, self.language, self.framing)
        return row | {
            "id": f"{row['program_id']}-{JOINT}::{JOINT}",
            "condition": JOINT,
            "gold": None,
            "gold_trace": "",
            "prompt": prompt,
            "messages": [{"role": "user", "content": prompt}],
        }

    def __iter__(self) -> Iterator[dict]:
        index = 0
        while True:
            yield self[index]
            index += 1

    def items(self, start: int, stop: int) -> list[dict]:
        """Items ``start`` to ``stop - 1``."""
        return [self[index] for index in range(start, stop)]
