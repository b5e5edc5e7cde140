"""naf_bench.syntax.graph: strongly connected components over atom numbers and over named nodes, dependencies
first, each marked recursive when it lies on a cycle."""

from naf_bench.syntax.graph import is_recursive, numbered_components, strongly_connected_components


def test_a_two_node_cycle_a_self_loop_and_a_leaf_are_three_components_in_dependency_order():
    order, bounds, recursive = numbered_components([[1], [0], [2], []])
    assert order == [1, 0, 2, 3]
    assert bounds == [0, 2, 3, 4]
    assert list(recursive) == [1, 1, 0]


def test_a_component_comes_after_the_components_it_depends_on():
    # 0 -> 1 -> 2 -> 0 is one cycle, and 0 also depends on the leaf 3, which must come out first
    order, bounds, recursive = numbered_components([[1, 3], [2], [0], []])
    assert order == [3, 2, 1, 0]
    assert bounds == [0, 1, 4]
    assert list(recursive) == [0, 1]


def test_named_components_number_nodes_seen_only_as_successors_and_keep_dependencies_first():
    graph = {"p": ("q",), "q": ("p", "r"), "s": ("s",)}
    assert strongly_connected_components(graph) == [("r",), ("q", "p"), ("s",)]


def test_a_component_is_recursive_when_it_has_several_atoms_or_one_that_depends_on_itself():
    graph = {"p": ("q", "r"), "q": ("p",), "s": ("s",)}
    assert is_recursive(("p", "q"), graph)
    assert is_recursive(("s",), graph)
    assert not is_recursive(("r",), graph)  # named only as a successor: no rules, no loop
    assert not is_recursive(("p",), {"p": ("q",)})
