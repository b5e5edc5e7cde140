"""The submission service as submitters meet it: the real server on 127.0.0.1 in a subprocess, driven with
``gradio_client`` (and Playwright in tests/e2e/test_board_page.py)."""

import hashlib
import json
import time
from concurrent.futures import wait
from pathlib import Path

import pytest

from naf_bench.leaderboard.local import Server
from naf_bench.leaderboard.store import Store

pytest.importorskip("gradio")
pytest.importorskip("gradio_client")


def _cache_files(server, wait: float = 10.0) -> list:
    """Files in Gradio's upload cache beyond the empty ones it makes at start, once the server's upload grace
    (1 s here) has passed; polled for at most ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        left = [p for p in server.cache.rglob("*") if p.is_file() and p.stat().st_size]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


@pytest.fixture
def submit(answers, write_metadata, write_submission):
    """``submit(client, tmp, rows, solved, token, name, **metadata)``: an upload through the server's API."""
    from gradio_client import handle_file

    def submit(client, tmp, rows, solved, token, name, **metadata):
        path = write_submission(tmp / f"{name}.jsonl", answers(rows, solved))
        meta = write_metadata(tmp / f"{name}.metadata.json", **metadata)
        return client.predict(handle_file(str(path)), handle_file(str(meta)), token, api_name="/submit")

    return submit


@pytest.fixture(scope="module")
def served(tmp_path_factory, write_gold):
    tmp = tmp_path_factory.mktemp("served")
    rows = write_gold(tmp / "gold.jsonl", n_programs=12, seed=5)
    store = Store(tmp / "data")
    tokens = {name: store.add_team(name) for name in ("alpha", "beta", "gamma")}
    store.close()
    server = Server(tmp / "data", tmp / "gold.jsonl", "--max-bytes", 4000, "--upload-grace", 1).start()
    try:
        yield server, server.client(), rows, tokens, tmp
    finally:
        server.stop()


def test_a_client_submits_a_scored_file_and_reads_the_board(served, submit):
    server, client, rows, tokens, tmp = served
    ack = submit(client, tmp, rows, 7, tokens["alpha"], "a1")
    assert ack["status"] == "accepted" and ack["board_changed"] and ack["split"] == "test"
    assert ack["shown"]["joint_solved"] == 7 and ack["shown"]["name"] == "alpha"
    board = client.predict("standard", "test", api_name="/board")
    (row,) = [r for r in board["rows"] if r["name"] == "alpha"]
    assert row["joint"] == 7 / 12 and row["joint_ci95"] == pytest.approx([0.31951, 0.80674], abs=1e-5)
    assert not board["full_scores"] and row["per_semantics"] == {} and row["coverage"] is None
    text = json.dumps(board)
    assert "secret-contact" not in text and "p0::" not in text  # no contact, no item
    history = client.predict(tokens["alpha"], api_name="/history")
    assert [u["submission"] for u in history["uploads"]] == [ack["submission"]]
    assert _cache_files(server) == []  # Gradio's upload cache holds nothing once an upload is handled
    kept = Store(server.data).submissions()
    assert (tmp / "a1.jsonl").read_bytes() == Store(server.data).file_path(kept[0]["file_sha256"]).read_bytes()


def test_refusals_over_the_server_keep_nothing(served, submit, write_metadata):
    from gradio_client import handle_file

    server, client, rows, tokens, tmp = served
    before = len(Store(server.data).submissions())
    (tmp / "bad.jsonl").write_text('{"id": "p0::cred", "prediction": "A"}\n{"id": "p1::cred"\n', encoding="utf-8")
    meta = write_metadata(tmp / "bad.metadata.json")
    answer = client.predict(
        handle_file(str(tmp / "bad.jsonl")), handle_file(str(meta)), tokens["beta"], api_name="/submit"
    )
    assert answer == {"status": "refused", "reasons": ["line 2: malformed JSON (Expecting ',' delimiter, column 18)"]}
    answer = submit(client, tmp, rows, 3, "not-a-token", "b1")
    assert answer == {"status": "refused", "reasons": ["unknown team token"]}
    (tmp / "big.jsonl").write_bytes(b'{"id": "p0::cred", "prediction": "A"}\n' * 200)  # over --max-bytes 4000
    with pytest.raises(Exception, match=r"(?i)file size|too large|exceeds"):
        client.predict(handle_file(str(tmp / "big.jsonl")), handle_file(str(meta)), tokens["beta"], api_name="/submit")
    answer = client.predict("nope", "test", api_name="/board")
    assert answer["status"] == "refused"
    assert len(Store(server.data).submissions()) == before and _cache_files(server) == []
    files = [p for p in (server.data / "files").rglob("*") if p.is_file()]
    assert len(files) == 2 * before  # each kept upload and its metadata, nothing of the refused ones


