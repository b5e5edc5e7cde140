"""Every bad input of the first-touch table, fed to every command it applies to: a non-zero status, a few lines
that name the input and say what to do, and no traceback."""

import gzip
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from naf_bench.cli import main
from naf_bench.cli.output import EXIT_INTERRUPTED, EXIT_STATUS

CONDITIONS = ("none", "closed_world", "cred", "skept", "wfs")


@pytest.fixture
def files(tmp_path):
    """Good and bad inputs, each by name: a small gold file and a submission to it, a submission of another set
    (main's ids), a missing file, a folder, an empty file, reference folders with an empty or a folder set file,
    a folder holding a run, malformed submissions (gzip, a JSON array, trailing commas, integer ids, an 'answer'
    field, an unknown id beside a broken line), programs with '~' and ':~', and where a tiny model goes."""
    gold = [
        {
            "id": f"fx-{p}-{c}::{c}",
            "program_id": f"fx-{p}",
            "family": "odd",
            "condition": c,
            "gold": None if c == "none" else "A",
        }
        for p in range(3)
        for c in CONDITIONS
    ]
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
    (paths["submissions"] / "model.jsonl").write_text(paths["submission"].read_text())  # gold is read once one is there
    (paths["ref_empty"] / "data").mkdir(parents=True)
    (paths["ref_empty"] / "data" / "production_set.json").write_text("")
    (paths["ref_folder"] / "data" / "production_set.json").mkdir(parents=True)
    ran = tmp_path / "ran"
    ran.mkdir()
    (ran / "submission.jsonl").write_text(paths["submission"].read_text())
    two = [{"id": row["id"], "prediction": "A"} for row in gold[1:3]]
    bad = {
        "gzipped": gzip.compress(paths["submission"].read_bytes()),
        "array": json.dumps(two, indent=1),
        "commas": "".join(json.dumps(line) + ",\n" for line in two),
        "int_ids": "".join(json.dumps({"id": i, "prediction": "A"}) + "\n" for i in range(2)),
        "answer_field": "".join(json.dumps({"id": line["id"], "answer": "A"}) + "\n" for line in two),
        "one_unknown": json.dumps({"id": "zz-1", "prediction": "A"}) + "\n{bad\n",
        "tilde": "q :- a.\na :- ~b.\n",
        "weak": "q :- a.\n:~ a. [1]\n",
    }
    for name, content in bad.items():
        suffix = {"gzipped": ".jsonl.gz", "tilde": ".lp", "weak": ".lp"}.get(name, ".jsonl")
        paths[name] = tmp_path / f"{name}{suffix}"
        write = paths[name].write_bytes if isinstance(content, bytes) else paths[name].write_text
        write(content)
    paths["ran"], paths["tiny"] = ran, tmp_path / "tiny"
    return paths


def build_unloadable_model(path, build_tiny_lm):
    """A tiny model whose tokenizer and config are sound and whose weights file is not: a refusal that comes
    after it was loaded would be a load error, never the refusal."""
    build_tiny_lm(path)
    for weights in path.glob("*.safetensors"):
        weights.write_bytes(b"not weights")


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
    # '~' where 'not' was meant, and a weak constraint: each named as what it is
    ("certify {tilde}", "{tilde}:2:6: error: '~' is no negation in ASP: default negation is 'not' (a :- not b.)"),
    ("certify {weak}", "{weak}:2:1: error: weak constraints (':~') are not supported"),
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
                                                     "import-authors output folder"),
    # an unknown task name (refused before any model loads: the folder is no model); a model path that does not exist
    ("run {folder} --tasks naf_bench_crd --out {out}", "unknown task 'naf_bench_crd' (closest: naf_bench_cred"),
    ("run {missing} --out {out}", "model '{missing}': no such file or folder (and not a Hub name ORG/NAME)"),
    # run's inputs, each refused before the tiny model (whose weights file is broken) loads
    ("run {tiny} --out {gold}", "--out {gold}: a file, where the run's output folder goes; name a folder"),
    ("run {tiny} --out {gold}/run", "--out {gold}/run: {gold} is a file, where a folder was expected"),
    ("run {tiny} --out {ran}", "--out {ran}: holds an earlier run's submission.jsonl; name another folder, or pass "
                               "--overwrite"),
    ("run {tiny} --limit 0 --out {out}", "--limit 0: give a positive count of documents per task (e.g. 20), or a "
                                         "fraction between 0 and 1"),
    ("run {tiny} --limit -1 --out {out}", "--limit -1: give a positive count"),
    ("run {tiny} --limit 2.5 --out {out}", "--limit 2.5: give a positive count"),
    ("run smolm2 --out {out}", "model 'smolm2': no such file or folder; did you mean smollm2?"),
    ("run {tiny}x --out {out}", "model '{tiny}x': no such file or folder; did you mean {tiny}?"),
    ("run {tiny} --apply_chat_template --out {out}", "--apply-chat-template: the tokenizer of tiny has no chat "
                                                     "template; drop the option (plain prompts)"),
    ("run {tiny} --apply-chat-template --tasks naf_bench_cred --out {out}", "the tokenizer of tiny has no chat"),
    # a submission that is not JSON lines, or whose lines are not {id, prediction}: named, with line numbers
    ("score {gzipped}", "{gzipped}: a gzip file: decompress it first (gunzip -k FILE)"),
    ("score {array}", "{array}: a JSON array, where one JSON object per line was expected"),
    ("score {commas}", "{commas}: no answer could be read: 2 malformed lines: line 1: a comma after the JSON object"),
    ("score {int_ids}", "{int_ids}: no answer could be read: 2 malformed lines: line 1: id 0 is a JSON number; ids "
                        "are strings"),
    ("score {answer_field}", "line 1: id 'fx-0-closed_world::closed_world' has no 'prediction' (it has 'answer': "
                             "name that field 'prediction')"),
    ("score {one_unknown}", "the submission's ids name no naf-bench config (ids such as 'zz-1'): give the gold they "
                            "belong to with --gold FILE, or --config CONFIG; also 1 malformed line: line 2: "
                            "malformed JSON"),
    ("analyze {answer_field} --gold {gold} --out {out}", "line 1: id 'fx-0-closed_world::closed_world' has no "
                                                         "'prediction' (it has 'answer'"),
]  # fmt: skip


