"""LoRA fine-tuning on certified reasoning with TRL, an optional semantic loss, and the metric inside the loop.

- Training rows: a config's chat messages (``sft``: the prompt, then the certified gold trace ending in
  'ANSWER: X') on the framings named, as prompt-completion pairs, so TRL's ``SFTTrainer`` puts the loss on
  the assistant turn only; peft LoRA adapters.
- Evaluation, before training, every ``eval_steps`` and after: a held-out config (``wfs44``) per framing,
  fed batch by batch to the ``modellog_metric`` evaluate module with per-row conditions and program ids.
  A prompt's prediction is the model's top next token after the chat prompt and 'ANSWER:' (unparsed when
  that token is no letter, so coverage means something); ``forced_choice`` scores the likeliest of A/B/C
  instead; rho and CAcc are those of the NAF-Bench constraints over the A/B/C letter probabilities. With
  ``generate``, greedy generation read by the extractor is scored too.
- Semantic loss (weight W > 0): W * sum over constraints F of -log WMC(F, p), p the model's own letter
  probabilities for the rows of one training program per step (exactly one letter per prompt, the certified
  inclusions between readings, invariance across framings and rule orders), added to TRL's loss.
- DPO (``method="dpo"``): TRL's ``DPOTrainer`` on pairs of a certified trace against the trace of a reading
  whose answer differs, same prompt.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.readings import LETTER_OF, READINGS
from naf_bench.scoring import label_columns
from naf_bench.scoring.consistency import compile_formula, compute_consistency, semantic_loss
from naf_bench.scoring.constraints import (
    CONSTRAINT_FAMILIES,
    LETTERS,
    constraint_formulas,
    constraints_of_samples,
    row_events,
)

ANSWER_PREFIX = "ANSWER:"
# "certified" would repeat the LM loss's target
SEMANTIC_FAMILIES = ("one_letter", "alphabet", "inclusion", "invariance")


def load_model(model: str, dtype: str = "float32"):
    """(model, tokenizer) from a Hub name, a folder, a ``.gguf`` file (dequantised) or ``smollm2``, its weights
    in ``dtype`` (bfloat16: half the memory, and about twice the speed on CPUs with AVX-512 BF16; peft keeps
    the LoRA adapters in float32)."""
    import torch
    import transformers

    from naf_bench.run import model_arguments

    arguments = model_arguments(model)
    extra = {"gguf_file": arguments["gguf_file"]} if "gguf_file" in arguments else {}
    tokenizer = transformers.AutoTokenizer.from_pretrained(arguments["pretrained"], **extra)
    if not tokenizer.chat_template:
        raise ConfigError(f"{model}: the tokenizer has no chat template, and the training rows are chat messages")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    lm = transformers.AutoModelForCausalLM.from_pretrained(arguments["pretrained"], dtype=torch.float32, **extra)
    if getattr(lm, "hf_quantizer", None) is not None and "gguf_file" in extra:
        # GGUF weights are dequantised to float32 on load; only the marker that stops Trainer is left
        lm.hf_quantizer.remove_quantization_config(lm)
    return lm.to(getattr(torch, dtype)), tokenizer


def _rows(config: str, split: str | None, framings: Sequence[str], overrides: dict | None = None) -> list[dict]:
    """Named-condition rows of a config split in the given framings (rendered in them when the config lacks one),
    the config's fields overridden by ``overrides`` (``--set``)."""
    from naf_bench.dataset import load_dataset
    from naf_bench.generate.config import get_config

    overrides = dict(overrides or {})
    base = get_config(config, **overrides)
    if not set(framings) <= set(base.framings):
        overrides["framings"] = tuple(framings)
    dataset = load_dataset(config, **overrides)
    split = split or base.splits[-1]
    if split not in dataset:
        raise ConfigError(f"config {config!r} has no split {split!r}; it has {sorted(dataset)}")
    rows = [row for row in dataset[split] if row["gold"] is not None and row["framing"] in framings]
    if not rows:
        raise ConfigError(f"config {config!r} split {split!r} has no named-condition rows in framings {framings}")
    return rows


def training_rows(
    framings: Sequence[str], config: str = "sft", split: str = "train", overrides: dict | None = None
) -> list[dict]:
    return _rows(config, split, framings, overrides)


