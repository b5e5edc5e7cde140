"""The house's layout holds: the top level reads as the stages of :data:`STAGES` (the README's order), each stage
imports only stages below it, no import cycle among the package's modules (imports inside functions count too, here
and for the stages), no module imports another's private names, no function runs over 100 lines, and the tests are
laid out as the code is (a module of tests per module, helpers shared as fixtures)."""

import ast
from pathlib import Path

import naf_bench

PACKAGE = Path(naf_bench.__file__).parent
# the stages in the order data flows through them: each may import only what stands to its left
STAGES = ("errors", "version", "syntax", "readings", "solvers", "certify", "verbalize", "generate", "scoring", "data",
          "runs", "analysis", "leaderboard", "training", "integrations", "cli")  # fmt: skip
NOT_STAGES = {"__init__.py", "templates"}  # the package's face (it imports what it re-exports); Jinja2 templates
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
    private = [
        f"{name}: {module}.{item}"
        for name, tree in TREES.items()
        for module, item in _imports(tree)
        if item and item.startswith("_") and not item.startswith("__")
    ]
    assert private == []


def test_no_function_over_100_lines():
    long = [
        f"{name}.{node.name}: {node.end_lineno - node.lineno + 1}"
        for name, tree in TREES.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > 100
    ]
    assert long == []


def _stage(module: str) -> str | None:
    """The stage a module of the package belongs to (None: the package's own ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _upward(trees: dict[str, ast.Module]) -> list[str]:
    """Every import, deferred ones included, from a module to a stage above its own or to no stage (``naf_bench``
    itself counts as above every stage: it imports them all)."""
    found = []
    for name, tree in trees.items():
        stage = _stage(name)
        if stage is None:
            continue
        for module, item in _imports(tree):
            imported = f"{module}.{item}" if module == "naf_bench" and item else module
            target = _stage(imported)
            if target not in STAGES or STAGES.index(target) > STAGES.index(stage):
                found.append(f"{name} ({stage}) imports {imported}")
    return sorted(found)


def test_the_top_level_reads_as_stages():
    top = sorted(path.name for path in PACKAGE.iterdir() if path.suffix == ".py" or path.is_dir())
    names = [name.removesuffix(".py") for name in top if name not in NOT_STAGES | {"__pycache__"}]
    assert [name for name in names if name not in STAGES] == []
    folders = [path for path in PACKAGE.iterdir() if path.is_dir() and path.name in STAGES]
    undescribed = [
        p.name
        for p in folders
        if not (p / "__init__.py").is_file() or not ast.get_docstring(TREES[f"naf_bench.{p.name}"])
    ]
    assert undescribed == []  # every stage folder is a package whose __init__ says what it holds


def test_stages_only_look_down():
    assert _upward(TREES) == []


def test_the_stage_check_sees_an_upward_import():
    deferred = ast.parse("def f():\n    from naf_bench.cli import main\n")
    package = ast.parse("import naf_bench\n")
    trees = {**TREES, "naf_bench.scoring.core": deferred, "naf_bench.syntax.ast": package}
    assert _upward(trees) == [
        "naf_bench.scoring.core (scoring) imports naf_bench.cli",
        "naf_bench.syntax.ast (syntax) imports naf_bench",
    ]


def test_the_readme_gives_the_stages_in_this_order():
    readme = " ".join((PACKAGE.parent / "README.md").read_text(encoding="utf-8").split())  # lines wrapped anywhere
    assert " · ".join(f"`{stage}`" for stage in STAGES) in readme


# The tests are laid out as the code is: naf_bench/<stage>/<module>.py has tests/<stage>/test_<module>.py (a top-level
# module, tests/test_<module>.py). Modules with no behaviour of their own, or tested where their users are, say so.
TESTS = Path(__file__).parents[1]
NO_TEST_MODULE = {
    "naf_bench": "the package's face: it re-exports the stages' names (tests/house/test_names.py checks them)",
    "naf_bench.version": "the version string (tests/house/test_docs.py checks the changelog names it)",
    "naf_bench.cli.__main__": "`python -m naf_bench.cli`: calls naf_bench.cli.main",
    "naf_bench.data.reference": "a deprecated alias of naf_bench.data.authors (tests/data/test_authors.py)",
    "naf_bench.verbalize.templates": "the prompts' texts, a table read by verbalize.prompt (tests/verbalize/)",
    "naf_bench.scoring": "load_metric and label_columns: the evaluate module's (tests/modellog_metric/test_module.py)",
}


def _missing_test_modules(sources, tests: Path) -> list[str]:
    """The modules of ``sources`` (name -> path) with behaviour of their own and no module of tests where the
    layout puts it; a package's ``__init__`` has behaviour when it defines a function or a class."""
    missing = []
    for name, path in sources.items():
        parts = name.split(".")[1:]
        if name in NO_TEST_MODULE:
            continue
        if path.name == "__init__.py":
            if not any(isinstance(node, ast.FunctionDef | ast.ClassDef) for node in TREES[name].body):
                continue
            parts = [*parts, parts[-1]]  # naf_bench/cli/__init__.py: tests/cli/test_cli.py
        expected = tests.joinpath(*parts[:-1], f"test_{parts[-1]}.py")
        if not expected.is_file():
            missing.append(f"{name}: {expected.relative_to(tests.parent)}")
    return missing


def test_every_module_with_behaviour_has_its_module_of_tests():
    assert _missing_test_modules(SOURCES, TESTS) == []


def test_the_layout_check_sees_a_module_without_tests(tmp_path):
    new = tmp_path / "naf_bench" / "scoring" / "novel.py"
    new.parent.mkdir(parents=True)
    new.write_text("def f():\n    return 1\n")
    assert _missing_test_modules(
        {"naf_bench.scoring.core": SOURCES["naf_bench.scoring.core"], "naf_bench.scoring.novel": new}, TESTS
    ) == ["naf_bench.scoring.novel: tests/scoring/test_novel.py"]


def _shared_by_import(tree: ast.Module) -> list[str]:
    """Imports of a conftest or of a test module (shared helpers are fixtures: pytest hands them over)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [("." * node.level) + (node.module or "")]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [
            name
            for name in names
            if name.startswith(".")
            or name.split(".")[0] in ("tests", "conftest")
            or name.split(".")[-1].startswith(("test_", "conftest"))
        ]
    return found


def test_tests_share_helpers_as_fixtures_never_by_import():
    imports = {
        str(path.relative_to(TESTS)): found
        for path in sorted(TESTS.rglob("*.py"))
        if (found := _shared_by_import(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert imports == {}


def test_the_fixture_check_sees_an_import_of_a_conftest_or_a_test_module():
    code = "from conftest import build\nfrom .stub import x\nimport tests.scoring.test_core\nfrom pathlib import Path\n"
    assert _shared_by_import(ast.parse(code)) == ["conftest", ".stub", "tests.scoring.test_core"]
