"""SLDNF as Prolog runs it, decided exactly for ground programs, with no step budget.

Without variables or cuts, a call of an atom behaves the same wherever it is made: it yields a stream
of successes that ends in finite failure, diverges, or never ends. Its *summary* is ``(n, diverges)``
with ``n`` the number of successes before the end, or ``(OMEGA, False)`` for infinitely many. Summaries
of clause bodies and of atoms compose exactly (``bind`` for ``,``, ``concat`` for clause order,
``negate`` for ``\\+``), and Prolog's behaviour is the least fixpoint of these equations in the
prefix order of streams (divergence is the bottom element).

The fixpoint is computed one strongly connected component of the dependency graph at a time,
dependencies first (Bekić: the least fixpoint of the whole system is the components' least fixpoints
in order), so a long chain costs one evaluation per atom. An atom on no cycle is evaluated once; a
recursive component by synchronous Kleene iteration from bottom. Most atoms settle in a few
rounds; an atom with infinitely many successes grows forever, so growth is detected exactly: once the
*classes* of all summaries (zero / some successes, ends / diverges / infinite) stop changing, they
never change again, each count is a fixed sum of products of counts of atoms (all >= 1), and a
change spreads along that "count graph" one edge per round. An atom's count is then unbounded iff it
reaches a cycle of the count graph that reaches a changing atom; those atoms are set to OMEGA and the
iteration resumes. Everything else settles within one round per atom.

Note that re-entering an atom below itself is not by itself a loop: the inner call may succeed on
an earlier clause and return (``r3.  r3 :- y2, r1, not r1.`` re-enters ``r3`` harmlessly).
"""

from __future__ import annotations

from dataclasses import dataclass

from naf_bench.errors import SolverError
from naf_bench.syntax.ast import Program

OMEGA = -1  # infinitely many successes

Summary = tuple[int, bool]  # (successes or OMEGA, diverges after them)
BOTTOM: Summary = (0, True)
FAIL: Summary = (0, False)
SUCCEED: Summary = (1, False)


@dataclass(frozen=True)
class SLDNFResult:
    label: str  # "T" | "F" | "loop"
    iterations: int  # Kleene rounds, summed over the recursive components
    successes: int  # solutions Prolog would enumerate for the query (OMEGA = infinitely many)


def negate(value: Summary) -> Summary:
    n, diverges = value
    if n != 0:
        return FAIL
    return BOTTOM if diverges else SUCCEED


def bind(first: Summary, rest: Summary) -> Summary:
    """``first, rest``: for each success of ``first`` run ``rest`` (the same stream every time)."""
    n1, d1 = first
    if n1 == 0:
        return first
    m, d2 = rest
    if m == OMEGA or d2:
        return rest
    if n1 == OMEGA:
        return BOTTOM if m == 0 else (OMEGA, False)
    return (n1 * m, d1) if m else (0, d1)


def concat(first: Summary, second: Summary) -> Summary:
    """Clause order: the second clause is tried once the first has finitely failed."""
    n1, d1 = first
    if n1 == OMEGA or d1:
        return first
    n2, d2 = second
    if n2 == OMEGA:
        return second
    return (n1 + n2, d2)


def _klass(value: Summary) -> tuple[bool, bool] | str:
    return "omega" if value[0] == OMEGA else (value[0] > 0, value[1])


