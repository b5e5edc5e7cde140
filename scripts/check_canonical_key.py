"""The canonical key checked against the one it replaced: equal exactly when the replaced keys are equal.

    python scripts/check_canonical_key.py [--config main ...] [--set KEY=VALUE ...]

Dataset version 0.2.0 takes canonical keys from BLISS (python-igraph's ``canonical_permutation``) over a coloured
graph of atoms and rules; version 0.1.0 took them from the individualisation-refinement below, written by hand
(``replaced_key``, kept here to check against). For each config (default: all) the script runs the one-process
walk for its attempt counts, re-assembles every attempt of every cell and split (kept and rejected alike) and
keys each with both; the two keys must induce the same partition of the programs, over all configs together:
each replaced key maps to one new key and back. It prints the programs, the distinct keys, the time per key of
each and exits non-zero on any disagreement, naming the two programs.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from collections import Counter

from naf_bench.data.rows import generate_units
from naf_bench.generate.config import CONFIGS, get_config, parse_overrides
from naf_bench.syntax.ast import Program
from naf_bench.syntax.render import render_asp
from naf_bench.syntax.structure import canonical_key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", nargs="+", default=sorted(CONFIGS), choices=sorted(CONFIGS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=2,8")
    args = parser.parse_args()
    overrides = parse_overrides(args.set)
    new_of: dict[str, tuple[str, Program]] = {}  # replaced key -> (new key, first program)
    old_of: dict[str, tuple[str, Program]] = {}
    timing = Counter()
    programs = 0
    for name in args.config:
        config = get_config(name, **overrides)
        _, stats = generate_units(config)
        for split, unit, cell in stats:
            for attempt in range(cell.attempts):
                program = config.cell(unit, split).assemble(attempt)[0]
                start = time.perf_counter()
                old = replaced_key(program, "q")
                middle = time.perf_counter()
                new = canonical_key(program, "q")
                timing["replaced"] += middle - start
                timing["new"] += time.perf_counter() - middle
                programs += 1
                for key, other, table in ((old, new, new_of), (new, old, old_of)):
                    known, first = table.setdefault(key, (other, program))
                    if known != other:
                        raise SystemExit(
                            f"keys disagree ({name}, {split}, {unit.family} {unit.axes}, attempt {attempt}):\n"
                            f"{render_asp(first)}\n---\n{render_asp(program)}"
                        )
        print(f"{name}: {programs} programs so far, {len(new_of)} distinct keys", flush=True)
    print(
        f"{programs} programs, {len(new_of)} distinct keys: the keys agree (equal exactly when the replaced ones are); "
        f"per key {1e3 * timing['replaced'] / programs:.2f} ms (replaced) vs "
        f"{1e3 * timing['new'] / programs:.3f} ms (BLISS), {timing['replaced'] / timing['new']:.0f}x"
    )


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


def replaced_key(program: Program, query: str | None = None) -> str:
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


if __name__ == "__main__":
    main()
