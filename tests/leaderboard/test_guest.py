"""The verified track's worker as a guest, attacked as a team would attack it: a token, a logging OpenAI-compatible
server of its own on 127.0.0.1 (``LoggingEndpoint``), public code only; through the real server (gradio_client,
plain HTTP) and the real worker (``naf-bench leaderboard worker``). Nothing of the worker's environment reaches a
team; endpoints reach only hosts the maintainer allows, checked at submission and again at connection, without
redirects; what was approved is what runs; no team holds the queue or the door; names are shown as meant. (Endpoints
at the job's limit, and every failure reading the same: test_guest_limits.py. The board, the worker and the team's
endpoint are conftest.py's fixtures.)"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from naf_bench.leaderboard.guest import CHILD_ENV, OFFLINE
from naf_bench.leaderboard.local import ROOT
from naf_bench.leaderboard.store import Store

pytest.importorskip("gradio_client")
pytest.importorskip("lm_eval")
pytest.importorskip("tenacity")  # lm-eval's api extra

REFUSED_HOST = "the board reaches no host of its own networks"


def _children(text: str) -> dict[int, dict[str, str]]:
    """The environment of each process whose command line names ``text``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    pairs = (entry / "environ").read_bytes().split(b"\0")
                    found[int(entry.name)] = dict(p.decode().split("=", 1) for p in pairs if b"=" in p)
            except OSError:
                pass
    return found


def test_nothing_of_the_workers_environment_reaches_a_team(guest_board, endpoint_jobs, run_worker, worker_secrets):
    server, client, tokens, tmp, stub, _ = guest_board
    ack = endpoint_jobs.queue(client, tokens["alpha"], stub.url("ok"))  # no key: the worker's must not stand in for it
    assert ack["status"] == "queued"
    worker = run_worker(tmp, "worker-secrets")
    environments, deadline = {}, time.monotonic() + 400
    while worker.poll() is None and time.monotonic() < deadline:
        environments.update(_children(f"job-{ack['job']}-1"))  # the run's process, while it runs
        time.sleep(0.05)
    assert worker.wait(timeout=30) == 0, (tmp / "worker-secrets.log").read_text()
    assert endpoint_jobs.history(client, tokens["alpha"])[ack["job"]]["state"] == "done"
    paths = [path for _, path, _ in stub.requests]
    assert paths[0] == "/ok/v1/models" and paths.count("/ok/v1/chat/completions") == 5
    assert {headers.get("Authorization", "Bearer").strip() for _, _, headers in stub.requests} == {"Bearer"}
    (run,) = environments.values()
    assert run["OPENAI_API_KEY"] == "" and run["HF_HUB_OFFLINE"] == "1"
    assert set(run) <= {*CHILD_ENV, *OFFLINE, "OPENAI_API_KEY", "NAF_BENCH_ALLOWED_HOSTS", "NAF_BENCH_DATASET"}
    received = b"".join(stub.received)
    files = [path.read_bytes() for path in [*tmp.rglob("*"), server.log] if path.is_file() and not path.is_symlink()]
    for secret in worker_secrets.values():
        assert secret.encode() not in received and secret not in json.dumps(run)
        assert not any(secret.encode() in data for data in files)


def test_hosts_of_the_maintainers_networks_are_refused_at_submission(guest_board, endpoint_jobs):
    _, client, tokens, _, stub, _ = guest_board
    port, before = stub.port, len(stub.requests)
    hosts = [
        "localhost",
        "0x7f000001",
        "2130706433",
        "017700000001",
        "127.1",
        "[::ffff:127.0.0.1]",
        "10.1.2.3",
        "169.254.169.254",
        "[fd00::1]",
        "[fe80::1]",
        "224.0.0.1",
        "[ff02::1]",
        "0.0.0.0",
        "[::]",
        "100.64.0.1",
    ]
    for host in hosts:
        answer = endpoint_jobs.queue(client, tokens["beta"], f"http://{host}:{port}/ok/v1")
        (reason,) = answer["reasons"]
        assert answer["status"] == "refused" and reason.startswith("base_url: ") and reason.endswith(REFUSED_HOST)
    assert (
        endpoint_jobs.history(client, tokens["beta"]) == {} and len(stub.requests) == before
    )  # nothing queued, nothing asked


