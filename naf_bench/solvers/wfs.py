"""Well-founded semantics by the alternating fixpoint (Van Gelder 1993), in pure Python, computed one strongly
connected component of the dependency graph at a time, dependencies first.

The alternating fixpoint iterates Γ from the empty set: S_0 = Γ(∅), S_k = Γ(S_{k-1}), the odd iterates
T_1 ⊆ T_2 ⊆ ... growing to the true atoms, the even ones P_0 ⊇ P_1 ⊇ ... shrinking to the true and undefined
ones. Each atom enters the T's once, at ``t`` (``T_t`` is the first to hold it), and leaves the P's once, at
``p``; those two numbers say all there is to say about an atom, and Γ restricted to a component reads only the
component and the ``t``/``p`` of the atoms below it (the semantics is modular). So an atom on no cycle gets its
``t`` and ``p`` from its rules in closed form, and a recursive component replays its own part of the alternation,
skipping the rounds in which nothing below it changes. A chain costs one evaluation per atom where the whole
alternation needed one Γ per atom (quadratic); inside one component the cost stays O(atoms × size).

``iterations`` is the count of Γ applications the whole-program alternation makes (what the certificates have
always reported), read off the largest ``t`` and ``p``; :func:`solve_wfs_alternating` runs that alternation itself
and is kept to check this against.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from math import inf

from naf_bench.syntax.ast import Numbered, Program


@dataclass(frozen=True)
class WFSResult:
    values: dict[str, str]  # atom -> "T" | "F" | "u"
    iterations: int  # Γ applications until the alternating fixpoint is reached

    def value(self, atom: str) -> str:
        return self.values.get(atom, "F")


def solve_wfs(program: Program) -> WFSResult:
    """Three-valued well-founded model of every atom of ``program``, component by component, over the atoms'
    numbers (:attr:`~naf_bench.syntax.ast.Program.numbered`).

    ``t[a]``: the first j with a in T_j (inf: never true); ``p[a]``: the first j with a outside P_j (inf: never
    false). In T_j a rule's body holds from j = max(t of its positive atoms, p + 1 of its negative ones, 1) on; in
    P_j while j < min(p of its positive atoms, t of its negative ones).
    """
    numbered = program.numbered
    rules, bodies = numbered.rules, numbered.bodies
    order, bounds, recursive = numbered.components
    t: list[float] = [inf] * len(numbered.index)
    p: list[float] = [inf] * len(numbered.index)
    local = [-1] * len(numbered.index)  # an atom's position in the recursive component being solved
    for c, cyclic in enumerate(recursive):
        if cyclic:
            _solve_component(order[bounds[c] : bounds[c + 1]], numbered, t, p, local)
            continue
        atom = order[bounds[c]]
        first_true, first_false = inf, 0
        for r in rules[atom]:
            true_from, possible_until = 1, inf
            for literal in bodies[r]:
                if literal >= 0:
                    if t[literal] > true_from:
                        true_from = t[literal]
                    if p[literal] < possible_until:
                        possible_until = p[literal]
                else:
                    if p[~literal] + 1 > true_from:
                        true_from = p[~literal] + 1
                    if t[~literal] < possible_until:
                        possible_until = t[~literal]
            if true_from < first_true:
                first_true = true_from
            if possible_until > first_false:
                first_false = possible_until
        t[atom], p[atom] = first_true, first_false
    values = {a: "T" if ta != inf else "F" if pa != inf else "u" for a, ta, pa in zip(program.atoms, t, p, strict=True)}
    return WFSResult(values, _iterations(t, p))


def _iterations(t: list[float], p: list[float]) -> int:
    """Γ applications of :func:`solve_wfs_alternating` on the program with these ``t`` and ``p``.

    T_j differs from T_{j-1} exactly for j = 1..last_t (once two T's or two P's agree, nothing changes again), and
    P_j from P_{j-1} for j = 1..last_p; the alternation stops at the first round j that changes T (or P) no more.
    """
    last_t = max((j for j in t if j != inf), default=0)
    last_p = max((j for j in p if j != inf), default=0)
    return 2 * last_t + 3 if last_t <= last_p else 2 * last_p + 5


def _solve_component(component: list[int], numbered: Numbered, t: list, p: list, local: list[int]) -> None:
    """``t`` and ``p`` of a recursive component's atoms, those of every atom below already in ``t`` and ``p``.

    Replays S_k restricted to the component: the least model of its rules whose literals outside it hold at step
    k (read off their bounds) and whose negative literals inside it are outside S_{k-1}. Once S_k = S_{k-2} the
    component repeats itself until a step at which a rule's outside literals change: the replay jumps there.
    Inside, atoms go by their position in ``component`` (``local``, -1 for every atom outside it on entry and on
    return) and each S_k is a bytearray over those positions.
    """
    for position, atom in enumerate(component):
        local[atom] = position
    rules = []  # (head, positive atoms inside, negative atoms inside, true from j, possible while j <), by position
    changes = set()  # the steps k at which some rule's outside literals change
    for head, atom in enumerate(component):
        for r in numbered.rules[atom]:
            true_from, possible_until = 1, inf
            inside_positive, inside_negative = [], []
            for literal in numbered.bodies[r]:
                if literal >= 0:
                    if local[literal] >= 0:
                        inside_positive.append(local[literal])
                        continue
                    true_from = max(true_from, t[literal])
                    possible_until = min(possible_until, p[literal])
                elif local[~literal] >= 0:
                    inside_negative.append(local[~literal])
                else:
                    true_from = max(true_from, p[~literal] + 1)
                    possible_until = min(possible_until, t[~literal])
            if true_from == inf and possible_until == 0:
                continue  # a false literal outside: the rule never applies
            if true_from != inf:
                changes.add(2 * true_from - 1)
            if possible_until != inf:
                changes.add(2 * possible_until)
            rules.append((head, inside_positive, inside_negative, true_from, possible_until))
    for atom in component:
        local[atom] = -1
    changes = sorted(changes)
    watchers: list[list[int]] = [[] for _ in component]
    for i, (_, inside_positive, _, _, _) in enumerate(rules):
        for b in inside_positive:
            watchers[b].append(i)

    def step(k: int, previous: bytearray) -> bytearray:
        """S_k restricted to the component, from S_{k-1} restricted to it."""
        j = (k + 1) // 2
        odd = k % 2
        derived = bytearray(len(component))
        queue = []
        missing: list[int | None] = []
        for head, inside_positive, inside_negative, true_from, possible_until in rules:
            if true_from <= j if odd else j < possible_until:
                for c in inside_negative:
                    if previous[c]:
                        missing.append(None)
                        break
                else:
                    missing.append(len(inside_positive))
                    if not inside_positive and not derived[head]:
                        derived[head] = 1
                        queue.append(head)
            else:
                missing.append(None)
        while queue:
            for i in watchers[queue.pop()]:
                if missing[i] is not None:
                    missing[i] -= 1
                    if not missing[i]:
                        head = rules[i][0]
                        if not derived[head]:
                            derived[head] = 1
                            queue.append(head)
        return derived

    for atom in component:
        t[atom] = p[atom] = inf
    k, before, last = 0, None, bytearray(len(component))  # S_{k-2}, S_{k-1} (S_{-1} = T_0 = ∅)
    while True:
        now = step(k, last)
        if k % 2:
            for atom, inside in zip(component, now, strict=True):
                if inside and t[atom] == inf:
                    t[atom] = (k + 1) // 2
        else:
            for atom, inside in zip(component, now, strict=True):
                if not inside and p[atom] == inf:
                    p[atom] = k // 2
        if before is not None and now == before:
            position = bisect.bisect_right(changes, k)
            if position == len(changes):
                return
            k_next = changes[position]  # S_{k_next - 1} and S_{k_next - 2} repeat S_k and S_{k-1}
            before, last = (last, now) if (k_next - 1 - k) % 2 == 0 else (now, last)
            k = k_next
            continue
        before, last = last, now
        k += 1


class Reducts:
    """Precomputed indices so that Γ(I) = least model of the reduct P^I is linear time (the stable-model check
    tests each candidate with one Γ), over the atoms' numbers.

    Each rule keeps a counter of the body literals still missing: its positive atoms, plus one for its
    negative literals taken together, which Γ(I) removes when I satisfies them all. Rules without negative
    literals are in every reduct, so their least model and the counters it leaves are computed once; each Γ
    starts from there and only visits the rules with negative literals.
    """

    def __init__(self, program: Program):
        numbered = program.numbered
        self.heads = numbered.heads
        self.watchers: list[list[int]] = [[] for _ in numbered.index]  # atom -> the rules with it in a positive body
        self.missing: list[int] = []
        self.negative: list[tuple[int, int, list[int]]] = []  # (rule, head, negated atoms) of rules that have some
        for r, literals in enumerate(numbered.bodies):
            positive, negative = 0, []
            for literal in literals:
                if literal >= 0:
                    self.watchers[literal].append(r)
                    positive += 1
                else:
                    negative.append(~literal)
            self.missing.append(positive + bool(negative))
            if negative:
                self.negative.append((r, self.heads[r], negative))
        self.base = bytearray(len(numbered.index))
        queue = []
        for head, missing in zip(self.heads, self.missing, strict=True):
            if not missing and not self.base[head]:
                self.base[head] = 1
                queue.append(head)
        self._close(queue, self.base, self.missing)

    def _close(self, queue: list[int], derived: bytearray, missing: list[int]) -> None:
        """Add to ``derived`` what the atoms in ``queue`` (just added to it) make derivable, counting down
        ``missing``."""
        watchers, heads = self.watchers, self.heads
        while queue:
            for r in watchers[queue.pop()]:
                missing[r] -= 1
                if not missing[r]:
                    head = heads[r]
                    if not derived[head]:
                        derived[head] = 1
                        queue.append(head)

    def gamma(self, interpretation: bytearray) -> bytearray:
        """Γ(interpretation): the least model of the reduct; both a byte per atom number (1: in)."""
        missing = self.missing.copy()
        derived = bytearray(self.base)
        queue = []
        for r, head, negative in self.negative:
            for c in negative:
                if interpretation[c]:
                    break
            else:
                missing[r] -= 1
                if not missing[r] and not derived[head]:
                    derived[head] = 1
                    queue.append(head)
        self._close(queue, derived, missing)
        return derived


def solve_wfs_alternating(program: Program) -> WFSResult:
    """The well-founded model by the alternating fixpoint over the whole program, one Γ (linear) per round and as
    many rounds as the longest chain of negations: what :func:`solve_wfs` computes component by component, kept
    to check it against (``tests/solvers/test_wfs.py``)."""
    reducts = Reducts(program)
    # Rounds (true, possible) <- (Γ(possible), Γ(Γ(possible))) until one changes nothing; ``iterations``
    # counts that last round too. As possible == Γ(true) throughout, a round that leaves ``true`` unchanged
    # leaves ``possible`` unchanged, and one that leaves ``possible`` unchanged makes the next change nothing:
    # the Γ applications those rounds would repeat are skipped.
    true = bytearray(len(program.atoms))
    possible = reducts.gamma(true)
    iterations = 1
    while True:
        new_true = reducts.gamma(possible)
        iterations += 2
        if new_true == true:
            break
        true = new_true
        new_possible = reducts.gamma(true)
        if new_possible == possible:
            iterations += 2
            break
        possible = new_possible
    values = {a: "T" if t else "u" if p else "F" for a, t, p in zip(program.atoms, true, possible, strict=True)}
    return WFSResult(values, iterations)
