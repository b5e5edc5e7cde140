"""``leaderboard``: its subcommands are :mod:`naf_bench.leaderboard.commands`; building a board from submission files
is here, as it prints with the other scoring commands."""

from __future__ import annotations

import argparse
import sys

from naf_bench.cli.output import pct


def _build_from_submissions(args: argparse.Namespace) -> int:
    from naf_bench.leaderboard.board import build_board
    from naf_bench.leaderboard.site import partial_label, write_site

    board, refused = build_board(args.submissions, args.gold, n_bootstrap=args.bootstrap)
    for name, problems in refused.items():
        for field, reason in problems:
            print(f"refused {name}: {field}: {reason}", file=sys.stderr)
    for track, rows in board["tracks"].items():
        ranked = ", ".join(f"{row['rank']}. {row['name']} {pct(row['joint'])}" for row in rows) or "none"
        print(f"{track} track: {ranked}")
        for row in board["partial"][track]:
            print(f"{track} track, not ranked: {row['name']} {pct(row['joint'])} ({partial_label(row)})")
    for path in write_site(board, args.out):
        print(f"wrote {path}")
    return 1 if refused else 0


def add_parsers(commands) -> None:
    """``leaderboard`` and its subcommands; ``leaderboard build`` of submission files runs here."""
    from naf_bench.leaderboard.commands import add_parser

    add_parser(commands, build_from_submissions=_build_from_submissions)
