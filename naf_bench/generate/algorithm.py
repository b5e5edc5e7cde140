"""Algorithm 1 of seed 000: certified per-cell generation with isomorphic duplicates removed."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from naf_bench.certify import Certificate, certify
from naf_bench.errors import CertificationError, ConfigError
from naf_bench.generate.registry import FAMILIES
from naf_bench.generate.seeds import item_rng, item_seed
from naf_bench.syntax.analysis import canonical_key
from naf_bench.syntax.ast import Program
from naf_bench.syntax.sample import reorder


@dataclass(frozen=True)
class Instance:
    """A certified program–query pair with its provenance, and its certified rule orders."""

    program: Program
    query: str
    certificate: Certificate
    family: str  # the rows' family column (Family.name)
    group: str  # what row ids group by: the family, or a leaderboard family's tier (cnf_n8, ...)
    axes: dict[str, int]  # the axes that made it: those its config set, and those assemble drew (padding)
    seed: int
    key: str  # canonical key (renaming- and order-invariant)
    orders: tuple[tuple[Program, Certificate], ...]  # order 0 is (program, certificate)


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


def generate(
    name: str,
    axes: Mapping[str, int],
    root_seed: int,
    config: str,
    split: str,
    count: int,
    seen: set[str],
    n_orders: int = 1,
    training: bool = False,
) -> tuple[list[Instance], CellStats]:
    """``count`` certified programs that the family ``FAMILIES[name]`` assembles at ``axes`` and accepts, whose
    canonical keys are unseen (the one generation loop).

    Attempt ``i`` is assembled from the seed hashed from (root seed, config, split, the family's coordinates,
    ``i``), so every attempt is a function of those alone. Which attempts are *kept* is not: ``seen`` holds the
    canonical keys already used by earlier units and earlier splits of the config (one set, updated here), so a
    later split skips a program an earlier split kept, and a family with a ``quota`` (cnf) stops accepting a
    signature once the programs kept so far fill its share. Item ``j`` of a split is therefore the ``j``-th kept
    attempt: rebuilding it replays the unit's attempts before it, with the keys of the units and splits before it.
    Index-addressable items (item ``j`` drawing its own attempts until one is accepted, deduplicated within its
    split only, no running quota) would change every published row, so the rows keep this order dependence;
    :func:`naf_bench.rows.generate_units` replays it exactly in parallel.

    A partitioned family (the bins) keeps only programs on the ``training`` side of the canonical-key partition.
    With ``n_orders`` > 1 every seeded rule order is certified too, and a program is kept only if its labels
    (SLDNF included) are the same under all of them.
    """
    family = FAMILIES[name]
    quota = _quota(family.quota, count) if family.quota else None
    kept: list[Instance] = []
    stats = CellStats()
    while len(kept) < count:
        attempt = stats.next_attempt(f"{name} {dict(axes)}", len(kept), count, family.attempts_per_item)
        coordinates = (root_seed, config, split, *family.coordinates(axes), attempt)
        program, drawn = family.assemble(item_rng(*coordinates), **axes)
        key = canonical_key(program, "q")
        if family.partitioned and not stats.on_side(key, training):
            continue
        certificate = stats.certified(program)
        if certificate is None:
            continue
        if not family.accept(certificate, program) or (
            quota is not None and quota.get(family.quota_key(certificate), 0) < 1
        ):
            stats.wrong_signature += 1
            continue
        if not stats.unseen(key, seen):
            continue
        seed = item_seed(*coordinates)
        orders = [(program, certificate)]
        try:
            for order_id in range(1, n_orders):
                permuted = reorder(program, order_id, seed)
                orders.append((permuted, certify(permuted, "q")))
        except CertificationError:
            stats.uncertifiable += 1
            continue
        if any(c.labels != certificate.labels for _, c in orders):
            stats.order_sensitive += 1
            continue
        if quota is not None:
            quota[family.quota_key(certificate)] -= 1
        seen.add(key)
        made = {**axes, **drawn}
        kept.append(
            Instance(program, "q", certificate, family.name, family.group(axes), made, seed, key, tuple(orders))
        )
    return kept, stats


def _quota(shares: Mapping[str, float], count: int) -> dict[str, int]:
    """Programs per quota key among ``count``, by largest remainder."""
    exact = {signature: share * count for signature, share in shares.items()}
    quota = {signature: int(value) for signature, value in exact.items()}
    for signature in sorted(exact, key=lambda s: exact[s] - quota[s], reverse=True)[: count - sum(quota.values())]:
        quota[signature] += 1
    return quota
