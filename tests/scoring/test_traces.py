import random

import pytest

from naf_bench import certify, parse_program
from naf_bench.generate.bins import BINS, assemble
from naf_bench.scoring.audit import audit
from naf_bench.scoring.steps import check_steps
from naf_bench.scoring.traces import compute_proof_metrics
from naf_bench.verbalize.trace import render_gold_trace

NAMED = ("closed_world", "cred", "skept", "wfs")
ODD = parse_program("q :- a. a :- b. b :- not c. c :- not d. d :- not b. e.")


@pytest.mark.parametrize("bin_name", list(BINS))
def test_gold_traces_pass_all_four_flags(bin_name):
    for seed in range(8):
        program = assemble(bin_name, random.Random(seed), 5, 3, 3 if bin_name == "odd" else 4)
        certificate = certify(program)
        for condition in NAMED:
            flags = check_steps(render_gold_trace(program, certificate, condition), certificate, condition)
            assert flags == dict.fromkeys(("parsed", "valid", "linear", "connects"), True)


def test_each_flag_fails_on_its_own_defect():
    program = parse_program("q :- not a. a :- b. b :- a. c. q :- c, not c.")
    certificate = certify(program)
    gold = render_gold_trace(program, certificate, "wfs")
    assert all(check_steps(gold, certificate, "wfs").values())
    wrong_value = gold.replace("Step 1: c is true by rule 4: it is a fact.", "Step 1: c is false: it has no rule.")
    assert check_steps(wrong_value, certificate, "wfs") == {
        "parsed": True,
        "valid": False,
        "linear": True,
        "connects": True,
    }
    out_of_order = (
        "Step 1: q is true by rule 1: not a.\nStep 2: b, a are false: they support only each other.\n"
        "Verdict: under the well-founded semantics q is true.\nANSWER: A"
    )
    assert check_steps(out_of_order, certificate, "wfs") == {
        "parsed": True,
        "valid": False,
        "linear": False,
        "connects": True,
    }
    wrong_verdict = gold.replace("q is true.\nANSWER: A", "q is false.\nANSWER: B")
    assert check_steps(wrong_verdict, certificate, "wfs")["connects"] is False
    assert check_steps("q is true because c holds. ANSWER: A", certificate, "wfs")["parsed"] is False


def test_audit_classes_and_earned_answers():
    certificate = certify(ODD)
    assert certificate.signature == "FTuloop"
    reasoning = "The cycle b, c, d is odd, so there is no stable model; q is true vacuously in every stable model."
    assert (audit(reasoning, certificate, "skept")["class"], audit(reasoning, certificate, "skept")["earned"]) == (
        "sound",
        True,
    )
    unearned = audit("Everything is derivable, so q is true in every stable model.", certificate, "skept")
    assert (unearned["class"], unearned["earned"]) == ("sound", False)
    assert audit("Since a is false, q is false.", certificate, "wfs")["class"] == "contradicted"
    assert audit("Let me think about the rules carefully.", certificate, "wfs")["class"] == "no_derivation"
    assert audit("ANSWER: C", certificate, "wfs")["class"] == "no_derivation"


def test_proof_metrics_and_rfwr():
    certificate = certify(ODD)
    references = [{"certificate": certificate.to_json(), "condition": c} for c in ("wfs", "wfs", "skept", "cred")]
    predictions = [
        render_gold_trace(ODD, certificate, "wfs"),  # right, strict proof
        "a is undefined, so q is undefined.\nANSWER: C",  # right label, no strict proof
        "q is true in every stable model.\nANSWER: A",  # right for the wrong reason (no model)
        "ANSWER: A",  # wrong
    ]
    scores = compute_proof_metrics(predictions, references)
    # the step checker speaks only for the one trace in its grammar: proof accuracy 1 of 1, no rfwr there
    assert (scores["label_accuracy"], scores["n_checkable"], scores["proof_accuracy"], scores["rfwr"]) == (
        0.75,
        1,
        1.0,
        0.0,
    )
    assert scores["audit"] == {"sound": 3, "contradicted": 0, "unverifiable": 0, "no_derivation": 1}
    assert scores["audit_by_correctness"]["wrong"]["no_derivation"] == 1
    assert scores["unearned_correct"] == 1
    assert scores["reasoned_soundly"] == 2 / 3
    assert scores["contradicted_among_correct"] == 0.0
    free_form = compute_proof_metrics(predictions[1:3], references[1:3])
    assert (free_form["n_checkable"], free_form["proof_accuracy"], free_form["rfwr"]) == (0, None, None)
    assert free_form["label_accuracy"] == 1.0
    with pytest.raises(ValueError, match="must be a named condition"):
        compute_proof_metrics(["x"], [{"certificate": certificate.to_json(), "condition": "none"}])
    with pytest.raises(ValueError, match="references has 1 entries but predictions has 2"):
        compute_proof_metrics(["x", "y"], references[:1])
