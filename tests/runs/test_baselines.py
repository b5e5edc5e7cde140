"""naf_bench.runs.baselines: the cycle-blind forward chainer, WFS with undefined collapsed to false, and the oracle
that scores 1.0, each with its trace."""

import pytest

from naf_bench.certify import certify
from naf_bench.data.rows import build_rows
from naf_bench.generate.config import get_config
from naf_bench.runs.baselines import forward_chain, forward_chainer, oracle, reasoner_predictions, wfs_collapse
from naf_bench.scoring.evaluation import score_rows
from naf_bench.syntax.parse import parse_program

EVEN_LOOP = "p :- not q.\nq :- not p.\n"  # WFS: p and q undefined


@pytest.fixture(scope="module")
def loop_row():
    return {"program": EVEN_LOOP, "query": "q", "framing": "abstract", "language": "en", "condition": "wfs",
            "gold": "C", "certificate": certify(parse_program(EVEN_LOOP), "q").to_json()}  # fmt: skip


def test_the_forward_chainer_takes_not_x_as_true_until_x_is_derived():
    derived = forward_chain(parse_program(EVEN_LOOP + "r :- p, not s.\n"))
    assert [(step.atom, step.rule) for step in derived] == [("p", 1), ("r", 3)]


def test_each_reasoner_answers_the_loop_with_its_own_trace(loop_row):
    assert forward_chainer(loop_row) == {
        "prediction": "ANSWER: B",
        "trace": "Step 1: p is true by rule 1: not q.\nVerdict: q is false.",
    }
    assert wfs_collapse(loop_row) == {"prediction": "ANSWER: B", "trace": "Verdict: q is false."}
    assert oracle(loop_row) == {
        "prediction": "ANSWER: C",
        "trace": "Step 1: p is undefined: it depends on the undefined q.\n"
        "Step 2: q is undefined: it depends on the undefined p.\n"
        "Verdict: under the well-founded semantics q is undefined.",
    }


def test_only_the_oracle_solves_an_odd_program():
    rows = build_rows(get_config("main", bins=("odd",), programs_per_cell=1))["test"]
    predictions = reasoner_predictions(rows)
    assert all(len(answers) == 4 for answers in predictions.values())  # the none row has no gold: not asked
    scores = {name: score_rows(rows, answers, n_bootstrap=10).to_dict() for name, answers in predictions.items()}
    assert {name: out["joint"] for name, out in scores.items()} == {
        "forward_chainer": 0.0,
        "wfs_collapse": 0.0,
        "oracle": 1.0,
    }
    assert scores["oracle"]["traces"]["proof_accuracy"] == 1.0
    assert scores["wfs_collapse"]["per_semantics"] == {"closed_world": 0.0, "cred": 1.0, "skept": 0.0, "wfs": 0.0}
