"""One name per idea: no two modules of the package share a file name, and no public module-level name (function,
class, table) is defined in two modules. An alias (``import_reference = import_authors``) and an import are the same
object under its one name, so they do not count; ``main`` is every command's entry point by convention, and
``add_parsers`` every command group's (``naf_bench.cli``)."""

import ast
from collections import defaultdict
from pathlib import Path

import naf_bench

PACKAGE = Path(naf_bench.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))
ENTRY_POINTS = {"main", "add_parsers"}


def _module(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def _defined(tree: ast.Module):
    """Public names a module binds at its top level to something of its own (not a bare alias of another name)."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.Assign | ast.AnnAssign) and not isinstance(node.value, ast.Name | ast.Attribute):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                yield from (name.id for name in ast.walk(target) if isinstance(name, ast.Name))


def test_module_file_names_are_unique():
    by_name = defaultdict(list)
    for path in MODULES:
        if path.name != "__init__.py":
            by_name[path.name].append(_module(path))
    assert {name: modules for name, modules in by_name.items() if len(modules) > 1} == {}


def test_public_module_level_names_are_defined_once():
    where = defaultdict(list)
    for path in MODULES:
        for name in _defined(ast.parse(path.read_text(encoding="utf-8"))):
            if not name.startswith("_") and name not in ENTRY_POINTS:
                where[name].append(_module(path))
    assert {name: modules for name, modules in where.items() if len(set(modules)) > 1} == {}


def test_the_scan_sees_the_package():
    """The scan reads real definitions: the readings table and the family registry are found where they live."""
    where = {_module(path): set(_defined(ast.parse(path.read_text(encoding="utf-8")))) for path in MODULES}
    assert "READINGS" in where["naf_bench.readings"]
    assert "FAMILIES" in where["naf_bench.generate.registry"]
    assert list(_defined(ast.parse("A = B\nC: tuple = (1,)\nD, E = 1, 2\ndef f(): pass\nclass G: pass"))) == [
        "C",
        "D",
        "E",
        "f",
        "G",
    ]
