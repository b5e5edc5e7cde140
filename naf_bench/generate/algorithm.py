"""Algorithm 1 of seed 000: certified per-cell generation with isomorphic duplicates removed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from naf_bench.certify import Certificate, certify
from naf_bench.errors import CertificationError, ConfigError
from naf_bench.generate.bins import BINS, Cell, assemble
from naf_bench.generate.families import CNF_QUOTA, Tier, assemble_tier
from naf_bench.generate.seeds import item_rng, item_seed
from naf_bench.solvers.stable import search_conflicts
from naf_bench.syntax.analysis import canonical_key
from naf_bench.syntax.ast import Program
from naf_bench.syntax.sample import reorder


@dataclass(frozen=True)
class Instance:
    """A certified program–query pair with its provenance, and its certified rule orders."""

    program: Program
    query: str
    certificate: Certificate
    family: str
    cell: Cell
    seed: int
    key: str  # canonical key (renaming- and order-invariant)
    orders: tuple[tuple[Program, Certificate], ...]  # order 0 is (program, certificate)
    tier: str = ""  # leaderboard tier (cnf_n8, ...); row ids group by it instead of the family


@dataclass
class CellStats:
    attempts: int = 0
    wrong_signature: int = 0
    duplicates: int = 0
    uncertifiable: int = 0
    order_sensitive: int = 0
    other_side: int = 0  # canonical key on the other side of the training/evaluation partition (by design)
    signatures: dict[str, int] = field(default_factory=dict)

    @property
    def rejection_rate(self) -> float:
        rejected = self.wrong_signature + self.duplicates + self.uncertifiable + self.order_sensitive
        return rejected / max(1, self.attempts)

    def next_attempt(self, what: str, kept: int, count: int, budget: int) -> int:
        """The next attempt's number; a ConfigError once ``budget`` attempts per wanted program are spent."""
        if self.attempts >= budget * count:
            raise ConfigError(
                f"{what} yielded {kept} of {count} distinct programs in {self.attempts} attempts "
                f"(signatures seen: {self.signatures}, duplicates: {self.duplicates}, "
                f"left to the other side of the training/evaluation partition: {self.other_side}); ask for fewer"
            )
        self.attempts += 1
        return self.attempts - 1

    def certified(self, program: Program) -> Certificate | None:
        try:
            certificate = certify(program, "q")
        except CertificationError:
            self.uncertifiable += 1
            return None
        self.signatures[certificate.signature] = self.signatures.get(certificate.signature, 0) + 1
        return certificate

    def on_side(self, key: str, training: bool) -> bool:
        if is_training_key(key) != training:
            self.other_side += 1
            return False
        return True

    def unseen(self, key: str, seen: set[str]) -> bool:
        if key in seen:
            self.duplicates += 1
            return False
        return True


def is_training_key(key: str) -> bool:
    """The half of the canonical-key space that training splits draw from; evaluation splits use the other.

    A fixed hash partition keeps every training program of a bin config (``sft``, any ``train`` split) out of
    every evaluation config (``main``, ``zh``, ``order``, ``framing``, ``wfs44``, ``sweep``, any test split),
    whatever the seeds, sizes and overrides, without generating the other configs first. The leaderboard
    families need no partition: their query's one rule is positive, a bin program's reads the chain negated,
    so no family program is a bin program; ``seen`` keeps their own splits apart.
    """
    return hashlib.sha256(key.encode()).digest()[0] % 2 == 1


@dataclass(frozen=True)
class BinFamily:
    """Programs of one divergence-bin cell whose certified signature is the bin's, on one side of the
    training/evaluation partition, with every seeded rule order certified to the same labels."""

    cell: Cell
    training: bool
    n_orders: int = 1

    @property
    def what(self) -> str:
        return f"cell {self.cell}"

    @property
    def coordinates(self) -> tuple:
        return (self.cell.bin, self.cell.depth, self.cell.width, self.cell.cycle_len)

    def assemble(self, rng) -> tuple[Program, Cell]:
        return assemble(self.cell, rng), self.cell

    def on_side(self, key: str, stats: CellStats) -> bool:
        return stats.on_side(key, self.training)

    def accept(self, program: Program, certificate: Certificate) -> bool:
        return certificate.signature == BINS[self.cell.bin]

    def keep(self, certificate: Certificate) -> None:
        """Nothing to account for: a bin's acceptance does not depend on what was kept."""

    def instance(self, program: Program, certificate: Certificate, cell: Cell, seed: int, key: str, orders):
        return Instance(program, "q", certificate, self.cell.bin, cell, seed, key, orders)


