"""``scripts/train_sft.py``: the command line, one training run per seed and semantic-loss weight, and their
comparison."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.readings import READINGS
from naf_bench.scoring.constraints import (
    CONSTRAINT_FAMILIES,
)
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR, EXTRACTORS, unalias_extractor
from naf_bench.training.semantic import SEMANTIC_FAMILIES
from naf_bench.training.trainer import train


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The SFT/DPO training run's options (``scripts/train_sft.py`` and ``naf-bench train sft``)."""
    from naf_bench.verbalize.framing import FRAMINGS

    framings = ("abstract", *FRAMINGS)
    p.add_argument("--model", required=True, help="Hub name, local folder, .gguf file, or smollm2")
    p.add_argument("--max-steps", type=int, required=True)
    p.add_argument("--out", required=True, help="writes metrics.json, adapter/ and training.png here")
    p.add_argument("--train-config", default="sft", help="the config trained on")
    p.add_argument("--train-framings", nargs="+", choices=framings, default=list(framings), help="framings trained on")
    p.add_argument("--eval-config", default="wfs44", help="the held-out config")
    p.add_argument("--eval-split", help="default: the config's last split")
    p.add_argument("--eval-framing", nargs="+", choices=framings, default=["abstract"], help="held-out framings")
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
    p.add_argument("--max-new-tokens", type=int, default=512, help="tokens per generation")
    p.add_argument(
        "--extractor",
        type=unalias_extractor,
        choices=EXTRACTORS,
        default=DEFAULT_EXTRACTOR,
        help=f"how answers are read from the generations (default {DEFAULT_EXTRACTOR})",
    )
    p.add_argument("--method", choices=("sft", "dpo"), default="sft", help="dpo: TRL's DPOTrainer on preference_pairs")
    p.add_argument(
        "--semantic-loss-weight",
        type=float,
        nargs="+",
        default=[0.0],
        help="sft only; several: one training run per weight (and seed), compared in DIR/summary.json",
    )
    p.add_argument(
        "--semantic-families",
        nargs="+",
        choices=CONSTRAINT_FAMILIES,
        default=list(SEMANTIC_FAMILIES),
        help="the semantic loss's constraints",
    )
    p.add_argument("--seed", type=int, nargs="+", default=[0], help="several: one training run each in DIR/seed-S/")
    p.add_argument("--device", default="auto", help="auto (cuda, else mps, else cpu), cpu, cuda, mps")
    p.add_argument("--learning-rate", type=float, default=2e-4, help="AdamW's")
    p.add_argument("--batch-size", type=int, default=1, help="rows per step")
    p.add_argument("--max-length", type=int, default=2048, help="tokens per training sequence")
    p.add_argument("--lora-r", type=int, default=16, help="LoRA rank")
    p.add_argument(
        "--lora-target-modules",
        nargs="+",
        metavar="MODULE",
        help="the layers LoRA adapts, e.g. q_proj v_proj, or all-linear (default: peft's, q_proj v_proj for Llama)",
    )
    p.add_argument("--threads", type=int, help="torch.set_num_threads (default: torch's)")
    p.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32", help="the base model's weights")


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
    """One training run per semantic-loss weight and seed; with several, each in DIR/seed-S/ (DIR/w-W/seed-S/ with
    several weights) and their summary, with the comparison table, in DIR/summary.json."""
    return run(parser().parse_args(argv))


def run(args: argparse.Namespace) -> dict:
    """The training runs ``args`` ask for (see :func:`main`)."""
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
    before = None  # the base model's evaluation, made by the first training run and shared by the others
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
