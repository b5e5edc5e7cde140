"""Structure of a program: dependency graph, strongly connected components, canonical key."""

from __future__ import annotations

import hashlib
from collections import Counter

from naf_bench.syntax.ast import Program


def dependencies(program: Program) -> dict[str, tuple[str, ...]]:
    """Atoms each atom's rules mention in their bodies (positively or negatively), deduplicated; shared, so
    read-only."""
    return program.dependencies


def relevant_atoms(program: Program, query: str) -> tuple[str, ...]:
    """Atoms the query depends on (itself included), in discovery order."""
    deps = dependencies(program)
    seen = {query: None}
    stack = [query]
    while stack:
        for nxt in deps.get(stack.pop(), ()):
            if nxt not in seen:
                seen[nxt] = None
                stack.append(nxt)
    return tuple(seen)


def strongly_connected_components(graph: dict[str, tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Tarjan's algorithm, iterative; components come out dependencies-first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[tuple[str, ...]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:  # resumed where it left off when the walk comes back to ``node``
                if child not in index:
                    index[child] = low[child] = len(index)
                    grandchildren = graph.get(child, ())
                    if not grandchildren:  # a leaf: its own component at once
                        components.append((child,))
                        continue
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(grandchildren)))
                    break
                if child in on_stack and index[child] < low[node]:
                    low[node] = index[child]
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    if low[node] < low[parent]:
                        low[parent] = low[node]
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(tuple(component))
    return components


def is_recursive(component: tuple[str, ...], graph: dict[str, tuple[str, ...]]) -> bool:
    """A component lies on a cycle: it has several atoms, or its one atom depends on itself."""
    return len(component) > 1 or component[0] in graph.get(component[0], ())


def _refine(colors: dict, neighbours: dict) -> dict:
    """Colour refinement to a stable partition; colour ids are canonical (ranked signatures)."""
    while True:
        signatures = {
            node: (colors[node], tuple(sorted((kind, colors[other]) for kind, other in neighbours[node])))
            for node in colors
        }
        ranking = {sig: rank for rank, sig in enumerate(sorted(set(signatures.values())))}
        refined = {node: ranking[sig] for node, sig in signatures.items()}
        if len(ranking) == len(set(colors.values())):
            return refined
        colors = refined


def canonical_key(program: Program, query: str | None = None) -> str:
    """A key equal for programs that differ only by atom renaming and rule (or body-literal) order.

    Programs are compared as multisets of rules ``(head, positive body, negative body)``; the query,
    when given, is a distinguished atom. Exact: each connected component gets its least encoding by
    individualisation-refinement (interchangeable atoms and automorphic siblings explored once), and the
    key hashes the sorted component codes, so repeated gadgets (filler facts) cost one search each.
    """
    rules = [(r.head, tuple(sorted(r.positive_body)), tuple(sorted(r.negative_body))) for r in program.rules]
    atoms = list(program.atoms)
    if query is not None and query not in atoms:
        atoms.append(query)
    root = {atom: atom for atom in atoms}

    def find(atom: str) -> str:
        while root[atom] != atom:
            root[atom] = root[root[atom]]
            atom = root[atom]
        return atom

    for head, pos, neg in rules:
        for atom in (*pos, *neg):
            root[find(atom)] = find(head)
    components: dict[str, tuple[list, list]] = {}
    for atom in atoms:
        components.setdefault(find(atom), ([], []))[0].append(atom)
    for rule in rules:
        components[find(rule[0])][1].append(rule)
    codes = sorted(
        (int(query in members), _component_code(members, component_rules, query))
        for members, component_rules in components.values()
    )
    text = repr((codes, query is not None))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _component_code(atoms: list[str], rules: list[tuple], query: str | None) -> tuple:
    """The least encoding of one connected component over all canonical labellings."""
    neighbours: dict = {("a", atom): [] for atom in atoms}
    colors: dict = {("a", atom): (0, int(atom == query)) for atom in atoms}
    for i, (head, pos, neg) in enumerate(rules):
        node = ("r", i)
        colors[node] = (1, 0)
        edges = [("h", head)] + [("p", a) for a in pos] + [("n", a) for a in neg]
        neighbours[node] = [(kind, ("a", a)) for kind, a in edges]
        for kind, a in edges:
            neighbours[("a", a)].append((kind.upper(), node))
    rule_multiset = Counter(rules)

    def encode(order: dict[str, int]) -> tuple:
        return tuple(
            sorted(
                (order[h], tuple(sorted(order[a] for a in p)), tuple(sorted(order[a] for a in n))) for h, p, n in rules
            )
        )

    def swap_is_automorphism(x: str, y: str) -> bool:
        def swap(a: str) -> str:
            return y if a == x else x if a == y else a

        swapped = Counter((swap(h), tuple(sorted(map(swap, p))), tuple(sorted(map(swap, n)))) for h, p, n in rules)
        return swapped == rule_multiset

    def children(coloring: dict) -> list[dict] | None:
        """Refined colourings after individualising each atom of the first non-singleton cell (None: a leaf)."""
        cells: dict[int, list[str]] = {}
        for node, color in coloring.items():
            if node[0] == "a":
                cells.setdefault(color, []).append(node[1])
        split = next((c for c in sorted(cells) if len(cells[c]) > 1), None)
        if split is None:
            return None
        cell = sorted(cells[split])
        if all(swap_is_automorphism(cell[0], other) for other in cell[1:]):
            cell = cell[:1]
        fresh = max(coloring.values()) + 1
        return [_refine({**coloring, ("a", atom): fresh}, neighbours) for atom in cell]

    def leaf_code(coloring: dict) -> tuple:
        return encode({node[1]: color for node, color in coloring.items() if node[0] == "a"})

    def first_leaf(coloring: dict) -> tuple:
        while (below := children(coloring)) is not None:
            coloring = below[0]
        return leaf_code(coloring)

    def search(coloring: dict) -> set[tuple]:
        """Codes of every leaf below; a child whose first leaf is already known is the image of an explored
        sibling under an automorphism (equal leaves compose to one), so its subtree adds nothing."""
        below = children(coloring)
        if below is None:
            return {leaf_code(coloring)}
        codes = search(below[0])
        for child in below[1:]:
            if first_leaf(child) not in codes:
                codes |= search(child)
        return codes

    return min(search(_refine(colors, neighbours)))
