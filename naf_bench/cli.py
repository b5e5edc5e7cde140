"""The ``naf-bench`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from naf_bench.errors import CertificationError, ConfigError, ParseError, SolverError
from naf_bench.scoring.labels import JOINT_CONDITIONS

EXIT_PARSE, EXIT_SOLVER, EXIT_CERTIFICATION = 2, 3, 4


def _print_certificate(name: str, certificate) -> None:
    labels = certificate.labels
    models = certificate.n_stable_models
    count = f"more than {certificate.model_cap}" if models > certificate.model_cap else str(models)
    print(f"{name}  ?- {certificate.query}")
    print(f"  signature     {certificate.signature}")
    print(f"  credulous {labels['cred']}   skeptical {labels['skept']}   wfs {labels['wfs']}   sldnf {labels['sldnf']}")
    print(f"  stable models {count}{' (incoherent: skeptical holds vacuously)' if certificate.incoherent else ''}")
    print(f"  checked       {', '.join(certificate.checks)}")


def _certify(args: argparse.Namespace) -> int:
    from naf_bench.certify import certify
    from naf_bench.syntax.parse import parse_atom, parse_header, parse_program

    status = 0
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            print(f"{name}: error: {exc.strerror}", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        query = args.query or parse_header(text).get("query", "q")
        try:
            program = parse_program(text)
        except ParseError as exc:
            print(f"{name}:{exc.line}:{exc.column}: error: {exc.reason}", file=sys.stderr)
            print(f"  {exc.source_line}\n  {' ' * (exc.column - 1)}^", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        try:
            parse_atom(query)
        except ParseError as exc:
            print(f"{name}: error: query {query!r}: {exc.reason}", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        try:
            certificate = certify(program, query, inference_limit=args.inference_limit)
        except SolverError as exc:
            print(f"{name}: solver error: {exc}", file=sys.stderr)
            return EXIT_SOLVER
        except CertificationError as exc:
            print(f"{name}: certification failed: {exc}", file=sys.stderr)
            status = max(status, EXIT_CERTIFICATION)
            continue
        if args.json:
            print(certificate.to_json())
        else:
            _print_certificate(name, certificate)
    return status


def _export(args: argparse.Namespace) -> int:
    from naf_bench.dataset import export

    out = export(args.out, tuple(args.configs), args.cache_dir, args.repo_id, args.num_proc)
    print(f"wrote {out} (configs: {', '.join(args.configs)}); load it with datasets.load_dataset({str(out)!r}, "
          f"CONFIG), or upload it with scripts/push_to_hub.py and load {args.repo_id!r}")  # fmt: skip
    return 0


def _overrides(pairs: list[str]) -> dict:
    """``--set depths=2,8 --set seed=3`` into typed config overrides."""
    from naf_bench.generate.config import GenerationConfig

    types = {name: field.type for name, field in GenerationConfig.__dataclass_fields__.items()}
    overrides = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in types or not value:
            raise ConfigError(f"--set {pair!r}: expected KEY=VALUE with KEY one of {sorted(types)}")
        try:
            if "tuple" in str(types[key]):
                items = value.split(",")
                overrides[key] = tuple(int(x) if "int" in str(types[key]) else x for x in items)
            else:
                overrides[key] = int(value) if types[key] in (int, "int") else value
        except ValueError as exc:
            raise ConfigError(f"--set {pair!r}: {types[key]} expected ({exc})") from exc
    return overrides


def _generate(args: argparse.Namespace) -> int:
    overrides = _overrides(args.set)
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.shard is None:
        from naf_bench.dataset import load_dataset

        parts = load_dataset(args.config, num_proc=args.num_proc, cache_dir=args.cache_dir, **overrides)
    else:
        import datasets

        from naf_bench.dataset import build_rows, features
        from naf_bench.generate.config import get_config

        rows = build_rows(get_config(args.config, **overrides), args.num_proc, args.shard)
        parts = {split: datasets.Dataset.from_list(part, features=features()) for split, part in rows.items()}
    from naf_bench.dataset import rows_json

    splits = [args.split] if args.split else list(parts)
    shard = f" (shard {args.shard[0]}/{args.shard[1]})" if args.shard else ""
    for split in splits:
        part = parts[split]
        if args.out is None:
            print(f"{args.config}/{split}{shard}: {part.num_rows} rows")
            continue
        out = Path(args.out if len(splits) == 1 else f"{Path(args.out).with_suffix('')}-{split}{Path(args.out).suffix}")
        if out.suffix == ".parquet":
            part.to_parquet(str(out))
        else:
            out.write_text(rows_json(part.to_list()), encoding="utf-8")
        print(f"wrote {out} ({part.num_rows} rows of {args.config}/{split}{shard})")
    return 0


def _shard(text: str) -> tuple[int, int]:
    index, _, total = text.partition("/")
    if not (index.isdigit() and total.isdigit() and int(index) < int(total)):
        raise argparse.ArgumentTypeError(f"expected I/N with 0 <= I < N, got {text!r}")
    return int(index), int(total)


def _write_json(payload, out: str | None) -> None:
    if out:
        Path(out).write_text(json.dumps(payload, indent=1), encoding="utf-8")
        print(f"wrote {out}")


def _print_records(records: list[dict]) -> None:
    print(f"{'':30} {'JOINT':>7} {'acc':>7} {'cover':>7}  " + "  ".join(f"{c:>12}" for c in JOINT_CONDITIONS))
    for r in records:
        cells = [f"{100 * r['per_semantics'].get(c, 0):12.1f}" for c in JOINT_CONDITIONS]
        joint = "-" if r["joint"] is None else f"{100 * r['joint']:.1f}"
        print(f"{r['name'][:30]:30} {joint:>7} {100 * r['per_prompt_accuracy']:7.1f} {100 * r['coverage']:7.1f}  "
              + "  ".join(cells))  # fmt: skip
        if r.get("traces"):
            t = r["traces"]
            print(f"{'':30} proof accuracy {_pct(t['proof_accuracy'])}, right for the wrong reason {_pct(t['rfwr'])}, "
                  f"reasoned soundly {_pct(t['reasoned_soundly'])}")  # fmt: skip


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _score(args: argparse.Namespace) -> int:
    from naf_bench.evaluation import gold_rows, read_submission, score_rows

    rows = gold_rows(args.config, args.split, args.gold)
    entries, problems = read_submission(args.submission)
    known = {row["id"] for row in rows}
    scored_ids = {row["id"] for row in rows if row["gold"] is not None}
    problems += [f"unknown id {key!r} (not in the gold set)" for key in entries if key not in known]
    missing = sorted(scored_ids - set(entries))
    if missing:
        problems.append(f"{len(missing)} gold ids have no prediction (scored as unanswered), e.g. {missing[:3]}")
    record = score_rows(rows, entries, name=Path(args.submission).stem)
    record["problems"] = problems
    _print_records([record])
    print(f"format-valid rate {_pct(record['format_valid_rate'])}; JOINT per family: "
          + ", ".join(f"{k} {_pct(v)}" for k, v in record["joint_per_family"].items()))  # fmt: skip
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    _write_json(record, args.out)
    return 1 if problems else 0


def _baselines(args: argparse.Namespace) -> int:
    from naf_bench.baselines import reasoner_predictions
    from naf_bench.evaluation import constant_predictions, gold_rows, score_rows

    rows = gold_rows(args.config, args.split)
    predictions = {**constant_predictions(rows), **reasoner_predictions(rows)}
    records = [score_rows(rows, p, name=name) for name, p in predictions.items()]
    _print_records(records)
    _write_json(records, args.out)
    return 0


def _report(args: argparse.Namespace) -> int:
    from naf_bench.report import load_results, write_report

    print(f"wrote {write_report(load_results(args.results), args.out)}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from naf_bench.report import load_results, write_report
    from naf_bench.run import run_model

    out = Path(args.out)
    print(f"evaluating {args.model or args.model_args} ({args.backend}) on {', '.join(args.tasks)} through lm-eval, "
          f"{f'{args.limit:g} documents per task' if args.limit else 'every document'} ...", flush=True)  # fmt: skip
    folder, _ = run_model(
        args.model, out / "lm_eval", tuple(args.tasks), backend=args.backend, model_args=args.model_args,
        device=args.device, batch_size=args.batch_size, apply_chat_template=args.chat_template,
        limit=int(args.limit) if args.limit and args.limit >= 1 else args.limit, max_gen_toks=args.max_gen_toks,
    )  # fmt: skip
    print(f"wrote lm-eval results and samples to {folder}")
    records = load_results([*([args.baselines] if args.baselines else []), out / "lm_eval"])
    _print_records([r for r in records if "per_semantics" in r])
    print(f"wrote {write_report(records, out)}")
    return 0


def _tasks_path(args: argparse.Namespace) -> int:
    from naf_bench.run import tasks_dir

    print(tasks_dir())
    return 0


def _batch_size(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def build_parser() -> argparse.ArgumentParser:
    from naf_bench.solvers.sldnf import INFERENCE_LIMIT

    parser = argparse.ArgumentParser(prog="naf-bench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    certify = commands.add_parser("certify", help="certify program files under the four readings of negation")
    certify.add_argument("files", nargs="+", metavar="FILE", help="ground normal program(s) in ASP syntax; - for stdin")
    certify.add_argument("--query", help="query atom (default: the file's '%% query:' header, else q)")
    certify.add_argument("--json", action="store_true", help="one JSON certificate per line")
    certify.add_argument("--inference-limit", type=int, default=INFERENCE_LIMIT, help="SWI-Prolog loop budget")
    certify.set_defaults(run=_certify)

    from naf_bench.generate.config import CONFIGS

    export = commands.add_parser("export", help="write a Hub-style dataset folder (parquet + dataset card)")
    export.add_argument("--out", required=True, help="folder to write (name it naf-bench for the familiar load)")
    export.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG")
    export.add_argument("--cache-dir", help="datasets cache folder (default: the datasets default)")
    export.add_argument("--repo-id", default="ORG/naf-bench", help="Hub repository the card's snippets name")
    export.add_argument("--num-proc", type=int, help="processes that generate a config not yet cached")
    export.set_defaults(run=_export)

    generate = commands.add_parser("generate", help="generate and certify a config's rows")
    generate.add_argument("config", choices=list(CONFIGS))
    generate.add_argument("--split", help="one split (default: all)")
    generate.add_argument("--seed", type=int, help="root seed")
    generate.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=2,8")
    generate.add_argument("--out", help="FILE.jsonl or FILE.parquet (default: print the row counts)")
    generate.add_argument("--cache-dir", help="datasets cache folder")
    generate.add_argument("--num-proc", type=int, help="processes that certify and render (same rows)")
    generate.add_argument(
        "--shard", type=_shard, metavar="I/N",
        help="only the I-th of N ranges of cells (tiers), not cached: the N outputs, concatenated per split in "
        "order, are the config's rows (one machine each)",
    )  # fmt: skip
    generate.set_defaults(run=_generate)

    score = commands.add_parser("score", help="score a leaderboard submission ({id, prediction, trace?} JSONL)")
    score.add_argument("submission")
    score.add_argument("--config", default="hard", choices=list(CONFIGS))
    score.add_argument("--split", default="test")
    score.add_argument("--gold", help="gold rows as JSONL instead of --config/--split")
    score.add_argument("--out", help="write the scores as JSON")
    score.set_defaults(run=_score)

    baselines = commands.add_parser("baselines", help="input-blind and reasoner baselines on a config")
    baselines.add_argument("config", choices=list(CONFIGS))
    baselines.add_argument("--split", default="test")
    baselines.add_argument("--out", help="write the scores as JSON")
    baselines.set_defaults(run=_baselines)

    report = commands.add_parser("report", help="markdown report and plots from results")
    report.add_argument("results", nargs="+", help="score/baselines JSON files or lm-eval output folders")
    report.add_argument("--out", default="out/report")
    report.set_defaults(run=_report)

    run = commands.add_parser(
        "run", help="evaluate a model on naf-bench with lm-eval (its API, its output layout), then report"
    )
    run.add_argument("model", nargs="?", help="model folder, Hub name, .gguf file or smollm2 (or --model_args only)")
    run.add_argument("--model", dest="backend", default="hf", help="lm-eval model back-end: hf, vllm, ... (hf)")
    run.add_argument("--model_args", "--model-args", help="passed to lm-eval, e.g. dtype=bfloat16,revision=main")
    run.add_argument("--device", help="default: cuda when torch sees a GPU, else cpu")
    run.add_argument("--batch_size", "--batch-size", type=_batch_size, default=1, help="an integer, or auto")
    chat = run.add_mutually_exclusive_group()
    chat.add_argument("--apply-chat-template", dest="chat_template", action="store_true", default=None,
                      help="format prompts with the tokenizer's chat template (default: when it has one)")  # fmt: skip
    chat.add_argument("--no-chat-template", dest="chat_template", action="store_false", help="plain prompts")
    run.add_argument("--tasks", nargs="+", default=["naf_bench"])
    run.add_argument("--limit", type=float, help="documents per task (a fraction when below 1); the report marks it")
    run.add_argument("--max-gen-toks", type=int, help="new tokens per answer (default: the tasks' 2,048)")
    run.add_argument("--baselines", help="a baselines JSON to show beside the model")
    run.add_argument("--out", default="out/run")
    run.set_defaults(run=_run)

    tasks_path = commands.add_parser("tasks-path", help="print the lm_eval_tasks folder for lm-eval's --include_path")
    tasks_path.set_defaults(run=_tasks_path)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ConfigError as exc:
        print(f"naf-bench {args.command}: {exc}", file=sys.stderr)
        return EXIT_PARSE


if __name__ == "__main__":
    sys.exit(main())
