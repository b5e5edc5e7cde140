"""The six leaderboard families of seed 000's appendix ("Instance construction"): one assemble function each,
registered in :data:`naf_bench.generate.registry.FAMILIES` with one tier per size.

Each family contributes a different mix of certified (credulous, skeptical) signatures, so the gold
cannot be guessed from the condition, and ``cnf`` poses a genuine search problem:

- ``cnf``: random 3-SAT near the phase transition (m/n ~ 4.26) as n choice cycles ``v :- not w.
  w :- not v.`` and one rule ``bad :- <violating literals>, not bad.`` per clause, so the stable models
  are the satisfying assignments; the query reads one literal; kept only if clingo needs conflicts,
  under a quota on the (cred, skept) signature.
- ``decided``: an acyclic stack ``a0. a_i :- not a_{i-1}.``; every reading agrees (T or F by parity).
- ``loopy``: a positive loop ``p_d :- p_d`` under a chain: WFS decides, SLDNF never returns.
- ``parity``: n choice cycles and a stratified parity accumulator; no prefix of choices decides q.
- ``coupled``: choice cycles on a ring or a path, adjacent atoms forced to differ; odd rings have no
  stable model, paths have two.
- ``control``: CNF at ratio 1.8 that clingo decides without conflicts, padded with gold-neutral filler
  to the length of the search tiers.

Every core is read from ``q`` through gold-neutral padding: a width block of facts and a positive chain. Hidden
sets (:data:`naf_bench.generate.config.HIDDEN_CONFIGS`) add a *lemma* (``lemma=N``, off by default): ``q`` must
also establish an atom of a random acyclic normal program over N fresh atoms, true in it, so that a tier's programs
are too many to list (``naf_bench.generate.bound``) while every reading's label stays the core's.
"""

from __future__ import annotations

import random
from itertools import pairwise

from naf_bench.syntax.ast import Literal, Program, Rule

# Quota on (cred, skept) for cnf, as in the authors' implementation: shares keyed by the certificate's labels of
# these readings, joined (data keyed by label, as the bins' required labels are)
CNF_QUOTA_READINGS = ("cred", "skept")
CNF_QUOTA = {"TT": 0.34, "FT": 0.28, "FF": 0.28, "TF": 0.10}
Assembled = tuple[Program, dict[str, int]]  # a candidate and the axes it drew (its padding's depth and width)


def _choice(i: int) -> list[Rule]:
    return [Rule(f"v{i}", (Literal(f"w{i}", False),)), Rule(f"w{i}", (Literal(f"v{i}", False),))]


def _constraint(literals: list[str]) -> Rule:
    """``bad :- literals, not bad.``: no stable model makes all of ``literals`` true."""
    return Rule("bad", (*(Literal(a) for a in literals), Literal("bad", False)))


def _clauses(rng: random.Random, n: int, ratio: float) -> list[list[tuple[int, bool]]]:
    """``ratio * n`` distinct 3-clauses: a clause drawn again (in any literal order) is drawn anew."""
    clauses: list[list[tuple[int, bool]]] = []
    drawn: set[frozenset[tuple[int, bool]]] = set()
    while len(clauses) < max(1, round(ratio * n)):
        clause = [(v, rng.random() < 0.5) for v in rng.sample(range(n), 3)]
        if frozenset(clause) not in drawn:
            drawn.add(frozenset(clause))
            clauses.append(clause)
    return clauses


def _cnf(rng: random.Random, n: int, ratio: float) -> tuple[list[Rule], str]:
    rules = [rule for i in range(n) for rule in _choice(i)]
    for clause in _clauses(rng, n, ratio):
        # the clause is violated when every literal is false: v_i false means w_i true
        rules.append(_constraint([f"w{v}" if positive else f"v{v}" for v, positive in clause]))
    return rules, rng.choice([f"v{rng.randrange(n)}", f"w{rng.randrange(n)}"])


def lemma_program(rng: random.Random, atoms: int) -> tuple[list[Rule], str]:
    """A random acyclic normal program over ``y0 .. y{atoms-1}`` (``y0`` a fact; each other atom a fact or one rule
    whose body reads one or two earlier atoms, each negated or not) and its deepest true atom. Acyclic: every
    reading agrees on it (SLDNF finishes, WFS is two-valued, one stable model), so reading it true from ``q``
    changes no label; the rest of it is distraction."""
    rules, true = [Rule("y0")], [True]
    for i in range(1, atoms):
        if rng.random() < 0.15:
            rules.append(Rule(f"y{i}"))
            true.append(True)
            continue
        body = [Literal(f"y{j}", rng.random() < 0.5) for j in rng.sample(range(i), min(i, rng.choice([1, 2, 2])))]
        rules.append(Rule(f"y{i}", tuple(body)))
        true.append(all(true[int(literal.atom[1:])] == literal.positive for literal in body))
    return rules, f"y{max(i for i in range(atoms) if true[i])}"


