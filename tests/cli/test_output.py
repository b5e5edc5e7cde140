"""naf_bench.cli.output: the exit status of each error kind, the records table (whole names, one decimal, '-' for
unknown, the extractor and its unread count, a trace line under a run with traces), and JSON written with --out."""

import json

import pytest

from naf_bench.cli.output import EXIT_STATUS, print_records, write_json
from naf_bench.errors import (
    BudgetExceeded,
    CertificationError,
    ConfigError,
    DataError,
    NafBenchError,
    ParseError,
    SolverError,
)

RUN = {"name": "model-a", "joint": 0.5, "per_prompt_accuracy": 0.625, "coverage": 1.0, "extractor": "strict",
       "n_unread": 1234, "per_semantics": {"closed_world": 1.0, "cred": 0.5, "wfs": 0.25}}  # fmt: skip
BASELINE = {"name": "random-baseline-long-name", "joint": None, "per_prompt_accuracy": 0.333, "coverage": 0.9,
            "per_semantics": {}, "traces": {"n": 10, "n_checkable": 0, "reasoned_soundly": 0.5,
                                            "contradicted_among_correct": 0.1}}  # fmt: skip
TRACED = {"name": "t", "joint": 0.1, "per_prompt_accuracy": 0.2, "coverage": 0.3, "per_semantics": {},
          "traces": {"n": 10, "n_checkable": 4, "proof_accuracy": 0.75, "rfwr": 0.25, "reasoned_soundly": 0.5,
                     "contradicted_among_correct": None}}  # fmt: skip


def status(exc):
    return next(code for kind, code in EXIT_STATUS if isinstance(exc, kind))


def test_each_error_kind_ends_the_command_with_its_own_status():
    assert status(ParseError("expected a body", 1, 5, "p :-")) == 2
    assert status(ConfigError("bad option")) == 2
    assert status(SolverError("clingo failed")) == 3
    assert status(CertificationError("engines disagree")) == 4
    assert status(NafBenchError("other")) == 1
    assert status(BudgetExceeded("clingo_choices", 10, "stopped")) == 4  # a certification that ran out of budget
    assert status(DataError("gold.jsonl", "not JSON", line=3)) == 1


def test_the_records_table_aligns_whole_names_and_shows_traces_under_their_run(capsys):
    print_records([RUN, BASELINE, TRACED])
    assert capsys.readouterr().out.splitlines() == [
        "                            JOINT     acc   cover  closed_world          cred         skept           wfs"
        "  read by (unread)",
        "model-a                      50.0    62.5   100.0         100.0          50.0             -          25.0"
        "  strict (1,234)",
        "random-baseline-long-name       -    33.3    90.0             -             -             -             -",
        "                          proof accuracy n/a (0 of 10 checkable); reasoned soundly 50.0, contradicted among "
        "correct 10.0 (trace audit)",
        "t                            10.0    20.0    30.0             -             -             -             -",
        "                          proof accuracy 75.0, right for the wrong reason 25.0 (4 of 10 checkable); reasoned "
        "soundly 50.0, contradicted among correct - (trace audit)",
    ]


def test_json_is_written_only_when_out_is_given(tmp_path, capsys):
    write_json({"a": [1, None]}, None)
    assert capsys.readouterr().out == "" and list(tmp_path.iterdir()) == []
    out = tmp_path / "scores.json"
    write_json({"a": [1, None]}, str(out))
    assert capsys.readouterr().out == f"wrote {out}\n"
    assert out.read_text() == '{\n "a": [\n  1,\n  null\n ]\n}' and json.loads(out.read_text()) == {"a": [1, None]}


@pytest.mark.parametrize("value", [float("nan"), None])
def test_an_unknown_score_shows_as_a_dash(capsys, value):
    print_records([{**RUN, "joint": value, "extractor": None}])
    assert capsys.readouterr().out.splitlines()[1].split()[:3] == ["model-a", "-", "62.5"]
