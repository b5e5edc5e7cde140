"""The metric inside the loop: a held-out config fed to the ``modellog_metric`` module (letters, rho and CAcc), and
greedy generation read by an extractor."""

from __future__ import annotations

import time
from collections.abc import Sequence

from naf_bench.readings import answer_letters, letter_of
from naf_bench.scoring import label_columns
from naf_bench.scoring.consistency import compute_consistency
from naf_bench.scoring.constraints import (
    CONSTRAINT_FAMILIES,
    constraints_of_samples,
)
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR
from naf_bench.training.examples import ANSWER_PREFIX, chat_prompt
from naf_bench.training.semantic import answer_log_probs


def evaluate_model(
    model,
    tokenizer,
    rows: Sequence[dict],
    metric,
    generation_metric=None,
    max_new_tokens: int = 512,
    batch_size: int = 8,
    extractor: str = DEFAULT_EXTRACTOR,
) -> dict:
    """Scores per framing (the metric's label scores with their constant baselines, rho/CAcc of the letter
    distributions) and rho/CAcc over all framings together (which adds invariance across framings). With a
    ``generation_metric``, greedy generations read by ``extractor`` are scored too, and reported per condition
    beside the best constant (``answer_report``)."""
    import torch

    from naf_bench.scoring.lm import first_token_ids

    letter_ids = first_token_ids(tokenizer)
    was_training = model.training
    model.eval()
    start, cpu = time.perf_counter(), time.process_time()
    framings: dict[str, list[dict]] = {}
    for row in rows:
        framings.setdefault(row["framing"], []).append(row)
    result: dict = {"framings": {}}
    samples = []
    with torch.no_grad():
        for framing, part in framings.items():
            framing_samples, forced, texts, tops = [], [], [], []
            for first in range(0, len(part), batch_size):
                batch = part[first : first + batch_size]
                if generation_metric is None:
                    log_probs = answer_log_probs(model, tokenizer, batch)
                else:
                    answered = [answer_and_generate(model, tokenizer, row, max_new_tokens) for row in batch]
                    log_probs = torch.stack([vector for vector, _ in answered])
                    texts += [text for _, text in answered]
                top = log_probs.argmax(dim=-1).tolist()
                letters = log_probs[:, letter_ids].exp().tolist()
                forced += [f"{ANSWER_PREFIX} {answer_letters()[p.index(max(p))]}" for p in letters]
                columns = label_columns(batch)
                predictions = [
                    f"{ANSWER_PREFIX} {answer_letters()[letter_ids.index(t)]}" if t in letter_ids else "" for t in top
                ]
                metric.add_batch(predictions=predictions, **columns)
                tops += predictions
                framing_samples += [
                    (row, dict(zip(answer_letters(), p, strict=True))) for row, p in zip(batch, letters, strict=True)
                ]
                if generation_metric is not None:
                    generation_metric.add_batch(predictions=texts[-len(batch) :], **columns)
            result["framings"][framing] = {"label": metric.compute(), "letters": letter_consistency(framing_samples)}
            # the likeliest of A/B/C whatever the top token: what the letter probabilities alone would answer
            result["framings"][framing]["forced_choice"] = metric.compute(predictions=forced, **label_columns(part))
            # the top token's answers per condition and JOINT beside the best constants, without generating
            result["framings"][framing]["top_token_report"] = answer_report(part, tops, "strict")
            if generation_metric is not None:
                result["framings"][framing]["generate"] = generation_metric.compute(extractor=extractor)
                result["framings"][framing]["report"] = answer_report(part, texts, extractor)
            samples += framing_samples
    result["letters"] = letter_consistency(samples)
    result["seconds"] = time.perf_counter() - start
    result["cpu_seconds"] = time.process_time() - cpu  # every thread's: what a shared machine cannot inflate
    model.train(was_training)
    return result


