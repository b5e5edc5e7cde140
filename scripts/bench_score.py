"""Scoring at scale: ``naf-bench score`` of a large submission with free-form traces, as a fresh process.

    python scripts/bench_score.py [--lines 100000] [--trace-bytes 2000]

Gold: the ``main`` config's named-condition rows (what scoring reads of them, certificates included), copied
under new ids and program ids until there are ``--lines`` of them (each copy a program of its own, so the
program-clustered bootstrap resamples ``--lines`` / 4 programs). Submission: one line per gold id, shuffled,
answered right about 60 % of the time (and unanswered, unreadable or in words now and then), each with a
free-form trace of about ``--trace-bytes`` bytes (three sentences a line) on the program's atoms. The script times
``naf-bench score --gold`` on it with the traces (the trace audit and the step checker on every line) and
without them (the same lines, no ``trace``), and prints lines/s, the peak memory of each run (its maximum
resident set), its CPU time (lines/s on one core, whatever the load) and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
# what scoring reads of a gold row (its program, messages and gold trace are left out: 10 KB a row in all)
GOLD = ("gold", "condition", "family", "distance", "framing", "language", "certificate", "prompt")
PHRASES = (
    "Under {reading}, {atom} is {value} because every rule for it has a body that fails.",
    "The rule for {atom} needs not {other}; {other} has no support, so the negation succeeds.",
    "We check {other} first: it depends on {atom}, which forms a cycle through negation.",
    "Since {atom} cannot be derived, the closed-world assumption makes it false.",
    "In every stable model {atom} is {value}, and there are models in which {other} holds.",
    "Looking at the program again, {other} follows from the facts, so {atom} is blocked.",
)


def gold_and_submission(folder: Path, lines: int, trace_bytes: int) -> None:
    """Write the gold rows, the submission with traces and the same submission without them."""
    from naf_bench.data.dataset import load_dataset
    from naf_bench.readings import answer_letters

    base = [row for row in load_dataset("main", split="test", cache_dir=str(folder / "cache")) if row["gold"]]
    rng = random.Random(0)
    gold, entries = [], []
    for n in range(lines):
        row = base[n % len(base)]
        copy = n // len(base)
        program_id = f"{row['program_id']}-c{copy}"
        gold.append({**{key: row[key] for key in GOLD}, "id": f"{row['id']}-c{copy}", "program_id": program_id})
        gold[-1]["certificate"] += " " * copy  # the same certificate, in a text of its own: read once per program
        atoms = sorted(
            {
                token
                for token in row["program"].replace(":-", " ").replace(",", " ").split()
                if token.isidentifier() and token != "not"
            }
        )
        trace = []
        while sum(map(len, trace)) < trace_bytes:
            words = {"atom": rng.choice(atoms), "other": rng.choice(atoms), "value": rng.choice(("true", "false"))}
            trace.append(rng.choice(PHRASES).format(reading=row["condition"], **words))
        roll = rng.random()
        if roll < 0.6:
            prediction = row["gold"]
        elif roll < 0.9:
            prediction = rng.choice(answer_letters())
        elif roll < 0.95:
            prediction = rng.choice(("yes", "no", "cannot be determined"))
        elif roll < 0.98:
            prediction = None
        else:
            prediction = "I am not sure."
        entries.append({"id": gold[-1]["id"], "prediction": prediction, "trace": _paragraphs(trace)})
    rng.shuffle(entries)
    (folder / "gold.jsonl").write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in gold))
    (folder / "traced.jsonl").write_text("".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in entries))
    plain = "".join(json.dumps({k: v for k, v in entry.items() if k != "trace"}) + "\n" for entry in entries)
    (folder / "plain.jsonl").write_text(plain)


def _paragraphs(sentences: list[str]) -> str:
    """Sentences as a model writes them: three to a line."""
    return "\n".join(" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3))


def score(submission: Path, gold: Path, out: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak resident memory (MiB) of one ``naf-bench score`` process."""
    command = [sys.executable, "-m", "naf_bench.cli", "score", str(submission), "--gold", str(gold), "--out", str(out)]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    errors = process.stderr.read().decode()
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: warnings about the submission (none expected)
        raise SystemExit(f"naf-bench score failed:\n{errors}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--trace-bytes", type=int, default=2_000)
    parser.add_argument("--write", help=argparse.SUPPRESS)  # the files only, into this folder (a child process)
    args = parser.parse_args()
    if args.write:
        gold_and_submission(Path(args.write), args.lines, args.trace_bytes)
        return
    with tempfile.TemporaryDirectory() as tmp:
        # written by a child process: a fork of this one, had it held them, would count them in its peak memory
        command = [__file__, "--lines", str(args.lines), "--trace-bytes", str(args.trace_bytes), "--write", tmp]
        subprocess.run([sys.executable, *command], env=ENV, check=True, stderr=subprocess.DEVNULL)
        gold, traced, plain = Path(tmp) / "gold.jsonl", Path(tmp) / "traced.jsonl", Path(tmp) / "plain.jsonl"
        size = traced.stat().st_size / 2**20
        print(
            f"{args.lines:,} lines, ~{args.trace_bytes:,}-byte traces ({size:.0f} MiB submission, "
            f"{gold.stat().st_size / 2**20:.0f} MiB gold); {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.2f} before",
            flush=True,
        )
        for name, submission in (("without traces", plain), ("with the trace audit", traced)):
            elapsed, cpu, peak = score(submission, gold, Path(tmp) / f"{submission.stem}.json")
            print(
                f"  {name:<22} {elapsed:6.1f} s = {args.lines / elapsed:7,.0f} lines/s wall; CPU {cpu:6.1f} s = "
                f"{args.lines / cpu:7,.0f} lines/s; peak memory {peak:,.0f} MiB; load average "
                f"{os.getloadavg()[0]:.2f}",
                flush=True,
            )
        traces = json.loads((Path(tmp) / "traced.json").read_text())["traces"]
        print(f"  trace audit of {traces['n']:,} traces: {traces['audit']}")


if __name__ == "__main__":
    main()
