"""The verified track's worker as a guest, failing to reach a team's endpoint: a host the worker does not allow
(the server did), a closed port, a server answering 500, one answering HTML, one redirecting: one state, one
reason, no exit status, each shown once the job's limit has passed since it started; the redirect not followed."""

import time
from datetime import datetime

import pytest

from naf_bench.leaderboard.store import Store
from naf_bench.leaderboard.worker import ENDPOINT_FAILED
from naf_bench.runs.serving import free_port

pytest.importorskip("gradio_client")
pytest.importorskip("lm_eval")
pytest.importorskip("tenacity")  # lm-eval's api extra

LATER = datetime.fromisoformat("9999-01-01T00:00:00+00:00")


def test_every_failure_to_reach_an_endpoint_reads_the_same_and_shows_at_the_limit(
    guest_board, endpoint_jobs, run_worker
):
    """Jobs at a host the worker does not allow (the server did: checked again when the job starts), a closed port,
    a server answering 500, one answering HTML, one redirecting to another path of an allowed host: one state, one
    reason, no exit status, each shown when the job's limit has passed since it started; the redirect is not
    followed."""
    server, client, tokens, tmp, stub, _ = guest_board
    ipv6 = f"http://[::1]:{free_port()}/v1"  # allowed by the server, not by the worker
    urls = [ipv6, f"http://127.0.0.1:{free_port()}/v1", stub.url("error"), stub.url("garbage"), stub.url("redirect")]
    acks = [endpoint_jobs.queue(client, tokens["beta"], url) for url in urls]
    assert [ack["status"] for ack in acks] == ["queued"] * 5
    assert endpoint_jobs.history(client, tokens["beta"])[acks[0]["job"]]["base_url"] == ipv6  # shown with its brackets
    limit = 30  # four runs of about 8 s each on a quiet machine: each still asks before it
    worker = run_worker(tmp, "worker-failures", timeout=limit)
    ipv6 = acks[0]["job"]  # refused by the worker before any run
    deadline = time.monotonic() + 60
    while endpoint_jobs.state(tmp, ipv6) != "failed" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert endpoint_jobs.state(tmp, ipv6) == "failed"
    shown = endpoint_jobs.history(client, tokens["beta"])[ipv6]
    assert (shown["state"], shown["reason"], shown["ended_at"]) == ("running", None, None)  # not yet: the limit
    assert worker.wait(timeout=600) == 0, (tmp / "worker-failures.log").read_text()
    stub_paths = [path for _, path, _ in stub.requests]
    assert {"/error/v1/models", "/garbage/v1/models", "/redirect/v1/models"} <= set(stub_paths)  # they were asked
    assert not any(path.startswith("/leak") for path in stub_paths)
    time.sleep(max(0.0, endpoint_jobs.started(tmp, ipv6) + limit + 0.5 - time.time()))
    history = endpoint_jobs.history(client, tokens["beta"])
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
