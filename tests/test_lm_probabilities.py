"""Letter probabilities and calibration offsets from a tiny causal LM built here (no download)."""

import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny_lm():
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["[UNK]", "A", "B", "C", "ANSWER", ":", "Is", "proposition", "q", "true", "?", "not", "if", "."]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(words), n_positions=32, n_embd=16, n_layer=1, n_head=2)
    return transformers.GPT2LMHeadModel(config), fast


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
        assert 0 <= offsets["nucleus_entropy"] <= offsets["entropy"] <= math.log(14) + 1e-9
        assert 0 <= offsets["log_nucleus_size"] <= math.log(14)
    events = {f"r0_{k}": v for k, v in results[0].items()}
    raw = compute_consistency(["r0_A | r0_B | r0_C"], [events])
    calibrated = compute_consistency(["r0_A | r0_B | r0_C"], [events], calibration="nucleus_entropy")
    assert calibrated["wmc"][0] > raw["wmc"][0]
