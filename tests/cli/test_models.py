"""naf_bench.cli.models: ``run``'s options as parsed (old spellings, batch size, the chat template's three states),
the checks it makes before a model loads, and ``tasks-path``."""

import argparse
from pathlib import Path

import pytest

import naf_bench
from naf_bench.cli import models
from naf_bench.errors import ConfigError


def parse(*argv):
    parser = argparse.ArgumentParser(prog="naf-bench")
    models.add_parsers(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_run_takes_either_spelling_and_a_batch_size_or_auto():
    args = parse("run", "m", "--model", "vllm", "--model_args", "dtype=bfloat16", "--batch-size", "auto")
    assert (args.model, args.backend, args.model_args, args.batch_size) == ("m", "vllm", "dtype=bfloat16", "auto")
    args = parse("run", "--model-args", "pretrained=x", "--batch_size", "8", "--max_gen_toks", "64")
    assert (args.model, args.backend, args.model_args, args.batch_size, args.max_gen_toks) == (
        None,
        "hf",
        "pretrained=x",
        8,
        64,
    )
    assert (args.tasks, args.out, args.limit, args.dry_run, args.overwrite) == (
        ["naf_bench"],
        "out/run",
        None,
        False,
        False,
    )


def test_the_chat_template_is_on_off_or_left_to_the_tokenizer(capsys):
    assert parse("run", "m").chat_template is None
    assert parse("run", "m", "--apply_chat_template").chat_template is True
    assert parse("run", "m", "--no-chat-template").chat_template is False
    with pytest.raises(SystemExit) as done:
        parse("run", "m", "--apply-chat-template", "--no-chat-template")
    assert done.value.code == 2
    assert "argument --no-chat-template: not allowed with argument --apply-chat-template" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--limit", "0"], "--limit 0: give a positive count of documents per task"),
        (["--limit", "2.5"], "--limit 2.5: give a positive count"),
        (["--out", "{file}"], "a file, where the run's output folder goes; name a folder"),
        (["--out", "{done}"], "holds an earlier run's submission.jsonl; name another folder, or pass --overwrite"),
    ],
)
def test_run_refuses_a_bad_limit_or_output_folder_before_a_model_loads(tmp_path, capsys, extra, message):
    (tmp_path / "file").write_text("")
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "submission.jsonl").write_text("")
    extra = [part.format(file=tmp_path / "file", done=tmp_path / "done") for part in extra]
    args = parse("run", str(tmp_path / "no-model"), *extra)
    with pytest.raises(ConfigError, match=message):
        args.run(args)
    assert capsys.readouterr().out == ""  # refused before it says it is evaluating anything


def test_tasks_path_prints_the_lm_eval_tasks_folder_beside_the_package(capsys):
    args = parse("tasks-path")
    assert args.run(args) == 0
    printed = Path(capsys.readouterr().out.rstrip("\n"))
    assert printed == Path(naf_bench.__file__).resolve().parents[1] / "lm_eval_tasks"
    assert (printed / "naf_bench" / "naf_bench_wfs.yaml").is_file()
