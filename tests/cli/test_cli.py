"""naf_bench.cli: the parser and ``main``: --version, a missing command, a command dispatched, and a package error
ending in one line on stderr with its exit status (the old leaderboard form included)."""

import pytest

from naf_bench.cli import build_parser, main
from naf_bench.version import __version__


def test_version_prints_the_package_version_and_exits_zero(capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"naf-bench {__version__}\n"


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as done:
        main([])
    assert done.value.code == 2
    assert "naf-bench: error: the following arguments are required: command" in capsys.readouterr().err


def test_certify_is_dispatched_and_prints_the_four_labels(tmp_path, capsys):
    program = tmp_path / "p.lp"
    program.write_text("p :- not q.\n")
    assert main(["certify", str(program), "--query", "p"]) == 0
    assert capsys.readouterr().out.splitlines()[:4] == [
        f"{program}  ?- p",
        "  signature     TTTT",
        "  credulous T   skeptical T   wfs T   sldnf T",
        "  stable models 1",
    ]


def test_a_package_error_is_one_line_on_stderr_and_its_exit_status(tmp_path, capsys):
    assert main(["leaderboard", "approve-model", str(tmp_path), "--data", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == (
        "naf-bench leaderboard: ConfigError: approve a model for one team (--team NAME) or for every team (--open)\n"
    )
    # the old form 'leaderboard SUBMISSIONS_DIR ...' is 'leaderboard build SUBMISSIONS_DIR ...'
    assert main(["leaderboard", "subs", "--data", str(tmp_path), "--gold", "g.jsonl", "--out", "site"]) == 2
    assert capsys.readouterr().err == (
        "naf-bench leaderboard: ConfigError: build takes a folder of submissions or --data DIR, not both\n"
    )