def evaluation_rows(
    framings: Sequence[str],
    config: str = "wfs44",
    split: str | None = None,
    limit: int | None = None,
    overrides: dict | None = None,
) -> list[dict]:
    """The held-out rows; ``limit`` keeps that many programs evenly spaced through the split (so every bin of a
    config made bin by bin), with all their framings."""
    rows = _rows(config, split, framings, overrides)
    if limit is not None:
        programs = list(dict.fromkeys(row["program_id"] for row in rows))
        kept = {programs[k * len(programs) // limit] for k in range(min(limit, len(programs)))}
        rows = [row for row in rows if row["program_id"] in kept]
    return rows


def letter_completions(rows: Sequence[dict]) -> list[dict]:
    """The rows with the assistant turn cut to its last line, 'ANSWER: X': letter-only training targets."""
    return [
        {**row, "messages": [row["messages"][0], {"role": "assistant", "content": f"{ANSWER_PREFIX} {row['gold']}"}]}
        for row in rows
    ]


def answer_line_tokens(tokenizer) -> int:
    """Tokens of the longest 'ANSWER: X' line (X in A/B/C): the fewest new tokens a generation needs to write the
    letter-only completion (five for SmolLM2: 'AN', 'SW', 'ER', ':', ' A')."""
    return max(len(tokenizer(f"{ANSWER_PREFIX} {letter}", add_special_tokens=False)["input_ids"]) for letter in LETTERS)


def check_disjoint(train_rows: Sequence[dict], eval_rows: Sequence[dict]) -> None:
    """ConfigError when a held-out program is a training program (by canonical key: up to renaming and order)."""
    from naf_bench.syntax import canonical_key, parse_program

    def keys(rows):
        return {canonical_key(parse_program(row["program"]), row["query"]) for row in rows}

    if shared := keys(train_rows) & keys(eval_rows):
        raise ConfigError(f"{len(shared)} evaluation programs are training programs; evaluate on another split")


def peak_rss_gb() -> float:
    """The process's peak resident memory so far, in GB, by its own accounting (getrusage: KiB on Linux)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak * (1 if sys.platform == "darwin" else 1024) / 1e9


def preference_pairs(rows: Sequence[dict]) -> list[dict]:
    """DPO pairs: a row's certified trace (chosen) against the trace of another reading of the same program,
    framing and rule order whose answer differs (rejected) — e.g. the closed-world answer under WFS."""
    variants: dict[tuple, list[dict]] = {}
    for row in rows:
        variants.setdefault((row["program_id"], row["framing"], row["order_id"]), []).append(row)
    pairs = [
        {"prompt": row["messages"][:1], "chosen": row["messages"][1:], "rejected": other["messages"][1:]}
        for group in variants.values()
        for row in group
        for other in group
        if other["gold"] != row["gold"]
    ]
    if not pairs:
        raise ConfigError("no program has two readings with different answers: no preference pair to train on")
    return pairs


def program_groups(rows: Sequence[dict], seed: int) -> list[list[dict]]:
    """The rows of each program, in a seeded order: one group per semantic-loss step."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["program_id"], []).append(row)
    ordered = list(groups.values())
    random.Random(seed).shuffle(ordered)
    return ordered


def chat_prompt(tokenizer, row: dict) -> str:
    """The row's user turn in the model's chat template, ready for the assistant's answer."""
    return tokenizer.apply_chat_template(row["messages"][:1], tokenize=False, add_generation_prompt=True)


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

    events = row_events([dict(zip(LETTERS, row, strict=True)) for row in letters])
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


def evaluate_model(
    model,
    tokenizer,
    rows: Sequence[dict],
    metric,
    generation_metric=None,
    max_new_tokens: int = 512,
    batch_size: int = 8,
    extractor: str = "strict",
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
                forced += [f"{ANSWER_PREFIX} {LETTERS[p.index(max(p))]}" for p in letters]
                columns = label_columns(batch)
                predictions = [
                    f"{ANSWER_PREFIX} {LETTERS[letter_ids.index(t)]}" if t in letter_ids else "" for t in top
                ]
                metric.add_batch(predictions=predictions, **columns)
                tops += predictions
                framing_samples += [
                    (row, dict(zip(LETTERS, p, strict=True))) for row, p in zip(batch, letters, strict=True)
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
    from naf_bench.readings import JOINT_CONDITIONS
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
            "c_rate": sum(run.answers[k] == LETTER_OF["u"] for k in chosen) / len(chosen),  # "cannot be determined"
            "best_constant": letter,
            "best_constant_accuracy": constant.cell(chosen).strict_accuracy,
            "n": len(chosen),
        }
    intervals = run.intervals(("strict_accuracy", "joint"))
    report["accuracy"] = {"value": run.cell().strict_accuracy, "ci95": intervals.get("strict_accuracy")}
    if all(condition in constants for condition in JOINT_CONDITIONS):
        report["joint"] = {
            "value": run.joint(),
            "ci95": intervals.get("joint"),
            "best_constant": constant.joint(),
            "n_programs": len({row["program_id"] for row in rows}),
        }
    return report


def _semantic_trainer_class():
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


def _evaluation_callback(evaluate_at, eval_steps: int):
    from transformers import TrainerCallback

    class EvaluationCallback(TrainerCallback):
        """Evaluates before training, every ``eval_steps`` optimizer steps, and after."""

        def on_train_begin(self, args, state, control, model=None, **kwargs):
            evaluate_at(model, state.global_step)

        def on_step_end(self, args, state, control, model=None, **kwargs):
            if eval_steps and state.global_step % eval_steps == 0 and state.global_step < state.max_steps:
                evaluate_at(model, state.global_step)

        def on_train_end(self, args, state, control, model=None, **kwargs):
            evaluate_at(model, state.global_step)

    return EvaluationCallback()


def device_of(name: str) -> str:
    """``auto``: the runner's default (cuda when present, else mps, else cpu)."""
    from naf_bench.run import default_device

    return default_device() if name == "auto" else name


def _trainer(args: argparse.Namespace, model, tokenizer, train_rows: list[dict], callback, out: Path, device: str):
    """TRL's trainer of the run: DPO on preference pairs, or SFT (with the semantic loss) on the completions,
    through a LoRA adapter, evaluating at ``callback``'s steps."""
    import datasets
    import peft
    import trl

    common = {
        "output_dir": str(out / "checkpoints"),
        "max_steps": args.max_steps,
        "per_device_train_batch_size": args.batch_size,
        "learning_rate": args.learning_rate,
        "max_length": args.max_length,
        "logging_steps": 1,
        "save_strategy": "no",
        "report_to": "none",
        "seed": args.seed,
        "use_cpu": device == "cpu",
        "activation_checkpointing": True,  # TRL's default; the step is faster and holds a fraction of the memory
        "disable_tqdm": True,
    }
    targets = args.lora_target_modules
    lora = peft.LoraConfig(
        r=args.lora_r,
        lora_alpha=2 * args.lora_r,
        lora_dropout=0.05,
        task_type="CAUSAL_LM",
        target_modules=targets[0] if targets == ["all-linear"] else targets,  # None: peft's per-model default
    )
    shared = {
        "model": model,
        "processing_class": tokenizer,
        "peft_config": lora,
        "callbacks": [callback],
    }
    if args.method == "dpo":
        pairs = datasets.Dataset.from_list(preference_pairs(train_rows))
        trainer = trl.DPOTrainer(args=trl.DPOConfig(**common), train_dataset=pairs, **shared)
    else:
        examples = datasets.Dataset.from_list(
            [{"prompt": row["messages"][:1], "completion": row["messages"][1:]} for row in train_rows]
        )
        trainer = _semantic_trainer_class()(
            args=trl.SFTConfig(**common),
            train_dataset=examples,
            semantic_groups=program_groups(train_rows, args.seed),
            semantic_weight=args.semantic_loss_weight,
            semantic_families=args.semantic_families,
            **shared,
        )
    return trainer


def _metrics(args: argparse.Namespace, trainer, history: list[dict], n_train: int, n_eval: int, seconds: float):
    """``metrics.json``: the evaluations before, during and after, the losses per step, and the run's settings."""
    import peft
    import torch
    import transformers
    import trl

    logs = [entry for entry in trainer.state.log_history if "loss" in entry]
    peak = peak_rss_gb()
    print(f"peak resident memory {peak:.2f} GB (getrusage ru_maxrss)", flush=True)
    return {
        "peak_rss_gb": peak,
        "before": history[0],
        "after": history[-1],
        "history": history,
        "train": {
            "step": [entry["step"] for entry in logs],
            "loss": [entry.get("lm_loss", entry["loss"]) for entry in logs],  # DPO: its preference loss
            "semantic_loss": [entry["semantic_loss"] for entry in logs if "semantic_loss" in entry],
            "total_loss": [entry["loss"] for entry in logs],
        },
        "config": {
            **{key: list(value) if isinstance(value, tuple) else value for key, value in vars(args).items()},
            "device": str(trainer.args.device),
            "n_train_rows": n_train,
            "n_eval_rows": n_eval,
            "train_seconds": seconds,  # trainer.train(), the evaluations in its callbacks included
            "process_cpu_seconds": time.process_time(),  # all threads, loading included: the CPU may be shared
            "versions": {m.__name__: m.__version__ for m in (torch, transformers, trl, peft)},
        },
    }


def train(args: argparse.Namespace, before: dict | None = None) -> dict:
    """One run: train, evaluate in the loop, write ``metrics.json``, the adapter and ``training.png``. ``before``:
    another run's step-0 evaluation on the same rows, reused (marked ``shared``) instead of evaluating again: at
    step 0 every run is the base model itself (LoRA's B matrices start at zero, and evaluation is greedy, without
    dropout), whatever its seed or semantic-loss weight."""
    import torch
    import transformers

    from naf_bench.generate.config import parse_overrides
    from naf_bench.scoring import load_metric

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    device = device_of(args.device)
    if args.threads:
        torch.set_num_threads(args.threads)
    transformers.set_seed(args.seed)
    overrides = parse_overrides(args.set)
    train_rows = training_rows(args.train_framings, args.train_config, overrides=overrides)
    if args.completion == "letter":
        train_rows = letter_completions(train_rows)
    eval_rows = evaluation_rows(args.eval_framing, args.eval_config, args.eval_split, args.eval_limit, overrides)
    check_disjoint(train_rows, eval_rows)
    model, tokenizer = load_model(args.model, args.dtype)
    needed = answer_line_tokens(tokenizer)
    if args.generate and args.completion == "letter" and args.max_new_tokens < needed:
        raise ConfigError(
            f"--max-new-tokens {args.max_new_tokens} cannot reach the letter of the trained completion: "
            f"'{ANSWER_PREFIX} X' is {needed} tokens of this tokenizer; ask for at least {needed}"
        )
    metric = load_metric("label")
    generation_metric = load_metric("label") if args.generate else None
    history: list[dict] = []

    def evaluate_at(lm, step: int) -> None:
        if step == 0 and before is not None:
            history.append({**before, "shared": True, "peak_rss_gb": peak_rss_gb()})
            print("step 0: the first run's evaluation of the base model", flush=True)
            return
        scores = evaluate_model(
            lm, tokenizer, eval_rows, metric, generation_metric, args.max_new_tokens, extractor=args.extractor
        )
        history.append({"step": step, **scores, "peak_rss_gb": peak_rss_gb()})
        print(
            f"step {step}: evaluated in {scores['seconds']:.0f} s ({scores['cpu_seconds']:.0f} CPU s), "
            f"peak RSS {peak_rss_gb():.2f} GB",
            flush=True,
        )

    trainer = _trainer(args, model, tokenizer, train_rows, _evaluation_callback(evaluate_at, args.eval_steps), out,
                       device)  # fmt: skip
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    trainer.model.save_pretrained(out / "adapter")
    tokenizer.save_pretrained(out / "adapter")
    metrics = _metrics(args, trainer, history, len(train_rows), len(eval_rows), seconds)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1), encoding="utf-8")
    plot(metrics, out / "training.png")
    return metrics


def plot(metrics: dict, path: Path) -> None:
    """Losses per step (left); held-out strict and forced-choice accuracy per framing, rho of the letters (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (losses, scores) = plt.subplots(1, 2, figsize=(10, 4))
    train = metrics["train"]
    losses.plot(train["step"], train["loss"], label="LM loss")
    if train["semantic_loss"]:
        losses.plot(train["step"], train["semantic_loss"], label="semantic loss")
    losses.set(xlabel="step", title="training")
    losses.legend()
    steps = [entry["step"] for entry in metrics["history"]]
    for framing in metrics["history"][0]["framings"]:
        values = [entry["framings"][framing]["label"]["strict_accuracy"] for entry in metrics["history"]]
        scores.plot(steps, values, marker="o", label=f"accuracy ({framing})")
        forced = [entry["framings"][framing]["forced_choice"]["accuracy"] for entry in metrics["history"]]
        scores.plot(steps, forced, marker="^", linestyle="--", label=f"forced choice ({framing})")
        if "report" in metrics["history"][0]["framings"][framing]:
            generated = [entry["framings"][framing]["report"]["accuracy"]["value"] for entry in metrics["history"]]
            scores.plot(steps, generated, marker="D", label=f"generated, {metrics['config']['extractor']} ({framing})")
    scores.plot(steps, [entry["letters"]["all"]["rho"] for entry in metrics["history"]], marker="s", label="rho")
    scores.set(xlabel="step", title=f"held-out {metrics['config']['eval_config']}")
    scores.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def parser() -> argparse.ArgumentParser:
    from naf_bench.verbalize.framing import FRAMINGS

    framings = ("abstract", *FRAMINGS)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model", required=True, help="Hub name, local folder, .gguf file, or smollm2")
    p.add_argument("--max-steps", type=int, required=True)
    p.add_argument("--out", required=True, help="writes metrics.json, adapter/ and training.png here")
    p.add_argument("--train-config", default="sft")
    p.add_argument("--train-framings", nargs="+", choices=framings, default=list(framings))
    p.add_argument("--eval-config", default="wfs44")
    p.add_argument("--eval-split", help="default: the config's last split")
    p.add_argument("--eval-framing", nargs="+", choices=framings, default=["abstract"])
    p.add_argument("--eval-limit", type=int, help="evaluate on K held-out programs only, evenly spaced")
    p.add_argument("--eval-steps", type=int, default=0, help="also evaluate every N steps (0: before and after)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a field of the training and evaluation configs, e.g. depths=3,4 (repeatable)",
    )
    p.add_argument(
        "--completion",
        choices=("trace", "letter"),
        default="trace",
        help="train on the certified trace and its 'ANSWER: X' line, or on that line alone",
    )
    p.add_argument("--generate", action="store_true", help="also score greedy generations")
    p.add_argument("--max-new-tokens", type=int, default=512)
    p.add_argument(
        "--extractor",
        choices=("strict", "flexible", "reference"),
        default="strict",
        help="how answers are read from the generations",
    )
    p.add_argument("--method", choices=("sft", "dpo"), default="sft", help="dpo: TRL's DPOTrainer on preference_pairs")
    p.add_argument(
        "--semantic-loss-weight",
        type=float,
        nargs="+",
        default=[0.0],
        help="sft only; several: one run per weight (and seed), compared in DIR/summary.json",
    )
    p.add_argument("--semantic-families", nargs="+", choices=CONSTRAINT_FAMILIES, default=list(SEMANTIC_FAMILIES))
    p.add_argument("--seed", type=int, nargs="+", default=[0], help="several: one run each in DIR/seed-S/")
    p.add_argument("--device", default="auto", help="auto (cuda, else mps, else cpu), cpu, cuda, mps")
    p.add_argument("--learning-rate", type=float, default=2e-4)
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--max-length", type=int, default=2048, help="tokens per training sequence")
    p.add_argument("--lora-r", type=int, default=16)
    p.add_argument(
        "--lora-target-modules",
        nargs="+",
        metavar="MODULE",
        help="the layers LoRA adapts, e.g. q_proj v_proj, or all-linear (default: peft's, q_proj v_proj for Llama)",
    )
    p.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's)")
    p.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32", help="the base model's weights")
    return p


def seed_summary(runs: dict[int, dict]) -> dict:
    """Held-out strict accuracy and letter rho before and after, per framing, for each seed and their mean."""
    summary: dict = {"seeds": list(runs), "framings": {}}
    first = next(iter(runs.values()))
    for framing in first["after"]["framings"]:
        cell = {}
        for moment in ("before", "after"):
            values = [run[moment]["framings"][framing]["label"]["strict_accuracy"] for run in runs.values()]
            rhos = [run[moment]["framings"][framing]["letters"]["all"]["rho"] for run in runs.values()]
            cell[moment] = {"strict_accuracy": values, "mean_strict_accuracy": sum(values) / len(values)}
            cell[moment].update(rho=rhos, mean_rho=sum(rhos) / len(rhos))
        summary["framings"][framing] = cell
    return summary


def comparison_table(runs: dict[float, dict[int, dict]]) -> list[dict]:
    """One row per semantic-loss weight, framing and moment (before/after): the held-out accuracy and JOINT of
    the generated answers (of the top token after 'ANSWER:' without ``--generate``: ``answers``), the rho of the
    letter probabilities and the share of C answers under the entailment readings (credulous, skeptical), per seed
    and their mean."""

    def mean(values):
        defined = [v for v in values if v is not None]
        return sum(defined) / len(defined) if defined else None

    entailment = [reading.name for reading in READINGS.named() if reading.quantifier]
    table = []
    for weight, by_seed in runs.items():
        first = next(iter(by_seed.values()))
        for framing in first["after"]["framings"]:
            for moment in ("before", "after"):
                cells = [run[moment]["framings"][framing] for run in by_seed.values()]
                values: dict[str, list] = {"accuracy": [], "joint": [], "rho": []}
                values.update({f"c_rate_{condition}": [] for condition in entailment})
                for cell in cells:
                    report = cell.get("report") or cell["top_token_report"]
                    values["accuracy"].append(report["accuracy"]["value"])
                    values["joint"].append(report["joint"]["value"] if "joint" in report else None)
                    values["rho"].append(cell["letters"]["all"]["rho"])
                    for condition in entailment:
                        values[f"c_rate_{condition}"].append(report["conditions"].get(condition, {}).get("c_rate"))
                row = {"semantic_loss_weight": weight, "framing": framing, "moment": moment, "seeds": list(by_seed)}
                row["answers"] = "generated" if "report" in cells[0] else "top token"
                row.update({f"mean_{key}": mean(column) for key, column in values.items()})
                row.update(values)
                table.append(row)
    return table


def main(argv: Sequence[str] | None = None) -> dict:
    """One run per semantic-loss weight and seed; with several, each in DIR/seed-S/ (DIR/w-W/seed-S/ with several
    weights) and their summary, with the comparison table, in DIR/summary.json."""
    args = parser().parse_args(argv)
    if args.max_steps < 1:
        raise ConfigError(f"--max-steps must be >= 1, got {args.max_steps}")
    if any(weight < 0 for weight in args.semantic_loss_weight):
        raise ConfigError(f"--semantic-loss-weight must be >= 0, got {args.semantic_loss_weight}")
    if args.method == "dpo" and any(args.semantic_loss_weight):
        raise ConfigError("the semantic loss is added to the SFT loss; --method dpo takes no --semantic-loss-weight")
    weights = list(dict.fromkeys(args.semantic_loss_weight))
    if len(args.seed) == 1 and len(weights) == 1:
        return train(argparse.Namespace(**{**vars(args), "seed": args.seed[0], "semantic_loss_weight": weights[0]}))
    runs: dict[float, dict[int, dict]] = {}
    before = None  # the base model's evaluation, made by the first run and shared by the others
    for weight in weights:
        folder = Path(args.out) / f"w-{weight:g}" if len(weights) > 1 else Path(args.out)
        runs[weight] = {}
        for seed in args.seed:
            values = {"seed": seed, "semantic_loss_weight": weight, "out": str(folder / f"seed-{seed}")}
            runs[weight][seed] = train(argparse.Namespace(**{**vars(args), **values}), before)
            before = before or runs[weight][seed]["before"]
    summary = seed_summary(runs[weights[0]]) if len(weights) == 1 else {"seeds": list(args.seed), "weights": weights}
    summary["table"] = comparison_table(runs)
    (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary
