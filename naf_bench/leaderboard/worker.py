"""The verified track's worker: ``naf-bench leaderboard worker --data DIR --hidden HIDDEN_DIR``.

It takes one job at a time from the store (``Store.claim_job``: round-robin by team), runs it with
:func:`runner.run_hidden` (``naf-bench run`` in a child process, as a guest: no two models' code in one process, none
of the worker's credentials, only allowed hosts; ``guest.py``) under a wall-clock limit, and posts the score under
the team's Ladder state of the job's kind, marked with it (``verified``: the checked copy of weights the maintainer
approved for the team, ``models.py``; ``endpoint``: a server the team runs, which sees every prompt it is sent).
Every failure to reach or read an endpoint reads the same to the team (:data:`ENDPOINT_FAILED`, shown once the
job's limit has passed since it started): neither the reason nor the time tells what the host answered.

While it runs a job it beats in the store every ``beat`` seconds; a job whose worker stopped beating for ``stale``
seconds (killed, the machine gone) is taken again by the next worker, once, then failed with that reason. A job is
posted in the same transaction that marks it done, and only by the attempt that holds it: never lost, never posted
twice.

A verified job runs on HIDDEN_DIR (a ``leaderboard new-set`` folder, which the service never reads); an endpoint job
on a fresh set of its own, drawn like HIDDEN_DIR's from a key derived from the worker's key (``--key``) and the
job's id, since the endpoint sees its prompts. The prompts, the model's outputs and the run's log stay under
``--work`` (default ``HIDDEN_DIR/runs``); the store gets the board row (aggregates), the run's metadata without
per-item fields, and the programs solved under a hash of their ids.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import traceback
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from naf_bench.errors import ConfigError
from naf_bench.leaderboard.approvals import HUB_PINNED
from naf_bench.leaderboard.guest import host_problem
from naf_bench.leaderboard.runner import JobFailed, run_hidden
from naf_bench.leaderboard.store import Job, Store, now_utc
from naf_bench.scoring.metadata import public_metadata

MAX_ATTEMPTS = 2  # a job whose worker dies is run once more, then failed


MAX_FIELD = 500  # characters of an endpoint's URL, model name or key
# a job's default limit: the run's start, then each program (77 programs: 890 s, within 15 minutes)
START_SECONDS, SECONDS_PER_PROGRAM = 120.0, 10.0
# what a team reads of every failure to reach or read its endpoint (one reason, one state, shown at the limit)
ENDPOINT_FAILED = "the endpoint did not answer every request with a chat completion within the job's limit"


def check_endpoint_job(base_url: str, model: str, key: str | None, allowed_hosts=()) -> list[str]:
    """What is wrong with an endpoint job's fields (none: it may be queued); no reason quotes the key. The host
    must be one the board may reach (``guest.host_problem``: not, and not resolving to, an address of the
    maintainer's networks, unless in ``allowed_hosts``)."""
    reasons = []
    parts = urlsplit(base_url) if len(base_url) <= MAX_FIELD else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        reasons.append(f"base_url: an http(s) URL of at most {MAX_FIELD} characters, e.g. https://host/v1")
    elif parts.username or parts.password or parts.query or parts.fragment:
        reasons.append("base_url: no user, password, query or fragment (give the key in its own field)")
    elif any(c in base_url for c in ", ") or not base_url.isprintable():
        reasons.append("base_url: no comma, space or unprintable character")
    elif problem := host_problem(parts.hostname, allowed_hosts):
        reasons.append(f"base_url: {problem}: the board reaches no host of its own networks")
    if not model or len(model) > MAX_FIELD or "," in model or not model.isprintable():
        reasons.append(f"model: the served model's name, 1 to {MAX_FIELD} printable characters, no comma")
    if key is not None and (len(key) > MAX_FIELD or not key.isascii() or not key.isprintable() or " " in key):
        reasons.append(f"key: at most {MAX_FIELD} printable ASCII characters, no space")
    return reasons


def set_split(kind: str, fingerprint: str) -> str:
    """The store's split of a job's result: its kind and its set, so each (kind, set) has a Ladder state of its
    own, apart from the team's uploads."""
    return f"{kind}/{fingerprint}"


def job_key(key: bytes, job_id: int) -> bytes:
    """The key of an endpoint job's own set: HMAC-SHA256(the worker's key, the job's id)."""
    return hmac.new(key, f"naf-bench endpoint job\x1f{job_id}".encode(), hashlib.sha256).digest()


def run_settings(job: Job, limits: dict, stored: Path | None = None) -> tuple[str | None, dict]:
    """The model argument and the ``run_hidden`` settings of a job: the checked copy ``stored`` of an approved
    model (``models.py``), loaded without remote code, or an endpoint through lm-eval's chat client; ``limits``
    (limit, max_gen_toks) are the worker's."""
    if job.kind == "endpoint":
        arguments = f"base_url={job.base_url},model={job.model}"
        return None, {"backend": "local-chat-completions", "model_args": arguments, **limits}
    return str(stored), {"backend": "hf", "model_args": "trust_remote_code=False", **limits}


class Worker:
    """One worker over the store in ``data`` and the hidden set in ``hidden``."""

    def __init__(
        self,
        data: str | Path,
        hidden: str | Path,
        *,
        key: bytes | None = None,
        work: str | Path | None = None,
        timeout: float | None = None,
        limit: int | None = None,
        max_gen_toks: int | None = None,
        stale: float = 60.0,
        beat: float = 5.0,
        attempts: int = 200,
        allowed_hosts=(),
        log=print,
    ):
        """``timeout``: each job's wall-clock limit (default :data:`START_SECONDS` and :data:`SECONDS_PER_PROGRAM`
        per program of the set); ``allowed_hosts``: endpoint hosts of the maintainer's own networks a job may reach
        (as the server's)."""
        self.store = Store(data)
        self.hidden = Path(hidden)
        self.manifest = json.loads((self.hidden / "manifest.json").read_text(encoding="utf-8"))
        self.key, self.work = key, Path(work or self.hidden / "runs")
        self.timeout = timeout or START_SECONDS + SECONDS_PER_PROGRAM * self.manifest["programs"]
        self.stale, self.beat, self.attempts = stale, beat, attempts
        self.allowed_hosts = tuple(allowed_hosts)
        self.limits = {"limit": limit, "max_gen_toks": max_gen_toks}
        self.log = log

    def run_once(self) -> Job | None:
        """Claim and run one job (None when none waits); the job as claimed."""
        job = self.store.claim_job(timedelta(seconds=self.stale), max_attempts=MAX_ATTEMPTS)
        if job is None:
            return None
        self.log(f"job {job.id} ({job.kind}, team {job.team!r}): attempt {job.attempts}")
        stop = threading.Event()
        beating = threading.Thread(target=self._beat, args=(job, stop), daemon=True)
        beating.start()
        started, shown_from = time.monotonic(), now_utc() + timedelta(seconds=self.timeout)
        try:
            hidden, key = self._set_of(job)
            model, settings = run_settings(job, self.limits, self._approved(job))
            result = run_hidden(
                model,
                hidden,
                self.work / f"job-{job.id}-{job.attempts}",
                settings,
                self.timeout,
                key,
                self.allowed_hosts,
            )
        except JobFailed as exc:
            if job.kind == "endpoint":  # a failure's kind, exit status or time would tell what the host answered
                self.log(f"job {job.id}: {exc}")
                self._end(job, ENDPOINT_FAILED, shown_from)
            else:
                self._end(job, str(exc))
            return job
        except Exception:  # the details go to the worker's log only: they may hold a prompt or an output
            self.log(traceback.format_exc())
            self._end(job, "the worker could not run it (the maintainer has the details)")
            return job
        finally:
            stop.set()
            beating.join()
        self._post(job, hidden, result, time.monotonic() - started)
        return job

    def run(self, once: bool = False, poll: float = 5.0) -> None:
        """Run jobs as they come (``once``: until none waits)."""
        while True:
            if self.run_once() is None:
                if once:
                    return
                time.sleep(poll)

    def _approved(self, job: Job) -> Path | None:
        """The checked copy of a verified job's model, as approved for its team (or every team) now."""
        if job.kind != "verified":
            return None
        stored = self.store.approved_model(job.model, job.team_id)
        if stored is None:
            raise JobFailed(f"{job.model!r} is no longer approved for the team")
        return stored

    def _set_of(self, job: Job) -> tuple[Path, str | None]:
        """The hidden set a job runs on and its endpoint's key (None: none given), the host checked again."""
        if job.kind != "endpoint":
            return self.hidden, None
        if problem := host_problem(urlsplit(job.base_url).hostname or "", self.allowed_hosts):
            raise JobFailed(f"base_url: {problem}")
        from naf_bench.leaderboard.secret import new_set

        if self.key is None:
            raise ConfigError("an endpoint job needs the worker's key (worker --key KEYFILE) for its own set")
        folder = self.work / f"job-{job.id}-set"
        if not (folder / "manifest.json").is_file():  # the same set again on a retry: same key, same rows
            new_set(
                job_key(self.key, job.id),
                self.manifest["config"],
                folder,
                self.manifest["overrides"],
                attempts=self.attempts,
            )
        key = self.store.key_path(job.id)
        return folder, key.read_text(encoding="utf-8") if key.is_file() else None

    def _beat(self, job: Job, stop: threading.Event) -> None:
        while not stop.wait(self.beat):
            self.store.beat(job)

    def _end(self, job: Job, reason: str, shown_from: datetime | None = None) -> None:
        ended = self.store.fail_job(job, reason, shown_from)
        self.log(f"job {job.id}: failed: {reason}" + ("" if ended else " (another attempt holds it: not recorded)"))

    def _post(self, job: Job, hidden: Path, result: dict, seconds: float) -> None:
        manifest = json.loads((hidden / "manifest.json").read_text(encoding="utf-8"))
        metadata = dict(result["metadata"])
        tokens = metadata.pop("completion_tokens", None)  # per item: keyed by hidden ids
        if tokens is not None:
            metadata["completion_tokens"] = {"total": tokens["total"]}
        if job.kind == "verified":  # the name it was approved by, not its copy's folder
            hub = HUB_PINNED.fullmatch(job.model)
            metadata["model_name"] = job.model.rsplit("@", 1)[0] if hub else Path(job.model).name
            if hub:
                metadata["model_version"] = job.model.rsplit("@", 1)[1]
        row = dict(
            result["row"],
            name=job.team,
            track=job.kind,
            kind=job.kind,
            set=manifest["key_fingerprint"],
            model=metadata["model_name"],
            metadata=public_metadata(metadata),
            job=job.id,
            attempts=job.attempts,
            run_seconds=round(seconds, 1),
            completion_tokens=None if tokens is None else tokens["total"],
        )
        data = json.dumps(row, sort_keys=True).encode()
        accepted = self.store.post_job(
            job,
            split=set_split(job.kind, manifest["key_fingerprint"]),
            data=data,
            metadata_bytes=json.dumps(metadata, sort_keys=True).encode(),
            metadata=metadata,
            record=row,
            solved=result["solved"],
        )
        if accepted is None:
            self.log(f"job {job.id}: another attempt holds it now: this result is not posted")
        else:
            self.log(f"job {job.id}: posted as submission {accepted.submission_id} ({seconds:.1f} s)")
