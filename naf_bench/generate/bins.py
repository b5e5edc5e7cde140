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
control_false      FFFF        a control whose chain ends in the guard's negation (wfs44 only)
even_conjunctive   FFuloop     even cycle; the bridge needs an atom of each side at once (wfs44 only)
=================  ==========  ================================================================

The first four are seed 000's divergence bins (the main set); the last two complete its 44-program WFS
set (E6): conjunctive query support, and controls whose answer is no.

Per-cell variation (Algorithm 1) samples: where the aggregators attach along the chain, how many
aggregators there are, how the cell's fixed total of supporting facts (two per shared subgoal) is spread
over the shared subgoals — each subgoal reads its own distinct fact atoms, at least one — whether the cycle
rules, and which chain rule, carry the always-true guard literal, and the rule order. No program repeats a
rule. Candidates are certified by the caller.

A row's *distance* (Figure 1's "divergence bin & distance") counts the named readings (credulous,
skeptical, WFS) whose gold answer differs from the closed-world (SLDNF) answer: 0 when all four agree.
"""

from __future__ import annotations

import random
from itertools import pairwise

from naf_bench.readings import BASELINE, gold_letter, named_conditions
from naf_bench.syntax.ast import Literal, Program, Rule

# Each bin's certified labels, by reading (the signature column above joins them); a program belongs to the bin
# if it has these labels, whatever readings the table adds.
BINS = {
    "control": {"cred": "T", "skept": "T", "wfs": "T", "sldnf": "T"},
    "even_one_sided": {"cred": "T", "skept": "F", "wfs": "u", "sldnf": "loop"},
    "odd": {"cred": "F", "skept": "T", "wfs": "u", "sldnf": "loop"},
    "even_both_sided": {"cred": "T", "skept": "T", "wfs": "u", "sldnf": "loop"},
    "control_false": {"cred": "F", "skept": "F", "wfs": "F", "sldnf": "F"},
    "even_conjunctive": {"cred": "F", "skept": "F", "wfs": "u", "sldnf": "loop"},
}
SEED_BINS = ("control", "even_one_sided", "odd", "even_both_sided")  # seed 000's four divergence bins
_LETTERS = "abcdefghijklmnoprstuvwxyz"  # no q: the query is q


def distance(labels: dict[str, str]) -> int:
    """How many of the other readings' answers (credulous, skeptical, WFS) differ from the closed-world (SLDNF)
    answer (0-3)."""
    baseline = gold_letter(BASELINE, labels)
    return sum(gold_letter(condition, labels) != baseline for condition in named_conditions())


def _names(rng: random.Random, count: int) -> list[str]:
    """Distinct atom names like ``r3``, ``t7`` (letter + number), never ``q``."""
    names: set[str] = set()
    while len(names) < count:
        names.add(f"{rng.choice(_LETTERS)}{rng.randint(0, 9 + count)}")
    return rng.sample(sorted(names), count)


def _supporting_facts(rng: random.Random, width: int) -> list[int]:
    """Distinct facts behind each shared subgoal: at least one each, ``2 * width`` in all, spread at random."""
    counts = [1] * width
    for _ in range(width):
        counts[rng.randrange(width)] += 1
    return counts


def assemble(bin_name: str, rng: random.Random, depth: int, width: int, cycle_len: int) -> Program:
    """One candidate program of the bin's cell G(depth, width, cycle length); its signature is certified (and
    filtered) by the caller."""
    d, w, k = depth, width, cycle_len
    n_aggregators = rng.randint(1, max(1, w - 1)) if w >= 2 else 0
    support = _supporting_facts(rng, w)
    names = iter(_names(rng, d + w + sum(support) + n_aggregators + k + 2))
    chain = ["q"] + [next(names) for _ in range(d)]
    shared = [next(names) for _ in range(w)]
    facts = [[next(names) for _ in range(count)] for count in support]
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
    for subgoal, own_facts in zip(shared, facts, strict=True):
        rules.append(Rule(subgoal, tuple(Literal(f) for f in own_facts)))
        rules.extend(Rule(f) for f in own_facts)

    # the chain: c_i :- <aggregators attached here>, not c_{i+1}; its bottom reads the core
    guard_reader = rng.randrange(d + 1)  # a chain rule that also reads the always-true guard (d: none does)
    for i, (upper, lower) in enumerate(pairwise(chain)):
        extra = [Literal(a) for a in readers[i]] + [Literal(s) for s in body_of.get(upper, [])]
        extra += [Literal(guard)] if i == guard_reader else []
        rules.append(Rule(upper, (*extra, Literal(lower, positive=False))))
    bottom_extra = [Literal(a) for a in readers[len(chain) - 1]] + [Literal(s) for s in body_of.get(chain[-1], [])]
    # q must equal the bottom's value: an even number of negations down the chain, else negate the bottom
    bottom_positive = d % 2 == 0
    rules.append(Rule(guard))
    guarded = rng.random() < 0.5  # an always-true guard literal on the cycle rules
    cycle = [
        Rule(atom, (Literal(ring[(i + 1) % k], positive=False), *((Literal(guard),) if guarded else ())))
        for i, atom in enumerate(ring)
    ]
    if bin_name in ("control", "control_false"):
        # control_false reads the guard's negation: the query is false under every reading
        rules.append(Rule(chain[-1], (*bottom_extra, Literal(guard, bottom_positive == (bin_name == "control")))))
        if rng.random() < 0.5:  # an even cycle the query does not read (as in the authors' controls)
            rules.extend(cycle)
    else:
        rules.append(Rule(chain[-1], (*bottom_extra, Literal(bridge, bottom_positive))))
        rules.extend(cycle)
        if bin_name == "even_conjunctive":  # an atom of each side at once: true in no stable model
            rules.append(Rule(bridge, (Literal(ring[0]), Literal(ring[rng.randrange(1, k, 2)]))))
        elif bin_name == "even_one_sided" and k >= 4 and rng.random() < 0.5:
            rules.append(Rule(bridge, (Literal(ring[0]), Literal(ring[2]))))  # conjunctive: one side twice
        else:
            rules.append(Rule(bridge, (Literal(ring[0]),)))
        if bin_name == "even_both_sided":
            rules.append(Rule(bridge, (Literal(ring[1]),)))  # disjunctive: either side
    rng.shuffle(rules)
    return Program(tuple(rules))
