"""Letter probabilities and calibration offsets from a tiny causal LM built here (no download)."""

import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny_lm():
    from conftest import build_tiny_lm

    return build_tiny_lm()


def test_letter_probabilities_feed_consistency(tiny_lm):
    from naf_bench.scoring.consistency import compute_consistency
    from naf_bench.scoring.lm import letter_probabilities

    model, tokenizer = tiny_lm
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
