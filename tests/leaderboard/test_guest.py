"""The verified track's worker as a guest, attacked as a team would attack it: a token, a logging OpenAI-compatible
server of its own on 127.0.0.1 (``LoggingEndpoint``), public code only; through the real server (gradio_client,
plain HTTP) and the real worker (``naf-bench leaderboard worker``). Nothing of the worker's environment reaches a
team; endpoints reach only hosts the maintainer allows, checked at submission and again at connection, without
redirects, and every failure reads the same; what was approved is what runs; no team holds the queue or the door;
names are shown as meant."""

import itertools
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path

import pytest

from naf_bench.leaderboard.guest import CHILD_ENV, OFFLINE
from naf_bench.leaderboard.local import ROOT, Server
from naf_bench.leaderboard.secret import new_key, new_set
from naf_bench.leaderboard.store import Store
from naf_bench.leaderboard.worker import ENDPOINT_FAILED
from naf_bench.runs.serving import free_port

pytest.importorskip("gradio_client")
pytest.importorskip("lm_eval")
pytest.importorskip("tenacity")  # lm-eval's api extra

SECRETS = {"OPENAI_API_KEY": "sk-worker-0a1b2c3d4e5f", "HF_TOKEN": "hf_worker9f8e7d6c5b4a",
           "SOME_SECRET": "maintainer-only-7c6b5a"}  # fmt: skip
REFUSED_HOST = "the board reaches no host of its own networks"
LATER = datetime.fromisoformat("9999-01-01T00:00:00+00:00")


def _worker(tmp, name, *options, allow=True, timeout=120):
    """``naf-bench leaderboard worker --once`` in a subprocess with the maintainer's secrets in its environment
    (its output in ``tmp/<name>.log``); ``allow``: it may reach 127.0.0.1, as the server may."""
    env = {**os.environ, **SECRETS, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}  # fmt: skip
    command = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "worker", "--data", str(tmp / "data"),
               "--hidden", str(tmp / "hidden"), "--key", str(tmp / "key"), "--once", "--attempts", "20",
               "--limit", "1", "--max-gen-toks", "4", "--timeout", str(timeout),
               *(["--allow-endpoint-host", "127.0.0.1"] if allow else []), *map(str, options)]  # fmt: skip
    with open(tmp / f"{name}.log", "ab") as log:
        return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


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


def _history(client, token):
    return {job["id"]: job for job in client.predict(token, api_name="/history")["jobs"]}


def _queue(client, token, base_url, model="stub", key=""):
    return client.predict("endpoint", model, base_url, key, token, api_name="/submit_model")


@pytest.fixture(scope="module")
def board(tmp_path_factory, team_endpoint, write_gold):
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


def test_nothing_of_the_workers_environment_reaches_a_team(board):
    server, client, tokens, tmp, stub, _ = board
    ack = _queue(client, tokens["alpha"], stub.url("ok"))  # no key: the worker's must not stand in for it
    assert ack["status"] == "queued"
    worker = _worker(tmp, "worker-secrets")
    environments, deadline = {}, time.monotonic() + 400
    while worker.poll() is None and time.monotonic() < deadline:
        environments.update(_children(f"job-{ack['job']}-1"))  # the run's process, while it runs
        time.sleep(0.05)
    assert worker.wait(timeout=30) == 0, (tmp / "worker-secrets.log").read_text()
    assert _history(client, tokens["alpha"])[ack["job"]]["state"] == "done"
    paths = [path for _, path, _ in stub.requests]
    assert paths[0] == "/ok/v1/models" and paths.count("/ok/v1/chat/completions") == 5
    assert {headers.get("Authorization", "Bearer").strip() for _, _, headers in stub.requests} == {"Bearer"}
    (run,) = environments.values()
    assert run["OPENAI_API_KEY"] == "" and run["HF_HUB_OFFLINE"] == "1"
    assert set(run) <= {*CHILD_ENV, *OFFLINE, "OPENAI_API_KEY", "NAF_BENCH_ALLOWED_HOSTS", "NAF_BENCH_DATASET"}
    received = b"".join(stub.received)
    files = [path.read_bytes() for path in [*tmp.rglob("*"), server.log] if path.is_file() and not path.is_symlink()]
    for secret in SECRETS.values():
        assert secret.encode() not in received and secret not in json.dumps(run)
        assert not any(secret.encode() in data for data in files)


