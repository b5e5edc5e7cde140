"""GRPO on the training stream with TRL's ``GRPOTrainer``: ``naf-bench train grpo``.

The prompts are the stream's items (:class:`naf_bench.training.stream.Stream`), a conversational dataset read as
the trainer asks for it; the rewards are :mod:`naf_bench.training.rewards`, chosen by name. The curriculum climbs
one level on every attribute each time the first reward's logged mean reaches ``--climb-at`` (reasoning-gym's
manner), and every log line carries the stream's level (``curriculum_level``, the sum of its levels).
Held-out items (the stream's settings under a seed no training item uses) are generated greedily before and after
training and scored with the same rewards. Written to ``--out``: ``metrics.json`` (settings, the trainer's log,
the held-out rewards before and after, peak memory), ``completions.jsonl`` (every completion the rewards scored,
with its values), and ``adapter/`` (the LoRA adapter, or the whole model with ``--full``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.generate.seeds import item_seed
from naf_bench.readings import joint_conditions
from naf_bench.training import rewards
from naf_bench.training.stream import CURRICULUM, Stream, levels_of
from naf_bench.training.trainer import device_of, load_model, peak_rss_gb

# the columns of a stream row that the rewards read, besides the prompt
COLUMNS = ("id", "condition", "gold", "labels", "certificate", "program", "query", "framing", "language", "family")


def held_out_seed(seed: int) -> int:
    """The held-out stream's seed: hashed from the training seed, so no training item is drawn from it."""
    return item_seed(seed, "held-out")


def example(row: dict) -> dict:
    """A stream row as a GRPO example: the prompt as a chat, and the columns the rewards read."""
    return {"prompt": [{"role": "user", "content": row["prompt"]}]} | {key: row[key] for key in COLUMNS}


class Climb:
    """The stream a training run draws from now, raised a level when the reward reaches ``threshold``."""

    def __init__(self, stream: Stream, reward: str, threshold: float):
        self.stream, self.reward, self.threshold = stream, reward, threshold
        self.levels: list[tuple[int, dict]] = [(0, dict(stream.levels))]

    @property
    def level(self) -> int:
        return sum(self.stream.levels.values())

    def examples(self):
        """Examples from the current stream, without end (each from the stream's level when it is drawn)."""
        index = 0
        while True:
            yield example(self.stream[index])
            index += 1

    def observe(self, step: int, logs: dict) -> None:
        mean = logs.get(f"rewards/{self.reward}/mean")
        if mean is not None and mean >= self.threshold and not self.stream.at_top:
            self.stream = self.stream.harder()
            self.levels.append((step, dict(self.stream.levels)))


def _callback(climb: Climb):
    from transformers import TrainerCallback

    class Curriculum(TrainerCallback):
        """Records the stream's level in each log entry, then climbs when the reward allows."""

        def on_log(self, args, state, control, logs=None, **kwargs):
            if state.log_history:
                state.log_history[-1]["curriculum_level"] = climb.level
            climb.observe(state.global_step, logs or {})

    return Curriculum()


def recorded(reward: Callable, sink: list[dict]) -> Callable:
    """``reward`` that also records each completion it scores (its text, row id and value) in ``sink``."""

    def scored(prompts=None, completions=(), trainer_state=None, **columns):
        values = reward(prompts=prompts, completions=completions, **columns)
        step = trainer_state.global_step if trainer_state is not None else None
        for completion, row_id, value in zip(completions, columns["id"], values, strict=True):
            sink.append(
                {
                    "step": step,
                    "reward": reward.__name__,
                    "id": row_id,
                    "completion": rewards.completion_text(completion),
                    "value": value,
                }
            )
        return values

    scored.__name__ = reward.__name__
    return scored


def generate(model, tokenizer, rows: Sequence[dict], max_new_tokens: int, batch_size: int = 8) -> list[str]:
    """Greedy completions of the rows' chat prompts."""
    import torch

    texts = []
    side, tokenizer.padding_side = tokenizer.padding_side, "left"
    try:
        for start in range(0, len(rows), batch_size):
            chats = [example(row)["prompt"] for row in rows[start : start + batch_size]]
            prompts = [
                tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True) for chat in chats
            ]
            batch = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
            with torch.inference_mode():
                out = model.generate(
                    **batch, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id
                )
            texts += tokenizer.batch_decode(out[:, batch["input_ids"].shape[1] :], skip_special_tokens=True)
    finally:
        tokenizer.padding_side = side
    return texts


def held_out(model, tokenizer, rows: Sequence[dict], names: Sequence[str], max_new_tokens: int) -> dict:
    """The mean of each reward over greedy completions of the held-out rows (None where no row is scored)."""
    texts = generate(model, tokenizer, rows, max_new_tokens)
    columns = {key: [row[key] for row in rows] for key in COLUMNS}
    means = {}
    for reward in rewards.rewards(names):
        values = [
            v for v in reward(prompts=[row["prompt"] for row in rows], completions=texts, **columns) if v is not None
        ]
        means[reward.__name__] = sum(values) / len(values) if values else None
    return {"n": len(rows), "rewards": means}


def stream_of(args: argparse.Namespace, seed: int) -> Stream:
    return Stream(seed, levels_of(args.level), args.language, args.framing, traced=args.traced, joint=args.joint)


def check_grpo_options(args: argparse.Namespace) -> None:
    """What can be checked before a model loads."""
    if args.max_steps < 1:
        raise ConfigError(f"--max-steps must be >= 1, got {args.max_steps}")
    if args.num_generations < 2:
        raise ConfigError(
            f"--num-generations must be >= 2 (GRPO compares completions of one prompt), got {args.num_generations}"
        )
    try:
        rewards.rewards(args.reward)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if args.joint and not {"joint", *(f"answer_{c}" for c in joint_conditions())} & set(args.reward):
        raise ConfigError("--joint items have no single gold: reward them with joint (or answer_<reading>)")
    stream_of(args, args.seed)[0]  # the stream's settings, and one item drawn


