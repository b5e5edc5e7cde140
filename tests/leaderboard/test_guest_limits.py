"""The verified track's worker as a guest, at the job's limit: a team's endpoint that hangs, drips a byte a second
or floods an endless body is ended at the limit and its worker goes on to the next job. Each run must pass a limit
longer than a run takes to start (about 8 s on a quiet machine), so this module takes about a minute."""

from datetime import datetime

import pytest

from naf_bench.leaderboard.store import Store
from naf_bench.leaderboard.worker import ENDPOINT_FAILED

pytest.importorskip("gradio_client")
pytest.importorskip("lm_eval")
pytest.importorskip("tenacity")  # lm-eval's api extra

LATER = datetime.fromisoformat("9999-01-01T00:00:00+00:00")


@pytest.mark.slow
def test_an_endpoint_that_hangs_drips_or_floods_ends_at_the_limit_and_frees_its_worker(
    guest_board, run_worker, endpoint_jobs
):
    """Chat completions that never answer, answer a byte a second, or answer an endless body, taken by three workers
    at once: each run is ended at the job's limit (35 s here: time for a loaded machine to start three runs and
    ask) with the one reason, and only then is its worker free for the next job, which runs to the end."""
    server, client, tokens, tmp, stub, _ = guest_board
    modes = ("hang", "drip", "huge", "ok")
    acks = [endpoint_jobs.queue(client, tokens["alpha"], stub.url(mode)) for mode in modes]
    limit = 35
    workers = [run_worker(tmp, f"worker-slow-{i}", timeout=limit) for i in range(3)]
    assert [worker.wait(timeout=600) for worker in workers] == [0, 0, 0], _logs(tmp)
    paths = {path for _, path, _ in stub.requests}
    assert all(f"/{mode}/v1/chat/completions" in paths for mode in modes)  # each was asked, and answered so
    rows = {row["id"]: row for row in Store(server.data).jobs(now=LATER)}
    *stuck, ok = [ack["job"] for ack in acks]
    assert [(rows[job]["state"], rows[job]["reason"]) for job in stuck] == [("failed", ENDPOINT_FAILED)] * 3
    assert rows[ok]["state"] == "done"
    freed = endpoint_jobs.started(tmp, ok) - min(endpoint_jobs.started(tmp, job) for job in stuck)
    assert limit <= freed < limit + 60  # the ok job waited for a worker: the first run ended at its limit
    assert _logs(tmp).count(f"the run passed its limit of {limit} s") == 3


def _logs(tmp) -> str:
    return "".join(path.read_text() for path in sorted(tmp.glob("worker-slow-*.log")))
