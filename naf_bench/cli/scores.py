"""Scores of answers: ``score``, ``baselines`` and ``report``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from naf_bench.cli.output import pct, print_records, write_json
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR, EXTRACTORS, unalias_extractor


def _score(args: argparse.Namespace) -> int:
    from naf_bench.data.gold import gold_for, whose
    from naf_bench.errors import ConfigError, DataError
    from naf_bench.scoring.evaluation import score_rows
    from naf_bench.scoring.intake import SUBMISSION, check, input_file, read_submission

    submission = read_submission(input_file(args.submission, SUBMISSION))
    if not submission.entries and submission.malformed:
        summary = submission.malformed_summary()
        raise DataError(
            submission.origin, summary if submission.malformed[0][0] == 0 else f"no answer could be read: {summary}"
        )
    try:
        gold = gold_for(submission.entries, args.config, args.split, args.gold)
        checked = check(submission, gold, explain=whose)
    except (ConfigError, DataError) as exc:
        raise submission.refusal(exc) from None
    problems = submission.line_problems(refused=False) + checked.id_problems()
    entries = submission.entries
    print(f"scored against {gold.name}")
    for note in gold.notes:
        print(f"note: {note}")
    record = score_rows(gold.rows, entries, name=Path(args.submission).stem, extractor=args.extractor)
    print(f"answers read with the {args.extractor!r} extractor")
    print_records([record.to_dict()])
    if record.joint_ci95:
        low, high = pct(record.joint_ci95[0]), pct(record.joint_ci95[1])
        print(f"JOINT {pct(record.joint)}, 95% program-clustered interval [{low}, {high}]")
    solved = record.joint_solved_per_family
    print(
        f"format-valid rate {pct(record.format_valid_rate)}; JOINT per family (solved/programs): "
        + ", ".join(f"{k} {pct(v)} ({solved[k][0]}/{solved[k][1]})" for k, v in record.joint_per_family.items())
    )
    if isinstance(record.traces, dict):
        shares = record.traces["reference_definitions"]
        print(
            f"traces as the authors' v1 audit counts them: sound among correct traced answers "
            f"{pct(shares['sound_among_correct'])}, sound of all {record.traces['n']} traces "
            f"{pct(shares['sound_of_traced'])}"
        )
    theirs = record.reference_definitions
    print(
        f"as the authors' leaderboard defines them: coverage {pct(theirs['coverage'])} (non-null predictions), "
        f"format-valid rate {pct(theirs['format_valid_rate'])} (readable among those)"
    )
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    write_json({**record.to_dict(), "problems": problems}, args.out)
    return 1 if problems else 0


def _baselines(args: argparse.Namespace) -> int:
    from naf_bench.data.gold import gold_rows
    from naf_bench.runs.baselines import reasoner_predictions
    from naf_bench.scoring.evaluation import constant_predictions, score_rows

    rows = gold_rows(args.config, args.split)
    predictions = {**constant_predictions(rows), **reasoner_predictions(rows)}
    records = [score_rows(rows, p, name=name).to_dict() for name, p in predictions.items()]
    print_records(records)
    write_json(records, args.out)
    return 0


def _report(args: argparse.Namespace) -> int:
    from naf_bench.runs.report import load_results, write_report

    records = load_results(args.results)  # lm-eval folders: one record per filter, read with its extractor
    used = [f"{r['name']}: {r['extractor']}" for r in records if r.get("extractor")]
    if used:
        print("answers read with the extractor named per record: " + ", ".join(used))
    print(f"wrote {write_report(records, args.out)}")
    return 0


def _add_score(commands) -> None:
    from naf_bench.generate.config import CONFIGS

    score = commands.add_parser("score", help="score a leaderboard submission ({id, prediction, trace?} JSONL)")
    score.add_argument("submission")
    score.add_argument(
        "--config",
        choices=list(CONFIGS),
        help="the config whose gold to score against (default: the config whose "
        "ids the submission's are; refused where they cannot tell)",
    )
    score.add_argument("--split", help="the config's split (default: the one the ids are in, else the config's last)")
    score.add_argument(
        "--gold",
        help="a gold file instead of --config/--split: naf-bench rows (JSONL), or the NAF-Bench authors' "
        "leaderboard set, evaluate.py gold or data/ prompt set",
    )
    score.add_argument("--out", help="write the scores as JSON")
    score.add_argument(
        "--extractor",
        default=DEFAULT_EXTRACTOR,
        type=unalias_extractor,
        choices=EXTRACTORS,
        help=f"how answers are read (default {DEFAULT_EXTRACTOR}; see naf_bench.scoring.extract)",
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
    report.add_argument(
        "results", nargs="+", help="score/baselines JSON files, lm-eval output folders or inspect eval logs"
    )
    report.add_argument("--out", default="out/report", help="folder for report.md and the plots")
    report.set_defaults(run=_report)


def add_parsers(commands) -> None:
    """This group's commands, in the order the help lists them."""
    _add_score(commands)
    _add_baselines(commands)
    _add_report(commands)
