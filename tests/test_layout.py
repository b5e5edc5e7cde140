"""The house's layout holds: the top level reads as the stages (syntax -> solvers -> certify -> generate ->
verbalize -> data -> scoring -> runs, analysis, leaderboard, training, cli), no import cycle among the package's modules
(imports inside functions count too), no module imports another's private names, and no function runs over 100
lines."""

import ast
from pathlib import Path

import naf_bench

PACKAGE = Path(naf_bench.__file__).parent
SOURCES = {
    ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): path
    for path in sorted(PACKAGE.rglob("*.py"))
    if "lm_eval_tasks" not in path.parts
}
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in SOURCES.items()}


def _imports(tree: ast.Module):
    """(module, name) of every ``from naf_bench... import name`` and (module, None) of every ``import naf_bench...``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "naf_bench":
            yield from ((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names if alias.name.split(".")[0] == "naf_bench")


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a name that is a module counts as that module)."""
    graph = {}
    for name, tree in TREES.items():
        targets = {f"{module}.{item}" if f"{module}.{item}" in SOURCES else module for module, item in _imports(tree)}
        graph[name] = {target for target in targets if target in SOURCES and target != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module."""
    from naf_bench.syntax.graph import strongly_connected_components

    components = strongly_connected_components({name: tuple(sorted(deps)) for name, deps in graph.items()})
    return [sorted(component) for component in components if len(component) > 1]


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_the_cycle_check_sees_a_cycle():
    graph = _graph()
    graph["naf_bench.syntax.ast"].add("naf_bench.syntax.structure")  # as it was before syntax.graph
    assert _cycles(graph) == [["naf_bench.syntax.ast", "naf_bench.syntax.structure"]]


def test_no_module_imports_private_names():
    private = [f"{name}: {module}.{item}" for name, tree in TREES.items() for module, item in _imports(tree)
               if item and item.startswith("_") and not item.startswith("__")]  # fmt: skip
    assert private == []


def test_no_function_over_100_lines():
    long = [f"{name}.{node.name}: {node.end_lineno - node.lineno + 1}" for name, tree in TREES.items()
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > 100]  # fmt: skip
    assert long == []


def test_the_top_level_reads_as_stages():
    top = sorted(path.name for path in PACKAGE.iterdir() if path.suffix == ".py" or path.is_dir())
    top = [name for name in top if name != "__pycache__"]
    assert top == ["__init__.py", "analysis", "certify.py", "cli", "data", "errors.py", "generate", "integrations",
                   "leaderboard", "readings.py", "runs", "scoring", "solvers", "syntax", "templates", "training",
                   "verbalize", "version.py"]  # fmt: skip
