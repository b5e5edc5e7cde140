"""``train``: supervised fine-tuning (``sft``, what ``scripts/train_sft.py`` runs), GRPO on the stream (``grpo``),
and the stream written out for other trainers (``stream``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

FORMATS = ("jsonl", "verl", "openrlhf")  # naf-bench rows; verl's parquet rows; OpenRLHF's prompt data


def _own(args: argparse.Namespace) -> argparse.Namespace:
    """The options alone (without the parser's dispatch fields), as the trainers record them."""
    return argparse.Namespace(**{k: v for k, v in vars(args).items() if k not in ("run", "command", "train_command")})


def _sft(args: argparse.Namespace) -> int:
    from naf_bench.training.command import run

    run(_own(args))
    return 0


def _grpo(args: argparse.Namespace) -> int:
    from naf_bench.training.grpo import grpo

    grpo(_own(args))
    return 0


def _stream(args: argparse.Namespace) -> int:
    from naf_bench.training.stream import Stream, levels_of

    stream = Stream(args.seed, levels_of(args.level), args.language, args.framing, traced=args.traced, joint=args.joint)
    rows = stream.items(args.start, args.start + args.count)
    out = Path(args.out)
    if args.format == "verl":
        import datasets

        from naf_bench.integrations.verl import verl_rows

        datasets.Dataset.from_list(verl_rows(rows)).to_parquet(out)
    else:
        if args.format == "openrlhf":
            from naf_bench.integrations.openrlhf import openrlhf_rows

            rows = openrlhf_rows(rows)
        out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(
        f"wrote stream items {args.start}..{args.start + args.count - 1} (seed {args.seed}, levels "
        f"{dict(stream.levels)}) as {args.format} to {out}"
    )
    return 0


def add_parsers(commands) -> None:
    """``train`` and its subcommands."""
    from naf_bench.training.command import add_arguments as sft_arguments
    from naf_bench.training.grpo import add_grpo_arguments as grpo_arguments

    train = commands.add_parser("train", help="fine-tune a model: SFT on certified traces, or GRPO on the stream")
    sub = train.add_subparsers(dest="train_command", required=True)
    sft = sub.add_parser("sft", help="LoRA SFT (or DPO) on certified traces, the metric in the loop")
    sft_arguments(sft)
    sft.set_defaults(run=_sft)
    grpo = sub.add_parser("grpo", help="GRPO (TRL's GRPOTrainer) on the stream with naf-bench's rewards")
    grpo_arguments(grpo)
    grpo.set_defaults(run=_grpo)
    stream = sub.add_parser("stream", help="write stream items for verl, OpenRLHF or any trainer")
    stream.add_argument("--out", required=True, help="the file to write")
    stream.add_argument(
        "--format", choices=FORMATS, default="jsonl", help="naf-bench rows, verl's parquet or OpenRLHF's"
    )
    stream.add_argument("--count", type=int, default=1000, help="items written")
    stream.add_argument("--start", type=int, default=0, help="the first item's index")
    stream.add_argument("--seed", type=int, default=0, help="the stream's")
    stream.add_argument("--level", type=int, nargs="+", metavar="L", help="a level per curriculum attribute")
    stream.add_argument("--joint", action="store_true", help="JOINT prompts: every reading at once")
    stream.add_argument("--traced", action="store_true", help="prompts that ask for a checkable trace")
    stream.add_argument("--language", default="en", choices=("en", "zh"), help="the prompts' language")
    stream.add_argument("--framing", default="abstract", help="the prompts' framing")
    stream.set_defaults(run=_stream)
