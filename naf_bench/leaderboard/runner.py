"""The verified track's runner: a model the maintainer runs on a hidden set, scored by the core.

:func:`run_hidden` runs ``naf-bench run`` in a child process of its own (its own interpreter: no two models' code
ever share a process) with the hidden set's rows as the tasks' documents (``NAF_BENCH_DATASET`` names the set's
folder, :func:`naf_bench.data.dataset.hidden_dataset`), under a wall-clock limit, then scores the run's submission
against the hidden gold with the same core as every upload. The prompts and the model's outputs stay in the
run's folder, which belongs to the worker; what a team may see is the score record and the run's metadata
(model, settings, tokens), and a failure's reason without the run's output (its log stays with the worker).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from naf_bench.errors import ConfigError, NafBenchError
from naf_bench.leaderboard.guest import child_env

# the task (or group) whose documents are a config's test split
TASKS = {"main": "naf_bench", "hard": "naf_bench_hard", "zh": "naf_bench_zh", "wfs44": "naf_bench_wfs44",
         "hidden": "naf_bench_hidden"}  # fmt: skip


class JobFailed(NafBenchError):
    """A run that ended without a result, with a reason a team may read (no prompt, no output)."""


def run_command(model: str | None, hidden: Path, out: Path, settings: dict) -> list[str]:
    """The ``naf-bench run`` command of a job: its model, the hidden set's task, the job's settings."""
    manifest = json.loads((hidden / "manifest.json").read_text(encoding="utf-8"))
    task = TASKS.get(manifest["config"])
    if task is None:
        raise ConfigError(
            f"no lm-eval task reads a hidden set drawn like {manifest['config']!r}; "
            f"new-set --config takes one of {', '.join(TASKS)} for the verified track"
        )
    command = [sys.executable, "-m", "naf_bench.leaderboard.guest", "run", *([model] if model else [])]
    # the job's folder is its own: a retry replaces what an attempt that died left there
    command += ["--model", settings.get("backend", "hf"), "--tasks", task, "--out", str(out), "--overwrite"]
    for option in ("model_args", "limit", "max_gen_toks"):
        if settings.get(option) is not None:
            command += [f"--{option.replace('_', '-')}", str(settings[option])]
    return command


def run_hidden(
    model: str | None,
    hidden: str | Path,
    out: str | Path,
    settings: dict | None = None,
    timeout: float = 3600.0,
    key: str | None = None,
    allowed_hosts=(),
) -> dict:
    """Run ``model`` on the hidden set in ``hidden`` (a ``leaderboard new-set`` folder), writing the run to
    ``out``; ``{"scores": the core's record, "metadata": the run's submission metadata, "row": the board row,
    "solved": JOINT per program}`` (programs named by a hash of their id: no hidden id), or a JobFailed; the
    answers are scored once, without a bootstrap interval (the board's rows have none). The run is a guest
    (``guest.py``): an allow-listed environment with the team's ``key`` (an endpoint's) as its only credential,
    connections only to global addresses and ``allowed_hosts``, no redirect; it dies with the process that
    started it."""
    from naf_bench.errors import DataError
    from naf_bench.leaderboard.board import submission_row
    from naf_bench.scoring.evaluation import run_record
    from naf_bench.scoring.intake import check, read_gold, read_submission

    hidden, out, settings = Path(hidden), Path(out), settings or {}
    command = run_command(model, hidden, out, settings)
    out.mkdir(parents=True, exist_ok=True)
    env = child_env(key, allowed_hosts, NAF_BENCH_DATASET=str(hidden.resolve()))
    with open(out / "run.log", "w", encoding="utf-8") as log:
        try:
            done = subprocess.run(
                command, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=timeout, preexec_fn=_die_with_parent()
            )
        except subprocess.TimeoutExpired:
            raise JobFailed(f"the run passed its limit of {timeout:g} s") from None
    if done.returncode != 0:
        raise JobFailed(f"naf-bench run ended with exit status {done.returncode} (its log is with the maintainer)")
    metadata = json.loads((out / "submission.metadata.json").read_text(encoding="utf-8"))
    submission = read_submission(out / "submission.jsonl", name=model or "model", metadata=metadata)
    gold = read_gold(hidden / "gold.jsonl")
    try:
        checked = check(submission, gold)
    except DataError:  # its message would name hidden ids
        raise JobFailed("the run answered none of the hidden set's prompts") from None
    row, scores = submission_row(checked, n_bootstrap=0)
    record = run_record(scores, submission.name)
    solved = {hashlib.sha256(program.encode()).hexdigest()[:16]: bool(ok) for program, ok in scores.solved().items()}
    return {"scores": record.to_dict(), "metadata": metadata, "row": row, "solved": solved}


def _die_with_parent():
    """What the run's process calls before it starts, so that it is killed when the process that started it dies
    (Linux's PR_SET_PDEATHSIG): a worker killed mid-job leaves no run behind it. Prepared here, in the parent: the
    child, forked while the worker's heartbeat thread runs, imports nothing. None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import functools
    import signal

    return functools.partial(ctypes.CDLL(None, use_errno=True).prctl, 1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