def test_hosts_of_the_maintainers_networks_are_refused_at_submission(board):
    _, client, tokens, _, stub, _ = board
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
        answer = _queue(client, tokens["beta"], f"http://{host}:{port}/ok/v1")
        (reason,) = answer["reasons"]
        assert answer["status"] == "refused" and reason.startswith("base_url: ") and reason.endswith(REFUSED_HOST)
    assert _history(client, tokens["beta"]) == {} and len(stub.requests) == before  # nothing queued, nothing asked


def test_every_failure_to_reach_an_endpoint_reads_the_same_and_shows_at_the_limit(board):
    """Jobs at a host the worker does not allow (the server did: checked again when the job starts), a closed port,
    a server answering 500, one answering HTML, one redirecting to another path of an allowed host: one state, one
    reason, no exit status, each shown when the job's limit has passed since it started; the redirect is not
    followed."""
    server, client, tokens, tmp, stub, _ = board
    ipv6 = f"http://[::1]:{free_port()}/v1"  # allowed by the server, not by the worker
    urls = [ipv6, f"http://127.0.0.1:{free_port()}/v1", stub.url("error"), stub.url("garbage"), stub.url("redirect")]
    acks = [_queue(client, tokens["beta"], url) for url in urls]
    assert [ack["status"] for ack in acks] == ["queued"] * 5
    assert _history(client, tokens["beta"])[acks[0]["job"]]["base_url"] == ipv6  # shown with its brackets
    limit = 60
    worker = _worker(tmp, "worker-failures", timeout=limit)
    ipv6 = acks[0]["job"]  # refused by the worker before any run
    deadline = time.monotonic() + 60
    while _store_state(tmp, ipv6) != "failed" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _store_state(tmp, ipv6) == "failed"
    shown = _history(client, tokens["beta"])[ipv6]
    assert (shown["state"], shown["reason"], shown["ended_at"]) == ("running", None, None)  # not yet: the limit
    assert worker.wait(timeout=600) == 0, (tmp / "worker-failures.log").read_text()
    stub_paths = [path for _, path, _ in stub.requests]
    assert {"/error/v1/models", "/garbage/v1/models", "/redirect/v1/models"} <= set(stub_paths)  # they were asked
    assert not any(path.startswith("/leak") for path in stub_paths)
    time.sleep(max(0.0, _store_started(tmp, ipv6) + limit + 0.5 - time.time()))
    history = _history(client, tokens["beta"])
    later = Store(server.data).jobs(now=LATER)  # as shown once every limit has passed
    for job in (ack["job"] for ack in acks):
        row = next(row for row in later if row["id"] == job)
        assert (row["state"], row["reason"], row["attempts"], row["submission_id"]) == (
            "failed",
            ENDPOINT_FAILED,
            1,
            None,
        )
        seconds = (datetime.fromisoformat(row["ended_at"]) - datetime.fromisoformat(row["started_at"])).total_seconds()
        assert limit <= seconds < limit + 1  # shown as lasting the limit, whatever it took
        shown = history[job]
        assert (shown["state"], shown["reason"]) in (("running", None), ("failed", ENDPOINT_FAILED))
    assert history[ipv6]["state"] == "failed"  # its limit has passed
    log = (tmp / "worker-failures.log").read_text()
    assert "exit status 2" in log and "base_url: ::1 is a loopback address" in log  # the maintainer's log says why


