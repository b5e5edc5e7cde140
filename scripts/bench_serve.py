"""Submission service speed: upload -> acknowledgement through the real server, with 1 client and with 20 at once,
beside ``naf-bench score`` on the same file in the same run.

    python scripts/bench_serve.py [--gold GOLD --submission FILE] [--rounds 3]

Without ``--gold``, a gold set shaped like the authors' hard_v3 (77 programs x 5 conditions, 385 rows) is written
with seeded labels and a seeded 385-line submission; with ``--gold OUT/leaderboard/hard_v3/gold.jsonl`` (from
``naf-bench import-authors``) and one of the imported submissions, the real set. The server runs on 127.0.0.1 in
a subprocess (``naf_bench.leaderboard.local.Server``) with the quota lifted. The latency is the wall time of
``gradio_client``'s ``predict`` on ``/submit``: the upload, the checks, the scoring, the commit and the answer;
the service's own part (``Service.submit`` in this process, no Gradio) is printed beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from naf_bench.leaderboard.local import Server
from naf_bench.leaderboard.service import Service
from naf_bench.leaderboard.store import Store
from naf_bench.readings import NO_SEMANTICS, all_conditions, answer_letters

METADATA = {"model_name": "bench", "track": "standard", "prompt_setting": "zero-shot", "reasoning_mode": "direct",
            "external_tools": False, "temperature": 0, "samples_per_item": 1}  # fmt: skip


def synthetic(folder: Path, programs: int = 77, seed: int = 0) -> tuple[Path, Path]:
    rng = random.Random(seed)
    rows = [
        {
            "id": f"bench-{i}::{c}",
            "gold": None if c == NO_SEMANTICS else rng.choice(answer_letters()),
            "condition": c,
            "program_id": f"bench-{i}",
            "family": f"family{i % 7}",
        }
        for i in range(programs)
        for c in all_conditions()
    ]
    gold = folder / "gold.jsonl"
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    submission = folder / "submission.jsonl"
    lines = [json.dumps({"id": row["id"], "prediction": rng.choice(answer_letters())}) for row in rows]
    submission.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return gold, submission


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", help="gold rows JSONL (default: a synthetic hard_v3-shaped set)")
    parser.add_argument("--submission", help="a submission on --gold's ids")
    parser.add_argument("--rounds", type=int, default=3, help="bursts of 20 (and 20 x rounds single uploads)")
    args = parser.parse_args()
    from gradio_client import Client, handle_file

    load_before = os.getloadavg()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        gold, submission = (Path(args.gold), Path(args.submission)) if args.gold else synthetic(tmp)
        metadata = tmp / "submission.metadata.json"
        metadata.write_text(json.dumps(METADATA), encoding="utf-8")
        n_lines = sum(1 for line in submission.read_bytes().split(b"\n") if line.strip())
        print(f"{submission.name}: {n_lines} lines against {gold} ({'synthetic' if not args.gold else 'given'})")

        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "naf_bench.cli", "score", str(submission), "--gold", str(gold)],
            check=False,
            capture_output=True,
        )
        score_process = time.perf_counter() - started
        from naf_bench.cli import main as cli

        started = time.perf_counter()
        with open(os.devnull, "w") as quiet:
            stdout, sys.stdout = sys.stdout, quiet
            try:
                cli(["score", str(submission), "--gold", str(gold)])
            finally:
                sys.stdout = stdout
        score_call = time.perf_counter() - started

        service = Service(tmp / "in-process", gold, quota=None)  # the service's own work, without Gradio
        team = service.team_for(service.store.add_team("in-process"))
        service.submit(submission, metadata, team)
        started = time.perf_counter()
        for _ in range(20):
            service.submit(submission, metadata, team)
        in_process = (time.perf_counter() - started) / 20
        service.store.close()

        store = Store(tmp / "data")
        tokens = [store.add_team(f"team {i:02d}") for i in range(20)]
        store.close()
        server = Server(tmp / "data", gold, "--quota", 0).start()
        try:
            clients = [
                Client(server.url, verbose=False, download_files=False, analytics_enabled=False) for _ in range(20)
            ]

            # each client its own file name (the same bytes): as teams upload, not one file twenty times
            copies = [tmp / f"team-{i:02d}.jsonl" for i in range(20)]
            for copy in copies:
                copy.write_bytes(submission.read_bytes())

            refusals: list[list[str]] = []  # none expected: printed if any

            def upload(client, token) -> float:
                i = tokens.index(token)
                begun = time.perf_counter()
                answer = client.predict(
                    handle_file(str(copies[i])), handle_file(str(metadata)), token, api_name="/submit"
                )
                if answer["status"] != "accepted":
                    refusals.append(answer["reasons"])
                return time.perf_counter() - begun

            upload(clients[0], tokens[0])  # warm-up: not counted
            single = [upload(clients[0], tokens[0]) for _ in range(20 * args.rounds)]
            burst: list[float] = []
            for _ in range(args.rounds):
                barrier = threading.Barrier(20)
                results: list[float] = []

                def one(i, barrier=barrier, results=results):
                    barrier.wait()
                    results.append(upload(clients[i], tokens[i]))

                threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                burst += results
        finally:
            server.stop()
    for reasons in refusals:
        print(f"refused: {reasons}")
    p50, p95 = percentiles(single)
    b50, b95 = percentiles(burst)
    print(f"naf-bench score, same file: {score_call:.3f} s in this process, {score_process:.2f} s as a command")
    print(f"the service's own work per upload (checks, scoring, commit; no Gradio): {in_process:.3f} s")
    print(
        f"upload -> acknowledgement, 1 client ({len(single)} uploads): median {p50:.3f} s, 95th percentile "
        f"{p95:.3f} s ({p95 / score_call:.2f}x score's call)"
    )
    print(
        f"upload -> acknowledgement, 20 at once ({len(burst)} uploads): median {b50:.3f} s, 95th percentile "
        f"{b95:.3f} s ({b95 / score_call:.2f}x score's call)"
    )
    print(
        f"goal: p95 under 1 s with one client ({'met' if p95 < 1 else 'NOT met'}), under 5 s with 20 "
        f"({'met' if b95 < 5 else 'NOT met'}); {os.cpu_count()} CPUs, load average (1, 5, 15 min) before the run "
        + " ".join(f"{x:.2f}" for x in load_before)
        + ", after it (this run's own clients and server included) "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )


if __name__ == "__main__":
    main()
