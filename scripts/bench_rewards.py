"""Throughput of the RL rewards and the training stream, per core, against ``score_rows`` in the same process.

    PYTHONPATH=$PWD python scripts/bench_rewards.py [--n 2000] [--processes 2]

Prints completions per CPU second (one core) for each reward: answer and format on ~1 KB completions, proof on
the stream's gold traces at its top level, JOINT on JOINT completions; the same traces through ``score_rows``
(what ``naf-bench score`` runs: the baseline); the proof reward over a process pool (wall time); and the
stream's items per CPU second at items 0..99 and 10^6..10^6+99, with their ratio. The load average is printed
beside them: the CPUs may be shared.
"""

from __future__ import annotations

import argparse
import os
import time

from naf_bench.readings import joint_conditions
from naf_bench.scoring.evaluation import score_rows
from naf_bench.training import rewards
from naf_bench.training.stream import CURRICULUM, Stream
from naf_bench.verbalize.joint_prompt import answer_line

TOP = {name: len(ladder) - 1 for name, ladder in CURRICULUM.items()}
FILLER = (
    "Under this reading, a statement hangs on the cycle through negation, so we must check each rule in turn "
    "and see whether its negated conditions are established. "
)


def _rate(function, n: int) -> float:
    """Per CPU second of this process (one core's throughput, whatever else the machine runs)."""
    start = time.process_time()
    function()
    return n / (time.process_time() - start)


def _call(reward, texts, rows):
    return reward(prompts=[r["prompt"] for r in rows], completions=texts, **{k: [r[k] for r in rows] for k in rows[0]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="completions per reward")
    parser.add_argument("--processes", type=int, default=2, help="the pool's processes for the proof reward")
    args = parser.parse_args()
    traced = Stream(seed=1, levels=TOP, traced=True).items(0, 50)
    rows = [traced[i % len(traced)] for i in range(args.n)]
    answers = [(FILLER * 8)[:1000] + f"\nANSWER: {row['gold']}" for row in rows]  # ~1 KB
    traces = [row["gold_trace"] for row in rows]
    joint_rows = Stream(seed=1, levels=TOP, joint=True).items(0, 50)
    joint_rows = [joint_rows[i % len(joint_rows)] for i in range(args.n)]
    joints = []
    for row in joint_rows:
        golds = rewards.joint_golds(row)
        joints.append((FILLER * 8)[:900] + "\n" + "\n".join(answer_line(c, golds[c]) for c in joint_conditions()))
    sizes = f"answer {sum(map(len, answers)) / args.n:.0f} B, proof {sum(map(len, traces)) / args.n:.0f} B"
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; {args.n} completions per reward; {sizes}")
    rated = {
        "answer_reward (1 KB)": _rate(lambda: _call(rewards.answer_reward, answers, rows), args.n),
        "format_reward (1 KB)": _rate(lambda: _call(rewards.format_reward, answers, rows), args.n),
        "joint_reward (1 KB)": _rate(lambda: _call(rewards.joint_reward, joints, joint_rows), args.n),
        "proof_reward (trace)": _rate(lambda: _call(rewards.proof_reward, traces, rows), args.n),
    }
    keyed = [row | {"id": f"r{i}"} for i, row in enumerate(rows)]
    entries = {
        row["id"]: {"prediction": f"ANSWER: {row['gold']}", "trace": t} for row, t in zip(keyed, traces, strict=True)
    }
    baseline = _rate(lambda: score_rows(keyed, entries, n_bootstrap=0), args.n)
    pooled = rewards.pooled("proof", args.processes)
    _call(pooled, traces[:100], rows[:100])  # start the workers
    start = time.perf_counter()  # a pool's throughput is wall time: its CPU time is the workers'
    _call(pooled, traces, rows)
    pooled_rate = args.n / (time.perf_counter() - start)
    pooled.pool.shutdown()
    for name, rate in rated.items():
        print(f"{name:32s} {rate:10,.0f} completions per CPU second")
    print(f"{f'proof_reward, {args.processes} processes':32s} {pooled_rate:10,.0f} completions/s (wall)")
    ratio = rated["proof_reward (trace)"] / baseline
    name = "score_rows, traces (baseline)"
    print(f"{name:32s} {baseline:10,.0f} completions per CPU second; proof / baseline {ratio:.1f}x")
    stream = Stream(seed=1, levels=TOP)
    first = _rate(lambda: stream.items(0, 100), 100)
    late = _rate(lambda: stream.items(10**6, 10**6 + 100), 100)
    print(
        f"stream (top level): items 0..99 {first:.0f} items per CPU second, items 10^6..10^6+99 {late:.0f}; "
        f"time ratio {first / late:.2f} (at most 2 wanted)"
    )


if __name__ == "__main__":
    main()