@dataclass
class TierFamily:
    """Programs of one leaderboard tier: cnf needs clingo's search (under the quota on its (cred, skept)
    signature), control must not, the other families accept every certified program."""

    tier: Tier
    quota: dict[str, int] | None = None
    n_orders: int = 1

    @property
    def what(self) -> str:
        return f"tier {self.tier.name}"

    @property
    def coordinates(self) -> tuple:
        return (self.tier.name,)

    def assemble(self, rng) -> tuple[Program, Cell]:
        program, depth, width = assemble_tier(self.tier, rng)
        return program, Cell(depth, width, self.tier.family, self.tier.size)

    def on_side(self, key: str, stats: CellStats) -> bool:
        """No partition: a family program is never a bin program (see :func:`is_training_key`)."""
        return True

    def accept(self, program: Program, certificate: Certificate) -> bool:
        if self.tier.family not in ("cnf", "control"):
            return True
        needs_search = search_conflicts(program) > 0
        if needs_search != (self.tier.family == "cnf"):
            return False
        return self.quota is None or self.quota.get(certificate.signature[:2], 0) > 0

    def keep(self, certificate: Certificate) -> None:
        if self.quota is not None:
            self.quota[certificate.signature[:2]] -= 1

    def instance(self, program: Program, certificate: Certificate, cell: Cell, seed: int, key: str, orders):
        return Instance(program, "q", certificate, self.tier.family, cell, seed, key, orders, self.tier.name)


def generate(
    family: BinFamily | TierFamily,
    root_seed: int,
    config: str,
    split: str,
    count: int,
    seen: set[str],
    max_attempts_per_item: int,
) -> tuple[list[Instance], CellStats]:
    """``count`` certified programs the family accepts, whose canonical keys are unseen (the one generation loop).

    Attempt ``i`` is assembled from the seed hashed from (root seed, config, split, the family's coordinates,
    ``i``). ``seen`` holds the canonical keys already used (across cells, tiers and splits) and is updated.
    With ``n_orders`` > 1 every seeded rule order is certified too, and a program is kept only if its labels
    (SLDNF included) are the same under all of them.
    """
    kept: list[Instance] = []
    stats = CellStats()
    while len(kept) < count:
        attempt = stats.next_attempt(family.what, len(kept), count, max_attempts_per_item)
        coordinates = (root_seed, config, split, *family.coordinates, attempt)
        program, cell = family.assemble(item_rng(*coordinates))
        key = canonical_key(program, "q")
        if not family.on_side(key, stats):
            continue
        certificate = stats.certified(program)
        if certificate is None:
            continue
        if not family.accept(program, certificate):
            stats.wrong_signature += 1
            continue
        if not stats.unseen(key, seen):
            continue
        seed = item_seed(*coordinates)
        orders = [(program, certificate)]
        try:
            for order_id in range(1, family.n_orders):
                permuted = reorder(program, order_id, seed)
                orders.append((permuted, certify(permuted, "q")))
        except CertificationError:
            stats.uncertifiable += 1
            continue
        if any(c.labels != certificate.labels for _, c in orders):
            stats.order_sensitive += 1
            continue
        family.keep(certificate)
        seen.add(key)
        kept.append(family.instance(program, certificate, cell, seed, key, tuple(orders)))
    return kept, stats


def generate_cell(
    root_seed: int,
    config: str,
    split: str,
    cell: Cell,
    count: int,
    seen: set[str],
    n_orders: int = 1,
    max_attempts_per_item: int = 50,
    training: bool = False,
) -> tuple[list[Instance], CellStats]:
    """``count`` programs of a divergence-bin ``cell`` (see :class:`BinFamily` and :func:`generate`)."""
    return generate(BinFamily(cell, training, n_orders), root_seed, config, split, count, seen, max_attempts_per_item)


def generate_tier(
    root_seed: int,
    config: str,
    split: str,
    tier: Tier,
    count: int,
    seen: set[str],
    max_attempts_per_item: int = 200,
) -> tuple[list[Instance], CellStats]:
    """``count`` programs of a leaderboard tier (see :class:`TierFamily` and :func:`generate`)."""
    family = TierFamily(tier, _quota(count) if tier.family == "cnf" else None)
    return generate(family, root_seed, config, split, count, seen, max_attempts_per_item)


def _quota(count: int) -> dict[str, int]:
    """cnf programs per (cred, skept) signature, by largest remainder."""
    exact = {signature: share * count for signature, share in CNF_QUOTA.items()}
    quota = {signature: int(value) for signature, value in exact.items()}
    for signature in sorted(exact, key=lambda s: exact[s] - quota[s], reverse=True)[: count - sum(quota.values())]:
        quota[signature] += 1
    return quota
