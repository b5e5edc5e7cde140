"""Programs G(depth, width, bin, cycle length) of seed 000's main set, with per-cell variation.

Structure: a depth chain of negated links down from the query ``q``; a width block of shared
subgoals (each retained by at least two parents) read through aggregator atoms; and a negation-cycle
core attached to the bottom of the chain through a bridge atom. The bin decides the core:

=================  ==========  ================================================================
bin                signature   core
=================  ==========  ================================================================
control            TTTT        none on the query's path: the chain ends in a fact-supported guard;
                               half of the controls also hold an even cycle the query never reads
even_one_sided     TFuloop     even cycle; the bridge reads one side (true in one stable model)
odd                FTuloop     odd cycle: no stable model (skeptical vacuously true)
even_both_sided    TTuloop     even cycle; the bridge reads both sides (true in every model)
=================  ==========  ================================================================

Per-cell variation (Algorithm 1) samples: where the aggregators attach along the chain, how many
aggregators there are, how supporting facts are spread over the shared subgoals and the guard, whether
cycle rules carry an always-true guard literal, and the rule order. Candidates are certified by the caller.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import pairwise

from naf_bench.syntax.ast import Literal, Program, Rule

BINS = {
    "control": "TTTT",
    "even_one_sided": "TFuloop",
    "odd": "FTuloop",
    "even_both_sided": "TTuloop",
}
_LETTERS = "abcdefghijklmnoprstuvwxyz"  # no q: the query is q


@dataclass(frozen=True)
class Cell:
    depth: int
    width: int
    bin: str
    cycle_len: int


def _names(rng: random.Random, count: int) -> list[str]:
    """Distinct atom names like ``r3``, ``t7`` (letter + number), never ``q``."""
    names: set[str] = set()
    while len(names) < count:
        names.add(f"{rng.choice(_LETTERS)}{rng.randint(0, 9 + count)}")
    return rng.sample(sorted(names), count)


def assemble(cell: Cell, rng: random.Random) -> Program:
    """One candidate program of the cell; its signature is certified (and filtered) by the caller."""
    d, w, k = cell.depth, cell.width, cell.cycle_len
    n_aggregators = rng.randint(1, max(1, w - 1)) if w >= 2 else 0
    names = iter(_names(rng, d + 2 * w + n_aggregators + k + 3))
    chain = ["q"] + [next(names) for _ in range(d)]
    shared = [next(names) for _ in range(w)]
    facts = [next(names) for _ in range(w)]
    aggregators = [next(names) for _ in range(n_aggregators)]
    guard, bridge = next(names), next(names)
    ring = [next(names) for _ in range(k)]

    rules: list[Rule] = []
    # width block: every shared subgoal is read by at least two aggregators or chain rules
    readers: dict[int, list[str]] = {i: [] for i in range(len(chain))}
    for aggregator in aggregators:  # attach points along the chain
        readers[rng.randrange(len(chain))].append(aggregator)
    parents = aggregators if len(aggregators) >= 2 else [*aggregators, *chain[: 2 - len(aggregators)]]
    body_of: dict[str, list[str]] = {parent: [] for parent in parents}
    for subgoal in shared:
        for parent in rng.sample(parents, 2):
            body_of[parent].append(subgoal)
    for aggregator in aggregators:
        rules.append(Rule(aggregator, tuple(Literal(s) for s in body_of[aggregator] or shared[:1])))
    support = [rng.randint(1, 2) for _ in shared]  # facts behind each shared subgoal, spread at random
    for subgoal, fact, count in zip(shared, facts, support, strict=True):
        rules.append(Rule(subgoal, (Literal(fact),)))
        rules.extend(Rule(fact) for _ in range(count))

    # the chain: c_i :- not c_{i+1}, <aggregators attached here>; its bottom reads the core
    for i, (upper, lower) in enumerate(pairwise(chain)):
        extra = [Literal(a) for a in readers[i]] + [Literal(s) for s in body_of.get(upper, [])]
        rules.append(Rule(upper, (*extra, Literal(lower, positive=False))))
    bottom_extra = [Literal(a) for a in readers[len(chain) - 1]] + [Literal(s) for s in body_of.get(chain[-1], [])]
    # q must equal the bottom's value: an even number of negations down the chain, else negate the bottom
    bottom_positive = d % 2 == 0
    rules.extend(Rule(guard) for _ in range(rng.randint(1, 2)))
    if cell.bin == "control":
        rules.append(Rule(chain[-1], (*bottom_extra, Literal(guard, bottom_positive))))
        if rng.random() < 0.5:  # an even cycle the query does not read (as in the reference's controls)
            rules.extend(Rule(a, (Literal(ring[(i + 1) % k], positive=False),)) for i, a in enumerate(ring))
    else:
        rules.append(Rule(chain[-1], (*bottom_extra, Literal(bridge, bottom_positive))))
        guarded = rng.random() < 0.5  # an always-true guard literal on the cycle rules
        for i, atom in enumerate(ring):
            body = (Literal(ring[(i + 1) % k], positive=False), *((Literal(guard),) if guarded else ()))
            rules.append(Rule(atom, body))
        if cell.bin == "even_one_sided" and k >= 4 and rng.random() < 0.5:
            rules.append(Rule(bridge, (Literal(ring[0]), Literal(ring[2]))))  # conjunctive: one side twice
        else:
            rules.append(Rule(bridge, (Literal(ring[0]),)))
        if cell.bin == "even_both_sided":
            rules.append(Rule(bridge, (Literal(ring[1]),)))  # disjunctive: either side
    rng.shuffle(rules)
    return Program(tuple(rules))
