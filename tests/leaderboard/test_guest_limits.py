"""The verified track's worker as a guest, at its limits: a team's endpoint that hangs, drips a byte a second or
floods an endless body is ended at the job's limit and the next job starts; every failure to reach an endpoint (a
host the worker does not allow, a closed port, 500, HTML, a redirect) reads the same and is shown once the job's
limit has passed. Each run must pass a limit longer than a run's start, so this module takes minutes."""

import itertools
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


@pytest.mark.slow
def test_an_endpoint_that_hangs_drips_or_floods_ends_at_the_limit_and_the_next_job_starts(
    guest_board, run_worker, endpoint_jobs
):
    """Chat completions that never answer, answer a byte a second, or answer an endless body: each run is ended at
    the job's limit (45 s here: time for a loaded machine to start the run and ask) with the one reason, and the
    next job starts; a job after them runs to the end."""
    server, client, tokens, tmp, stub, _ = guest_board
    modes = ("hang", "drip", "huge", "ok")
    acks = [endpoint_jobs.queue(client, tokens["alpha"], stub.url(mode)) for mode in modes]
    limit = 45
    assert run_worker(tmp, "worker-slow", timeout=limit).wait(timeout=900) == 0, (tmp / "worker-slow.log").read_text()
    paths = {path for _, path, _ in stub.requests}
    assert all(f"/{mode}/v1/chat/completions" in paths for mode in modes)  # each was asked, and answered so
    rows = {row["id"]: row for row in Store(server.data).jobs(now=LATER)}
    jobs = [ack["job"] for ack in acks]
    for job, after in itertools.pairwise(jobs):  # the three that never finish answering, each before the next
        assert (rows[job]["state"], rows[job]["reason"]) == ("failed", ENDPOINT_FAILED)
        took = endpoint_jobs.started(tmp, after) - endpoint_jobs.started(tmp, job)  # the run, the next job's own set
        assert limit <= took < limit + 60
    assert rows[jobs[3]]["state"] == "done"
    assert (tmp / "worker-slow.log").read_text().count("the run passed its limit of 45 s") == 3
