"""End-to-end time of the command line: ``naf-bench generate main`` on a cold cache and ``naf-bench score``
of a full hard-test submission, each as a fresh process (imports and engine start-up included).

    python scripts/bench_cli.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def timed(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "naf_bench.cli", *args], check=True, env=ENV, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = str(Path(tmp) / "cache")
        generate = timed("generate", "main", "--cache-dir", cache, "--out", str(Path(tmp) / "main.jsonl"))
        rows = [json.loads(line) for line in (Path(tmp) / "main.jsonl").read_text().splitlines()]
        submission = Path(tmp) / "submission.jsonl"
        submission.write_text(
            "".join(json.dumps({"id": r["id"], "prediction": r["gold"]}) + "\n" for r in rows if r["gold"])
        )
        score = timed("score", str(submission), "--config", "main")
    print(f"naf-bench generate main (cold cache, 600 rows): {generate:.1f} s")
    print(f"naf-bench score (480 predictions, bootstrap 1,000): {score:.1f} s")


if __name__ == "__main__":
    main()
