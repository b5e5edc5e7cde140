"""The family registry: every divergence bin and every leaderboard family, each one entry of :data:`FAMILIES`.

A :class:`Family` is shaped like a reasoning-gym dataset: ``assemble(rng, **axes)`` draws one candidate program
(and the axes it drew itself, such as a leaderboard program's padding), ``accept(certificate, program)`` says
whether the certified candidate belongs to the family, and ``axes`` names the axes a config sets. The one
generation loop (:meth:`naf_bench.generate.algorithm.Cell.walk`) runs any entry; adding a family is one entry
here plus its assemble function.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from naf_bench.certify import Certificate
from naf_bench.generate import bins, families
from naf_bench.generate.families import Assembled
from naf_bench.solvers.stable import search_conflicts
from naf_bench.syntax.ast import Program


def accept_certified(certificate: Certificate, program: Program) -> bool:
    """Every certified program belongs to the family."""
    return True


def accept_labels(labels: Mapping[str, str], certificate: Certificate, program: Program) -> bool:
    """The bin's certified labels under the readings it names."""
    return all(certificate.labels[reading] == label for reading, label in labels.items())


def accept_search(needs_search: bool, certificate: Certificate, program: Program) -> bool:
    """Clingo needs conflicts to decide the program (cnf), or decides it without any (control)."""
    return (search_conflicts(program) > 0) == needs_search


@dataclass(frozen=True)
class Family:
    """One generator family: its axes, ``assemble(rng, **axes)`` and ``accept(certificate, program)``."""

    name: str  # the rows' ``family`` column (the leaderboard's control shares it with the control bin)
    axes: tuple[str, ...]  # what a config sets, in the order they enter a bin's seed coordinates
    assemble: Callable[..., Assembled]
    accept: Callable[[Certificate, Program], bool] = accept_certified
    partitioned: bool = False  # training splits draw from the other half of the canonical-key space
    tier: str = ""  # leaderboard families: the tier's name from the axes, e.g. "cnf_n{size}"
    quota: Mapping[str, float] | None = None  # shares of the kept programs per labels of quota_readings, joined
    quota_readings: tuple[str, ...] = ()  # keys of Certificate.labels
    attempts_per_item: int = 50  # attempts per wanted program before the unit gives up (ConfigError)

    def quota_key(self, certificate: Certificate) -> str:
        """What the quota counts a program under: its labels of ``quota_readings``, e.g. ``TF``."""
        return "".join(certificate.labels[reading] for reading in self.quota_readings)

    def group(self, axes: Mapping[str, int]) -> str:
        """What row ids and indices group by: the tier for a leaderboard family (``_l{lemma}`` after it where its
        programs carry a lemma, as hidden sets' do), else the family."""
        if not self.tier:
            return self.name
        return self.tier.format(**axes) + (f"_l{axes['lemma']}" if axes.get("lemma") else "")

    def coordinates(self, axes: Mapping[str, int]) -> tuple:
        """What an attempt's seed hashes besides (root seed, config, split, attempt): the tier, or the
        family and its axes."""
        return (self.group(axes),) if self.tier else (self.name, *(axes[axis] for axis in self.axes))


def _bin(name: str) -> Family:
    return Family(
        name,
        ("depth", "width", "cycle_len"),
        partial(_assemble_bin, name),
        partial(accept_labels, bins.BINS[name]),
        partitioned=True,
    )


def _assemble_bin(name: str, rng: random.Random, depth: int, width: int, cycle_len: int) -> Assembled:
    return bins.assemble(name, rng, depth, width, cycle_len), {}


def _leaderboard(assemble: Callable[..., Assembled], tier: str, **fields) -> Family:
    return Family(assemble.__name__, ("size",), assemble, tier=tier, attempts_per_item=200, **fields)


# Keys are what configs name (``bins=``; ``families=`` names a leaderboard entry by its ``name``). A leaderboard
# config's units follow this order, a bin config's follow its ``bins``.
FAMILIES: dict[str, Family] = {
    **{name: _bin(name) for name in bins.BINS},
    "cnf": _leaderboard(
        families.cnf,
        "cnf_n{size}",
        accept=partial(accept_search, True),
        quota=families.CNF_QUOTA,
        quota_readings=families.CNF_QUOTA_READINGS,
    ),
    "parity": _leaderboard(families.parity, "parity_n{size}"),
    "coupled": _leaderboard(families.coupled, "coupled_n{size}"),
    "decided": _leaderboard(families.decided, "decided_d{size}"),
    "loopy": _leaderboard(families.loopy, "loopy_d{size}"),
    "cnf_control": _leaderboard(families.control, "control_n{size}", accept=partial(accept_search, False)),
}
