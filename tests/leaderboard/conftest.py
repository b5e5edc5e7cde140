"""The leaderboard tests' own fixture: a team's logging OpenAI-compatible endpoint on 127.0.0.1."""

import contextlib
import json

import pytest


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
