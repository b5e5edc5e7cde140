"""The integrations' tests. The harness tests (inspect_ai, lighteval: marked ``harness``) pin what the test extra
pins, so they run in the environment ``bash scripts/harness_envs.sh --test`` creates (CI runs it); elsewhere they
skip, saying so. Their fixtures: an OpenAI-compatible chat server on 127.0.0.1 that logs every request body and
answers each prompt with one of a few realistic responses (the same prompt, the same response), and the ``inspect``
command. The RL stacks' tests (reasoning-gym, verl, OpenRLHF) run in the test extra's environment; their fixtures:
two streams, completions right and wrong for their rows, and the rewards TRL computes of them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import naf_bench.integrations
from naf_bench.readings import joint_conditions
from naf_bench.training.rewards import joint_golds
from naf_bench.training.stream import Stream
from naf_bench.verbalize.joint_prompt import answer_line

HARNESS_ENV = "inspect-ai and lighteval are not installed here: `bash scripts/harness_envs.sh --test` runs these tests"


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("inspect_ai") and importlib.util.find_spec("lighteval"):
        return
    for item in items:
        if item.get_closest_marker("harness"):
            item.add_marker(pytest.mark.skip(reason=HARNESS_ENV))


RESPONSES = (
    "The rule for q has no body, so q holds.\n\nANSWER: A",
    "<think>p depends on not q; q fails.</think>\nWorking it through, **ANSWER: B**",
    "Under this reading the atom is undefined.\n\nANSWER: (C)",
    "I am not sure; it might be A or B.",  # no answer line: unanswered under the strict extractor
    "Final answer is B",
    "<think>ANSWER: A was my first thought, but the loop decides it.</think>\nANSWER: C",
)

# a JOINT prompt's responses (it asks for one 'cred ANSWER: X' line per reading), with the letter each line states
JOINT_RESPONSES = (
    (
        "<think>q is a fact, so every reading agrees.</think>\nclosed_world ANSWER: A\ncred ANSWER: A\n"
        "skept ANSWER: A\nwfs ANSWER: A",
        {"closed_world": "A", "cred": "A", "skept": "A", "wfs": "A"},
    ),
    (
        "No rule derives q.\n\n**closed_world** ANSWER: B\n[cred] ANSWER: B\n- skept ANSWER: **B**\nwfs ANSWER: (B)",
        {"closed_world": "B", "cred": "B", "skept": "B", "wfs": "B"},
    ),
    (
        "closed_world ANSWER: C\nwfs ANSWER: C\nThe stable models I cannot settle.",  # two readings unanswered
        {"closed_world": "C", "cred": None, "skept": None, "wfs": "C"},
    ),
    (
        "closed_world ANSWER: C\ncred ANSWER: A\nskept ANSWER: B\nwfs ANSWER: C",
        {"closed_world": "C", "cred": "A", "skept": "B", "wfs": "C"},
    ),
)


def _pick(prompt: str, choices: tuple):
    return choices[hashlib.sha256(prompt.encode()).digest()[0] % len(choices)]


def joint_letters(prompt: str) -> dict[str, str | None]:
    """The letter per reading the stub's response to a JOINT prompt states."""
    return _pick(prompt, JOINT_RESPONSES)[1]


def response_for(prompt: str) -> str:
    if "cred ANSWER: X" in prompt:  # a JOINT prompt
        return _pick(prompt, JOINT_RESPONSES)[0]
    return _pick(prompt, RESPONSES)


class StubServer:
    """``with StubServer() as stub``: ``stub.base_url`` (ends in /v1), ``stub.requests`` (every body, in order)."""

    def __init__(self):
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _send(self, payload: dict, status: int = 200):
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                self._send({"object": "list", "data": [{"id": "stub", "object": "model", "owned_by": "test"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                stub.requests.append(body)
                prompt = next((m["content"] for m in reversed(body.get("messages", [])) if m["role"] == "user"), "")
                if isinstance(prompt, list):  # content parts
                    prompt = "".join(part.get("text", "") for part in prompt)
                text = response_for(prompt)
                self._send({
                    "id": "stub-1", "object": "chat.completion", "created": 0, "model": body.get("model", "stub"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })  # fmt: skip

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture(scope="session")
def stub_server():
    """One logging OpenAI-compatible stub for the session, named by STUB_BASE_URL (inspect's ``openai-api/stub``
    provider): inspect keeps a model's client for the rest of the process, so a second server would go unused."""
    with StubServer() as running, pytest.MonkeyPatch.context() as patch:
        patch.setenv("STUB_BASE_URL", running.base_url)
        patch.setenv("STUB_API_KEY", "unused")
        yield running


@pytest.fixture
def stub(stub_server):
    """The session's stub with no request logged yet."""
    stub_server.requests.clear()
    return stub_server


@pytest.fixture(scope="session", name="response_for")
def response_for_fixture():
    """``response_for(prompt) -> text``: what the stub answers to ``prompt``."""
    return response_for


@pytest.fixture(scope="session", name="joint_letters")
def joint_letters_fixture():
    """``joint_letters(prompt) -> {reading: letter or None}``: what the stub's answer to a JOINT prompt states."""
    return joint_letters


def inspect_cli(*args, cwd, env):
    """The ``inspect`` command of this environment, run outside the checkout as a user runs it (the package found
    installed, through its entry point)."""
    command = [str(Path(sys.executable).with_name("inspect")), *args]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"} | env
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="session", name="inspect_cli")
def inspect_cli_fixture():
    """``inspect_cli(*args, cwd, env) -> CompletedProcess``: the ``inspect`` command, asserted to succeed."""
    return inspect_cli


@pytest.fixture(scope="session")
def streams():
    """{False: a stream of single-reading items, True: a stream of JOINT items} (small levels, seed 5)."""
    return {False: Stream(seed=5, levels={"bins": 2, "conditions": 2, "depth": 1}),
            True: Stream(seed=5, levels={"bins": 2}, joint=True)}  # fmt: skip


def completions(rows):
    """Per row: its gold answer in the instructed format, and a wrong one."""
    out = []
    for row in rows:
        if row["condition"] == "joint":
            golds = joint_golds(row)
            right = "\n".join(answer_line(c, golds[c]) for c in joint_conditions())
            out += [f"Reasoning.\n{right}", right.replace(f"wfs ANSWER: {golds['wfs']}", "wfs ANSWER: ?")]
        else:
            wrong = "A" if row["gold"] != "A" else "B"
            out += [f"Reasoning.\nANSWER: {row['gold']}", f"Reasoning.\nANSWER: {wrong}"]
    return out


@pytest.fixture(scope="session", name="completions")
def completions_fixture():
    """``completions(rows) -> [text]``: per row, its gold answer in the instructed format, then a wrong one."""
    return completions


def trl_rewards(reward, texts, rows):
    columns = {key: [row[key] for row in rows] for key in rows[0]}
    return reward(prompts=[row["prompt"] for row in rows], completions=texts, **columns)


@pytest.fixture(scope="session", name="trl_rewards")
def trl_rewards_fixture():
    """``trl_rewards(reward, texts, rows) -> [float]``: a reward function called as TRL calls it."""
    return trl_rewards


def by_path(name):  # as verl (custom_reward_function.path) and OpenRLHF (--remote_rm_url x.py) load it
    spec = importlib.util.spec_from_file_location(
        "custom_module", Path(naf_bench.integrations.__file__).parent / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session", name="by_path")
def by_path_fixture():
    """``by_path(name) -> module``: ``naf_bench/integrations/<name>.py`` loaded from its file, as verl and OpenRLHF
    load a reward file."""
    return by_path