class _Equations:
    """The equations of a program's atoms, over their numbers (:attr:`~naf_bench.syntax.ast.Program.numbered`;
    a literal ``~b`` is ``not b``); ``values`` is indexed by atom number."""

    def __init__(self, program: Program):
        self.rules, self.bodies = program.numbered.rules, program.numbered.bodies

    def value(self, atom: int, values: list) -> Summary:
        """The summary of ``atom``'s clauses, in order, given the summaries in ``values``."""
        total = FAIL
        bodies = self.bodies
        for r in self.rules[atom]:
            value = SUCCEED
            for literal in reversed(bodies[r]):
                value = bind(values[literal] if literal >= 0 else negate(values[~literal]), value)
            total = concat(total, value)
            if total[1] or total[0] == OMEGA:
                break
        return total

    def step(self, atoms, values: list) -> dict[int, Summary]:
        return {atom: self.value(atom, values) for atom in atoms}

    def count_graph(self, atoms, values: list) -> dict[int, set[int]]:
        """For ``atoms`` with some successes and a divergent end: whose counts (among them) theirs is built from."""
        growing = {a for a in atoms if values[a][0] > 0 and values[a][1]}
        graph: dict[int, set[int]] = {}
        for atom in growing:
            total, total_deps = FAIL, set()
            for r in self.rules[atom]:
                value, deps = SUCCEED, set()
                for literal in reversed(self.bodies[r]):
                    positive = literal >= 0
                    name = literal if positive else ~literal
                    lit = values[name] if positive else negate(values[name])
                    lit_deps = {name} if positive and name in growing else set()
                    combined = bind(lit, value)
                    if combined is value:
                        pass  # the count is the rest's count alone
                    elif combined[0] in (0, OMEGA):
                        deps = set()
                    else:
                        deps = deps | lit_deps
                    value = combined
                before = total
                total = concat(total, value)
                if total is before:
                    break
                total_deps = deps if before[0] == 0 else total_deps | deps
                if total[1]:
                    break
            graph[atom] = total_deps
        return graph


def _reaching(graph: dict[str, set[str]], targets: set[str]) -> set[str]:
    """Nodes with a path (possibly empty) to ``targets``."""
    reverse: dict[str, set[str]] = {}
    for node, succs in graph.items():
        for succ in succs:
            reverse.setdefault(succ, set()).add(node)
    seen = set(targets)
    stack = list(targets)
    while stack:
        for prev in reverse.get(stack.pop(), ()):
            if prev not in seen:
                seen.add(prev)
                stack.append(prev)
    return seen


def _unbounded(graph: dict[str, set[str]], changed: set[str]) -> set[str]:
    feeding = _reaching(graph, changed & graph.keys())
    sub = {node: graph[node] & feeding for node in feeding}
    on_cycle = {node for node in sub if sub[node] & _reaching(sub, {node})}
    return _reaching(graph, on_cycle) if on_cycle else set()


def _solve_component(equations: _Equations, component, values: list) -> int:
    """Least fixpoint of one recursive component, atoms below already final in ``values``; the rounds."""
    for atom in component:
        values[atom] = BOTTOM
    rounds = 0
    limit = 4 * (len(component) + 2) ** 2 + 16  # a proven bound; exceeding it is a bug, not a label
    while True:
        rounds += 1
        new = equations.step(component, values)
        if all(new[a] == values[a] for a in component):
            return rounds
        if rounds > limit:
            raise SolverError(f"exact SLDNF fixpoint exceeded its proven bound on component {list(component[:5])}")
        if all(_klass(new[a]) == _klass(values[a]) for a in component):
            changed = {a for a in component if new[a] != values[a]}
            for atom in _unbounded(equations.count_graph(component, values), changed):
                new[atom] = (OMEGA, False)
        for atom, value in new.items():
            values[atom] = value


def solve_sldnf_exact(program: Program, query: str) -> SLDNFResult:
    """Label of ``?- query.`` under Prolog's computation rule: T, F or loop (exact)."""
    numbered = program.numbered
    if query not in numbered.index:  # an atom the program never mentions has no clauses
        return SLDNFResult("F", 0, 0)
    relevant = numbered.relevant(numbered.index[query])
    equations = _Equations(program)
    values: list = [None] * len(relevant)
    rounds = 0
    order, bounds, recursive = numbered.components
    for c, cyclic in enumerate(recursive):  # a component is relevant or not as a whole
        if not relevant[order[bounds[c]]]:
            continue
        if cyclic:
            rounds += _solve_component(equations, order[bounds[c] : bounds[c + 1]], values)
        else:
            values[order[bounds[c]]] = equations.value(order[bounds[c]], values)
    n, diverges = values[numbered.index[query]]
    label = "T" if n != 0 else "loop" if diverges else "F"
    return SLDNFResult(label, rounds, n)
