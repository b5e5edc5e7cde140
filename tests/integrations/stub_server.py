"""An OpenAI-compatible chat server on 127.0.0.1 that logs every request body and answers each prompt with one of
a few realistic responses (the same prompt, the same response), for the harness tests."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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
