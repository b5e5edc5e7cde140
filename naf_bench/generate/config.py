"""Generation configs: sizes as in seed 000, every size and axis overridable, validated."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from difflib import get_close_matches
from functools import partial

from naf_bench.errors import ConfigError
from naf_bench.generate.algorithm import Cell
from naf_bench.generate.bins import BINS, SEED_BINS
from naf_bench.generate.registry import FAMILIES
from naf_bench.readings import NO_SEMANTICS, LiveView, all_conditions, named_conditions
from naf_bench.verbalize.framing import FRAMINGS
from naf_bench.verbalize.templates import LANGUAGES

# The leaderboard families' sizes (variables, cycles or depth), one tier each, and the programs per tier in a
# 77-program split (the authors' scored hard set) and in the 192-program train split.
TIER_SIZES = {
    "cnf": (8,),
    "decided": (1, 2, 3, 4, 5, 6),
    "loopy": (1, 2, 3, 4),
    "parity": (4, 6, 8),
    "coupled": (3, 5),
    "control": (8, 14, 22),
}
TIER_COUNTS = {
    77: {"cnf": 11, "parity": 2, "coupled": 2, "decided": 5, "loopy": 5, "control": 2},
    192: {"cnf": 27, "parity": 5, "coupled": 5, "decided": 12.5, "loopy": 12.5, "control": 5},
}


def tier_count(family: str, tier: int, total: int) -> int:
    """Programs of the family's ``tier``-th size in a split of ``total`` programs: the family's programs spread
    evenly over its tiers, the first tiers taking the remainder."""
    sizes = len(TIER_SIZES[family])
    share, extra = divmod(round(TIER_COUNTS[total][family] * sizes), sizes)
    return share + (tier < extra)


@dataclass(frozen=True)
class Unit:
    """One family at one point of its axes, with its number of programs per split: what the generation loop runs."""

    family: str  # a FAMILIES key
    axes: dict[str, int]
    counts: tuple[int, ...]


@dataclass(frozen=True)
class GenerationConfig:
    """What one dataset config contains. The fields are what users override (``--set``); :meth:`units` turns them
    into (family, axes, programs per split), which is all that generation reads."""

    name: str
    description: str
    prefix: str  # row ids: {prefix}-{family}-i{index}-{condition}::{condition}; nb-* names none of the authors'
    seed: int = 0
    depths: tuple[int, ...] = (8,)
    widths: tuple[int, ...] = (4,)
    bins: tuple[str, ...] = SEED_BINS
    even_cycle_lens: tuple[int, ...] = (4,)
    odd_cycle_len: int = 3
    programs_per_cell: int = 30
    programs_per_bin: tuple[int, ...] = ()  # if given, one count per bin, spread over that bin's cells
    # a live view of the readings table until validated (a view has no hash: a dataclass takes it by a factory)
    conditions: tuple[str, ...] = field(default_factory=partial(LiveView, all_conditions))
    language: str = "en"
    framings: tuple[str, ...] = ("abstract",)
    n_orders: int = 1  # >1: each named condition also rendered under seeded rule orders (order set)
    splits: tuple[str, ...] = ("test",)
    families: tuple[str, ...] = ()  # leaderboard families (TIER_SIZES) instead of bins (the hard config)
    programs_per_split: tuple[int, ...] = ()  # with families: 77 or 192 programs per split
    training: bool = False  # every split is training data (else only a split named "train")
    traced: bool = False  # prompts number the rules and ask for a trace in the gold-trace grammar
    lemma_atoms: int = 0  # with families: q also reads a lemma over this many atoms (hidden sets only; 0: none)

    def is_training(self, split: str) -> bool:
        """Training splits draw programs from the other half of the canonical-key space than evaluation ones."""
        return self.training or split == "train"

    def cell(self, unit: Unit, split: str) -> Cell:
        """``unit``'s cell in ``split``: all that its attempts and its walk read."""
        count = unit.counts[self.splits.index(split)]
        return Cell(unit.family, unit.axes, self.seed, self.name, split, count, self.n_orders, self.is_training(split))

    def rows_per_program(self) -> int:
        """The rows of one program (as :func:`naf_bench.data.rows.instance_rows` makes them)."""
        variants = self.n_orders * len(self.framings)
        return sum(1 if condition == NO_SEMANTICS else variants for condition in self.conditions)

    def validate(self) -> GenerationConfig:
        problems = []
        if not self.prefix.startswith("nb-"):
            problems.append(f"prefix must start with 'nb-' (the authors' ids name other programs), got {self.prefix!r}")
        if any(d < 1 for d in self.depths):
            problems.append(f"depths must be >= 1, got {self.depths}")
        if any(w < 0 for w in self.widths):
            problems.append(f"widths must be >= 0, got {self.widths}")
        if unknown := [b for b in self.bins if b not in BINS]:
            problems.append(f"unknown bins {unknown}; expected {list(BINS)}")
        if not self.even_cycle_lens or any(k < 2 or k % 2 for k in self.even_cycle_lens):
            problems.append(f"even_cycle_lens must be even and >= 2, got {self.even_cycle_lens}")
        if self.odd_cycle_len < 1 or self.odd_cycle_len % 2 == 0:
            problems.append(f"odd_cycle_len must be odd, got {self.odd_cycle_len}")
        if self.programs_per_cell < 1:
            problems.append(f"programs_per_cell must be >= 1, got {self.programs_per_cell}")
        if self.programs_per_bin and (len(self.programs_per_bin) != len(self.bins) or min(self.programs_per_bin) < 1):
            problems.append(f"programs_per_bin needs one count >= 1 per bin {self.bins}, got {self.programs_per_bin}")
        if unknown := [c for c in self.conditions if c not in all_conditions()]:
            problems.append(f"unknown conditions {unknown}; expected {list(all_conditions())}")
        if self.language not in LANGUAGES:
            problems.append(f"unknown language {self.language!r}; expected {sorted(LANGUAGES)}")
        if unknown := [f for f in self.framings if f != "abstract" and (f not in FRAMINGS or self.language != "en")]:
            problems.append(f"unknown framings {unknown} for language {self.language!r}")
        if unknown := [f for f in self.families if f not in TIER_SIZES]:
            problems.append(f"unknown families {unknown}; expected {list(TIER_SIZES)}")
        if self.families and (
            len(self.programs_per_split) != len(self.splits) or set(self.programs_per_split) - set(TIER_COUNTS)
        ):
            problems.append(
                f"programs_per_split needs 77 or 192 per split {self.splits}, got {self.programs_per_split}"
            )
        if not isinstance(self.training, bool):
            problems.append(f"training must be true or false, got {self.training!r}")
        if self.n_orders < 1:
            problems.append(f"n_orders must be >= 1, got {self.n_orders}")
        if self.lemma_atoms < 0 or (self.lemma_atoms and not self.families):
            problems.append(f"lemma_atoms must be >= 0 and needs families, got {self.lemma_atoms}")
        if problems:
            raise ConfigError(f"config {self.name!r}: " + "; ".join(problems))
        # the defaults are live views of the readings table: a validated config holds the conditions of now
        return self if isinstance(self.conditions, tuple) else replace(self, conditions=tuple(self.conditions))

    def units(self) -> list[Unit]:
        """The config as (family, axes, programs per split), in generation order: the leaderboard families' tiers,
        or else each bin's grid of depths x widths x cycle lengths (the odd bin's one odd length)."""
        if self.families:
            return [
                Unit(
                    key,
                    {"size": size, "lemma": self.lemma_atoms} if self.lemma_atoms else {"size": size},
                    tuple(tier_count(family.name, tier, total) for total in self.programs_per_split),
                )
                for key, family in FAMILIES.items()
                if family.tier and family.name in self.families
                for tier, size in enumerate(TIER_SIZES[family.name])
            ]
        units = []
        for position, bin_name in enumerate(self.bins):
            lengths = (self.odd_cycle_len,) if bin_name == "odd" else self.even_cycle_lens
            grid = [{"depth": d, "width": w, "cycle_len": k} for d in self.depths for w in self.widths for k in lengths]
            counts = [self.programs_per_cell] * len(grid)
            if self.programs_per_bin:
                share, extra = divmod(self.programs_per_bin[position], len(grid))
                counts = [share + (i < extra) for i in range(len(grid))]
            units.extend(
                Unit(bin_name, axes, (n,) * len(self.splits)) for axes, n in zip(grid, counts, strict=True) if n
            )
        return units

    def override(self, **overrides) -> GenerationConfig:
        names = {f.name for f in fields(self)}
        if unknown := sorted(set(overrides) - names):
            raise ConfigError(f"unknown config fields {unknown}; expected some of {sorted(names)}")
        tuples = {f.name for f in fields(self) if str(f.type).startswith("tuple")}
        if text := [k for k, v in overrides.items() if isinstance(v, str) and k in tuples]:
            raise ConfigError(f"{text} take a tuple, e.g. depths=(2, 8), not a string")
        coerced = {k: tuple(v) if k in tuples else v for k, v in overrides.items()}
        return replace(self, **coerced).validate()

    def to_dict(self) -> dict:
        return asdict(self)