def test_quota_ladder_and_revocation_over_the_server(served, submit):
    server, client, rows, tokens, tmp = served
    acks = [submit(client, tmp, rows, k, tokens["gamma"], f"g{k}") for k in (4, 5, 8)]
    assert [a["board_changed"] for a in acks] == [True, False, True]  # +1 program: within the standard error
    assert [a["shown"]["joint_solved"] for a in acks] == [4, 4, 8]
    refused = submit(client, tmp, rows, 12, tokens["gamma"], "g12")
    assert refused["status"] == "refused" and refused["reasons"][0].startswith("over the quota of 3 uploads")
    assert refused["reasons"][0].endswith(f"the next is allowed from {_plus_a_day(acks[0]['time'])}")
    store = Store(server.data)
    store.revoke_team("gamma")
    refused = submit(client, tmp, rows, 12, tokens["gamma"], "g12e", track="enhanced", method_url="https://x.org")
    assert refused == {"status": "refused", "reasons": ["the team 'gamma' was revoked"]}
    board = client.predict("standard", "test", api_name="/board")
    assert [r["joint_solved"] for r in board["rows"] if r["name"] == "gamma"] == [8]  # still shown


def _http(server, method, path, body=None, headers=None):
    """(status, JSON or text) of one plain HTTP request to the server."""
    import urllib.error
    import urllib.request

    data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        server.url + path, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            status, text = answer.status, answer.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text.decode("utf-8", "replace")


def test_internals_are_closed_and_endpoints_the_api_does_not_offer_are_refused(served):
    server = served[0]
    assert _http(server, "GET", "monitoring")[0] == 403
    assert _http(server, "GET", "monitoring/summary") == (403, {"detail": "Monitoring is not enabled."})
    assert _http(server, "GET", "gradio_api/runs")[0] == 404  # no run history page
    offered = "the API offers ['board', 'history', 'submit', 'submit_model']"
    for name in ("withdraw", "freeze", "add_team", "revoke_team", "tables", "history_table"):
        for route in ("call", "run", "api"):
            status, answer = _http(server, "POST", f"gradio_api/{route}/{name}", {"data": [1]})
            assert (status, answer) == (404, {"status": "refused", "reasons": [f"no endpoint {name!r}: {offered}"]})
    status, answer = _http(server, "POST", "gradio_api/queue/join", {"data": [], "fn_index": 999, "session_hash": "x"})
    assert status == 400 and answer["status"] == "refused"  # Gradio's own answer to this is a 500
    status, answer = _http(server, "POST", "gradio_api/call/board", {"data": ["standard", "test"]})
    assert status == 200 and "event_id" in answer  # what the API offers still answers


def test_uploads_without_a_submission_cannot_fill_the_disk(tmp_path, write_gold):
    """20 uploads of 19 MB with no token: those over the space for unclaimed uploads (200 MB) are refused
    before they are written, and the rest leave DIR/uploads within --upload-max-age (20 s here, more than the
    burst takes) and the cleaner's period (5 s)."""
    write_gold(tmp_path / "gold.jsonl", n_programs=12, seed=9)
    server = Server(tmp_path / "data", tmp_path / "gold.jsonl", "--upload-max-age", 20).start()
    try:

        def body(i):  # each its own bytes: Gradio keeps identical uploads as one file
            head = b'--x\r\nContent-Disposition: form-data; name="files"; filename="big.jsonl"\r\n\r\n'
            return head + f"{i:08d}".encode() + b"A" * (19_000_000 - 8) + b"\r\n--x--\r\n"

        headers = {"Content-Type": "multipart/form-data; boundary=x"}
        started = time.monotonic()
        statuses = [_http(server, "POST", "gradio_api/upload", body(i), headers) for i in range(20)]
        assert time.monotonic() - started < 20  # none could expire during the burst
        assert [status for status, _ in statuses] == [200] * 10 + [503] * 10
        assert statuses[-1][1]["reasons"] == [
            "the server's space for uploads not yet submitted is full; try again in a few minutes"
        ]
        held = sum(p.stat().st_size for p in server.cache.rglob("*") if p.is_file())
        assert 10 * 19_000_000 <= held <= 200_000_000
        deadline = time.monotonic() + 40
        while any(p.is_file() for p in server.cache.rglob("*")) and time.monotonic() < deadline:
            time.sleep(0.25)
        assert [p for p in server.cache.rglob("*") if p.is_file()] == []  # nothing left: no copy, no tmp* file
        assert _http(server, "POST", "gradio_api/upload", body(20), headers)[0] == 200  # the space is free again
    finally:
        server.stop()


