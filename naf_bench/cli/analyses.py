"""The paper's analyses: ``import-authors`` (old spelling ``import-reference``) and ``analyze``."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from naf_bench.cli.output import pct
from naf_bench.errors import ConfigError
from naf_bench.scoring.extract import EXTRACTORS, unalias_extractor


def _import_authors(args: argparse.Namespace) -> int:
    from naf_bench.data.authors import import_authors

    report = import_authors(args.ref, args.out)  # a DataError reaches main(): file and line, exit status 1
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
    print(
        f"label disagreements between the authors and our certifier: {len(report.disagreements)} "
        f"(over {total} certified programs)"
    )
    for line in report.disagreements:
        print(f"disagreement: {line}", file=sys.stderr)
    for name, reason in report.failed.items():
        print(f"not imported: {Path(args.ref) / name}: {reason}", file=sys.stderr)
    reasons = Counter(reason.split(":")[0] for reason in report.skipped.values())
    print(
        f"files under {args.ref}: {len(report.imported)} imported, {len(report.failed)} could not be read, "
        f"{len(report.skipped)} not read ({', '.join(f'{n} {why}' for why, n in reasons.most_common())}); "
        f"each file with what it became or why not: {report.summary}"
    )
    return 1 if report.disagreements or report.failed else 0


def _analyze(args: argparse.Namespace) -> int:
    from naf_bench.analysis.outputs import write_analysis
    from naf_bench.analysis.tables import analyze

    if args.authors:
        from naf_bench.analysis.paper import analyze_authors

        if args.runs or args.gold:
            raise ConfigError("--authors analyzes every imported subset: give no RUN and no --gold")
        paper, written = analyze_authors(args.authors, args.out, args.bootstrap, args.extractor)
        for subset, extractor in paper["extractors"].items():
            print(f"{subset}: answers read with the {extractor!r} extractor")
        for path in written:
            print(f"wrote {path}")
        for subset, error in paper["errors"].items():
            print(f"{subset}: not analyzed: {error}", file=sys.stderr)
        return 1 if paper["errors"] else 0
    if not args.runs or not args.gold:
        raise ConfigError("give RUN files or folders and --gold (or --authors REF)")
    result = analyze(args.runs, args.gold, args.extractor or "strict", args.bootstrap)  # a DataError: exit status 1
    for note in result["notes"]:
        print(f"warning: {note}", file=sys.stderr)
    print(f"answers read with the {result['extractor']!r} extractor")
    for name, run in result["runs"].items():
        per = ", ".join(
            f"{c} {pct(v['accuracy'])} ({v['correct']}/{v['n_parsed']})" for c, v in run["per_semantics"].items()
        )
        line = f"{name}: accuracy {pct(run['accuracy'])} ({run['n_parsed']}/{run['n_prompts']} parsed); {per}"
        if run.get("audit"):
            contradicted = run["audit"]["contradicted_among_correct"]
            line += (
                f"; contradicted among correct {pct(contradicted['rate'])} "
                f"({contradicted['contradicted']}/{contradicted['auditable']})"
            )
        print(line)
    for path in write_analysis(result, args.out):
        print(f"wrote {path}")
    return 0


def _add_import_authors(commands) -> None:
    imported = commands.add_parser(
        "import-authors",
        aliases=["import-reference"],
        help="the NAF-Bench authors' data/ and leaderboard/ folders as gold rows and submissions",
    )
    imported.add_argument("ref", help="a clone of the authors' repository, or any folder with its data/ layout")
    imported.add_argument(
        "--out",
        required=True,
        help="folder for <subset>/gold.jsonl, <subset>/runs/*.jsonl, leaderboard/<set>/gold.jsonl and "
        "leaderboard/<set>/submissions/*.jsonl, and import.json: every file under REF with what it became or why not",
    )
    imported.set_defaults(run=_import_authors)


def _add_analyze(commands) -> None:
    analysis = commands.add_parser("analyze", help="the paper's tables from model outputs (see naf_bench.analysis)")
    analysis.add_argument("runs", nargs="*", metavar="RUN", help="submission JSONL files or lm-eval output folders")
    analysis.add_argument("--gold", help="gold rows JSONL (e.g. from import-authors)")
    analysis.add_argument(
        "--authors",
        "--reference",
        dest="authors",
        metavar="REF",
        help="an import-authors output folder: every subset with the extractor its figure used, and paper.md",
    )
    analysis.add_argument(
        "--extractor",
        type=unalias_extractor,
        choices=(*EXTRACTORS, "stored"),
        help="how answers are read (default strict; with --authors, each figure's own; stored: the authors' "
        "letters that import-authors keeps beside each output)",
    )
    analysis.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for the intervals")
    analysis.add_argument("--out", required=True, help="folder for analysis.json, analysis.md and the plots")
    analysis.set_defaults(run=_analyze)


def add_parsers(commands) -> None:
    """This group's commands, in the order the help lists them."""
    _add_import_authors(commands)
    _add_analyze(commands)