CONFIGS: dict[str, GenerationConfig] = {
    config.name: config
    for config in (
        GenerationConfig(
            "main",
            "Seed 000's main set: depth 8, width 4, 4 bins x 30 programs x 5 conditions (600 rows).",
            prefix="nb-main",
        ),
        GenerationConfig(
            "hard",
            "The leaderboard set: six solver-certified families (cnf, decided, loopy, parity, coupled, control) with "
            "a signature quota on cnf; train 192 / validation 77 / test 77 programs x 5 conditions, seed-disjoint.",
            prefix="nb-hard",
            families=tuple(TIER_SIZES),
            splits=("train", "validation", "test"),
            programs_per_split=(192, 77, 77),
        ),
        GenerationConfig(
            "zh",
            "The main set rendered in Chinese.",
            prefix="nb-zh",
            language="zh",
        ),
        GenerationConfig(
            "order",
            "Order invariance: 40 programs x 4 named conditions (160 groups) x 4 rule orders (640 rows); "
            "only programs whose SLDNF label is the same under every order are kept.",
            prefix="nb-order",
            programs_per_cell=10,
            conditions=LiveView(named_conditions),
            n_orders=4,
        ),
        GenerationConfig(
            "framing",
            "Framing invariance: 8 programs x 4 named conditions (32 groups) x 3 narrative framings (96 rows).",
            prefix="nb-framing",
            programs_per_cell=2,
            conditions=LiveView(named_conditions),
            framings=("escalation", "sensor", "audit"),
        ),
        GenerationConfig(
            "wfs44",
            "44 structurally diverse WFS programs (E6, the mitigation set): even cycles of length 2, 4 and 6 with "
            "conjunctive support (the query needs an atom of each side: FFuloop) or disjunctive support (either "
            "side: TTuloop), 4 programs each, and 20 controls (10 answered yes, 10 no); gold A 10 / B 10 / C 24, "
            "so always-C scores 54.5%. Unlike the authors' bare gadgets, each sits under a depth-3 negated chain and "
            "a width-2 block as in the main set, and the controls are such chains rather than default/stack templates.",
            prefix="nb-wfs44",
            depths=(3,),
            widths=(2,),
            bins=("control", "control_false", "even_conjunctive", "even_both_sided"),
            even_cycle_lens=(2, 4, 6),
            programs_per_bin=(10, 10, 12, 12),
            conditions=(NO_SEMANTICS, "wfs"),
        ),
        GenerationConfig(
            "sft",
            "Fine-tuning rows: chat messages whose user turn numbers the rules and asks for a trace, and whose "
            "assistant turn is the certified gold trace in the prompt's words and 'ANSWER: X', spanning the abstract "
            "and the three narrative framings; train and validation are disjoint, and their programs come from the "
            "training half of the canonical-key partition, so none is in an evaluation config.",
            prefix="nb-sft",
            programs_per_cell=8,
            conditions=LiveView(named_conditions),
            framings=("abstract", "escalation", "sensor", "audit"),
            splits=("train", "validation"),
            training=True,
            traced=True,
        ),
        GenerationConfig(
            "sweep",
            "Size sweep: depths {2, 8, 16} x widths {0, 4, 8} x 4 bins x 2 programs x 5 conditions.",
            prefix="nb-sweep",
            depths=(2, 8, 16),
            widths=(0, 4, 8),
            programs_per_cell=2,
        ),
    )
}


