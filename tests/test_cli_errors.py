"""Every bad input of the first-touch table, fed to every command it applies to: a non-zero status, a few lines
that name the input and say what to do, and no traceback."""

import json
import subprocess
import sys

import pytest

from naf_bench.cli import main

CONDITIONS = ("none", "closed_world", "cred", "skept", "wfs")


@pytest.fixture
def files(tmp_path):
    """Good and bad inputs, each by name: a small gold file and a submission to it, a submission of another set
    (main's ids), a missing file, a folder, an empty file, reference folders with an empty or a folder set file."""
    gold = [{"id": f"fx-{p}-{c}::{c}", "program_id": f"fx-{p}", "family": "odd", "condition": c,
             "gold": None if c == "none" else "A"} for p in range(3) for c in CONDITIONS]  # fmt: skip
    paths = {
        "gold": tmp_path / "gold.jsonl",
        "submission": tmp_path / "submission.jsonl",
        "other_set": tmp_path / "main-answers.jsonl",
        "missing": tmp_path / "missing.jsonl",
        "folder": tmp_path / "folder",
        "empty": tmp_path / "empty.jsonl",
        "submissions": tmp_path / "submissions",
        "ref_empty": tmp_path / "ref-empty",
        "ref_folder": tmp_path / "ref-folder",
        "out": tmp_path / "out",
    }
    paths["gold"].write_text("".join(json.dumps(row) + "\n" for row in gold))
    lines = [{"id": row["id"], "prediction": "A"} for row in gold if row["gold"]]
    paths["submission"].write_text("".join(json.dumps(line) + "\n" for line in lines))
    other = [{"id": f"nb-main-odd-i{i}-wfs::wfs", "prediction": "A"} for i in range(30)]
    paths["other_set"].write_text("".join(json.dumps(line) + "\n" for line in other))
    paths["folder"].mkdir()
    paths["empty"].write_text("\n")
    paths["submissions"].mkdir()
    (paths["ref_empty"] / "data").mkdir(parents=True)
    (paths["ref_empty"] / "data" / "production_set.json").write_text("")
    (paths["ref_folder"] / "data" / "production_set.json").mkdir(parents=True)
    return paths


# (command line with {name} for a path of `files`, what the message must say besides naming the input)
CASES = [
    # a missing file; a directory where a file is expected; an empty file
    ("score {missing}", "{missing}: no such file (a submission (one JSON line {{id, prediction}} per answer)"),
    ("score {folder}", "{folder}: a folder, where a submission"),
    ("score {empty}", "{empty}: empty file, where a submission"),
    ("score {submission} --gold {missing}", "{missing}: no such file (gold rows"),
    ("score {submission} --gold {folder}", "{folder}: a folder, where gold rows"),
    ("score {submission} --gold {empty}", "{empty}: empty file, where gold rows"),
    ("certify {missing}", "{missing}: error: No such file or directory (a program file in ASP syntax was expected)"),
    ("certify {folder}", "{folder}: error: Is a directory (a program file in ASP syntax was expected)"),
    ("certify {empty}", "{empty}: error: no rules (an empty program): nothing to certify"),
    ("report {missing}", "{missing}: no such file (scores (the JSON of `naf-bench score --out`"),
    ("report {folder}", "{folder}: no samples_*.jsonl (an lm-eval output folder was expected)"),
    ("report {empty}", "{empty}: empty file, where scores"),
    ("analyze {missing} --gold {gold} --out {out}", "{missing}: no such file (a run (a submission JSONL file"),
    ("analyze {folder} --gold {gold} --out {out}", "{folder}: no samples_*.jsonl (an lm-eval output folder"),
    ("analyze {empty} --gold {gold} --out {out}", "{empty}: empty file, where a run"),
    ("analyze {submission} --gold {missing} --out {out}", "{missing}: no such file (gold rows"),
    ("analyze {submission} --gold {folder} --out {out}", "{folder}: a folder, where gold rows"),
    ("analyze {submission} --gold {empty} --out {out}", "{empty}: empty file, where gold rows"),
    ("leaderboard build {missing} --gold {gold} --out {out}", "{missing}: no such folder, where a folder of"),
    ("leaderboard build {gold} --gold {gold} --out {out}", "{gold}: a file, where a folder of submissions"),
    ("leaderboard build {submissions} --gold {missing} --out {out}", "{missing}: no such file (gold rows"),
    ("leaderboard build {submissions} --gold {folder} --out {out}", "{folder}: a folder, where gold rows"),
    ("leaderboard build {submissions} --gold {empty} --out {out}", "{empty}: empty file, where gold rows"),
    ("import-reference {missing} --out {out}", "{missing}: no such folder, where a clone of the authors' repository"),
    ("import-reference {gold} --out {out}", "{gold}: a file, where a clone of the authors' repository"),
    ("import-reference {ref_empty} --out {out}",
     "{ref_empty}/data/production_set.json: empty file, where a JSON file of the authors' data/ layout"),
    ("import-reference {ref_folder} --out {out}",
     "{ref_folder}/data/production_set.json: a folder, where a JSON file of the authors' data/ layout"),
    # a split the config lacks
    ("score {submission} --config main --split train", "config 'main' has no split 'train'; expected one of ['test']"),
    ("baselines main --split train", "config 'main' has no split 'train'; expected one of ['test']"),
    ("generate main --split train", "config 'main' has no split 'train'; expected one of ['test']"),
    # a submission of another config or split
    ("score {other_set} --gold {gold}",
     "{other_set}: 0 of 30 submitted ids are in {gold}; they are main/test's ids: score them with --config main"),
    # a submission where a run folder is expected
    ("report {submission}", "{submission}: a submission ({{id, prediction}} lines), not scores: score it first"),
    ("analyze --reference {submission} --out {out}", "{submission}: a submission ({{id, prediction}} lines), where an "
                                                     "import-reference output folder"),
    # an unknown task name (refused before any model loads: the folder is no model); a model path that does not exist
    ("run {folder} --tasks naf_bench_crd --out {out}", "unknown task 'naf_bench_crd' (closest: naf_bench_cred"),
    ("run {missing} --out {out}", "model '{missing}': no such file or folder (and not a Hub name ORG/NAME)"),
]  # fmt: skip


