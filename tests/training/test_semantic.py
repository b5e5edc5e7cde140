"""naf_bench.training.semantic: the semantic loss of letter probabilities (-log WMC, summed over the constraint
families asked for) with exact values and gradients on tiny tensors, and the prompt-by-prompt gradient equal to
back-propagating the whole loss at once."""

import math

import pytest
import torch

from naf_bench.errors import ConfigError
from naf_bench.training.semantic import (
    accumulate_semantic_gradient,
    group_semantic_loss,
    semantic_loss_of_letters,
)


def row(condition, gold="A", program_id="p0", content="Is proposition q true ?"):
    messages = [{"role": "user", "content": content}, {"role": "assistant", "content": f"ANSWER: {gold}"}]
    return {"program_id": program_id, "condition": condition, "gold": gold, "messages": messages}


def test_one_letter_is_minus_log_the_chance_of_exactly_one_letter_and_its_gradient_is_exact():
    letters = torch.tensor([[0.5, 0.25, 0.0]], requires_grad=True)
    loss = semantic_loss_of_letters([row("closed_world")], letters, families=("one_letter",))
    assert loss.item() == pytest.approx(math.log(2))  # P(exactly one) = .5 * .75 + .5 * .25 = .5
    loss.backward()
    # d/da (a(1-b) + (1-a)b) = 1 - 2b = .5; d/db = 1 - 2a = 0; d/dc = -(.375 + .125) + .375 = -.125; over -WMC = -.5
    torch.testing.assert_close(letters.grad, torch.tensor([[-1.0, 0.0, 0.25]]))


def test_the_families_add_up_alphabet_and_invariance_included():
    letters = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]])
    rows = [row("cred"), row("cred")]  # the credulous reading answers A or B, never C
    invariance = semantic_loss_of_letters(rows, letters, families=("invariance",))
    assert invariance.item() == pytest.approx(math.log(4))  # A agrees with chance .5, B .5, C 1
    assert semantic_loss_of_letters(rows, letters, families=("alphabet",)).item() == pytest.approx(0.0)  # no C
    unsure = torch.tensor([[0.5, 0.25, 0.25], [0.0, 0.5, 0.5]])
    alphabet = semantic_loss_of_letters(rows, unsure, families=("alphabet",))
    assert alphabet.item() == pytest.approx(-math.log(0.75) - math.log(0.5))
    total = semantic_loss_of_letters(rows, letters)  # SEMANTIC_FAMILIES: one_letter adds log 2 for the second row
    assert total.item() == pytest.approx(math.log(4) + math.log(2))


def test_a_program_no_constraint_of_the_families_applies_to_is_refused():
    with pytest.raises(ConfigError, match=r"no \['inclusion'\] constraint applies to program 'p7'"):
        semantic_loss_of_letters([row("wfs", program_id="p7")], torch.tensor([[1.0, 0.0, 0.0]]), ("inclusion",))


def test_the_gradient_accumulated_prompt_by_prompt_is_the_whole_losss_gradient_scaled(tiny_chat_lm):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model, tokenizer = AutoModelForCausalLM.from_pretrained(tiny_chat_lm), AutoTokenizer.from_pretrained(tiny_chat_lm)
    model.eval()
    rows = [row("cred", content="Is proposition q true ?"), row("skept", content="Is A not B ?")]
    whole = group_semantic_loss(model, tokenizer, rows)
    whole.backward()
    expected = {name: 0.5 * p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    value = accumulate_semantic_gradient(model, tokenizer, rows, scale=0.5)
    assert value == pytest.approx(whole.item())
    assert any(g.abs().sum() > 0 for g in expected.values())
    for name, parameter in model.named_parameters():
        torch.testing.assert_close(parameter.grad, expected[name], msg=name)