def letter_consistency(samples: Sequence[tuple[dict, dict]]) -> dict:
    """Mean rho and CAcc of every NAF-Bench constraint over (row, letter probabilities) pairs, and per family."""
    constraints = constraints_of_samples(samples)
    out: dict = {"n_constraints": len(constraints)}
    for family in (None, *CONSTRAINT_FAMILIES):
        chosen = [(f, e) for fam, f, e in constraints if family in (None, fam)]
        if chosen:
            scores = compute_consistency([f for f, _ in chosen], [e for _, e in chosen])
            key = "all" if family is None else family
            out[key] = {"rho": scores["mean_rho"], "cacc": scores["mean_cacc"], "n": len(chosen)}
    return out


def answer_and_generate(model, tokenizer, row: dict, max_new_tokens: int):
    """(next-token log-probabilities after the chat prompt and 'ANSWER:', greedy completion of the chat prompt):
    the prompt is run once into a cache that both continue (transformers' prefix-cache reuse)."""
    import copy

    import torch

    device = next(model.parameters()).device
    prompt = chat_prompt(tokenizer, row)
    ids = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"].to(device)
    answer = tokenizer(prompt + ANSWER_PREFIX, return_tensors="pt", add_special_tokens=False)["input_ids"].to(device)
    shared = 0  # the tokens both sequences begin with, all but the prompt's last (generate needs one to run)
    limit = min(ids.shape[1], answer.shape[1]) - 1
    while shared < limit and ids[0, shared] == answer[0, shared]:
        shared += 1
    cache = model(input_ids=ids[:, :shared], use_cache=True).cache if shared else None
    logits = model(input_ids=answer[:, shared:], cache=copy.deepcopy(cache), use_cache=True, logits_to_keep=1).logits[
        0, -1
    ]
    output = model.generate(
        input_ids=ids,
        attention_mask=torch.ones_like(ids),
        cache=cache,
        max_new_tokens=max_new_tokens,
        do_sample=False,
        pad_token_id=tokenizer.pad_token_id,
    )
    text = tokenizer.decode(output[0, ids.shape[1] :], skip_special_tokens=True)
    return torch.log_softmax(logits.float(), dim=-1), text


def answer_report(rows: Sequence[dict], texts: Sequence[str], extractor: str) -> dict:
    """Accuracy of answers read from ``texts`` per condition and JOINT, with program-clustered 95 % intervals,
    beside the best constant of each condition and the JOINT of answering those constants; the share of C
    answers per condition (never right under credulous and skeptical readings)."""
    from naf_bench.readings import joint_conditions
    from naf_bench.scoring.core import best_constants, score

    constants = best_constants(rows)
    indexed = [{**row, "id": k} for k, row in enumerate(rows)]
    run = score(indexed, dict(enumerate(texts)), extractor=extractor)
    constant = score(indexed, {}, answers={k: constants[row["condition"]] for k, row in enumerate(rows)})
    report: dict = {"conditions": {}, "extractor": extractor}
    for condition, letter in constants.items():
        chosen = [k for k, row in enumerate(rows) if row["condition"] == condition]
        alone = run.cell(chosen)
        report["conditions"][condition] = {
            "accuracy": alone.strict_accuracy,
            "ci95": run.intervals(("strict_accuracy",), indices=chosen).get("strict_accuracy"),
            "coverage": alone.coverage,
            "c_rate": sum(run.answers[k] == letter_of()["u"] for k in chosen) / len(chosen),  # "cannot be determined"
            "best_constant": letter,
            "best_constant_accuracy": constant.cell(chosen).strict_accuracy,
            "n": len(chosen),
        }
    intervals = run.intervals(("strict_accuracy", "joint"))
    report["accuracy"] = {"value": run.cell().strict_accuracy, "ci95": intervals.get("strict_accuracy")}
    if all(condition in constants for condition in joint_conditions()):
        report["joint"] = {
            "value": run.joint(),
            "ci95": intervals.get("joint"),
            "best_constant": constant.joint(),
            "n_programs": len({row["program_id"] for row in rows}),
        }
    return report
