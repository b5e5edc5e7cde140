"""The leaderboard tests' fixtures: a team's logging OpenAI-compatible endpoint on 127.0.0.1; for the verified
track's worker as a guest, a served board with teams and a hidden set, the worker run as the maintainer runs it
(their secrets in its environment), endpoint jobs queued and read back."""

import contextlib
import json
import os
import subprocess
import sys
from datetime import datetime

import pytest

from naf_bench.leaderboard.local import ROOT, Server
from naf_bench.leaderboard.secret import new_key, new_set
from naf_bench.leaderboard.store import Store


class LoggingEndpoint:
    """A team's OpenAI-compatible server on 127.0.0.1 (a thread of the test's process) that keeps every byte it
    receives. The first segment of the path says how it answers (``url(mode)`` is a base URL of that mode): ``ok``
    (one served model, every chat completion ``ANSWER: A``), ``error`` (HTTP 500), ``garbage`` (200, not JSON),
    ``redirect`` (302 to ``/leak``: a client that follows it asks there); and to chat completions after listing
    its model as ``ok`` does, ``hang`` (never answers), ``drip`` (one byte a second of a body it never finishes),
    ``huge`` (an endless body, 2 MB/s). Every answer ends within ``bound`` seconds, and at ``stop``."""

    def __init__(self, bound: float = 120.0):
        import http.server
        import threading

        self.received: list[bytes] = []
        self.requests: list[tuple[str, str, dict]] = []
        self.stopping = threading.Event()
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(min(length, 1 << 20))
                stub.received.append(f"{self.requestline}\r\n{self.headers}".encode() + body)
                stub.requests.append((self.command, self.path, dict(self.headers)))
                mode = self.path.strip("/").split("/")[0]
                with contextlib.suppress(OSError):  # the client went away
                    stub.answer(self, mode, bound)

            do_GET = do_POST = _handle

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.port}/{mode}/v1"

    def answer(self, handler, mode: str, bound: float) -> None:
        import time

        def send(status, body: bytes, headers=()):
            handler.send_response(status)
            for name, value in [("Content-Type", "application/json"), ("Content-Length", str(len(body))), *headers]:
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(body)

        started = time.monotonic()
        if mode in ("ok", "hang", "drip", "huge") and handler.path.endswith("/models"):
            send(200, json.dumps({"object": "list", "data": [{"id": "stub", "object": "model"}]}).encode())
        elif mode == "ok":
            send(
                200,
                json.dumps(
                    {
                        "id": "c",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "stub",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": "ANSWER: A"},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4},
                    }
                ).encode(),
            )
        elif mode == "error":
            send(500, b'{"error": "no"}')
        elif mode == "garbage":
            send(200, b"<html>not an API</html>")
        elif mode == "redirect":
            send(302, b"", [("Location", f"http://127.0.0.1:{self.port}/leak/v1/models")])
        elif mode == "hang":
            self.stopping.wait(bound)
        elif mode in ("drip", "huge"):
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(10**10))
            handler.end_headers()
            while not self.stopping.is_set() and time.monotonic() - started < bound:
                handler.wfile.write(b"{" if mode == "drip" else b" " * 65536)
                handler.wfile.flush()
                self.stopping.wait(1.0 if mode == "drip" else 0.03)
        else:
            send(404, b'{"error": "unknown"}')

    def start(self) -> "LoggingEndpoint":
        import threading

        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def team_endpoint():
    """A started :class:`LoggingEndpoint`, stopped after the module's tests."""
    endpoint = LoggingEndpoint().start()
    try:
        yield endpoint
    finally:
        endpoint.stop()


WORKER_SECRETS = {"OPENAI_API_KEY": "sk-worker-0a1b2c3d4e5f", "HF_TOKEN": "hf_worker9f8e7d6c5b4a",
           "SOME_SECRET": "maintainer-only-7c6b5a"}  # fmt: skip


@pytest.fixture(scope="module")
def guest_board(tmp_path_factory, team_endpoint, write_gold):
    """A hidden set and its key, a gold set, five teams (alpha … epsilon) and the real server on 127.0.0.1 allowing
    endpoints there: ``(server, client, tokens, tmp, team endpoint, gold rows)``."""
    tmp = tmp_path_factory.mktemp("guest")
    new_set(new_key(tmp / "key"), "main", tmp / "hidden", {"programs_per_cell": 1}, attempts=20)
    rows = write_gold(tmp / "gold.jsonl", n_programs=12, seed=13)
    store = Store(tmp / "data")
    tokens = {name: store.add_team(name) for name in ("alpha", "beta", "gamma", "delta", "epsilon")}
    store.close()
    stub = team_endpoint
    server = Server(
        tmp / "data",
        tmp / "gold.jsonl",
        "--quota",
        30,
        "--upload-grace",
        1,
        "--allow-endpoint-host",
        "127.0.0.1",
        "--allow-endpoint-host",
        "::1",
    ).start()
    try:
        yield server, server.client(), tokens, tmp, stub, rows
    finally:
        server.stop()


def _worker(tmp, name, *options, allow=True, timeout=120):
    """``naf-bench leaderboard worker --once`` in a subprocess with the maintainer's secrets in its environment
    (its output in ``tmp/<name>.log``); ``allow``: it may reach 127.0.0.1, as the server may."""
    env = {**os.environ, **WORKER_SECRETS, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}  # fmt: skip
    command = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "worker", "--data", str(tmp / "data"),
               "--hidden", str(tmp / "hidden"), "--key", str(tmp / "key"), "--once", "--attempts", "20",
               "--limit", "1", "--max-gen-toks", "4", "--timeout", str(timeout),
               *(["--allow-endpoint-host", "127.0.0.1"] if allow else []), *map(str, options)]  # fmt: skip
    with open(tmp / f"{name}.log", "ab") as log:
        return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


@pytest.fixture(scope="session", name="run_worker")
def run_worker_fixture():
    """``run_worker(tmp, name, *options, allow=True, timeout=120) -> Popen``: the worker above."""
    return _worker


@pytest.fixture(scope="session")
def worker_secrets():
    """The maintainer's secrets in the worker's environment: {name: value}."""
    return WORKER_SECRETS


def _history(client, token):
    return {job["id"]: job for job in client.predict(token, api_name="/history")["jobs"]}


def _queue(client, token, base_url, model="stub", key=""):
    return client.predict("endpoint", model, base_url, key, token, api_name="/submit_model")


def _store_state(tmp, job):
    return Store(tmp / "data")._read("SELECT state FROM jobs WHERE id = ?", (job,))[0]["state"]


def _store_started(tmp, job):
    moment = Store(tmp / "data")._read("SELECT started_at FROM jobs WHERE id = ?", (job,))[0]["started_at"]
    return datetime.fromisoformat(moment).timestamp()


@pytest.fixture(scope="session")
def endpoint_jobs():
    """What a test asks of the queue: ``queue(client, token, base_url, model="stub", key="")`` (the ack),
    ``history(client, token)`` ({job id: job} as the team sees it), ``state(tmp, job)`` and ``started(tmp, job)``
    (a timestamp), read from the store."""
    from types import SimpleNamespace

    return SimpleNamespace(queue=_queue, history=_history, state=_store_state, started=_store_started)