@pytest.mark.slow
def test_an_endpoint_that_hangs_drips_or_floods_ends_at_the_limit_and_the_next_job_starts(board):
    """Chat completions that never answer, answer a byte a second, or answer an endless body: each run is ended at
    the job's limit (90 s here: time for a loaded machine to start the run and ask) with the one reason, and the
    next job starts; a job after them runs to the end."""
    server, client, tokens, tmp, stub, _ = board
    modes = ("hang", "drip", "huge", "ok")
    acks = [_queue(client, tokens["alpha"], stub.url(mode)) for mode in modes]
    limit = 90
    assert _worker(tmp, "worker-slow", timeout=limit).wait(timeout=900) == 0, (tmp / "worker-slow.log").read_text()
    paths = {path for _, path, _ in stub.requests}
    assert all(f"/{mode}/v1/chat/completions" in paths for mode in modes)  # each was asked, and answered so
    rows = {row["id"]: row for row in Store(server.data).jobs(now=LATER)}
    jobs = [ack["job"] for ack in acks]
    for job, after in itertools.pairwise(jobs):  # the three that never finish answering, each before the next
        assert (rows[job]["state"], rows[job]["reason"]) == ("failed", ENDPOINT_FAILED)
        took = _store_started(tmp, after) - _store_started(tmp, job)  # the run, then the next job's own set
        assert limit <= took < limit + 60
    assert rows[jobs[3]]["state"] == "done"
    assert (tmp / "worker-slow.log").read_text().count("the run passed its limit of 90 s") == 3


def _store_state(tmp, job):
    return Store(tmp / "data")._read("SELECT state FROM jobs WHERE id = ?", (job,))[0]["state"]


def _store_started(tmp, job):
    moment = Store(tmp / "data")._read("SELECT started_at FROM jobs WHERE id = ?", (job,))[0]["started_at"]
    return datetime.fromisoformat(moment).timestamp()


def test_the_guard_checks_each_connection_and_follows_no_redirect(board):
    """The run's own process (``python -m naf_bench.leaderboard.guest``): a name resolving to loopback is refused
    at connection unless allowed by name (DNS may have changed since the check at submission), and neither urllib
    nor requests follows a redirect."""
    stub = board[4]
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


def test_jobs_are_taken_round_robin_by_team_and_a_revoked_teams_queue_is_cancelled(board):
    server, client, tokens, tmp, stub, _ = board
    firsts = [_queue(client, tokens["delta"], stub.url("ok"))["job"] for _ in range(5)]
    second = _queue(client, tokens["epsilon"], stub.url("ok"))["job"]
    cancelled = [_queue(client, tokens["gamma"], stub.url("ok"))["job"] for _ in range(2)]
    revoke = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "revoke-team", "gamma", "--data", str(server.data)]
    done = subprocess.run(revoke, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout.strip().endswith("2 queued job(s) cancelled")
    # the worker allows no loopback host: each job ends at its check, before any run, in the order taken
    assert _worker(tmp, "worker-order", allow=False).wait(timeout=120) == 0
    order = sorted([*firsts, second], key=lambda job: _store_started(tmp, job))
    assert order == [firsts[0], second, *firsts[1:]]
    rows = {row["id"]: row for row in Store(server.data).jobs()}
    assert [(rows[job]["state"], rows[job]["reason"], rows[job]["started_at"]) for job in cancelled] == [
        ("failed", "the team was revoked", None)
    ] * 2
    assert client.predict(tokens["gamma"], api_name="/history") == {
        "status": "refused",
        "reasons": ["the team 'gamma' was revoked"],
    }


def test_what_was_approved_is_what_runs(board):
    """approve-model refuses a folder with a symbolic link (the chat template linked to the hidden gold), a hard
    link, a FIFO, a text file named .gguf and pickled weights, each with one line; a model approved for one team
    is refused to another."""
    server, client, tokens, tmp, _, _ = board

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


def test_ten_idle_uploads_keep_no_real_upload_out(board, write_metadata, write_submission):
    """Ten connections declaring 19.9 MB uploads that send no byte hold the space for unclaimed uploads (200 MB) and
    are closed after 30 s (the default): a 2.3 MB submission is accepted within 60 s."""
    from gradio_client import handle_file

    server, client, tokens, tmp, _, rows = board
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


def test_identical_uploads_are_each_read_however_late_their_submit(board, answers, write_metadata, write_submission):
    """Two identical uploads share Gradio's cache path; the second's submit, sent after the first one's and after
    the upload grace (1 s here), is accepted: an upload waiting for its submit keeps the path."""
    server, _, tokens, tmp, _, rows = board
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


def test_names_are_shown_as_meant(board, answers, write_metadata, write_submission):
    from gradio_client import handle_file

    server, client, tokens, tmp, _, rows = board
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
    refused = _queue(client, tokens["beta"], "http://127.0.0.1:1/v1", model="m\u202e")
    assert refused["status"] == "refused" and refused["reasons"][0].startswith("model:")
