"""naf_bench.cli.analyses: ``analyze`` on a run and its gold (the line per run it prints, the files it writes), the
inputs it refuses, and the old spellings ``import-reference`` and ``--reference``."""

import argparse

import pytest

from naf_bench.cli import analyses
from naf_bench.errors import ConfigError


def parse(*argv):
    parser = argparse.ArgumentParser(prog="naf-bench")
    analyses.add_parsers(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_analyze_prints_each_runs_accuracy_per_reading_and_writes_its_tables(
    tmp_path, write_gold, answers, write_submission, capsys
):
    rows = write_gold(tmp_path / "gold.jsonl", n_programs=4)
    write_submission(tmp_path / "team.jsonl", answers(rows, solved=2))  # the others miss closed_world only
    out = tmp_path / "out"
    args = parse(
        "analyze",
        str(tmp_path / "team.jsonl"),
        "--gold",
        str(tmp_path / "gold.jsonl"),
        "--bootstrap",
        "10",
        "--out",
        str(out),
    )
    assert args.run(args) == 0
    assert capsys.readouterr().out.splitlines() == [
        "answers read with the 'strict' extractor",
        "team: accuracy 87.5 (16/16 parsed); closed_world 50.0 (2/4), cred 100.0 (4/4), skept 100.0 (4/4), "
        "wfs 100.0 (4/4)",
        f"wrote {out / 'analysis.json'}",
        f"wrote {out / 'analysis.md'}",
        f"wrote {out / 'accuracy_per_semantics.png'}",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["analyze", "run.jsonl", "--authors", "ref"], "--authors analyzes every imported subset: give no RUN"),
        (["analyze", "--authors", "ref", "--gold", "g.jsonl"], "give no RUN and no --gold"),
        (["analyze", "run.jsonl"], r"give RUN files or folders and --gold \(or --authors REF\)"),
        (["analyze", "--gold", "g.jsonl"], "give RUN files or folders and --gold"),
    ],
)
def test_analyze_refuses_runs_without_gold_and_runs_beside_the_authors_data(tmp_path, argv, message):
    args = parse(*argv, "--out", str(tmp_path / "out"))
    with pytest.raises(ConfigError, match=message):
        args.run(args)
    assert not (tmp_path / "out").exists()


def test_the_old_spellings_name_the_same_commands():
    assert parse("import-reference", "ref", "--out", "o").run is parse("import-authors", "ref", "--out", "o").run
    args = parse("analyze", "--reference", "ref", "--extractor", "stored", "--out", "o")
    assert (args.authors, args.extractor, args.bootstrap, args.runs) == ("ref", "stored", 1000, [])
