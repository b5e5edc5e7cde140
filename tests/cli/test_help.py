"""naf_bench.cli.help: every option's default shown once (never a flag's, never twice, a % kept as written), and
every command's help ending with its examples and described by its one-line help."""

import argparse

from naf_bench.cli.help import EXAMPLES, with_help


def test_defaults_are_shown_once_and_never_for_a_flag(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    parser = argparse.ArgumentParser(prog="toy")
    parser.add_argument("--rate", type=float, default=0.5, help="share kept, in %")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="seeds")
    parser.add_argument("--fast", action="store_true", help="go fast")
    parser.add_argument("--limit", type=int, default=3, help="rows (default: all of them)")
    parser.add_argument("--name", help="a name")
    parser.add_argument("path", nargs="?", default="x", help="a path")
    with_help(parser)
    assert parser.format_help().split("options:\n")[1] == (
        "  -h, --help            show this help message and exit\n"
        "  --rate RATE           share kept, in % (default: 0.5)\n"
        "  --seeds SEEDS [SEEDS ...]\n"
        "                        seeds (default: 0 1)\n"
        "  --fast                go fast\n"
        "  --limit LIMIT         rows (default: all of them)\n"
        "  --name NAME           a name\n"
        "\n"
        "examples:\n"
        "  naf-bench certify examples/figure1_odd_cycle.lp\n"
        "  naf-bench baselines main --out baselines.json\n"
    )
    assert "  path                  a path\n" in parser.format_help()  # a positional: no default shown


def test_every_command_ends_with_its_own_examples_and_is_described(cli_parsers, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert sorted(command for command, _ in cli_parsers) == sorted(EXAMPLES)  # no command without examples
    for command, parser in cli_parsers:
        assert parser.format_help().endswith("examples:\n" + "".join(f"  {line}\n" for line in EXAMPLES[command])), (
            command
        )
        assert parser.description, command
    worker = dict(cli_parsers)["leaderboard worker"]
    assert worker.description.startswith("run the model jobs teams submit, one at a time, on the hidden set")
    lines = worker.format_help().splitlines()
    assert "  --stale STALE         seconds without a heartbeat: its worker is dead (default: 60.0)" in lines
    assert "  --once                stop when no job waits" in lines
