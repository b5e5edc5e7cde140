"""Algorithm 1 of seed 000: certified per-cell generation with isomorphic duplicates removed."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Mapping
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


@dataclass(frozen=True)
class Cell:
    """One cell of a config's walk: a family at one point of its axes in one split, and how many programs it keeps.

    Attempt ``i`` is assembled from the seed hashed from (root seed, config, split, the family's coordinates, ``i``):
    a function of the cell and ``i`` alone (:meth:`attempt`). Which attempts are *kept* is not (:meth:`walk`): a
    cell skips the canonical keys that cells before it in the config's walk (earlier units, earlier splits) kept,
    and a family with a ``quota`` (cnf) stops accepting a signature once the programs kept so far fill its share.
    Item ``j`` of a split is therefore the ``j``-th kept attempt. Index-addressable items (item ``j`` drawing its
    own attempts until one is accepted, no running quota) would change every published row, so the rows keep this
    order dependence: one process, the local pool (:func:`naf_bench.data.rows.generate_units`) and Ray
    (:mod:`naf_bench.data.distributed`) all keep a cell's programs by :meth:`walk`, and settle where cells meet by
    :func:`exclusions`."""

    family: str  # a FAMILIES key
    axes: Mapping[str, int]
    seed: int  # the config's root seed
    config: str
    split: str
    count: int
    n_orders: int = 1  # >1: every seeded rule order certified too, and a program kept only if its labels agree
    training: bool = False  # a partitioned family keeps only programs on the training side of the partition

    def __str__(self) -> str:
        return f"{self.family} {dict(self.axes)}"

    def coordinates(self, index: int) -> tuple:
        """What attempt ``index`` hashes its seeds from (its program's and its rule orders')."""
        return (self.seed, self.config, self.split, *FAMILIES[self.family].coordinates(self.axes), index)

    def assemble(self, index: int) -> tuple[Program, dict]:
        """Attempt ``index``'s program as the walk assembles it, and what the family drew: neither keyed nor
        certified (well under a millisecond)."""
        return FAMILIES[self.family].assemble(item_rng(*self.coordinates(index)), **self.axes)

    def attempt(self, index: int) -> Attempt:
        """Attempt ``index``: assembled from the seed hashed from its coordinates, keyed, and certified (under
        every seeded rule order too) where it can be kept."""
        family = FAMILIES[self.family]
        program, drawn = self.assemble(index)
        key = canonical_key(program, "q")
        if family.partitioned and is_training_key(key) != self.training:
            return Attempt(index, key, False, None, False)
        try:
            certificate = certify(program, "q")
        except CertificationError:
            return Attempt(index, key, True, None, False)
        if not family.accept(certificate, program):
            return Attempt(index, key, True, certificate.signature, False)
        quota_key = family.quota_key(certificate)
        seed = item_seed(*self.coordinates(index))
        orders = [(program, certificate)]
        try:
            for order_id in range(1, self.n_orders):
                permuted = reorder(program, order_id, seed)
                orders.append((permuted, certify(permuted, "q")))
        except CertificationError:
            return Attempt(index, key, True, certificate.signature, True, "uncertifiable", quota_key=quota_key)
        if any(c.labels != certificate.labels for _, c in orders):
            return Attempt(index, key, True, certificate.signature, True, "order_sensitive", quota_key=quota_key)
        made = {**self.axes, **drawn}
        group = family.group(self.axes)
        instance = Instance(program, "q", certificate, family.name, group, made, seed, key, tuple(orders))
        return Attempt(index, key, True, certificate.signature, True, "ok", instance, quota_key)

    def walk(self, seen: Iterable[str] = (), made: list[Attempt] | None = None) -> CellWalk:
        """The cell's one walk: its attempts in order against ``seen`` (the keys cells before it kept), until it
        keeps :attr:`count` programs or its attempts run out. Attempts already in ``made`` are offered first;
        those made here are appended to it."""
        made = [] if made is None else made
        walk = CellWalk(self, seen)
        walk.take(made)
        return walk.take(self._making(made))

    def _making(self, made: list[Attempt]) -> Iterator[Attempt]:
        for index in itertools.count(len(made)):
            made.append(self.attempt(index))
            yield made[-1]


class CellWalk:
    """Every rule the walk applies to keep a cell's attempts, offered in attempt order: the training/evaluation
    partition, certification, the family's acceptance and quota (cnf's shares per (cred, skept) labels of the
    programs kept so far), canonical keys unseen (``seen``: the keys kept before this cell, and the cell's
    own), and the same labels under every rule order. It records the keys it looked up (:attr:`met`, each
    with whether it kept it) and those of them that ``seen`` held (:attr:`excluded`): its decision stands wherever
    cells before it kept exactly those of the keys it met (:func:`exclusions`)."""

    def __init__(self, cell: Cell, seen: Iterable[str] = ()):
        family = FAMILIES[cell.family]
        self.cell = cell
        self.count = cell.count
        self.budget = family.attempts_per_item * cell.count
        self.quota = _quota(family.quota, cell.count) if family.quota else None
        self.seen = frozenset(seen)
        self.kept: list[Attempt] = []
        self.keys: set[str] = set()  # the kept attempts' keys
        self.met: list[tuple[str, bool]] = []
        self.excluded: set[str] = set()
        self.stats = CellStats()

    @property
    def done(self) -> bool:
        return len(self.kept) >= self.count

    @property
    def exhausted(self) -> bool:
        """Its attempts are spent before it kept ``count`` programs (see :meth:`error`)."""
        return not self.done and self.stats.attempts >= self.budget

    def programs(self) -> list[Instance]:
        """The kept programs (a ConfigError where the cell's attempts ran out first)."""
        if self.exhausted:
            raise self.error()
        return [kept.instance for kept in self.kept]

    def error(self) -> ConfigError:
        stats = self.stats
        return ConfigError(
            f"{self.cell} yielded {len(self.kept)} of {self.count} distinct programs in {stats.attempts} attempts "
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
        seen, own = attempt.key in self.seen, attempt.key in self.keys
        self.met.append((attempt.key, not (seen or own) and attempt.orders == "ok"))
        if seen:
            self.excluded.add(attempt.key)
        if seen or own:
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
        self.keys.add(attempt.key)
        self.kept.append(attempt)
        return True

    def take(self, attempts: Iterable[Attempt]) -> CellWalk:
        """Offer the next of ``attempts`` (in order, each drawn only when the walk wants it) until it is done, its
        attempts are spent, or ``attempts`` ends."""
        attempts = iter(attempts)
        while not (self.done or self.exhausted) and (attempt := next(attempts, None)) is not None:
            self.offer(attempt)
        return self


def exclusions(met: Iterable[tuple[str, int, bool]]) -> dict[int, set[str]]:
    """The keys each cell must exclude, from the keys the cells met (``(key, cell's place in the walk, kept)``):
    where a key meets, the earliest cell that kept it keeps it, and every later cell that met it excludes it."""
    cells: dict[str, list[tuple[int, bool]]] = {}
    for key, order, kept in met:
        cells.setdefault(key, []).append((order, kept))
    excluded: dict[int, set[str]] = {}
    for key, meeting in cells.items():
        if len(meeting) > 1 and (keepers := [order for order, kept in meeting if kept]):
            for order, _ in meeting:
                if order > min(keepers):
                    excluded.setdefault(order, set()).add(key)
    return excluded


def is_training_key(key: str) -> bool:
    """The half of the canonical-key space that training splits draw from; evaluation splits use the other.

    A fixed hash partition keeps every training program of a bin config (``sft``, any ``train`` split) out of
    every evaluation config (``main``, ``zh``, ``order``, ``framing``, ``wfs44``, ``sweep``, any test split),
    whatever the seeds, sizes and overrides, without generating the other configs first. The leaderboard
    families need no partition: their query's one rule is positive, a bin program's reads the chain negated,
    so no family program is a bin program; ``seen`` keeps their own splits apart.
    """
    return hashlib.sha256(key.encode()).digest()[0] % 2 == 1


def _quota(shares: Mapping[str, float], count: int) -> dict[str, int]:
    """Programs per quota key among ``count``, by largest remainder."""
    exact = {signature: share * count for signature, share in shares.items()}
    quota = {signature: int(value) for signature, value in exact.items()}
    for signature in sorted(exact, key=lambda s: exact[s] - quota[s], reverse=True)[: count - sum(quota.values())]:
        quota[signature] += 1
    return quota
