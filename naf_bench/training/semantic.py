"""The semantic loss in the loop: the model's letter probabilities, -log WMC of the NAF-Bench constraints over them,
and TRL's trainer with that loss added."""

from __future__ import annotations

from collections.abc import Sequence

from naf_bench.errors import ConfigError
from naf_bench.readings import answer_letters
from naf_bench.scoring.consistency import compile_formula, semantic_loss
from naf_bench.scoring.constraints import (
    constraint_formulas,
    row_events,
)
from naf_bench.training.examples import ANSWER_PREFIX, chat_prompt

# "certified" would repeat the LM loss's target
SEMANTIC_FAMILIES = ("one_letter", "alphabet", "inclusion", "invariance")


def answer_log_probs(model, tokenizer, rows: Sequence[dict]):
    """Next-token log-probabilities after each row's chat prompt and 'ANSWER:', shape (rows, vocabulary);
    one forward pass per prompt (no padding), differentiable unless called under ``torch.no_grad``."""
    import torch

    device = next(model.parameters()).device
    out = []
    for row in rows:
        encoded = tokenizer(chat_prompt(tokenizer, row) + ANSWER_PREFIX, return_tensors="pt", add_special_tokens=False)
        logits = model(**encoded.to(device), logits_to_keep=1).logits[0, -1]
        out.append(torch.log_softmax(logits.float(), dim=-1))
    return torch.stack(out)


def answer_letter_probs(model, tokenizer, rows: Sequence[dict]):
    """The A/B/C probabilities after each row's chat prompt and 'ANSWER:', shape (rows, 3)."""
    from naf_bench.scoring.lm import first_token_ids

    return answer_log_probs(model, tokenizer, rows)[:, first_token_ids(tokenizer)].exp()


def semantic_loss_of_letters(rows: Sequence[dict], letters, families: Sequence[str] = SEMANTIC_FAMILIES):
    """Sum over the constraints of one program's rows of -log WMC(F, p), p the (rows, 3) tensor of A/B/C
    probabilities: a differentiable scalar tensor."""
    import torch

    events = row_events([dict(zip(answer_letters(), row, strict=True)) for row in letters])
    terms = [
        semantic_loss(formula, torch.stack([events[e] for e in compile_formula(formula).events])[None])[0]
        for family, formula in constraint_formulas(rows)
        if family in families
    ]
    if not terms:
        raise ConfigError(f"no {list(families)} constraint applies to program {rows[0]['program_id']!r}")
    return torch.stack(terms).sum()


def group_semantic_loss(model, tokenizer, rows: Sequence[dict], families: Sequence[str] = SEMANTIC_FAMILIES):
    """The semantic loss of one program's rows under the model, its graph over every prompt at once."""
    return semantic_loss_of_letters(rows, answer_letter_probs(model, tokenizer, rows), families)


def accumulate_semantic_gradient(
    model,
    tokenizer,
    rows: Sequence[dict],
    scale: float,
    families: Sequence[str] = SEMANTIC_FAMILIES,
    backward=None,
) -> float:
    """Adds ``scale`` times the gradient of the semantic loss of ``rows`` to the parameters' ``.grad``, one prompt
    at a time, and returns the loss. Exact: the loss depends on the parameters only through the letter
    probabilities p_k of each prompt, so its gradient is sum_k (dL/dp_k) . dp_k/dtheta; a first pass without a
    graph gives p and dL/dp, then each prompt is run again with its graph and back-propagated alone, under the
    seed of its first pass (dropout draws the same masks). Memory: one prompt's graph, not all of them.
    ``backward``: how a tensor is back-propagated (Trainer passes its accelerator's, which scales for AMP)."""
    import torch

    backward = backward or torch.Tensor.backward
    seeds = torch.randint(2**62, (len(rows),)).tolist()
    letters = []
    with torch.no_grad():
        for row, seed in zip(rows, seeds, strict=True):
            torch.manual_seed(seed)
            letters.append(answer_letter_probs(model, tokenizer, [row])[0])
    leaf = torch.stack(letters).requires_grad_()
    value = semantic_loss_of_letters(rows, leaf, families)
    (weights,) = torch.autograd.grad(value, leaf)
    for row, seed, weight in zip(rows, seeds, weights, strict=True):
        torch.manual_seed(seed)
        backward(scale * (answer_letter_probs(model, tokenizer, [row])[0] * weight).sum())
    return value.item()


def semantic_trainer_class():
    from trl import SFTTrainer

    class SemanticLossTrainer(SFTTrainer):
        """TRL's SFTTrainer whose step adds ``semantic_weight`` times the semantic loss of one program's rows."""

        def __init__(self, *args, semantic_groups=(), semantic_weight=0.0, semantic_families=SEMANTIC_FAMILIES, **kw):
            super().__init__(*args, **kw)
            self.semantic_groups = list(semantic_groups)
            self.semantic_weight = semantic_weight
            self.semantic_families = tuple(semantic_families)
            self._semantic_calls = 0

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            """TRL's loss (the mean negative log-likelihood of the completion tokens), from the logits of the
            positions that predict a completion token only (transformers' ``logits_to_keep`` mask): on CPU, TRL's
            fused head scores every position in 32,768-column float32 tiles, whose temporaries made most of the
            step's peak memory."""
            import torch

            labels = inputs["labels"]
            keep = torch.zeros_like(labels, dtype=torch.bool)
            keep[:, :-1] = labels[:, 1:] != -100
            model_inputs = {k: v for k, v in inputs.items() if k not in ("labels", "use_cache")}
            outputs = model(**model_inputs, use_cache=False, logits_to_keep=keep)
            targets = labels[:, 1:][keep[:, :-1]]
            loss = torch.nn.functional.cross_entropy(outputs.logits.float(), targets, reduction="sum")
            loss = loss / (targets.numel() if num_items_in_batch is None else num_items_in_batch)
            mode = "train" if model.training else "eval"
            self._metrics[mode]["lm_loss"].append(loss.detach().item())
            accuracy = (outputs.logits.argmax(-1) == targets).float().mean().item() if targets.numel() else 0.0
            self._metrics[mode]["mean_token_accuracy"].append(accuracy)
            return (loss, outputs) if return_outputs else loss

        def training_step(self, model, inputs, num_items_in_batch=None):
            """TRL's step (the LM loss's forward and backward), then the semantic loss's gradient added prompt by
            prompt: the LM graph is freed before the first prompt's is built, so the two never coexist."""
            loss = super().training_step(model, inputs, num_items_in_batch)
            if self.semantic_weight > 0:
                group = self.semantic_groups[self._semantic_calls % len(self.semantic_groups)]
                self._semantic_calls += 1
                accumulation = self.current_gradient_accumulation_steps
                value = accumulate_semantic_gradient(
                    model,
                    self.processing_class,
                    group,
                    self.semantic_weight / accumulation,
                    self.semantic_families,
                    self.accelerator.backward,
                )
                self._metrics["train"]["semantic_loss"].append(value)
                loss = loss + self.semantic_weight * value / accumulation  # the logged total
            return loss

    return SemanticLossTrainer
