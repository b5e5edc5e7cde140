"""naf_bench.errors: one hierarchy under NafBenchError, each error also the built-in kind callers expect, and
messages that carry the position, file or budget they were raised with."""

import ast
import inspect
from pathlib import Path

import pytest

from naf_bench import errors
from naf_bench.errors import (
    BudgetExceeded,
    CertificationError,
    ConfigError,
    DataError,
    NafBenchError,
    ParseError,
    SolverError,
    WorkerError,
)
from naf_bench.syntax.parse import parse_program


def test_every_error_is_a_naf_bench_error_and_the_built_in_kind_it_stands_for():
    kinds = {
        ParseError: ValueError,
        ConfigError: ValueError,
        DataError: ValueError,
        SolverError: RuntimeError,
        WorkerError: RuntimeError,
        BudgetExceeded: CertificationError,
    }
    for error, kind in kinds.items():
        assert issubclass(error, NafBenchError) and issubclass(error, kind), error
    assert not issubclass(CertificationError, ValueError | RuntimeError)


def test_a_parse_error_names_line_and_column_and_keeps_them():
    with pytest.raises(ParseError) as info:
        parse_program("a.\nb :- -c.")
    error = info.value
    assert (error.line, error.column) == (2, 6)
    assert str(error) == f"line 2, column 6: {error.reason}"
    assert error.reason.startswith("classical negation '-a' is not supported")
    assert str(ParseError("bad", 3, 1, "x")) == "line 3, column 1: bad"


def test_a_data_error_names_its_file_and_line_when_it_has_one():
    assert str(DataError(Path("runs/a.jsonl"), "not JSON", line=7)) == "runs/a.jsonl:7: not JSON"
    error = DataError(Path("gold.parquet"), "no 'id' column")
    assert (str(error), error.path, error.line) == ("gold.parquet: no 'id' column", "gold.parquet", None)


def test_a_budget_exceeded_names_the_budget_and_its_limit_with_thousands_separated():
    error = BudgetExceeded("clingo_conflicts", 100_000, "clingo was still searching (3 models)")
    assert str(error) == "budget clingo_conflicts=100,000 exceeded: clingo was still searching (3 models)"
    assert (error.budget, error.limit) == ("clingo_conflicts", 100_000)


def test_the_errors_module_imports_nothing_from_the_package_so_every_stage_may_import_it():
    tree = ast.parse(inspect.getsource(errors))
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert imported == ["__future__"]
