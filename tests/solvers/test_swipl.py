"""naf_bench.solvers.swipl: SWI-Prolog is found on PATH, and its absence is a SolverError with the install hint,
raised when it is looked for."""

import os

import pytest

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import INSTALL_HINT, PROLOG_DIR, swipl_executable


def test_the_executable_is_the_swipl_on_path_and_the_prolog_sources_ship_with_the_package():
    assert os.path.basename(swipl_executable()) == "swipl"
    assert os.access(swipl_executable(), os.X_OK)
    assert sorted(path.name for path in PROLOG_DIR.glob("*.pl")) == ["sldnf.pl", "worker.pl"]


def test_no_swipl_on_path_is_a_solver_error_that_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SolverError, match="'swipl'\\) was not found on PATH") as info:
        swipl_executable()
    assert INSTALL_HINT in str(info.value)