# Configs for hidden sets only (``naf-bench leaderboard new-set``): never published, so their tiers' programs are
# reserved for hidden sets. Their tiers carry a lemma (``lemma_atoms``), which puts each tier's reach beyond 1e9
# programs (``naf_bench.leaderboard.secret``); a stream of training programs must keep out of them
# (:func:`reserved_for_hidden_sets`).
HIDDEN_CONFIGS: dict[str, GenerationConfig] = {
    config.name: config
    for config in (
        GenerationConfig(
            "hidden",
            "The verified track's set: hard's six families and 19 tiers, 77 programs in hard's test proportions "
            "(cnf 11, decided 5, loopy 5, parity 2, coupled 2, control 2 per family's tiers), each program's q also "
            "reading a true atom of a random acyclic lemma over 12 atoms, which no reading's label depends on.",
            prefix="nb-hidden",
            families=tuple(TIER_SIZES),
            programs_per_split=(77,),
            lemma_atoms=12,
        ),
    )
}


def reserved_for_hidden_sets(config: GenerationConfig) -> bool:
    """Whether ``config`` draws from tiers reserved for hidden sets (a lemma: the hidden configs' tiers), which no
    published or training config may draw from."""
    return config.lemma_atoms > 0


def get_config(name: str, **overrides) -> GenerationConfig:
    known = {**CONFIGS, **HIDDEN_CONFIGS}
    if name not in known:
        raise ConfigError(f"unknown config {name!r}; expected one of {sorted(known)}")
    return known[name].override(**overrides) if overrides else known[name].validate()


