"""What ``naf-bench run`` spends on lm-eval's task index before a model loads: the index it builds when only
naf-bench's tasks are asked for (:func:`naf_bench.runs.run.checked_task_manager`), beside lm-eval's whole index with
our task folder (what every run built before), alternated in the same process: the first of each (what a run, a
fresh process, pays) and the best of N.

    python scripts/bench_task_index.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from lm_eval.tasks import TaskManager

    from naf_bench.runs.run import checked_task_manager, tasks_dir

    ours, whole = [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        manager = checked_task_manager({}, ("naf_bench", "naf_bench_cred"), {})
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        everything = TaskManager(include_path=str(tasks_dir()))
        whole.append(time.perf_counter() - start)
    print(f"naf-bench's tasks only ({len(manager.all_tasks):,} names): first {ours[0]:.2f} s, best {min(ours):.2f} s")
    print(
        f"lm-eval's whole index with ours ({len(everything.all_tasks):,} names): first {whole[0]:.2f} s, "
        f"best {min(whole):.2f} s"
    )
    print(f"saved per run: {whole[0] - ours[0]:.1f} s; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