def test_the_guard_checks_each_connection_and_follows_no_redirect(guest_board):
    """The run's own process (``python -m naf_bench.leaderboard.guest``): a name resolving to loopback is refused
    at connection unless allowed by name (DNS may have changed since the check at submission), and neither urllib
    nor requests follows a redirect."""
    stub = guest_board[4]
    before = len(stub.requests)
    script = """
import sys, urllib.request, urllib.error
from naf_bench.leaderboard.guest import guard
guard(sys.argv[2:])
try:
    urllib.request.urlopen(sys.argv[1], timeout=30)
except urllib.error.HTTPError as exc:
    print("http", exc.code)
except OSError as exc:
    print("refused", exc)
import requests
try:
    print("requests", requests.get(sys.argv[1], timeout=30).status_code)
except OSError as exc:
    print("refused", exc)
"""

    def run(url, *allowed):
        command = [sys.executable, "-c", script, url, *allowed]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ,
                              "PYTHONPATH": str(ROOT)})  # fmt: skip
        return done.stdout.splitlines()

    refused = run(f"http://localhost:{stub.port}/ok/v1/models")
    assert len(refused) == 2 and all(line.startswith("refused") for line in refused)
    assert all("naf-bench: localhost is not a host this run may reach (loopback address)" in line for line in refused)
    assert len(stub.requests) == before  # nothing was sent
    assert run(stub.url("redirect") + "/models", "127.0.0.1") == ["http 302", "requests 302"]
    assert [path for _, path, _ in stub.requests[before:]] == ["/redirect/v1/models"] * 2  # never /leak


def test_jobs_are_taken_round_robin_by_team_and_a_revoked_teams_queue_is_cancelled(
    guest_board, endpoint_jobs, run_worker
):
    server, client, tokens, tmp, stub, _ = guest_board
    firsts = [endpoint_jobs.queue(client, tokens["delta"], stub.url("ok"))["job"] for _ in range(5)]
    second = endpoint_jobs.queue(client, tokens["epsilon"], stub.url("ok"))["job"]
    cancelled = [endpoint_jobs.queue(client, tokens["gamma"], stub.url("ok"))["job"] for _ in range(2)]
    revoke = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "revoke-team", "gamma", "--data", str(server.data)]
    done = subprocess.run(revoke, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout.strip().endswith("2 queued job(s) cancelled")
    # the worker allows no loopback host: each job ends at its check, before any run, in the order taken
    assert run_worker(tmp, "worker-order", allow=False).wait(timeout=120) == 0
    order = sorted([*firsts, second], key=lambda job: endpoint_jobs.started(tmp, job))
    assert order == [firsts[0], second, *firsts[1:]]
    rows = {row["id"]: row for row in Store(server.data).jobs()}
    assert [(rows[job]["state"], rows[job]["reason"], rows[job]["started_at"]) for job in cancelled] == [
        ("failed", "the team was revoked", None)
    ] * 2
    assert client.predict(tokens["gamma"], api_name="/history") == {
        "status": "refused",
        "reasons": ["the team 'gamma' was revoked"],
    }


def test_what_was_approved_is_what_runs(guest_board):
    """approve-model refuses a folder with a symbolic link (the chat template linked to the hidden gold), a hard
    link, a FIFO, a text file named .gguf and pickled weights, each with one line; a model approved for one team
    is refused to another."""
    server, client, tokens, tmp, _, _ = guest_board

    def approve(path, *options):
        command = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "approve-model", str(path), "--data",
                   str(server.data), *options]  # fmt: skip
        return subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})

    def folder(name):
        path = tmp / name
        path.mkdir()
        (path / "config.json").write_text("{}")
        return path

    (folder("linked") / "chat_template.jinja").symlink_to(tmp / "hidden" / "gold.jsonl")
    (tmp / "outside.txt").write_text("outside")
    os.link(tmp / "outside.txt", folder("hard") / "tokenizer_config.txt")
    os.mkfifo(folder("fifo") / "vocab.txt")
    (tmp / "fake.gguf").write_text("not a gguf")
    (folder("pickled") / "pytorch_model.bin").write_bytes(b"\x80\x04\x95")
    cases = {"linked": "a symbolic link", "hard": "a hard link", "fifo": "not a regular file or a folder",
             "fake.gguf": "not a GGUF file (no GGUF magic)", "pickled": "pickled weights"}  # fmt: skip
    for name, reason in cases.items():
        done = approve(tmp / name, "--open")
        assert done.returncode != 0 and reason in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    assert Store(server.data).approved_models() == []
    assert [p for p in (server.data / "models").iterdir()] == []  # nothing of them kept
    good = folder("good")
    (good / "tokenizer.json").write_text('{"model": {}}')
    done = approve(good, "--team", "alpha")
    assert done.returncode == 0, done.stderr
    (copy,) = (server.data / "models").iterdir()
    assert sorted(p.name for p in copy.iterdir()) == ["config.json", "tokenizer.json"]
    (good / "chat_template.jinja").symlink_to(tmp / "hidden" / "gold.jsonl")  # after approval: not in the copy
    assert not (copy / "chat_template.jinja").exists()
    refused = client.predict("verified", str(good.resolve()), "", "", tokens["beta"], api_name="/submit_model")
    assert refused["status"] == "refused" and "is not a model approved for your team" in refused["reasons"][0]