def _plus_a_day(moment: str) -> str:
    from datetime import datetime, timedelta

    return (datetime.fromisoformat(moment) + timedelta(hours=24)).isoformat()


@pytest.fixture
def burst(answers, write_metadata, write_submission):
    """``burst(client, tmp, rows, tokens) -> {team: job}``: one upload per team, all sent at once."""
    from gradio_client import handle_file

    def burst(client, tmp, rows, tokens):
        jobs = {}
        for i, (name, token) in enumerate(tokens.items()):
            path = write_submission(tmp / f"{name}.jsonl", answers(rows, i % 13))
            meta = write_metadata(tmp / f"{name}.metadata.json", model_name=f"model {i}")
            jobs[name] = client.submit(handle_file(str(path)), handle_file(str(meta)), token, api_name="/submit")
        return jobs

    return burst


def _twenty_teams(data: Path) -> dict[str, str]:
    """Twenty teams in a new store under ``data``: {name: token}."""
    store = Store(data)
    tokens = {f"team {i:02d}": store.add_team(f"team {i:02d}") for i in range(20)}
    store.close()
    return tokens


def test_twenty_uploads_at_once_are_all_acknowledged_and_on_the_board(tmp_path, burst, write_gold):
    rows = write_gold(tmp_path / "gold.jsonl", n_programs=12, seed=6)
    tokens = _twenty_teams(tmp_path / "data")
    server = Server(tmp_path / "data", tmp_path / "gold.jsonl").start()
    try:
        client = server.client()
        jobs = burst(client, tmp_path, rows, tokens)
        _, pending = wait([job.future for job in jobs.values()], timeout=240)
        assert not pending
        acks = {name: job.result() for name, job in jobs.items()}
        assert all(ack["status"] == "accepted" for ack in acks.values()), acks
        board = client.predict("standard", "test", api_name="/board")
        assert sorted(r["name"] for r in board["rows"]) == sorted(tokens)
        assert {r["name"]: r["joint_solved"] for r in board["rows"]} == {name: i % 13 for i, name in enumerate(tokens)}
    finally:
        server.stop()


def test_a_server_killed_mid_burst_restarts_with_every_acknowledged_upload(tmp_path, burst, write_gold):
    rows = write_gold(tmp_path / "gold.jsonl", n_programs=12, seed=7)
    tokens = _twenty_teams(tmp_path / "data")
    server = Server(tmp_path / "data", tmp_path / "gold.jsonl").start()
    client = server.client()
    jobs = burst(client, tmp_path, rows, tokens)
    deadline = time.monotonic() + 240
    while sum(job.done() for job in jobs.values()) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    server.kill()
    acked = {}
    for name, job in jobs.items():
        if job.done():
            try:
                answer = job.result()
            except Exception:  # cut off by the kill: no acknowledgement
                continue
            if answer["status"] == "accepted":
                acked[name] = answer["submission"]
    assert 4 <= len(acked) < 20  # killed in the middle of the burst
    restarted = Server(tmp_path / "data", tmp_path / "gold.jsonl").start()
    try:
        kept = Store(tmp_path / "data").submissions()
        by_id = {row["id"]: row for row in kept}
        for name, submission in acked.items():
            assert by_id[submission]["team"] == name
        for row in kept:  # no half-written one: every row's files are whole, and no file lacks its row
            data = Store(tmp_path / "data").file_path(row["file_sha256"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == row["file_sha256"]
            assert data == (tmp_path / f"{row['team']}.jsonl").read_bytes()
        named = {row["file_sha256"] for row in kept} | {row["metadata_sha256"] for row in kept}
        on_disk = {p.name for p in (tmp_path / "data" / "files").rglob("*") if p.is_file()}
        assert on_disk == named
        board = restarted.client().predict("standard", "test", api_name="/board")
        assert {r["name"] for r in board["rows"]} == {row["team"] for row in kept} >= set(acked)
        # nothing of the killed server's uploads is left: no upload copy, no tmp* file, no .claim-* link
        assert [p for p in restarted.cache.rglob("*") if p.is_file()] == []
        assert sorted(p.name for p in (tmp_path / "data").iterdir() if not p.name.startswith("board.sqlite")) == [
            "files",
            "keys",
            "uploads",
        ]
        assert list((tmp_path / "data" / "keys").iterdir()) == []  # endpoint jobs' keys: none here
    finally:
        restarted.stop()
