"""naf_bench.scoring.lm: letter probabilities and calibration offsets from a tiny causal LM built here (no download),
and calibrated ρ/CAcc from the letters' log-likelihoods (what lm-eval's multiple-choice task returns)."""

import math

import numpy as np
import pytest

from naf_bench.scoring.consistency import calibrate
from naf_bench.scoring.lm import TOP_PS, consistency_over_top_p, option_events


def _entropy(probabilities):
    return -sum(p * math.log(p) for p in probabilities)


def test_option_events_offset_is_the_entropy_of_the_letters_nucleus():
    loglikelihoods = [math.log(0.41), math.log(0.05), math.log(0.04)]  # 0.82 / 0.1 / 0.08 among the letters
    assert option_events(loglikelihoods, 0.8)["A"] == {"p": pytest.approx(0.41), "nucleus_entropy": 0.0}
    two = option_events(loglikelihoods, 0.85)
    assert two["C"]["p"] == pytest.approx(0.04)
    assert two["B"]["nucleus_entropy"] == pytest.approx(_entropy([0.82 / 0.92, 0.1 / 0.92]))
    assert option_events(loglikelihoods, 0.95)["A"]["nucleus_entropy"] == pytest.approx(_entropy([0.82, 0.1, 0.08]))


def test_consistency_is_averaged_over_top_p():
    loglikelihoods = [math.log(0.41), math.log(0.05), math.log(0.04)]
    item = {"id": "p-wfs", "program_id": "p", "condition": "wfs", "gold": "A", "loglikelihoods": loglikelihoods}
    offsets = [0.0, *[_entropy([0.82 / 0.92, 0.1 / 0.92])] * 2, _entropy([0.82, 0.1, 0.08])]
    rho = [(float(calibrate(0.41, c)) - 0.5) / 0.5 for c in offsets]  # certified: WMC0 = 1/2
    scores = consistency_over_top_p([item], "certified")
    assert len(TOP_PS) == 4
    assert scores["rho"]["mean"] == pytest.approx(np.mean(rho)) and scores["rho"]["std"] == pytest.approx(np.std(rho))
    assert scores["cacc"] == {"mean": 0.25, "std": pytest.approx(np.std([0, 0, 0, 1]))}  # only the widest nucleus lifts
    assert consistency_over_top_p([item], "invariance") == {k: {"mean": None, "std": None} for k in ("rho", "cacc")}


def test_letter_probabilities_feed_consistency(build_tiny_lm):
    pytest.importorskip("torch")
    from naf_bench.scoring.consistency import compute_consistency
    from naf_bench.scoring.lm import letter_probabilities

    model, tokenizer = build_tiny_lm()
    results = letter_probabilities(model, tokenizer, ["Is proposition q true ?", "q if not q ."])
    assert len(results) == 2 and set(results[0]) == {"A", "B", "C"}
    for result in results:
        total = sum(event["p"] for event in result.values())
        assert 0 < total < 1
        offsets = result["A"]
        assert 0 <= offsets["nucleus_entropy"] <= offsets["entropy"] + 1e-9 <= math.log(17) + 2e-9
        assert 0 <= offsets["log_nucleus_size"] <= math.log(17)
    events = {f"r0_{k}": v for k, v in results[0].items()}
    raw = compute_consistency(["r0_A | r0_B | r0_C"], [events])
    calibrated = compute_consistency(["r0_A | r0_B | r0_C"], [events], calibration="nucleus_entropy")
    assert calibrated["wmc"][0] > raw["wmc"][0]
