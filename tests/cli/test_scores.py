"""The generate / score / baselines / report / run commands."""

import itertools
import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import naf_bench
from naf_bench import ConfigError
from naf_bench.cli import main
from naf_bench.data.dataset import code_version
from naf_bench.data.gold import gold_rows
from naf_bench.runs.run import has_chat_template, model_arguments, tasks_dir
from naf_bench.scoring.evaluation import constant_predictions
from naf_bench.scoring.metadata import validate_metadata


@pytest.fixture(scope="module")
def rows():
    return gold_rows("main", "test")


def write_jsonl(path, records):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_score_gold_letters_gives_joint_100(rows, tmp_path, capsys):
    submission = write_jsonl(
        tmp_path / "gold.jsonl", [{"id": r["id"], "prediction": r["gold"]} for r in rows if r["gold"]]
    )
    assert main(["score", str(submission), "--config", "main", "--out", str(tmp_path / "s.json")]) == 0
    scores = json.loads((tmp_path / "s.json").read_text())
    assert (scores["joint"], scores["per_prompt_accuracy"], scores["coverage"], scores["problems"]) == (
        1.0,
        1.0,
        1.0,
        [],
    )
    assert "100.0" in capsys.readouterr().out


def test_score_matches_the_baseline_command(rows, tmp_path):
    best = constant_predictions(rows)["best_constant_per_condition"]
    submission = write_jsonl(
        tmp_path / "best.jsonl", [{"id": k, "prediction": v["prediction"]} for k, v in best.items()]
    )
    assert main(["score", str(submission), "--config", "main", "--out", str(tmp_path / "s.json")]) == 0
    assert main(["baselines", "main", "--out", str(tmp_path / "b.json")]) == 0
    scored = json.loads((tmp_path / "s.json").read_text())
    baseline = next(
        r for r in json.loads((tmp_path / "b.json").read_text()) if r["name"] == "best_constant_per_condition"
    )
    for key in ("joint", "per_prompt_accuracy", "per_semantics", "joint_per_family"):
        assert scored[key] == baseline[key]


def test_score_reports_every_problem_by_line(rows, tmp_path, capsys):
    named = [r for r in rows if r["gold"]]
    submission = write_jsonl(tmp_path / "bad.jsonl", [
        {"id": named[0]["id"], "prediction": named[0]["gold"]},
        "{not json",
        {"id": named[0]["id"], "prediction": "B"},
        {"id": "prod-odd-i999-wfs::wfs", "prediction": "C"},
        {"prediction": "A"},
        {"id": named[1]["id"], "prediction": 3},
        {"id": named[2]["id"], "prediction": "A", "trace": ["x"]},
    ])  # fmt: skip
    assert main(["score", str(submission), "--config", "main", "--out", str(tmp_path / "s.json")]) == 1
    problems = json.loads((tmp_path / "s.json").read_text())["problems"]
    assert problems == [
        "line 2: malformed JSON (Expecting property name enclosed in double quotes, column 2)",
        f"line 3: duplicate id {named[0]['id']!r} (first on line 1); kept the first",
        "line 5: needs a string 'id'",
        f"line 6: id {named[1]['id']!r}: 'prediction' is a JSON number; give the model's text (a string), or null: "
        "unanswered",
        f"line 7: id {named[2]['id']!r} has a 'trace' that is not a string",
        "unknown id 'prod-odd-i999-wfs::wfs' (not in the gold set)",
        f"{len(named) - 1} gold ids have no prediction (scored as unanswered), e.g. "
        f"{sorted({r['id'] for r in named} - {named[0]['id']})[:3]}",
    ]
    assert "warning: line 2: malformed JSON" in capsys.readouterr().err


def test_baselines_oracle_and_weak_reasoner(tmp_path):
    assert main(["baselines", "main", "--out", str(tmp_path / "b.json")]) == 0
    records = {r["name"]: r for r in json.loads((tmp_path / "b.json").read_text())}
    oracle = records["oracle"]
    assert oracle["joint"] == 1.0 and set(oracle["per_semantics"].values()) == {1.0}
    assert oracle["traces"]["proof_accuracy"] == 1.0 and oracle["traces"]["rfwr"] == 0.0
    weak = records["forward_chainer"]["by_bin_semantics"]
    assert set(weak["control"].values()) == {1.0}  # strong on control ...
    assert weak["odd"]["wfs"] == weak["odd"]["closed_world"] == 0.0  # ... collapsing on divergent bins ...
    assert (weak["odd"]["skept"], weak["odd"]["cred"]) == (23 / 30, 7 / 30)  # ... skeptical-odd right more often ...
    traces = records["forward_chainer"]["traces"]
    assert (traces["unearned_correct"], traces["rfwr"]) == (23, 0.5)  # ... for the wrong reason


