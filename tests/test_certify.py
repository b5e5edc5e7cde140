import dataclasses
import json
import subprocess
import sys

import pytest

from naf_bench import Certificate, CertificationError, SolverError, certify, parse_program
from naf_bench.certify import Budget
from naf_bench.errors import BudgetExceeded
from naf_bench.solvers.swipl_worker import PrologWorker
from naf_bench.solvers.wfs_tabling import wfs_request

FIGURE1 = "a :- b. b :- not c. c :- not d. d :- not b."


def test_figure1_certificate_contents():
    certificate = certify(FIGURE1, "a")
    assert certificate.signature == "FTuloop"
    assert certificate.labels == {"cred": "F", "skept": "T", "wfs": "u", "sldnf": "loop"}
    assert certificate.wfs_values == {"a": "u", "b": "u", "c": "u", "d": "u"}
    assert certificate.incoherent and certificate.n_stable_models == 0
    assert certificate.program == "a :- b.\nb :- not c.\nc :- not d.\nd :- not b.\n"
    assert set(certificate.effort) == {
        "clingo_choices",
        "clingo_conflicts",
        "wfs_iterations",
        "prolog_inferences",
        "sldnf_fixpoint_rounds",
    }
    assert certificate.engines["stable"].startswith("clingo 5.")
    assert certificate.engines["wfs_check"].startswith("SWI-Prolog 9.")


def test_json_round_trip_and_frozen():
    certificate = certify("e :- not f. f :- not e.", "e")
    data = json.loads(certificate.to_json())
    assert data["signature"] == "TFuloop"
    assert Certificate.from_json(certificate.to_json()) == certificate
    with pytest.raises(dataclasses.FrozenInstanceError):
        certificate.query = "f"
    data["signature"] = "TTTT"
    with pytest.raises(ValueError, match="does not match"):
        Certificate.from_dict(data)


def test_certification_is_deterministic():
    assert certify(FIGURE1, "a").to_json() == certify(parse_program(FIGURE1), "a").to_json()


def test_prolog_limit_is_raised_on_a_finite_tree_up_to_the_budget():
    chain = " ".join(f"a{i} :- a{i + 1}." for i in range(30)) + " a30. q :- a0."
    assert certify(chain).labels["sldnf"] == "T"
    raised = certify(chain, inference_limit=10)
    assert raised.labels["sldnf"] == "T"
    assert "sldnf:swi-prolog=exact-reference (inference limit raised to 100)" in raised.checks
    with pytest.raises(BudgetExceeded, match=r"prolog_inferences=20 exceeded.*exact procedure: T") as caught:
        certify(chain, inference_limit=10, budget=Budget(prolog_inferences=20))
    assert isinstance(caught.value, CertificationError) and caught.value.budget == "prolog_inferences"


def test_bad_query_is_a_parse_error():
    with pytest.raises(ValueError, match="variable 'Q'"):
        certify("a.", "Q")


def test_missing_swipl_names_the_package(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(SolverError, match="swi-prolog-nox"):
        PrologWorker().submit(wfs_request(parse_program("a.")))


def test_import_loads_no_engine():
    code = "import sys, naf_bench; print(sorted(m for m in ('clingo', 'datasets') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
