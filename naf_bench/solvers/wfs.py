"""Well-founded semantics by the alternating fixpoint (Van Gelder 1993), in pure Python.

Each Γ application is a counter-based least-model computation, linear in program size; the number
of alternations is small on NAF-Bench programs (bounded by the number of atoms in general).
"""

from __future__ import annotations

from dataclasses import dataclass

from naf_bench.syntax.ast import Program


@dataclass(frozen=True)
class WFSResult:
    values: dict[str, str]  # atom -> "T" | "F" | "u"
    iterations: int  # Γ applications until the alternating fixpoint is reached

    def value(self, atom: str) -> str:
        return self.values.get(atom, "F")


class _Reducts:
    """Precomputed indices so that Γ(I) = least model of the reduct P^I is linear time.

    Each rule keeps a counter of the body literals still missing: its positive atoms, plus one for its
    negative literals taken together, which Γ(I) removes when I satisfies them all. Rules without negative
    literals are in every reduct, so their least model and the counters it leaves are computed once; each Γ
    starts from there and only visits the rules with negative literals.
    """

    def __init__(self, program: Program):
        bodies = program.bodies
        self.heads = [rule.head for rule in program.rules]
        self.watchers: dict[str, list[int]] = {a: [] for a in program.atoms}
        for i, (pos, _) in enumerate(bodies):
            for atom in pos:
                self.watchers[atom].append(i)
        self.missing = [len(pos) + bool(neg) for pos, neg in bodies]
        # (rule index, head, negative atoms) of the rules with negative literals
        self.negative = [(i, self.heads[i], neg) for i, (_, neg) in enumerate(bodies) if neg]
        self.base = {h for h, m in zip(self.heads, self.missing, strict=True) if not m}
        self._close(list(self.base), self.base, self.missing)

    def _close(self, queue: list[str], derived: set[str], missing: list[int]) -> None:
        """Add to ``derived`` what the atoms in ``queue`` (just added to it) make derivable, counting down
        ``missing``."""
        watchers, heads = self.watchers, self.heads
        while queue:
            for i in watchers[queue.pop()]:
                missing[i] -= 1
                if not missing[i]:
                    head = heads[i]
                    if head not in derived:
                        derived.add(head)
                        queue.append(head)

    def gamma(self, interpretation: set[str]) -> set[str]:
        missing = self.missing.copy()
        derived = self.base.copy()
        queue = []
        disjoint = interpretation.isdisjoint
        for i, head, neg in self.negative:
            if disjoint(neg):
                missing[i] -= 1
                if not missing[i] and head not in derived:
                    derived.add(head)
                    queue.append(head)
        self._close(queue, derived, missing)
        return derived


_last_reducts: tuple[Program, _Reducts] | None = None


def reducts_of(program: Program) -> _Reducts:
    """The Γ indices of ``program``, kept for the last program asked: certify's stable-model check asks again
    for the program whose WFS it just computed. Compared by identity (hashing a program costs more than this)."""
    global _last_reducts
    last = _last_reducts
    if last is None or last[0] is not program:
        last = _last_reducts = (program, _Reducts(program))
    return last[1]


def solve_wfs(program: Program) -> WFSResult:
    """Three-valued well-founded model of every atom of ``program``."""
    reducts = reducts_of(program)
    # Rounds (true, possible) <- (Γ(possible), Γ(Γ(possible))) until one changes nothing; ``iterations``
    # counts that last round too. As possible == Γ(true) throughout, a round that leaves ``true`` unchanged
    # leaves ``possible`` unchanged, and one that leaves ``possible`` unchanged makes the next change nothing:
    # the Γ applications those rounds would repeat are skipped.
    true: set[str] = set()
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
    values = {a: "T" if a in true else "u" if a in possible else "F" for a in program.atoms}
    return WFSResult(values, iterations)