def png_size(path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def limited_run(rows, folder, model="HuggingFaceTB/SmolLM2-135M-Instruct"):
    """An lm-eval output folder of a ``--limit 2`` run of the joint task: two programs, the first answered right,
    the second wrong under every reading."""
    folder.mkdir(parents=True)
    programs = sorted({row["program_id"] for row in rows if row["condition"] != "none"})[:2]
    documents = [
        {"rows": [row for row in rows if row["program_id"] == program and row["condition"] != "none"]}
        for program in programs
    ]
    letters = [
        [row["gold"] for row in documents[0]["rows"]],
        ["C" if row["gold"] != "C" else "A" for row in documents[1]["rows"]],
    ]
    samples = [
        {"doc": doc, "filter": f, "resps": [[f"ANSWER: {letter}"] for letter in answers]}
        for doc, answers in zip(documents, letters, strict=True)
        for f in ("strict-match", "flexible-extract")
    ]
    write_jsonl(folder / "samples_naf_bench_joint_2026.jsonl", samples)
    (folder / "results_2026.json").write_text(
        json.dumps(
            {
                "config": {"model_args": f"pretrained={model}"},
                "n-samples": {"naf_bench_joint": {"original": 120, "effective": 2}},
            }
        )
    )
    return folder


def test_report_writes_markdown_and_plots(rows, tmp_path):
    assert main(["baselines", "main", "--out", str(tmp_path / "b.json")]) == 0
    records = json.loads((tmp_path / "b.json").read_text())
    records[0]["flip_rate"] = 0.25
    (tmp_path / "b.json").write_text(json.dumps(records))
    assert main(["report", str(tmp_path / "b.json"), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert "| oracle | 480 prompts | 100.0 | 100.0–100.0 | 100.0 |" in report and "![JOINT" in report
    assert "*limited*" not in report
    assert "Flip rate across rule orders: constant_A 25.0" in report
    for name in ("accuracy_by_bin.png", "joint.png", "flip_rate.png"):
        path = tmp_path / "report" / name
        taller = name == "accuracy_by_bin.png"  # 8 names and the bins' labels below
        assert path.stat().st_size > 5000 and png_size(path) == (1000, 488 if taller else 400)


def test_a_limited_run_is_in_the_main_table_and_every_plot(rows, tmp_path):
    """A first run (``--limit 2``) shows its model: a row of the main table, marked limited, and a label in each
    plot, with or without baselines; every label lies inside its figure, none over another."""
    from naf_bench.runs.report import load_results, plots

    run = limited_run(rows, tmp_path / "lm_eval" / "smollm2")
    assert main(["report", str(run), "--out", str(tmp_path / "alone")]) == 0
    table = (tmp_path / "alone" / "report.md").read_text().split("\n\n")[2]
    assert (
        "| strict-match: HuggingFaceTB/SmolLM2-135M-Instruct | limited: 2 of 120 documents | 50.0 | – | 50.0 |" in table
    )
    assert sorted(p.name for p in (tmp_path / "alone").glob("*.png")) == ["accuracy_by_bin.png", "joint.png"]
    assert main(["baselines", "main", "--out", str(tmp_path / "b.json")]) == 0
    figures = plots(load_results([tmp_path / "b.json", run]))  # as `run --baselines` reads them
    assert [name for _, name, _ in figures] == ["accuracy_by_bin.png", "joint.png"]
    model = "strict-match: HuggingFaceTB/SmolLM2-135M-Instruct (limited)"
    for _, name, figure in figures:
        figure.canvas.draw()
        renderer, frame = figure.canvas.get_renderer(), figure.bbox
        labels = figure.axes[0].get_yticklabels()
        assert "".join(model.split()) in ["".join(label.get_text().split()) for label in labels], name
        assert len(labels) == 8 + 2  # the baselines and both filters of the model
        boxes = [
            text.get_window_extent(renderer)
            for text in figure.findobj(lambda a: hasattr(a, "get_text"))
            if getattr(text, "get_text", lambda: "")() and text.get_visible()
        ]
        assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1 for b in boxes), name
        tick_boxes = [label.get_window_extent(renderer) for label in labels]
        assert not any(a.overlaps(b) for a, b in itertools.pairwise(tick_boxes)), name


def test_plot_labels_break_between_words():
    from naf_bench.runs.report import _wrap

    assert _wrap("best_constant_per_condition") == "best_constant_per_condition"
    assert _wrap("flexible-extract: HuggingFaceTB/SmolLM2-135M-Instruct (limited)") == (
        "flexible-extract: HuggingFaceTB/\nSmolLM2-135M-Instruct (limited)"
    )
    assert _wrap("x" * 40) == "x" * 36 + "\n" + "xxxx"  # a word longer than a line is cut


def test_generate_writes_jsonl_and_parquet(tmp_path, capsys):
    out = tmp_path / "main.jsonl"
    assert main(["generate", "main", "--set", "programs_per_cell=2", "--set", "depths=3", "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 40 and {r["depth"] for r in lines} == {3}
    assert (
        main(["generate", "main", "--seed", "5", "--set", "programs_per_cell=1", "--out", str(tmp_path / "m.parquet")])
        == 0
    )
    assert (tmp_path / "m.parquet").stat().st_size > 0
    assert main(["generate", "main", "--set", "depth=3"]) == 2
    assert "--set 'depth=3': unknown key 'depth'; did you mean depths? the keys are bins, " in capsys.readouterr().err
    assert main(["generate", "main", "--set", "depths=two"]) == 2
    assert "--set 'depths=two': tuple[int, ...] expected" in capsys.readouterr().err


def test_run_a_tiny_model_end_to_end(tmp_path, build_tiny_lm):
    pytest.importorskip("lm_eval")

    build_tiny_lm(tmp_path / "tiny")
    arguments = ["run", str(tmp_path / "tiny"), "--limit", "2", "--max-gen-toks", "4", "--out", str(tmp_path / "run")]
    assert main([*arguments, "--tasks", "naf_bench", "naf_bench_mc", "--device", "cpu", "--batch_size", "2"]) == 0
    folder = tmp_path / "run" / "lm_eval" / "tiny"  # lm-eval's layout, the folder named after the model
    assert list(folder.glob("samples_naf_bench_joint_*.jsonl")) and list(folder.glob("results_*.json"))
    results = json.loads(next(folder.glob("results_*.json")).read_text())
    assert results["config"]["batch_size"] == 2 and results["config"]["device"] == "cpu"
    assert results["config"]["naf_bench_chat_template"] is False  # the tiny tokenizer has none: plain prompts
    assert results["config"]["naf_bench_prompts"] == "plain prompts: the tokenizer has no chat template"
    metadata = results["configs"]["naf_bench_joint"]["metadata"]
    assert metadata["naf_bench_version"] == naf_bench.__version__ and metadata["naf_bench_code_hash"] == code_version()
    assert results["n-samples"]["naf_bench_joint"] == {"original": 120, "effective": 2}
    report = (tmp_path / "run" / "report.md").read_text()
    # one row per filter, the headline (the default extractor's filter) first; the mc run's rho sits in its row
    assert report.count("| strict-match: tiny |") == 1 and report.count("| flexible-extract: tiny |") == 1
    assert report.index("| flexible-extract: tiny |") < report.index("| strict-match: tiny |")
    assert "| flexible-extract: tiny | limited: 4 of 240 documents |" in report  # none: 2 prompts, joint: 2 programs
    mc_header, _, mc_row = report[report.index("| model (multiple choice") :].splitlines()[:3]
    rho_certified = dict(zip(mc_header.split(" | "), mc_row.split(" | "), strict=True))["rho_certified"]
    assert -1.0 <= float(rho_certified) <= 1.0  # rho on its own scale, not in %
    for plot in ("rho.png", "accuracy_by_bin.png", "joint.png"):  # the model's plots, with no baselines given
        assert png_size(tmp_path / "run" / plot) == (1000, 400)
    # the answers as a leaderboard submission: every generated prompt, the full output as answer and trace
    submission = [json.loads(line) for line in (tmp_path / "run" / "submission.jsonl").read_text().splitlines()]
    samples = [
        json.loads(line)
        for path in folder.glob("samples_naf_bench_*.jsonl")
        if "_mc_" not in path.name
        for line in path.read_text().splitlines()
    ]
    outputs = {
        row["id"]: response[0]
        for s in samples
        if s["filter"] == "strict-match"
        for row, response in zip(s["doc"].get("rows", [s["doc"]]), s["resps"], strict=True)
    }
    assert len(submission) == len(outputs) == 10  # joint: 2 programs x 4 readings; none: 2 prompts
    for line in submission:
        assert line["prediction"] == line["trace"] == outputs[line["id"]]
    metadata = json.loads((tmp_path / "run" / "submission.metadata.json").read_text())
    assert validate_metadata(metadata) == []
    assert (metadata["model_name"], metadata["track"], metadata["temperature"], metadata["samples_per_item"]) == (
        "tiny",
        "standard",
        0.0,
        1,
    )
    assert metadata["max_tokens"] == 4 and metadata["chat_template"] is False
    assert "Prompts: tiny: plain prompts: the tokenizer has no chat template" in report
    assert main(arguments) == 2  # the run is kept: a second one into the same folder is refused, nothing loaded


def test_a_run_whose_files_cannot_be_written_keeps_its_answers(tmp_path, build_tiny_lm):
    """Past the command's checks (run_model called directly, into a folder under a file): lm-eval's tracker only
    logs that it could not write, so run_model looks, keeps the answers in a file and names it."""
    pytest.importorskip("lm_eval")

    from naf_bench.errors import DataError
    from naf_bench.runs.run import run_model

    build_tiny_lm(tmp_path / "tiny")
    (tmp_path / "file").write_text("")
    kept_in = "lm-eval could not write it; the run's results and answers are kept in"
    with pytest.raises(DataError, match=kept_in) as error:
        run_model(
            str(tmp_path / "tiny"),
            tmp_path / "file" / "lm_eval",
            ("naf_bench_cred",),
            device="cpu",
            limit=1,
            max_gen_toks=2,
        )
    kept = Path(str(error.value).rsplit(" ", 1)[1])
    try:
        saved = json.loads(kept.read_text())
        assert len(saved["samples"]["naf_bench_cred"]) == 2  # 1 document, under each filter
        assert saved["results"]["config"]["naf_bench_chat_template"] is False
    finally:
        kept.unlink()


def test_run_help_lists_the_lm_eval_options(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    for option in (
        "--model BACKEND",
        "--model_args",
        "--device",
        "--batch_size",
        "--apply-chat-template",
        "--no-chat-template",
        "--limit",
        "--tasks",
    ):
        assert option in text


def test_model_arguments_pass_through():
    assert model_arguments("org/model", "dtype=bfloat16,revision=main") == {
        "pretrained": "org/model",
        "dtype": "bfloat16",
        "revision": "main",
    }
    assert model_arguments("/models/base.Q4.gguf") == {"pretrained": "/models", "gguf_file": "base.Q4.gguf"}
    assert model_arguments(None, "pretrained=gpt2,tensor_parallel_size=2") == {
        "pretrained": "gpt2",
        "tensor_parallel_size": "2",
    }
    with pytest.raises(ConfigError, match="name a model"):
        model_arguments(None)
    with pytest.raises(ConfigError, match="expected KEY=VALUE"):
        model_arguments("gpt2", "bfloat16")


def test_chat_template_is_read_from_the_tokenizer(tmp_path, build_tiny_lm):

    _, tokenizer = build_tiny_lm()
    tokenizer.save_pretrained(tmp_path / "base")
    assert has_chat_template({"pretrained": str(tmp_path / "base")}) is False
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    tokenizer.save_pretrained(tmp_path / "instruct")
    assert has_chat_template({"pretrained": str(tmp_path / "instruct")}) is True
    assert has_chat_template({"pretrained": "unused", "tokenizer": str(tmp_path / "instruct")}) is True


def test_tasks_path_prints_the_include_path(capsys):
    assert main(["tasks-path"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert folder == tasks_dir() and (folder / "naf_bench" / "_template_yaml").is_file()
    done = subprocess.run(
        [sys.executable, "-m", "naf_bench.runs.tasks_path"], capture_output=True, text=True, check=True
    )
    assert Path(done.stdout.strip()) == folder


@pytest.fixture(scope="module")
def small_gold(tmp_path_factory):
    """Gold rows of two certified programs, written as a --gold JSONL (no dataset build)."""
    from naf_bench import certify
    from naf_bench.readings import gold_letter

    rows = []
    for program_id, family, text in (
        ("t-odd", "odd", "q :- a. a :- not b. b :- not c. c :- not a."),
        ("t-control", "control", "q :- a. a :- not b."),
    ):
        certificate = certify(text)
        for condition in ("closed_world", "cred", "skept", "wfs"):
            rows.append({"id": f"{program_id}-{condition}::{condition}", "program_id": program_id, "family": family,
                         "condition": condition, "gold": gold_letter(condition, certificate.labels),
                         "certificate": certificate.to_json()})  # fmt: skip
    return rows, write_jsonl(tmp_path_factory.mktemp("gold") / "gold.jsonl", rows)


def test_score_names_its_extractor_prints_the_joint_interval_and_no_proof_score_on_free_form(
    small_gold, tmp_path, capsys
):
    rows, gold = small_gold
    submission = write_jsonl(
        tmp_path / "run.jsonl",
        [
            {
                "id": r["id"],
                "prediction": f"ANSWER: {r['gold'] if r['program_id'] == 't-control' else 'A'}",
                "trace": "Since a holds, q is true.",
            }
            for r in rows
        ],
    )
    out = tmp_path / "s.json"
    assert main(["score", str(submission), "--gold", str(gold), "--extractor", "strict", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    scores = json.loads(out.read_text())
    assert (scores["extractor"], scores["joint"], scores["per_prompt_accuracy"]) == ("strict", 0.5, 0.625)
    assert "answers read with the 'strict' extractor" in printed
    low, high = scores["joint_ci95"]
    assert f"JOINT 50.0, 95% program-clustered interval [{100 * low:.1f}, {100 * high:.1f}]" in printed
    assert (scores["traces"]["n_checkable"], scores["traces"]["proof_accuracy"], scores["traces"]["rfwr"]) == (
        0,
        None,
        None,
    )
    assert "proof accuracy n/a (0 of 8 checkable)" in printed
    # the same trace, audited against the certificate of each gold row: sound on control, contradicted on odd
    assert scores["traces"]["audit"] == {"sound": 2, "contradicted": 2, "unverifiable": 4, "no_derivation": 0}


def test_report_keeps_mitigation_runs_apart(small_gold, tmp_path):
    from naf_bench.runs.report import load_results

    rows, _ = small_gold
    folder = tmp_path / "lm_eval" / "model"
    folder.mkdir(parents=True)
    filters = ("strict-match", "flexible-extract")
    main_run = [{"doc": r, "filter": f, "resps": [[f"ANSWER: {r['gold']}"]]} for r in rows for f in filters]
    verify_run = [
        {"doc": r, "filter": f, "resps": [["ANSWER: B" if r["gold"] != "B" else "ANSWER: A"]]}
        for r in rows
        for f in filters
    ]
    write_jsonl(folder / "samples_naf_bench_wfs44_2026.jsonl", main_run)
    write_jsonl(folder / "samples_naf_bench_wfs44_verify_2026.jsonl", verify_run)
    # translate-then-solve: the control program translated right, the odd one translated without its cycle
    translations = {"t-control": "q :- a.\na :- not b.\nQUERY: q", "t-odd": "q :- a.\na.\nQUERY: q"}
    t2s_run = [{"doc": r, "filter": "strict-match", "resps": [[translations[r["program_id"]]]]} for r in rows]
    write_jsonl(folder / "samples_naf_bench_wfs44_t2s_2026.jsonl", t2s_run)
    records = {r["name"]: r for r in load_results([tmp_path / "lm_eval"])}
    assert set(records) == {
        "strict-match: model",
        "flexible-extract: model",
        "strict-match: model [wfs44_verify]",
        "flexible-extract: model [wfs44_verify]",
        "strict-match: model [wfs44_t2s]",
    }
    assert records["strict-match: model [wfs44_t2s]"]["per_prompt_accuracy"] == 5 / 8  # odd: only skeptical right
    assert records["strict-match: model"]["per_prompt_accuracy"] == 1.0
    assert records["flexible-extract: model [wfs44_verify]"]["per_prompt_accuracy"] == 0.0
    assert records["flexible-extract: model"]["extractor"] == "flexible"