def _pad(rng: random.Random, rules: list[Rule], core: str, lemma_atoms: int = 0) -> Assembled:
    """q reads ``core`` through a positive chain of depth 0-6 and a block of 0-4 true facts (and, with
    ``lemma_atoms``, a lemma's true atom)."""
    depth, width = rng.choice([0, 2, 4, 6]), rng.choice([0, 2, 3, 4])
    facts = [f"s{j}" for j in range(width)]
    rules = rules + [Rule(f) for f in facts]
    if rng.random() < 0.5:
        rules.append(Rule("etrue"))
    if lemma_atoms:  # drawn after the public padding, so a config without a lemma draws as before
        lemma_rules, lemma_atom = lemma_program(rng, lemma_atoms)
        rules += lemma_rules
        facts.append(lemma_atom)
    chain = [f"t{i}" for i in range(depth)] + [core]
    rules.append(Rule("q", (Literal(chain[0]), *(Literal(f) for f in facts))))
    rules.extend(Rule(upper, (Literal(lower),)) for upper, lower in pairwise(chain))
    rng.shuffle(rules)
    return Program(tuple(rules)), {"depth": depth, "width": width}


def cnf(rng: random.Random, size: int, lemma: int = 0) -> Assembled:
    """3-SAT over ``size`` variables near the phase transition (m/n ~ 4.26)."""
    return _pad(rng, *_cnf(rng, size, 4.26), lemma)


def control(rng: random.Random, size: int, lemma: int = 0) -> Assembled:
    """3-SAT over ``size`` variables at ratio 1.8, with gold-neutral filler up to the length of the search tiers."""
    rules, core = _cnf(rng, size, 1.8)
    filler = {8: 9, 14: 16, 22: 25}[size]
    rules += [Rule(f"f{j}") for j in range(filler)] + [Rule(f"g{j}", (Literal(f"f{j}"),)) for j in range(filler)]
    return _pad(rng, rules, core, lemma)


def decided(rng: random.Random, size: int, lemma: int = 0) -> Assembled:
    """An acyclic stack of ``size`` negations over a fact."""
    rules = [Rule("a0")] + [Rule(f"a{i}", (Literal(f"a{i - 1}", False),)) for i in range(1, size + 1)]
    return _pad(rng, rules, f"a{size}", lemma)


def loopy(rng: random.Random, size: int, lemma: int = 0) -> Assembled:
    """A positive loop under a chain of ``size`` links, read positively or negated."""
    rules = [Rule(f"p{i}", (Literal(f"p{i + 1}"),)) for i in range(size)] + [Rule(f"p{size}", (Literal(f"p{size}"),))]
    core = "p0"
    if rng.random() < 0.5:
        rules.append(Rule("np0", (Literal("p0", False),)))
        core = "np0"
    return _pad(rng, rules, core, lemma)


def parity(rng: random.Random, size: int, lemma: int = 0) -> Assembled:
    """``size`` choice cycles and a stratified parity accumulator."""
    rules = [rule for i in range(size) for rule in _choice(i)] + [Rule("e0")]
    for i in range(size):
        rules.append(Rule(f"e{i + 1}", (Literal(f"e{i}"), Literal(f"w{i}"))))
        rules.append(Rule(f"e{i + 1}", (Literal(f"v{i}"), Literal(f"e{i}", False))))
    return _pad(rng, rules, f"e{size}", lemma)


def coupled(rng: random.Random, size: int, lemma: int = 0) -> Assembled:
    """``size`` choice cycles on a ring or a path, adjacent atoms forced to differ."""
    rules = [rule for i in range(size) for rule in _choice(i)]
    ring = rng.random() < 0.5
    for i in range(size if ring else size - 1):
        j = (i + 1) % size
        rules += [_constraint([f"v{i}", f"v{j}"]), _constraint([f"w{i}", f"w{j}"])]
    return _pad(rng, rules, f"v{rng.randrange(size)}", lemma)
