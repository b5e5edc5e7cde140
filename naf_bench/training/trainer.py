"""One training run: the model, TRL's SFT or DPO trainer with the evaluation callback, the metrics it records and
their plot."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.training.examples import (
    ANSWER_PREFIX,
    answer_line_tokens,
    check_disjoint,
    evaluation_rows,
    letter_completions,
    preference_pairs,
    program_groups,
    training_rows,
)
from naf_bench.training.held_out import evaluate_model
from naf_bench.training.semantic import semantic_trainer_class


def load_model(model: str, dtype: str = "float32"):
    """(model, tokenizer) from a Hub name, a folder, a ``.gguf`` file (dequantised) or ``smollm2``, its weights
    in ``dtype`` (bfloat16: half the memory, and about twice the speed on CPUs with AVX-512 BF16; peft keeps
    the LoRA adapters in float32)."""
    import torch
    import transformers

    from naf_bench.runs.run import model_arguments

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


def peak_rss_gb() -> float:
    """The process's peak resident memory so far, in GB, by its own accounting (getrusage: KiB on Linux)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak * (1 if sys.platform == "darwin" else 1024) / 1e9


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
    from naf_bench.runs.run import default_device

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
        trainer = semantic_trainer_class()(
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

    trainer = _trainer(
        args, model, tokenizer, train_rows, _evaluation_callback(evaluate_at, args.eval_steps), out, device
    )
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
