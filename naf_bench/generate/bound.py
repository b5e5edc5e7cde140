"""How many distinct programs a generation unit can reach: the bound behind a config's size and a hidden set's
secrecy (``scripts/cell_bound.py``, ``naf-bench leaderboard new-set``), and the search an attacker with the public
code makes for a hidden set's programs (``scripts/hidden_attack.py``).

Both key every draw up to renaming. The canonical key (BLISS) costs a millisecond or more; :func:`invariant`, a
hash of the rules over atoms coloured by their degrees, costs a fraction of that and is equal for programs equal
up to renaming, so only draws whose invariant meets another's (or a program looked for) are keyed: the counts
are exactly those of the canonical keys.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping

from naf_bench.generate.config import GenerationConfig, Unit
from naf_bench.syntax.ast import Program
from naf_bench.syntax.structure import canonical_key

MIN_REACH = 10**9  # programs up to renaming a hidden set's tier must reach, else anyone can list them (new-set)
MIN_DRAWS = 80_000  # draws that repeat no program put a tier's reach above MIN_REACH at 95 % (no_repeat_bound)


def invariant(program: Program, query: str) -> int:
    """A hash of the program's rules with each atom replaced by its colour (whether it is the query, and how many
    rules have it as head, in a positive body, in a negative body), as a multiset: equal for programs equal up to
    atom renaming and rule or body order, so programs with different invariants have different canonical keys.
    Valid within one process."""
    bodies = program.bodies
    heads = Counter([rule.head for rule in program.rules])
    positive = Counter([atom for pos, _ in bodies for atom in pos])
    negative = Counter([atom for _, neg in bodies for atom in neg])
    colour = {atom: (heads[atom] << 40) | (positive[atom] << 20) | negative[atom] for atom in program.atoms}
    colour[query] = colour.get(query, 0) | 1 << 60  # counts stay far below 2^20
    return hash(
        tuple(
            sorted(
                (colour[rule.head], *sorted([colour[a] for a in pos]), -1, *sorted([colour[a] for a in neg]))
                for rule, (pos, neg) in zip(program.rules, bodies, strict=True)
            )
        )
    )


def chao1(counts: Counter) -> float | None:
    """The bias-corrected Chao1 estimate of the distinct values behind ``counts`` (value: times drawn); None when
    no value was drawn twice or more (no repeat: nothing to estimate from)."""
    if all(n == 1 for n in counts.values()):
        return None
    singletons = sum(n == 1 for n in counts.values())
    doubletons = sum(n == 2 for n in counts.values())
    return len(counts) + singletons * (singletons - 1) / (2 * (doubletons + 1))


def no_repeat_bound(draws: int) -> float:
    """Where ``draws`` equally likely draws repeated no value, the number of values is above this at 95 %: a
    Poisson count of repeats, mean about draws^2 / (2 M), is 0 with probability under 5 % once the mean passes 3."""
    return draws * draws / 6


def _draws(config: GenerationConfig, unit: Unit, split: str, attempts: int) -> Iterator[Program]:
    cell = config.cell(unit, split)
    return (cell.assemble(index)[0] for index in range(attempts))


def reach(
    config: GenerationConfig, unit: Unit, split: str, attempts: int, exclude: Mapping[int, set[str]] | None = None
) -> dict:
    """Attempts 0 .. ``attempts``-1 of a unit in one split, assembled and keyed up to renaming as the walk would
    (not certified): ``{"attempts", "distinct", "once", "twice", "chao1", "at_least", "excluded"}``, ``chao1``
    None where no program was drawn twice and ``at_least`` the bound that leaves (else the distinct programs
    drawn); ``excluded``, the distinct programs drawn that are in ``exclude`` (programs another set already took:
    their canonical keys by :func:`invariant`)."""
    exclude = exclude or {}
    cell = config.cell(unit, split)
    by_invariant: dict[int, list[int]] = defaultdict(list)  # attempts, assembled again only where they meet
    for index in range(attempts):
        by_invariant[invariant(cell.assemble(index)[0], "q")].append(index)
    counts: Counter = Counter()
    excluded = set()
    for value, indices in by_invariant.items():
        if len(indices) == 1 and value not in exclude:
            counts[value] += 1  # a program no other draw can equal: its own value
            continue
        keys = Counter(canonical_key(cell.assemble(index)[0], "q") for index in indices)
        counts.update(keys)
        excluded |= keys.keys() & exclude.get(value, set())
    estimate = chao1(counts)
    return {
        "attempts": attempts,
        "distinct": len(counts),
        "once": sum(n == 1 for n in counts.values()),
        "twice": sum(n == 2 for n in counts.values()),
        "chao1": estimate,
        "at_least": no_repeat_bound(attempts) if estimate is None else len(counts),
        "excluded": len(excluded),
    }


def search(config: GenerationConfig, programs: Iterable[Program], seeds: Iterable[int], attempts: int) -> set[str]:
    """The attack on a hidden set with the public code: for each root seed of the attacker's own choosing, draw
    attempts 0 .. ``attempts``-1 of every unit of ``config`` in its first split, and return the canonical keys of
    ``programs`` (the hidden set's, queried at ``q``) that some draw equals. A draw is compared only where its
    numbers of rules and atoms, then its invariant, are a target's."""
    targets: dict[tuple[int, int], dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for program in programs:
        size = (len(program.rules), len(program.atoms))
        targets[size][invariant(program, "q")].add(canonical_key(program, "q"))
    found: set[str] = set()
    for seed in seeds:
        own = config.override(seed=seed)
        for unit in own.units():
            for program in _draws(own, unit, own.splits[0], attempts):
                if (size := targets.get((len(program.rules), len(program.atoms)))) is None:
                    continue
                if (keys := size.get(invariant(program, "q"))) and (key := canonical_key(program, "q")) in keys:
                    found.add(key)
    return found
