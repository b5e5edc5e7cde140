"""Single-token event probabilities and calibration offsets from a transformers causal LM.

For each prompt, the next-token distribution after ``prompt + answer_prefix`` gives ``p`` for each
candidate continuation (its first token) and the offsets C of every calibration (Eq. 4 of seed 002), in
the form :func:`naf_bench.scoring.consistency.compute_consistency` takes.
"""

from __future__ import annotations

from collections.abc import Sequence

from naf_bench.scoring.consistency import calibration_offsets


def first_token_ids(tokenizer, continuations: Sequence[str] = (" A", " B", " C")) -> list[int]:
    """The first token of each continuation: the event each continuation's probability is read from."""
    token_ids = []
    for continuation in continuations:
        ids = tokenizer(continuation, add_special_tokens=False)["input_ids"]
        if not ids:
            raise ValueError(f"continuation {continuation!r} has no token")
        token_ids.append(ids[0])
    return token_ids


def letter_probabilities(
    model,
    tokenizer,
    prompts: Sequence[str],
    continuations: Sequence[str] = (" A", " B", " C"),
    answer_prefix: str = "\nANSWER:",
    top_p: float = 0.95,
) -> list[dict[str, dict[str, float]]]:
    """Per prompt: ``{continuation.strip(): {"p": ..., "nucleus_entropy": C, "entropy": C, ...}}``."""
    import torch

    token_ids = first_token_ids(tokenizer, continuations)
    results = []
    model.eval()
    with torch.no_grad():
        for prompt in prompts:
            encoded = tokenizer(prompt + answer_prefix, return_tensors="pt")
            logits = model(**encoded).logits[0, -1].double()
            distribution = torch.softmax(logits, dim=-1)
            offsets = calibration_offsets(distribution.cpu().numpy(), top_p)
            results.append(
                {
                    continuation.strip(): {"p": float(distribution[token]), **offsets}
                    for continuation, token in zip(continuations, token_ids, strict=True)
                }
            )
    return results
