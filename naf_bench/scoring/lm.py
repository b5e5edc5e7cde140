"""Single-token event probabilities and calibration offsets from a transformers causal LM.

For each prompt, the next-token distribution after ``prompt + answer_prefix`` gives ``p`` for each
candidate continuation (its first token) and the offsets C of every calibration (Eq. 4 of seed 002), in
the form :func:`naf_bench.scoring.consistency.compute_consistency` takes. Where only the letters'
log-likelihoods are known (lm-eval's multiple-choice task), :func:`option_events` takes C from the letters'
own distribution and :func:`consistency_over_top_p` gives ρ and CAcc as mean and std over :data:`TOP_PS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from naf_bench.readings import answer_letters
from naf_bench.scoring.consistency import calibration_offsets, compute_consistency
from naf_bench.scoring.constraints import constraints_of_samples


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


# lm-eval's multiple-choice interface: the prompt ends where the letter goes and lm-eval returns the
# log-likelihood of each letter, not the whole next-token distribution.
LETTER_INSTRUCTION = "Reply with the letter of your answer only."
TOP_PS = (0.8, 0.85, 0.9, 0.95)  # seed 002 reports calibrated scores as mean and std over these nucleus sizes


def option_events(loglikelihoods: Sequence[float], top_p: float, letters: Sequence[str] | None = None) -> dict:
    """Event probabilities of the letters from their log-likelihoods: ``p`` is the raw token probability and
    ``nucleus_entropy`` the entropy of the top-p nucleus of the model's distribution restricted to the letters
    (the offset C of Eq. 4 when only the options' log-likelihoods are known); ``letters`` by default the table's."""
    import numpy as np

    letters = answer_letters() if letters is None else letters
    probabilities = np.exp(np.asarray(loglikelihoods, dtype=np.float64))
    offset = calibration_offsets(probabilities / probabilities.sum(), top_p)["nucleus_entropy"]
    return {
        letter: {"p": float(p), "nucleus_entropy": offset} for letter, p in zip(letters, probabilities, strict=True)
    }


def consistency_over_top_p(items: Sequence[Mapping], family: str) -> dict[str, dict[str, float | None]]:
    """Mean and std over :data:`TOP_PS` of the nucleus-entropy-calibrated mean ρ and CAcc of one constraint
    family; ``items`` are rows (``program_id``, ``condition``, ``gold``) with the letters' ``loglikelihoods``.
    None where the items give the family no constraint."""
    import numpy as np

    scores: dict[str, list[float]] = {"rho": [], "cacc": []}
    for top_p in TOP_PS:
        pairs = [(item, option_events(item["loglikelihoods"], top_p)) for item in items]
        chosen = [(formula, events) for name, formula, events in constraints_of_samples(pairs) if name == family]
        if not chosen:
            return {key: {"mean": None, "std": None} for key in scores}
        result = compute_consistency(*zip(*chosen, strict=True), calibration="nucleus_entropy")
        for key in scores:
            scores[key].append(result[f"mean_{key}"])
    return {key: {"mean": float(np.mean(values)), "std": float(np.std(values))} for key, values in scores.items()}
