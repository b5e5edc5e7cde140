"""The same documents through lm-eval, lighteval and inspect_ai, each through its own OpenAI-compatible client, at
one logging stub: the same chat messages and settings reach the server, and the same letter is read per item."""

import pytest

from naf_bench.integrations.tasks import task_rows, task_spec
from naf_bench.scoring.extract import extract_answer

pytestmark = pytest.mark.harness  # inspect_ai, lighteval: see conftest.py


TASK, N = "naf_bench_cred", 6


def _sent(requests):
    """What each request asked, by its user turn: the chat messages and the generation settings sent (no stop
    sequence: lm-eval and inspect send no ``stop``, lighteval's client an empty list, which stops nothing)."""
    return {
        r["messages"][-1]["content"]: (
            r["messages"],
            r.get("temperature"),
            r.get("max_tokens"),
            tuple(r.get("stop") or ()),
        )
        for r in requests
    }


def lm_eval_run(stub, tmp_path):
    from naf_bench.cli import main

    before = len(stub.requests)
    assert (
        main(
            [
                "run",
                "--model",
                "local-chat-completions",
                "--model_args",
                f"base_url={stub.base_url}",
                "--tasks",
                TASK,
                "--limit",
                str(N),
                "--out",
                str(tmp_path / "lm_eval"),
            ]
        )
        == 0
    )
    return stub.requests[before:]


def inspect_run(stub, tmp_path, monkeypatch):
    from inspect_ai import eval as inspect_eval

    from naf_bench.integrations import inspect as registered

    before = len(stub.requests)
    (log,) = inspect_eval(
        getattr(registered, TASK)(limit=N),
        model="openai-api/stub/stub",
        display="none",
        log_dir=str(tmp_path / "inspect"),
    )
    letters = {s.id: s.scores["naf_bench_scorer"].answer or None for s in log.samples}
    return stub.requests[before:], letters


def lighteval_run(stub, rows, monkeypatch):
    import importlib

    from lighteval.models.endpoints.litellm_model import LiteLLMClient, LiteLLMModelConfig

    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm fetches its price list unless told
    monkeypatch.setenv("NAF_BENCH_DATASET", "unused")  # documents come from the rows here, as the folder gives them
    import naf_bench.integrations.lighteval as module

    config = next(c for c in importlib.reload(module).TASKS_TABLE if c.name == TASK)
    docs = [config.prompt_function(row, TASK) for row in rows]
    for doc in docs:
        doc.generation_size, doc.stop_sequences = config.generation_size, config.stop_sequence
    settings = LiteLLMModelConfig(
        model_name="openai/stub",
        base_url=stub.base_url,
        api_key="unused",
        concurrent_requests=1,
        generation_parameters={"temperature": 0.0},
    )
    client = LiteLLMClient(settings)
    before = len(stub.requests)
    # the client itself, past lighteval's sample cache (its parquet round trip rebuilds ModelResponse with a '' key)
    responses = type(client).greedy_until.__wrapped__(client, docs)
    (metric,) = config.metrics
    letters = {
        doc.specific["id"]: metric.compute_sample(doc=doc, model_response=r)["acc"][0][1]
        for doc, r in zip(docs, responses, strict=True)
    }
    return stub.requests[before:], letters


def test_same_messages_and_letters_through_every_harness(stub, tmp_path, monkeypatch, response_for):
    monkeypatch.chdir(tmp_path)  # lm-eval warns where a folder named naf_bench is beside it
    rows = task_rows(task_spec(TASK)).select(range(N)).to_list()
    expected = {row["id"]: extract_answer(response_for(row["prompt"]), "strict") for row in rows}
    lm_eval_requests = lm_eval_run(stub, tmp_path)
    inspect_requests, inspect_letters = inspect_run(stub, tmp_path, monkeypatch)
    lighteval_requests, lighteval_letters = lighteval_run(stub, rows, monkeypatch)
    sent = _sent(lm_eval_requests)
    assert set(sent) == {row["prompt"] for row in rows}
    assert _sent(inspect_requests) == sent
    assert _sent(lighteval_requests) == sent
    assert inspect_letters == lighteval_letters == expected