def run_command(line: str, files: dict, capsys) -> tuple[int, list[str]]:
    status = main(line.format(**{name: str(path) for name, path in files.items()}).split())
    captured = capsys.readouterr()
    return status, (captured.out + captured.err).splitlines()


@pytest.mark.parametrize(("line", "message"), CASES, ids=[line for line, _ in CASES])
def test_a_bad_input_gets_a_few_lines_naming_it_and_what_to_do(line, message, files, capsys):
    if line.startswith("run "):
        pytest.importorskip("lm_eval", reason="run needs the lm-eval extra")
    status, lines = run_command(line, files, capsys)
    expected = message.format(**{name: str(path) for name, path in files.items()})
    assert status != 0 and 1 <= len(lines) <= 3, lines
    assert any(expected in printed for printed in lines), (expected, lines)
    assert not any("Traceback" in printed for printed in lines)


def commands_with_set():
    from test_cli import parsers

    return {command for command, parser in parsers() if any("--set" in a.option_strings for a in parser._actions)}


# each command with --set, with its required arguments (new-set reads --set before it writes or reads a key)
SET_COMMANDS = {
    "generate": "generate main",
    "leaderboard new-set": "leaderboard new-set --key {out}/k --new-key --out {out}",
}


@pytest.mark.parametrize(("pair", "message"), [
    ("depths=", "--set 'depths=': no value after '='; give one, e.g. --set depths=8"),
    ("depth=3", "--set 'depth=3': unknown key 'depth'; did you mean depths? the keys are bins, conditions, depths"),
])  # fmt: skip
def test_a_bad_set_is_named_on_every_command_with_set(pair, message, files, capsys):
    assert commands_with_set() == set(SET_COMMANDS)
    for command in SET_COMMANDS.values():
        status, lines = run_command(f"{command} --set {pair}", files, capsys)
        assert status == 2 and len(lines) == 1 and message in lines[0]


def test_the_command_itself_prints_no_traceback(files):
    """The installed entry point, as a user runs it: one line on stderr, exit status 1."""
    done = subprocess.run([sys.executable, "-m", "naf_bench.cli", "report", str(files["submission"])],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"naf-bench report: DataError: {files['submission']}: a submission")
