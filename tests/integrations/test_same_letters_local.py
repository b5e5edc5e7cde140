"""The same documents at temperature 0 through each harness's local back-end with one tiny model built here (a
random GPT-2 with a word-level tokenizer and a chat template, ``tiny_chat_lm``): lm-eval ``--model hf``,
inspect_ai's ``hf/`` provider, lighteval's transformers back-end, and lm-eval's chat client at ``transformers
serve`` on 127.0.0.1 give the same completion and so the same letter per item.

lighteval's back-end runs through its Python API: its CLI cannot build its task registry offline (see
:mod:`naf_bench.integrations.lighteval`)."""

import json

import pytest

from naf_bench.integrations.tasks import task_rows, task_spec
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR, extract_answer

pytestmark = [
    pytest.mark.harness,
    pytest.mark.slow,
]  # four back-ends on one tiny model, one of them a server: about 50 s on one core

TASK, N, MAX_TOKENS = "naf_bench_cred", 3, 12


@pytest.fixture(scope="module")
def rows():
    return task_rows(task_spec(TASK)).select(range(N)).to_list()


def lm_eval_answers(out, rows) -> dict:
    """Row id -> (completion, letter of lm-eval's flexible filter) from ``naf-bench run``'s samples under ``out``."""
    (path,) = (out / "lm_eval").rglob(f"samples_{TASK}_*.jsonl")
    answers = {}
    for sample in map(json.loads, path.read_text().splitlines()):
        if sample["filter"] == "flexible-extract":
            (letter,) = sample["filtered_resps"]
            answers[rows[sample["doc_id"]]["id"]] = sample["resps"][0][0], None if letter == "[invalid]" else letter
    return answers


def naf_bench_run(arguments, rows, out) -> dict:
    from naf_bench.cli import main

    assert (
        main(
            [
                "run",
                *arguments,
                "--tasks",
                TASK,
                "--limit",
                str(N),
                "--max-gen-toks",
                str(MAX_TOKENS),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return lm_eval_answers(out, rows)


@pytest.fixture(scope="module")
def hf_answers(tiny_chat_lm, rows, tmp_path_factory):
    """lm-eval ``--model hf`` on the tiny model, through its chat template (``naf-bench run`` applies it)."""
    return naf_bench_run([str(tiny_chat_lm), "--device", "cpu"], rows, tmp_path_factory.mktemp("hf"))


def inspect_answers(model, logs) -> dict:
    from inspect_ai import eval as inspect_eval

    from naf_bench.integrations import inspect as registered

    # hf/ samples unless told not to (do_sample); one prompt at a time, as naf-bench run's batch size is 1
    (log,) = inspect_eval(
        getattr(registered, TASK)(limit=N),
        model=f"hf/{model}",
        display="none",
        model_args={"do_sample": False, "device": "cpu"},
        max_tokens=MAX_TOKENS,
        max_connections=1,
        log_dir=str(logs),
    )
    assert log.status == "success", log.error
    return {s.id: (s.output.completion, s.scores["naf_bench_scorer"].answer or None) for s in log.samples}


def lighteval_answers(model, rows, monkeypatch) -> dict:
    import importlib

    from lighteval.models.transformers.transformers_model import TransformersModel, TransformersModelConfig

    monkeypatch.setenv("NAF_BENCH_DATASET", "unused")  # documents come from the rows here, as the folder gives them
    import naf_bench.integrations.lighteval as module

    config = next(c for c in importlib.reload(module).TASKS_TABLE if c.name == TASK)
    docs = [config.prompt_function(row, TASK) for row in rows]
    for doc in docs:
        doc.generation_size, doc.stop_sequences = MAX_TOKENS, config.stop_sequence
    settings = TransformersModelConfig(
        model_name=str(model), device="cpu", batch_size=1, generation_parameters={"temperature": 0.0}
    )
    client = TransformersModel(settings)
    assert client.use_chat_template  # the tokenizer's template, as lm-eval and inspect apply it
    responses = type(client).greedy_until.__wrapped__(client, docs)  # past lighteval's sample cache
    (metric,) = config.metrics
    return {
        doc.specific["id"]: (r.text[0], metric.compute_sample(doc=doc, model_response=r)["acc"][0][1])
        for doc, r in zip(docs, responses, strict=True)
    }


def test_the_same_completion_and_letter_through_each_local_back_end(
    hf_answers, tiny_chat_lm, rows, tmp_path, monkeypatch
):
    assert list(hf_answers) == [row["id"] for row in rows]
    texts = [text for text, _ in hf_answers.values()]
    assert len(set(texts)) == N and all(len(text.split()) == MAX_TOKENS for text in texts)  # the prompts reach it
    assert {letter for _, letter in hf_answers.values()} - {None}  # the flexible reader finds a letter somewhere
    assert all(letter == extract_answer(text, DEFAULT_EXTRACTOR) for text, letter in hf_answers.values())
    assert inspect_answers(tiny_chat_lm, tmp_path) == hf_answers
    assert lighteval_answers(tiny_chat_lm, rows, monkeypatch) == hf_answers


def test_the_same_completion_and_letter_through_transformers_serve(hf_answers, tiny_chat_lm, rows, tmp_path):
    pytest.importorskip("fastapi")  # transformers' serving extra
    pytest.importorskip("tenacity")  # lm-eval's api extra
    from naf_bench.runs.serving import TransformersServer

    with TransformersServer(tiny_chat_lm, tmp_path / "serve.log", timeout=240) as server:
        served = naf_bench_run(
            ["--model", "local-chat-completions", "--model_args", f"base_url={server.base_url}"],
            rows,
            tmp_path / "served",
        )
    assert served == hf_answers
