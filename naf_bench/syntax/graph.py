"""Strongly connected components of a dependency graph (atom -> the atoms it depends on), over plain dicts: what
:class:`~naf_bench.syntax.ast.Program` and the audits compute components with."""

from __future__ import annotations


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
