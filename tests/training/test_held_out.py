"""naf_bench.training.held_out: the held-out report of answers read from texts (per reading beside its best constant,
and JOINT), the rho and CAcc of letter probabilities per constraint family, and the prompt-sharing pass that both
reads the letter after 'ANSWER:' and generates."""

import pytest

from naf_bench.training.held_out import answer_and_generate, answer_report, letter_consistency

GOLDS = {"p0": {"closed_world": "A", "cred": "A", "skept": "A", "wfs": "A"},
         "p1": {"closed_world": "B", "cred": "B", "skept": "B", "wfs": "C"}}  # fmt: skip
ROWS = [
    {"program_id": program, "condition": condition, "gold": gold, "family": "f", "framing": "abstract", "order_id": 0}
    for program, golds in GOLDS.items()
    for condition, gold in golds.items()
]


def test_the_report_gives_each_readings_accuracy_and_c_rate_beside_its_best_constant_and_joint():
    texts = ["ANSWER: A"] * 4 + ["ANSWER: B", "ANSWER: B", "ANSWER: C", "ANSWER: C"]  # p1's skeptical answer wrong
    report = answer_report(ROWS, texts, "strict")
    assert report["conditions"]["skept"] == {
        "accuracy": 0.5,
        "ci95": (0.0, 1.0),
        "coverage": 1.0,
        "c_rate": 0.5,
        "best_constant": "A",
        "best_constant_accuracy": 0.5,
        "n": 2,
    }
    assert {c: (v["accuracy"], v["c_rate"]) for c, v in report["conditions"].items()} == {
        "closed_world": (1.0, 0.0),
        "cred": (1.0, 0.0),
        "skept": (0.5, 0.5),
        "wfs": (1.0, 0.5),
    }
    assert (report["extractor"], report["accuracy"]["value"]) == ("strict", 0.875)
    assert report["joint"] == {"value": 0.5, "ci95": (0.0, 1.0), "best_constant": 0.5, "n_programs": 2}


def test_an_unread_answer_is_not_covered_and_joint_needs_every_reading():
    report = answer_report(ROWS[:2], ["I cannot tell.", "ANSWER: A"], "strict")  # no letter: unread
    assert report["conditions"]["closed_world"]["coverage"] == 0.0
    assert report["conditions"]["closed_world"]["accuracy"] == 0.0
    assert "joint" not in report  # only two of the four readings


def test_letter_consistency_scores_each_constraint_family_on_certain_letters():
    consistency = letter_consistency([(row, {"A": 1.0, "B": 0.0, "C": 0.0}) for row in ROWS])
    assert consistency == {
        "n_constraints": 28,
        "all": {"rho": pytest.approx(5 / 7), "cacc": pytest.approx(6 / 7), "n": 28},
        "one_letter": {"rho": 1.0, "cacc": 1.0, "n": 8},
        "alphabet": {"rho": 1.0, "cacc": 1.0, "n": 4},
        "inclusion": {"rho": 1.0, "cacc": 1.0, "n": 8},
        "certified": {"rho": 0.0, "cacc": 0.5, "n": 8},  # always A: right on p0, wrong on p1
    }


def test_answering_and_generating_from_one_prompt_pass_equals_doing_each_alone(tiny_chat_lm):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from naf_bench.training.examples import chat_prompt
    from naf_bench.training.semantic import answer_log_probs

    model, tokenizer = AutoModelForCausalLM.from_pretrained(tiny_chat_lm), AutoTokenizer.from_pretrained(tiny_chat_lm)
    row = {"messages": [{"role": "user", "content": "Is proposition q true ?"}]}
    with torch.no_grad():
        log_probs, text = answer_and_generate(model, tokenizer, row, max_new_tokens=4)
        torch.testing.assert_close(log_probs, answer_log_probs(model, tokenizer, [row])[0])
        ids = tokenizer(chat_prompt(tokenizer, row), return_tensors="pt", add_special_tokens=False)["input_ids"]
        alone = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=4,
            do_sample=False,
            pad_token_id=tokenizer.pad_token_id,
        )
    assert text == tokenizer.decode(alone[0, ids.shape[1] :], skip_special_tokens=True)
    assert log_probs.shape == (len(tokenizer),)
