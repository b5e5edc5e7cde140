"""Model jobs in the store: queued in the same transactions as uploads (and in the same quota), durable across
SIGKILL, claimed by one worker at a time, retried once when their worker dies, posted at most once."""

import json
import os
import signal
import subprocess
import sys
from datetime import timedelta

import pytest

from naf_bench.errors import ConfigError
from naf_bench.leaderboard.approvals import approve
from naf_bench.leaderboard.store import Job, OverQuota, Store, now_utc
from naf_bench.leaderboard.worker import check_endpoint_job

KEY = "sk-fake-0123456789"


def _post(store, job, solved=2):
    return store.post_job(
        job,
        split=f"{job.kind}/abc",
        data=b'{"row": 1}',
        metadata_bytes=b"{}",
        metadata={},
        record={"set": "abc"},
        solved={f"p{i}": i < solved for i in range(4)},
    )


def test_a_job_counts_in_the_quota_with_uploads_and_its_key_lives_only_while_it_runs(tmp_path):
    store = Store(tmp_path)
    store.add_team("alpha")
    (team,) = store.teams()
    moment = now_utc()
    job = store.submit_job(
        team, kind="endpoint", model="m", base_url="http://127.0.0.1:1/v1", settings={}, key=KEY, quota=2, now=moment
    )
    assert isinstance(job, Job) and job.state == "queued" and job.attempts == 0
    key_file = store.key_path(job.id)
    assert key_file.read_text() == KEY and (key_file.stat().st_mode & 0o777) == 0o600
    store.accept(
        team,
        split="test",
        track="standard",
        data=b"x",
        metadata_bytes=b"{}",
        metadata={},
        record={},
        solved={"p": True},
        quota=2,
        now=moment,
    )
    over = store.submit_job(team, kind="verified", model="/m", settings={}, quota=2, now=moment)
    assert isinstance(over, OverQuota) and over.next_allowed == (moment + timedelta(hours=24)).isoformat()
    over = store.accept(
        team,
        split="test",
        track="standard",
        data=b"y",
        metadata_bytes=b"{}",
        metadata={},
        record={},
        solved={"p": True},
        quota=2,
        now=moment,
    )
    assert isinstance(over, OverQuota)
    claimed = store.claim_job(timedelta(seconds=60))
    assert (claimed.id, claimed.state, claimed.attempts) == (job.id, "running", 1)
    assert store.claim_job(timedelta(seconds=60)) is None  # one worker at a time
    assert _post(store, claimed) is not None
    assert not key_file.exists()
    (row,) = store.jobs(team)
    assert (row["state"], row["attempts"], row["reason"]) == ("done", 1, None) and KEY not in str(row)
    assert _post(store, claimed) is None  # never posted twice
    assert [s["track"] for s in store.submissions(team)] == ["standard", "endpoint"]


def test_a_dead_workers_job_is_retried_once_then_failed_with_the_reason(tmp_path):
    store = Store(tmp_path)
    store.add_team("alpha")
    (team,) = store.teams()
    start = now_utc()
    job = store.submit_job(team, kind="endpoint", model="m", base_url="http://h/v1", settings={}, key=KEY, now=start)
    first = store.claim_job(timedelta(seconds=30), now=start)
    assert store.claim_job(timedelta(seconds=30), now=start + timedelta(seconds=20)) is None  # still beating
    second = store.claim_job(timedelta(seconds=30), now=start + timedelta(seconds=31))  # first's worker died
    assert (second.id, second.attempts) == (job.id, 2)
    assert not store.beat(first) and not store.fail_job(first, "late") and _post(store, first) is None
    assert store.key_path(job.id).exists()
    assert store.claim_job(timedelta(seconds=30), now=start + timedelta(seconds=62)) is None  # second died too
    (row,) = store.jobs(team, now=start + timedelta(seconds=62))
    assert row["state"] == "failed" and row["attempts"] == 2
    assert row["reason"] == "the worker running it stopped (killed or crashed) on each of its 2 attempts"
    assert not store.key_path(job.id).exists() and store.submissions(team) == []


def test_a_queued_job_survives_sigkill_and_a_half_written_one_leaves_nothing(tmp_path):
    store = Store(tmp_path)
    store.add_team("alpha")
    store.close()
    script = f"""
import os, signal, sys
from naf_bench.leaderboard import store as s
st = s.Store({str(tmp_path)!r})
team = st.teams()[0]
st.submit_job(team, kind="endpoint", model="m", base_url="http://h/v1", settings={{}}, key="k1")
if sys.argv[1] == "before-commit":
    s._write_private = lambda path, data: (path.write_bytes(data), os.kill(os.getpid(), signal.SIGKILL))
    st.submit_job(team, kind="endpoint", model="m", base_url="http://h/v1", settings={{}}, key="k2")
os.kill(os.getpid(), signal.SIGKILL)
"""
    done = subprocess.run([sys.executable, "-c", script, "before-commit"], env={**os.environ, "PYTHONPATH": "."})
    assert done.returncode == -signal.SIGKILL
    assert sorted(p.name for p in (tmp_path / "keys").iterdir()) == ["1", "2"]  # the second's key, no row
    store = Store(tmp_path, recover=True)
    assert [(j["id"], j["state"]) for j in store.jobs()] == [(1, "queued")]
    assert [p.name for p in (tmp_path / "keys").iterdir()] == ["1"]


