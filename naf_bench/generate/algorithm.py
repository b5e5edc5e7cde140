"""Algorithm 1 of seed 000: certified per-cell generation with isomorphic duplicates removed."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from naf_bench.certify import Certificate, certify
from naf_bench.errors import CertificationError, ConfigError
from naf_bench.generate.registry import FAMILIES
from naf_bench.generate.seeds import item_rng, item_seed
from naf_bench.syntax.ast import Program
from naf_bench.syntax.sample import reorder
from naf_bench.syntax.structure import canonical_key


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


@dataclass(frozen=True)
class Attempt:
    """Attempt ``index`` of a cell by itself, a function of (root seed, config, split, the cell, ``index``) alone:
    what the walk's rules read to keep it, and the instance it is when it can be kept."""

    index: int
    key: str
    on_side: bool  # on the split's side of the training/evaluation partition (always, for unpartitioned families)
    signature: str | None  # None: off side (never certified) or uncertifiable
    accepted: bool  # certified and accepted by the family
    orders: str = ""  # for accepted ones: "ok", "uncertifiable" or "order_sensitive" (the other rule orders)
    instance: Instance | None = None  # when orders is "ok"; dropped where only the decision travels
    quota_key: str = ""  # for accepted ones: what the family's quota counts it under (cnf: its cred, skept labels)


def attempt_coordinates(
    name: str, axes: Mapping[str, int], root_seed: int, config: str, split: str, index: int
) -> tuple:
    """What attempt ``index`` of a cell hashes its seeds from (its program's and its rule orders')."""
    return (root_seed, config, split, *FAMILIES[name].coordinates(axes), index)


def assemble_attempt(
    name: str, axes: Mapping[str, int], root_seed: int, config: str, split: str, index: int
) -> tuple[Program, dict]:
    """Attempt ``index``'s program as the walk assembles it, and what the family drew: neither keyed nor certified
    (well under a millisecond)."""
    coordinates = attempt_coordinates(name, axes, root_seed, config, split, index)
    return FAMILIES[name].assemble(item_rng(*coordinates), **axes)


def attempt(
    name: str,
    axes: Mapping[str, int],
    root_seed: int,
    config: str,
    split: str,
    index: int,
    n_orders: int = 1,
    training: bool = False,
) -> Attempt:
    """Attempt ``index`` of the family ``FAMILIES[name]`` at ``axes``: assembled from the seed hashed from its
    coordinates, keyed, and certified (under every seeded rule order too, with ``n_orders`` > 1) where it can
    be kept."""
    family = FAMILIES[name]
    program, drawn = assemble_attempt(name, axes, root_seed, config, split, index)
    key = canonical_key(program, "q")
    if family.partitioned and is_training_key(key) != training:
        return Attempt(index, key, False, None, False)
    try:
        certificate = certify(program, "q")
    except CertificationError:
        return Attempt(index, key, True, None, False)
    if not family.accept(certificate, program):
        return Attempt(index, key, True, certificate.signature, False)
    quota_key = family.quota_key(certificate)
    seed = item_seed(*attempt_coordinates(name, axes, root_seed, config, split, index))
    orders = [(program, certificate)]
    try:
        for order_id in range(1, n_orders):
            permuted = reorder(program, order_id, seed)
            orders.append((permuted, certify(permuted, "q")))
    except CertificationError:
        return Attempt(index, key, True, certificate.signature, True, "uncertifiable", quota_key=quota_key)
    if any(c.labels != certificate.labels for _, c in orders):
        return Attempt(index, key, True, certificate.signature, True, "order_sensitive", quota_key=quota_key)
    made = {**axes, **drawn}
    instance = Instance(program, "q", certificate, family.name, family.group(axes), made, seed, key, tuple(orders))
    return Attempt(index, key, True, certificate.signature, True, "ok", instance, quota_key)


class CellWalk:
    """Every rule the walk applies to keep a cell's attempts, offered in attempt order: the training/evaluation
    partition, certification, the family's acceptance and quota (cnf's shares per (cred, skept) labels of the
    programs kept so far), canonical keys unseen (``seen``: the keys kept before this cell, updated with the
    cell's own), and the same labels under every rule order."""

    def __init__(self, name: str, count: int, seen: set[str]):
        family = FAMILIES[name]
        self.count = count
        self.budget = family.attempts_per_item * count
        self.quota = _quota(family.quota, count) if family.quota else None
        self.seen = seen
        self.kept: list[Attempt] = []
        self.stats = CellStats()

    @property
    def done(self) -> bool:
        return len(self.kept) >= self.count

    @property
    def exhausted(self) -> bool:
        """Its attempts are spent before it kept ``count`` programs (see :meth:`error`)."""
        return not self.done and self.stats.attempts >= self.budget

    def error(self, what: str) -> ConfigError:
        stats = self.stats
        return ConfigError(
            f"{what} yielded {len(self.kept)} of {self.count} distinct programs in {stats.attempts} attempts "
            f"(signatures seen: {stats.signatures}, duplicates: {stats.duplicates}, "
            f"left to the other side of the training/evaluation partition: {stats.other_side}); ask for fewer"
        )

    def offer(self, attempt: Attempt) -> bool:
        """Whether the walk keeps ``attempt``, the next one (its statistics counted as the walk counts them)."""
        stats = self.stats
        stats.attempts += 1
        if not attempt.on_side:
            stats.other_side += 1
            return False
        if attempt.signature is None:
            stats.uncertifiable += 1
            return False
        stats.signatures[attempt.signature] = stats.signatures.get(attempt.signature, 0) + 1
        if not attempt.accepted or (self.quota is not None and self.quota.get(attempt.quota_key, 0) < 1):
            stats.wrong_signature += 1
            return False
        if attempt.key in self.seen:
            stats.duplicates += 1
            return False
        if attempt.orders != "ok":
            if attempt.orders == "uncertifiable":
                stats.uncertifiable += 1
            else:
                stats.order_sensitive += 1
            return False
        if self.quota is not None:
            self.quota[attempt.quota_key] -= 1
        self.seen.add(attempt.key)
        self.kept.append(attempt)
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
    canonical keys are unseen (the one generation loop: each :func:`attempt` in turn, kept by :class:`CellWalk`).

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
    walk = CellWalk(name, count, seen)
    while not walk.done:
        if walk.exhausted:
            raise walk.error(f"{name} {dict(axes)}")
        walk.offer(attempt(name, axes, root_seed, config, split, walk.stats.attempts, n_orders, training))
    return [kept.instance for kept in walk.kept], walk.stats


def _quota(shares: Mapping[str, float], count: int) -> dict[str, int]:
    """Programs per quota key among ``count``, by largest remainder."""
    exact = {signature: share * count for signature, share in shares.items()}
    quota = {signature: int(value) for signature, value in exact.items()}
    for signature in sorted(exact, key=lambda s: exact[s] - quota[s], reverse=True)[: count - sum(quota.values())]:
        quota[signature] += 1
    return quota
