"""naf_bench.syntax.ast: the program over atom numbers the engines walk (heads, bodies as literals, rules by
head, dependencies, components in the order the engines settle them, what an atom depends on)."""

from naf_bench.syntax.parse import parse_program


def test_a_program_over_atom_numbers():
    program = parse_program("q :- not p1, r.\np1 :- q.\nr.\ns :- not s, s.\n")
    numbered = program.numbered
    assert numbered.index == {"q": 0, "p1": 1, "r": 2, "s": 3}
    assert (numbered.heads, numbered.bodies) == ([0, 1, 2, 3], [(~1, 2), (0,), (), (~3, 3)])
    assert (numbered.rules, numbered.dependencies) == ([[0], [1], [2], [3]], [[1, 2], [0], [], [3, 3]])
    order, bounds, recursive = numbered.components  # r; the cycle p1, q; s on itself
    assert [order[bounds[c] : bounds[c + 1]] for c in range(3)] == [[2], [1, 0], [3]]
    assert list(recursive) == [0, 1, 1]
    assert list(numbered.relevant(0)) == [1, 1, 1, 0]
