"""Calibrated ρ/CAcc from the letters' log-likelihoods (what lm-eval's multiple-choice task returns)."""

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