def parse_overrides(pairs: list[str]) -> dict:
    """``--set depths=2,8 --set seed=3`` into typed config overrides (a ConfigError names a bad pair)."""
    fields = {
        name: field
        for name, field in GenerationConfig.__dataclass_fields__.items()
        if name not in ("name", "description")
    }
    types = {name: field.type for name, field in fields.items()}
    overrides = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if key not in types:
            close = get_close_matches(key, types, 1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise ConfigError(f"--set {pair!r}: unknown key {key!r}; {hint}the keys are {', '.join(sorted(types))}")
        if not equals or not value:
            raise ConfigError(f"--set {pair!r}: no value after '='; give one, e.g. --set {key}={_example(fields[key])}")
        try:
            if "tuple" in str(types[key]):
                items = value.split(",")
                overrides[key] = tuple(int(x) if "int" in str(types[key]) else x for x in items)
            elif types[key] in (bool, "bool"):
                overrides[key] = {"true": True, "false": False}[value.lower()]
            else:
                overrides[key] = int(value) if types[key] in (int, "int") else value
        except (ValueError, KeyError) as exc:
            raise ConfigError(f"--set {pair!r}: {types[key]} expected ({exc})") from exc
    return overrides


def _example(field) -> str:
    """A value of a config field (its default where it has one), written as ``--set`` reads it."""
    default = field.default
    if isinstance(default, bool):
        return str(default).lower()
    if isinstance(default, tuple):
        return ",".join(map(str, default)) or ("2,8" if "int" in str(field.type) else "a,b")
    return str(default) if isinstance(default, int | str) else "VALUE"
