"""The naf-bench command line: certify logic programs under four readings of negation, generate the benchmark,
score models' answers, reasoning and probabilities, publish a leaderboard, and train models on it."""

from __future__ import annotations

import argparse
import os
import sys

from naf_bench.cli import analyses, boards, models, programs, scores, training
from naf_bench.cli.help import with_help
from naf_bench.cli.output import EXIT_INTERRUPTED, EXIT_STATUS
from naf_bench.errors import NafBenchError


def build_parser() -> argparse.ArgumentParser:
    from naf_bench.version import __version__

    parser = argparse.ArgumentParser(prog="naf-bench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"naf-bench {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for group in (programs, scores, analyses, models, boards, training):
        group.add_parsers(commands)
    with_help(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    from naf_bench.leaderboard.commands import with_default_subcommand

    args = build_parser().parse_args(with_default_subcommand(sys.argv[1:] if argv is None else argv))
    try:
        return args.run(args)
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT
        print(f"naf-bench {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly, also at interpreter exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except NafBenchError as exc:
        print(f"naf-bench {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return next(status for kind, status in EXIT_STATUS if isinstance(exc, kind))
    except OSError as exc:
        print(f"naf-bench {args.command}: {exc}", file=sys.stderr)
        return 1
