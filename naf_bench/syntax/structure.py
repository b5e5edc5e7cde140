"""Structure of a program: its dependency graph, the atoms relevant to a query, its canonical key (the graph's
components are :mod:`naf_bench.syntax.graph`)."""

from __future__ import annotations

import hashlib
import itertools
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


def depended_on(program: Program, atoms: list[str]) -> Program:
    """The rules, in order, of ``atoms`` and of every atom they depend on (an atom the program never mentions has
    none)."""
    numbered = program.numbered
    relevant = numbered.relevant(*[numbered.index[a] for a in atoms if a in numbered.index])
    return Program(tuple([rule for rule, head in zip(program.rules, numbered.heads, strict=True) if relevant[head]]))


# Vertex colours of the graph whose canonical labelling is the key: atoms, the query atom, rules, and one colour per
# (sign, multiplicity) of a body literal node (a rule's edge to a body atom; a head is a direct rule-atom edge)
_ATOM, _QUERY, _RULE, _LITERAL = 0, 1, 2, 3
_ONCE = itertools.repeat(1)


def canonical_key(program: Program, query: str | None = None) -> str:
    """A key equal exactly for programs that differ only by atom renaming and rule (or body-literal) order.

    Programs are compared as multisets of rules ``(head, positive body, negative body)`` (bodies as multisets);
    the query, when given, is a distinguished atom. The program is a vertex-coloured graph of atoms and rules
    (a rule joined to its head, and to each body atom through a node coloured by the literal's sign and
    multiplicity); two programs are equivalent exactly when their graphs are isomorphic, and the key hashes the
    graph's canonical form under BLISS's canonical labelling (python-igraph's ``canonical_permutation``).
    """
    import igraph
    import numpy as np

    index = {atom: i for i, atom in enumerate(program.atoms)}
    if query is not None and query not in index:
        index[query] = len(index)
    colors = [_ATOM] * len(index)
    if query is not None:
        colors[index[query]] = _QUERY
    edges = []
    for rule, (positive, negative) in zip(program.rules, program.bodies, strict=True):
        node = len(colors)
        colors.append(_RULE)
        edges.append((node, index[rule.head]))
        for sign, atoms in ((0, positive), (1, negative)):
            for atom, times in (
                Counter(atoms).items() if len(set(atoms)) < len(atoms) else zip(atoms, _ONCE, strict=False)
            ):
                literal = len(colors)
                colors.append(_LITERAL + 2 * (times - 1) + sign)
                edges += ((node, literal), (literal, index[atom]))
    # canonical vertex j is vertex labelling[j] (the order Graph.permute_vertices reads it in)
    labelling = np.array(igraph.Graph(n=len(colors), edges=edges).canonical_permutation(color=colors), dtype="<i8")
    position = np.empty_like(labelling)
    position[labelling] = np.arange(len(labelling))
    ends = np.sort(position[np.array(edges, dtype="<i8").reshape(-1, 2)], axis=1)
    canonical_edges = ends[np.lexsort((ends[:, 1], ends[:, 0]))]
    canonical_colors = np.array(colors, dtype="<i8")[labelling]  # fixed width and byte order: the same bytes anywhere
    digest = hashlib.sha256(
        np.array([len(colors)], "<i8").tobytes() + canonical_colors.tobytes() + canonical_edges.tobytes()
    )
    return digest.hexdigest()[:32]