def test_models_and_endpoints_are_checked_before_they_are_queued(tmp_path, monkeypatch):
    (tmp_path / "m").mkdir()
    with pytest.raises(ConfigError, match="neither a model folder"):
        approve(str(tmp_path / "m"), tmp_path / "models")
    (tmp_path / "m" / "config.json").write_text("{}")
    name, stored = approve(str(tmp_path / "m"), tmp_path / "models")
    assert name == str((tmp_path / "m").resolve()) and stored.parent == tmp_path / "models"
    assert (stored / "config.json").read_text() == "{}"  # a copy: what was checked is what runs
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match=r"@a{40}: could not fetch it from the Hub \("):  # fetched at approval
        approve("HuggingFaceTB/SmolLM2-135M-Instruct@" + "a" * 40, tmp_path / "models")
    with pytest.raises(ConfigError, match="not a Hub id pinned to a commit"):
        approve("HuggingFaceTB/SmolLM2-135M-Instruct@main", tmp_path / "models")
    assert check_endpoint_job("http://127.0.0.1:8000/v1", "m", KEY, ["127.0.0.1"]) == []
    assert check_endpoint_job("http://127.0.0.1:8000/v1", "m", KEY) == [
        "base_url: 127.0.0.1 is a loopback address: the board reaches no host of its own networks"
    ]
    reasons = check_endpoint_job("http://user:pw@host/v1?k=1", "a,b", KEY + " x")
    assert [r.split(":")[0] for r in reasons] == ["base_url", "model", "key"]
    assert not any(KEY in r for r in reasons)
    assert check_endpoint_job("file:///etc/passwd", "m", None)[0].startswith("base_url: an http(s) URL")


def test_a_verified_job_runs_its_approved_copy_without_remote_code(tmp_path):
    from naf_bench.leaderboard.runner import run_command
    from naf_bench.leaderboard.worker import run_settings

    def job(kind, model, base_url=None):
        return Job(1, 1, "t", kind, model, base_url, {}, "running", 1, "")

    commit = "0123456789abcdef0123456789abcdef01234567"
    stored = tmp_path / "models" / "0123"
    model, settings = run_settings(job("verified", f"Org/Name@{commit}"), {"limit": 2, "max_gen_toks": None}, stored)
    assert (model, settings["model_args"]) == (str(stored), "trust_remote_code=False")
    (tmp_path / "manifest.json").write_text('{"config": "main"}')
    command = run_command(model, tmp_path, tmp_path / "out", settings)
    assert command[1:5] == ["-m", "naf_bench.leaderboard.guest", "run", str(stored)]  # under the guard
    assert command[command.index("--model-args") + 1] == "trust_remote_code=False"
    assert command[command.index("--limit") + 1] == "2" and "--max-gen-toks" not in command
    assert command[command.index("--out") + 1 : command.index("--out") + 3] == [str(tmp_path / "out"), "--overwrite"]
    model, settings = run_settings(job("endpoint", "served", "http://127.0.0.1:9/v1"), {})
    assert model is None and settings == {
        "backend": "local-chat-completions",
        "model_args": "base_url=http://127.0.0.1:9/v1,model=served",
    }


def test_each_endpoint_job_gets_a_set_of_its_own_from_the_key_and_its_id(tmp_path):
    from naf_bench.leaderboard.secret import fingerprint, new_set
    from naf_bench.leaderboard.worker import Worker, job_key

    maintainer = bytes(range(32))
    new_set(maintainer, "main", tmp_path / "hidden", {"programs_per_cell": 1}, attempts=20)
    worker = Worker(tmp_path / "data", tmp_path / "hidden", key=maintainer, attempts=20, allowed_hosts=["h"])
    worker.store.add_team("alpha")
    (team,) = worker.store.teams()
    jobs = [
        worker.store.submit_job(team, kind="endpoint", model="m", base_url="http://h/v1", settings={}, key=key)
        for key in (KEY, None)
    ]
    (first, key), (second, no_key) = (worker._set_of(job) for job in jobs)
    assert key == KEY and no_key is None
    prints = [json.loads((folder / "manifest.json").read_text())["key_fingerprint"] for folder in (first, second)]
    assert prints == [fingerprint(job_key(maintainer, job.id)) for job in jobs]
    assert len({*prints, fingerprint(maintainer)}) == 3
    prompts = [
        {json.loads(line)["prompt"] for line in (folder / "gold.jsonl").read_text().splitlines()}
        for folder in (first, second)
    ]
    assert len(prompts[0]) == 20 and not prompts[0] & prompts[1]


