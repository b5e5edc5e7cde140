"""Strongly connected components of a dependency graph: over numbered nodes (:func:`numbered_components`, what
:attr:`~naf_bench.syntax.ast.Program.numbered` holds), and over plain dicts of names
(:func:`strongly_connected_components`, what the audits read)."""

from __future__ import annotations

from collections.abc import Sequence


def numbered_components(successors: Sequence[Sequence[int]]) -> tuple[list[int], list[int], bytearray]:
    """Tarjan's algorithm, iterative, on nodes ``0 .. n-1`` whose successors are ``successors[v]``.

    Returns ``(order, bounds, recursive)``: component ``c`` is ``order[bounds[c]:bounds[c + 1]]``, components come
    out dependencies first, and ``recursive[c]`` says whether it lies on a cycle (several nodes, or one that is
    its own successor). Roots are taken in node order and successors in their order, so the components come out
    as :func:`strongly_connected_components` gives them for the same graph.
    """
    n = len(successors)
    index = [-1] * n
    low = [0] * n
    on_stack = bytearray(n)
    stack: list[int] = []
    order: list[int] = []
    bounds, recursive = [0], bytearray()
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = 1
        work = [(root, iter(successors[root]))]
        while work:
            node, children = work[-1]
            for child in children:  # resumed where it left off when the walk comes back to ``node``
                if index[child] < 0:
                    index[child] = low[child] = counter
                    counter += 1
                    if not successors[child]:  # a leaf: its own component at once
                        order.append(child)
                        bounds.append(len(order))
                        recursive.append(0)
                        continue
                    stack.append(child)
                    on_stack[child] = 1
                    work.append((child, iter(successors[child])))
                    break
                if on_stack[child] and index[child] < low[node]:
                    low[node] = index[child]
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    if low[node] < low[parent]:
                        low[parent] = low[node]
                if low[node] == index[node]:
                    first = len(order)
                    while True:
                        member = stack.pop()
                        on_stack[member] = 0
                        order.append(member)
                        if member == node:
                            break
                    bounds.append(len(order))
                    cycle = len(order) - first > 1 or node in successors[node]
                    recursive.append(cycle)
    return order, bounds, recursive


def strongly_connected_components(graph: dict[str, tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The components of ``graph`` (node -> the nodes it depends on), dependencies first."""
    number = {node: i for i, node in enumerate(graph)}
    for successors in graph.values():  # nodes named only as successors, numbered after the keys
        for node in successors:
            number.setdefault(node, len(number))
    names = list(number)
    order, bounds, _ = numbered_components([[number[s] for s in graph.get(node, ())] for node in names])
    return [tuple([names[v] for v in order[bounds[c] : bounds[c + 1]]]) for c in range(len(bounds) - 1)]


def is_recursive(component: tuple[str, ...], graph: dict[str, tuple[str, ...]]) -> bool:
    """A component lies on a cycle: it has several atoms, or its one atom depends on itself."""
    return len(component) > 1 or component[0] in graph.get(component[0], ())