def test_ten_idle_uploads_keep_no_real_upload_out(guest_board, write_metadata, write_submission):
    """Ten connections declaring 19.9 MB uploads that send no byte hold the space for unclaimed uploads (200 MB) and
    are closed after 30 s (the default): a 2.3 MB submission is accepted within 60 s."""
    from gradio_client import handle_file

    server, client, tokens, tmp, _, rows = guest_board
    idle = []
    try:
        for _ in range(10):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            connection.sendall(
                b"POST /gradio_api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 19900000\r\n\r\n"
            )
            idle.append(connection)
        time.sleep(1.0)
        trace = "step " * 7_700  # 38.5 kB on each of the 60 lines
        path = write_submission(
            tmp / "big.jsonl", {}, [json.dumps({"id": row["id"], "prediction": "A", "trace": trace}) for row in rows]
        )
        assert 2_200_000 < path.stat().st_size < 2_400_000
        meta = write_metadata(tmp / "big.metadata.json")
        started, refusals, ack = time.monotonic(), 0, None
        while ack is None and time.monotonic() - started < 60:
            try:
                ack = client.predict(
                    handle_file(str(path)), handle_file(str(meta)), tokens["alpha"], api_name="/submit"
                )
            except Exception:  # the door's 503 while the idle uploads hold the space
                refusals += 1
                time.sleep(2.0)
        assert refusals >= 1  # the idle connections did hold the space at first
        assert ack is not None and ack["status"] == "accepted", ack
        assert time.monotonic() - started < 60
    finally:
        for connection in idle:
            connection.close()


def _raw(server, method, path, body=None, headers=None):
    request = urllib.request.Request(server.url + path, data=body, method=method, headers=headers or {})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.read()


def _call_submit(server, paths, token):
    """``/submit`` over Gradio's HTTP API with files already uploaded (their server paths)."""
    files = [{"path": path, "meta": {"_type": "gradio.FileData"}} for path in paths]
    body = json.dumps({"data": [*files, token]}).encode()
    event = json.loads(_raw(server, "POST", "gradio_api/call/submit", body, {"Content-Type": "application/json"}))
    stream = _raw(server, "GET", f"gradio_api/call/submit/{event['event_id']}").decode()
    (line,) = [line for line in stream.splitlines() if line.startswith("data:")][-1:]
    return json.loads(line.removeprefix("data:"))[0]


def test_identical_uploads_are_each_read_however_late_their_submit(
    guest_board, answers, write_metadata, write_submission
):
    """Two identical uploads share Gradio's cache path; the second's submit, sent after the first one's and after
    the upload grace (1 s here), is accepted: an upload waiting for its submit keeps the path."""
    server, _, tokens, tmp, _, rows = guest_board
    path = write_submission(tmp / "twin.jsonl", answers(rows, 3))
    meta = write_metadata(tmp / "twin.metadata.json")
    body = (
        b"".join(
            b'--x\r\nContent-Disposition: form-data; name="files"; filename="%s"\r\n\r\n%s\r\n'
            % (p.name.encode(), p.read_bytes())
            for p in (path, meta)
        )
        + b"--x--\r\n"
    )
    headers = {"Content-Type": "multipart/form-data; boundary=x"}
    first, second = (json.loads(_raw(server, "POST", "gradio_api/upload", body, headers)) for _ in range(2))
    assert first == second  # one path for both
    assert _call_submit(server, first, tokens["delta"])["status"] == "accepted"
    time.sleep(2.5)  # the injected delay: past the first submit's grace
    assert _call_submit(server, second, tokens["epsilon"])["status"] == "accepted"


def test_names_are_shown_as_meant(guest_board, answers, write_metadata, write_submission, endpoint_jobs):
    from gradio_client import handle_file

    server, client, tokens, tmp, _, rows = guest_board
    add = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "add-team", "\u0430lpha", "--data", str(server.data)]
    done = subprocess.run(add, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode != 0 and "there is already a token team named 'alpha'" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    path = write_submission(tmp / "bidi.jsonl", answers(rows, 2))
    meta = write_metadata(tmp / "bidi.metadata.json", model_name="model \u202egpt")
    answer = client.predict(handle_file(str(path)), handle_file(str(meta)), tokens["beta"], api_name="/submit")
    assert answer == {
        "status": "refused",
        "reasons": ["metadata: model_name: a bidirectional control character ('\\u202e')"],
    }
    refused = endpoint_jobs.queue(client, tokens["beta"], "http://127.0.0.1:1/v1", model="m\u202e")
    assert refused["status"] == "refused" and refused["reasons"][0].startswith("model:")