def grpo(args: argparse.Namespace) -> dict:
    """One GRPO training run (see the module docstring); its ``metrics.json``."""
    import datasets
    import peft
    import torch
    import transformers
    import trl

    check_grpo_options(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    device = device_of(args.device)
    transformers.set_seed(args.seed)
    model, tokenizer = load_model(args.model, args.dtype)
    names = list(args.reward)
    evaluation = stream_of(args, held_out_seed(args.seed)).items(0, args.eval_items) if args.eval_items else []
    before = held_out(model, tokenizer, evaluation, names, args.max_completion_length) if evaluation else None
    climb = Climb(stream_of(args, args.seed), rewards.rewards(names[:1])[0].__name__, args.climb_at)
    sink: list[dict] = []
    config = trl.GRPOConfig(
        output_dir=str(out / "checkpoints"),
        max_steps=args.max_steps,
        learning_rate=args.learning_rate,
        per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        temperature=args.temperature,
        beta=args.beta,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=args.seed,
        use_cpu=device == "cpu",
        shuffle_dataset=False,
        disable_tqdm=True,
        bf16=args.dtype == "bfloat16" and device != "cpu",
    )
    lora = (
        None
        if args.full
        else peft.LoraConfig(
            r=args.lora_r, lora_alpha=2 * args.lora_r, task_type="CAUSAL_LM", target_modules=args.lora_target_modules
        )
    )
    trainer = trl.GRPOTrainer(
        model=model,
        reward_funcs=[recorded(reward, sink) for reward in rewards.rewards(names)],
        args=config,
        train_dataset=datasets.IterableDataset.from_generator(climb.examples),
        processing_class=tokenizer,
        peft_config=lora,
        callbacks=[_callback(climb)],
    )
    start = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - start
    trainer.model.save_pretrained(out / "adapter")
    tokenizer.save_pretrained(out / "adapter")
    after = held_out(trainer.model, tokenizer, evaluation, names, args.max_completion_length) if evaluation else None
    metrics = {
        "peak_rss_gb": peak_rss_gb(),
        "before": before,
        "after": after,
        "log": trainer.state.log_history,
        "curriculum": climb.levels,
        "config": {
            **vars(args),
            "device": str(trainer.args.device),
            "train_seconds": seconds,
            "held_out_seed": held_out_seed(args.seed),
            "versions": {m.__name__: m.__version__ for m in (torch, transformers, trl, peft)},
        },
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1, default=str), encoding="utf-8")
    (out / "completions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sink), encoding="utf-8")
    for moment, scores in (("before", before), ("after", after)):
        if scores:
            print(f"held-out {moment}: " + ", ".join(f"{k} {v}" for k, v in scores["rewards"].items()))
    print(
        f"wrote {out / 'metrics.json'}, {out / 'completions.jsonl'} and {out / 'adapter'}; "
        f"peak resident memory {metrics['peak_rss_gb']:.2f} GB"
    )
    return metrics


def add_grpo_arguments(p: argparse.ArgumentParser) -> None:
    """``naf-bench train grpo``'s options."""
    p.add_argument("--model", required=True, help="a model folder, a .gguf file, a Hub name, or smollm2")
    p.add_argument("--max-steps", type=int, required=True)
    p.add_argument("--out", required=True, help="writes metrics.json, completions.jsonl and adapter/ here")
    p.add_argument(
        "--reward",
        nargs="+",
        default=["answer", "format"],
        metavar="NAME",
        help=f"rewards, the first one driving the curriculum: {', '.join(rewards.REWARDS)}",
    )
    p.add_argument(
        "--level",
        type=int,
        nargs="+",
        metavar="L",
        help=f"the starting level per attribute ({', '.join(CURRICULUM)}); default all 0",
    )
    p.add_argument(
        "--climb-at", type=float, default=0.8, help="raise the level when the first reward's mean reaches this"
    )
    p.add_argument("--joint", action="store_true", help="JOINT prompts (every reading at once); reward with joint")
    p.add_argument("--traced", action="store_true", help="prompts that ask for a checkable trace (the proof reward)")
    p.add_argument("--language", default="en", choices=("en", "zh"), help="the prompts' language")
    p.add_argument("--framing", default="abstract", help="the prompts' framing")
    p.add_argument("--seed", type=int, default=0, help="the stream's and the trainer's")
    p.add_argument("--num-generations", type=int, default=4, help="completions per prompt (GRPO's group)")
    p.add_argument("--batch-size", type=int, default=4, help="completions per device step (a multiple of the group)")
    p.add_argument("--max-completion-length", type=int, default=256, help="tokens per completion")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature")
    p.add_argument("--beta", type=float, default=0.0, help="KL coefficient (TRL's default 0: no reference model)")
    p.add_argument("--learning-rate", type=float, default=1e-5, help="AdamW's")
    p.add_argument("--full", action="store_true", help="train every weight instead of a LoRA adapter")
    p.add_argument("--lora-r", type=int, default=16, help="LoRA rank")
    p.add_argument("--lora-target-modules", nargs="+", metavar="MODULE", help="default: peft's for the model")
    p.add_argument("--eval-items", type=int, default=16, help="held-out items scored before and after (0: none)")
    p.add_argument("--device", default="auto", help="auto (cuda, else mps, else cpu), cpu, cuda, mps")
    p.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32", help="the model's weights")