def test_the_service_queues_models_within_the_quota_and_never_answers_with_the_key(tmp_path, write_gold):

    from naf_bench.leaderboard.service import Service

    write_gold(tmp_path / "gold.jsonl", n_programs=4)
    service = Service(tmp_path / "data", tmp_path / "gold.jsonl", quota=2, allowed_hosts=["127.0.0.1"])
    token = service.store.add_team("alpha")
    team = service.team_for(token)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    approved, stored = approve(str(tmp_path / "m"), tmp_path / "models")
    service.store.approve_model(approved, str(stored))
    answers = [
        service.submit_model(team, "weights", approved),
        service.submit_model(team, "verified", str(tmp_path / "other")),
        service.submit_model(team, "endpoint", "m", "ftp://h/v1", KEY),
        service.submit_model("unknown team token", "verified", approved),
    ]
    assert [a["status"] for a in answers] == ["refused"] * 4
    assert answers[0]["reasons"] == ["kind: 'verified' (an approved model) or 'endpoint' (a server), not 'weights'"]
    assert "is not a model approved for your team" in answers[1]["reasons"][0]
    assert answers[3]["reasons"] == ["unknown team token"]
    queued = [service.submit_model(team, "verified", approved),
              service.submit_model(team, "endpoint", "m", "http://user:pw@127.0.0.1:9/v1", KEY),
              service.submit_model(team, "endpoint", "m", "http://127.0.0.1:9/v1", KEY)]  # fmt: skip
    assert [a["status"] for a in queued] == ["queued", "refused", "queued"]
    over = service.submit_model(team, "verified", approved)
    assert over["reasons"][0].startswith("over the quota of 2 uploads and jobs per team in 24 hours")
    history = service.history(team)
    assert [(j["kind"], j["state"], j["base_url"]) for j in history["jobs"]] == [
        ("verified", "queued", None),
        ("endpoint", "queued", "http://127.0.0.1:9/v1"),
    ]
    assert KEY not in json.dumps([answers, queued, over, history])


def test_a_team_revoked_while_its_job_runs_is_not_posted_and_its_queue_is_cancelled(tmp_path):
    store = Store(tmp_path)
    store.add_team("alpha")
    (team,) = store.teams()
    jobs = [
        store.submit_job(team, kind="endpoint", model="m", base_url="http://h/v1", settings={}, key=KEY)
        for _ in range(3)
    ]
    running = store.claim_job(timedelta(seconds=60))
    assert store.revoke_team("alpha") == [jobs[1].id, jobs[2].id]
    assert store.claim_job(timedelta(seconds=60)) is None  # nothing left to run
    assert _post(store, running) is None and store.submissions() == []
    assert [(j["state"], j["reason"]) for j in store.jobs()] == [("failed", "the team was revoked")] * 3
    assert list((tmp_path / "keys").iterdir()) == []


def test_jobs_are_claimed_round_robin_by_team(tmp_path):
    store = Store(tmp_path)
    for name in ("alpha", "beta", "gamma"):
        store.add_team(name)
    alpha, beta, gamma = store.teams()
    queued = [
        (team.name, store.submit_job(team, kind="verified", model="m", settings={}).id)
        for team in (alpha, alpha, alpha, beta, alpha, gamma, beta)
    ]
    order = []
    while (job := store.claim_job(timedelta(seconds=60))) is not None:
        order.append((job.team, job.id))
        store.fail_job(job, "done with it")
    assert order == [queued[0], queued[3], queued[5], queued[1], queued[6], queued[2], queued[4]]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [("model.safetensors", b"\x08\x00\x00\x00\x00\x00\x00\x00not json", "without a safetensors header"),
     ("model.safetensors", b"\x02", "without a safetensors header"),
     ("generation_config.json", b"{oops", "named .json but not JSON"),
     ("weights.dat", b"\x80\x04\x95\x00", "pickled weights"), ("optimizer.pt", b"PK\x03\x04", "pickled weights"),
     ("model.gguf", b"GGML", "not a GGUF file")],
)  # fmt: skip
def test_a_model_file_that_is_not_what_its_name_says_is_refused(tmp_path, name, data, reason):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text("{}")
    (tmp_path / "m" / name).write_bytes(data)
    with pytest.raises(ConfigError, match=reason):
        approve(str(tmp_path / "m"), tmp_path / "models")
    assert list((tmp_path / "models").iterdir()) == []  # nothing kept
    header = b'{"__metadata__": {}}'
    (tmp_path / "m" / name).unlink()
    (tmp_path / "m" / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    assert approve(str(tmp_path / "m"), tmp_path / "models")[1].is_dir()