def run_command(line: str, files: dict, capsys) -> tuple[int, list[str]]:
    status = main(line.format(**{name: str(path) for name, path in files.items()}).split())
    captured = capsys.readouterr()
    return status, (captured.out + captured.err).splitlines()


@pytest.mark.parametrize(("line", "message"), CASES, ids=[line for line, _ in CASES])
def test_a_bad_input_gets_a_few_lines_naming_it_and_what_to_do(line, message, files, capsys, build_tiny_lm):
    if line.startswith("run "):
        pytest.importorskip("lm_eval", reason="run needs the lm-eval extra")
        if "{tiny}" in line:
            build_unloadable_model(files["tiny"], build_tiny_lm)
            capsys.readouterr()  # the builder's progress bars
    status, lines = run_command(line, files, capsys)
    expected = message.format(**{name: str(path) for name, path in files.items()})
    assert status != 0 and 1 <= len(lines) <= 3, lines
    assert any(expected in printed for printed in lines), (expected, lines)
    assert not any("Traceback" in printed for printed in lines)


def commands_with_set(cli_parsers):
    return {command for command, parser in cli_parsers if any("--set" in a.option_strings for a in parser._actions)}


# each command with --set, with its required arguments (new-set reads --set before it writes or reads a key)
SET_COMMANDS = {
    "generate": "generate main",
    "leaderboard new-set": "leaderboard new-set --key {out}/k --new-key --out {out}",
    "train sft": "train sft --model smollm2 --max-steps 1 --out {out}",
}


@pytest.mark.parametrize(("pair", "message"), [
    ("depths=", "--set 'depths=': no value after '='; give one, e.g. --set depths=8"),
    ("depth=3", "--set 'depth=3': unknown key 'depth'; did you mean depths? the keys are bins, conditions, depths"),
])  # fmt: skip
def test_a_bad_set_is_named_on_every_command_with_set(pair, message, files, capsys, cli_parsers):
    assert commands_with_set(cli_parsers) == set(SET_COMMANDS)
    for command in SET_COMMANDS.values():
        status, lines = run_command(f"{command} --set {pair}", files, capsys)
        assert status == 2 and len(lines) == 1 and message in lines[0]


def test_the_command_itself_prints_no_traceback(files):
    """The installed entry point, as a user runs it: one line on stderr, exit status 1."""
    done = subprocess.run(
        [sys.executable, "-m", "naf_bench.cli", "report", str(files["submission"])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"naf-bench report: DataError: {files['submission']}: a submission")


def test_ctrl_c_ends_a_command_with_one_line_and_status_130(tmp_path):
    """SIGINT while ``certify`` works on a 200,000-rule negation chain (several seconds): one line, the shell's
    status for it."""
    chain = tmp_path / "chain.lp"
    chain.write_text("".join(f"p{i} :- not p{i + 1}.\n" for i in range(200_000)) + "% query: p0\n")
    command = [sys.executable, "-m", "naf_bench.cli", "certify", str(chain), "--progress-after", "600"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert (process.returncode, out, err) == (EXIT_INTERRUPTED, "", "naf-bench certify: interrupted\n")


def test_the_cli_page_gives_the_exit_statuses_the_commands_return(capsys):
    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", page, flags=re.MULTILINE))
    statuses = {kind: status for kind, status in EXIT_STATUS}
    assert set(table) == {"0", *map(str, statuses.values()), str(EXIT_INTERRUPTED)}
    for kind, status in statuses.items():
        assert f"`{kind.__name__}`" in table[str(status)], (kind, table[str(status)])
    assert "interrupted" in table[str(EXIT_INTERRUPTED)] and "a bad option" in table["2"]
    with pytest.raises(SystemExit) as bad_option:
        main(["score", "--no-such-option"])
    assert bad_option.value.code == 2
    capsys.readouterr()


def test_certify_warns_before_the_certificate_of_a_query_the_program_never_mentions(tmp_path):
    (tmp_path / "p.lp").write_text("p :- a.\na :- not b.\n")
    command = [sys.executable, "-m", "naf_bench.cli", "certify", str(tmp_path / "p.lp")]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    lines = done.stdout.splitlines()
    assert lines[0] == f"{tmp_path / 'p.lp'}: note: no --query and no '% query:' header: certifying the query 'q'"
    assert lines[1].startswith(f"{tmp_path / 'p.lp'}: warning: the query 'q' appears nowhere in the program")
    assert lines[2] == f"{tmp_path / 'p.lp'}  ?- q" and lines[3].split() == ["signature", "FFFF"]
