"""naf_bench.leaderboard.commands: ``naf-bench leaderboard``'s subcommands as parsed and run against a store: the
old form without a subcommand, a team added and revoked, a model approved, and the refusals before any work."""

import argparse
import json

import pytest

from naf_bench.errors import ConfigError
from naf_bench.leaderboard.commands import add_parser, with_default_subcommand
from naf_bench.leaderboard.store import Store


def leaderboard(*argv, build=None):
    """``naf-bench leaderboard ARGV`` parsed by the group this module adds."""
    parser = argparse.ArgumentParser(prog="naf-bench")
    add_parser(parser.add_subparsers(dest="command"), build)
    return parser.parse_args(with_default_subcommand(["leaderboard", *argv]))


def test_the_old_form_without_a_subcommand_is_build():
    assert with_default_subcommand(["leaderboard", "subs", "--gold", "g"]) == [
        "leaderboard",
        "build",
        "subs",
        "--gold",
        "g",
    ]
    assert with_default_subcommand(["leaderboard", "freeze", "--data", "d"]) == ["leaderboard", "freeze", "--data", "d"]
    assert with_default_subcommand(["leaderboard", "--help"]) == ["leaderboard", "--help"]
    assert with_default_subcommand(["score", "subs"]) == ["score", "subs"]


def test_a_team_added_gets_a_token_shown_once_and_only_its_hash_is_kept(tmp_path, capsys):
    args = leaderboard("add-team", "  alpha ", "--data", str(tmp_path))
    assert args.run(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("team 'alpha'; its token (shown once, only its hash is kept):\n")
    token = out.splitlines()[1]
    store = Store(tmp_path)
    assert [(team.kind, team.name, team.revoked) for team in store.teams()] == [("token", "alpha", False)]
    assert store.team_for_token(token).name == "alpha"
    assert token.encode() not in (tmp_path / "board.sqlite").read_bytes()
    store.close()
    args = leaderboard("revoke-team", "alpha", "--data", str(tmp_path))
    assert args.run(args) == 0
    assert capsys.readouterr().out == "revoked the team 'alpha'; 0 queued job(s) cancelled\n"
    assert [team.revoked for team in Store(tmp_path).teams()] == [True]


def test_approve_model_takes_one_team_or_every_team_and_only_a_known_token_team(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    for argv in ([], ["--team", "alpha", "--open"]):
        args = leaderboard("approve-model", str(model), "--data", str(tmp_path / "data"), *argv)
        with pytest.raises(ConfigError, match=r"approve a model for one team \(--team NAME\) or for every team"):
            args.run(args)
    args = leaderboard("approve-model", str(model), "--team", "nobody", "--data", str(tmp_path / "data"))
    with pytest.raises(ConfigError, match="no token team named 'nobody'"):
        args.run(args)


def test_an_open_approval_is_kept_once_and_said_again_as_already_approved(tmp_path, capsys):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    args = leaderboard("approve-model", str(model), "--open", "--data", str(tmp_path / "data"))
    assert args.run(args) == 0
    assert capsys.readouterr().out.startswith(f"approved for every team: {model.resolve()} (submitted by this name;")
    assert args.run(args) == 0
    assert capsys.readouterr().out.startswith("already approved for every team:")
    assert Store(tmp_path / "data").approved_models() == [str(model.resolve())]


def test_build_takes_a_folder_of_submissions_or_a_service_folder_but_not_both(tmp_path):
    built = []
    args = leaderboard("subs", "--gold", "g.jsonl", "--out", "site", build=lambda args: built.append(args) or 7)
    assert (args.leaderboard_command, args.submissions, args.bootstrap) == ("build", "subs", 1000)
    assert args.run(args) == 7 and built == [args]  # the old form runs the static board's command
    args = leaderboard("build", "subs", "--data", str(tmp_path), "--gold", "g", "--out", "site")
    with pytest.raises(ConfigError, match="a folder of submissions or --data DIR, not both"):
        args.run(args)
    args = leaderboard("build", "--gold", "g", "--out", "site")
    with pytest.raises(ConfigError, match=r"needs a folder of submissions \(SUBMISSIONS_DIR\)"):
        args.run(args)
