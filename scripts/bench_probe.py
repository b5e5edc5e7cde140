"""How many hidden labels a submitter can read back from a board, per upload: the authors' app against ours.

    python scripts/bench_probe.py [--gold GOLD] [--adaptive-uploads 150] [--seed 0]

Two attacks, each against what the authors' leaderboard app shows after an upload (JOINT and accuracy per
reading, to 0.1 %; emulated here, exactly, from the scoring core) and against our server (the real one, on
127.0.0.1 in a subprocess, with the quota lifted so that the attacks can run; it shows the Ladder's JOINT):

- one flip per reading: a base submission (all A), then one upload per item position that changes that item
  of every reading to B; a reading's accuracy going up reads B, down reads A, unchanged reads C. A label counts
  as recovered when the board's answer settles it (the authors' per-reading figures move by 1/77 = 1.3 points
  for one item, so every answer does; a board whose figures did not move settles nothing);
- adaptive (Blum & Hardt's boosting attack): random flips (10 % of the items) on a random base, the flipped
  submission kept when the shown score rises, then a majority vote per item over the kept ones. Recovered =
  right labels of the vote minus right labels of the random base it started from (0 on average when the board
  tells nothing: a flip of a random answer is as likely to make it right as wrong), averaged over
  ``--repeats`` seeds, with its standard error.

Without ``--gold``, a gold set shaped like the authors' hard_v3 (77 programs x 4 scored readings = 308 labels)
is written with seeded labels.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
from pathlib import Path

from naf_bench.evaluation import gold_rows, score_rows
from naf_bench.leaderboard.local import Server
from naf_bench.leaderboard.store import Store
from naf_bench.readings import JOINT_CONDITIONS

METADATA = {"model_name": "probe", "track": "standard", "prompt_setting": "zero-shot", "reasoning_mode": "direct",
            "external_tools": False, "temperature": 0, "samples_per_item": 1}  # fmt: skip
OTHER = {"A": "BC", "B": "AC", "C": "AB"}


def synthetic_gold(path: Path, programs: int = 77, seed: int = 0) -> Path:
    rng = random.Random(seed)
    rows = [
        {"id": f"probe-{i}::{c}", "gold": None if c == "none" else rng.choice("ABC"), "condition": c,
         "program_id": f"probe-{i}", "family": f"family{i % 7}"}
        for i in range(programs) for c in ("none", *JOINT_CONDITIONS)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


class AuthorsView:
    """What the authors' app shows after an upload: JOINT and the accuracy per reading, in % to 0.1."""

    def __init__(self, rows):
        self.rows = rows
        self.uploads = 0

    def __call__(self, answers: dict) -> dict:
        self.uploads += 1
        record = score_rows(self.rows, {k: {"prediction": v} for k, v in answers.items()}, n_bootstrap=0)
        shown = {c: round(100 * record.per_semantics[c], 1) for c in JOINT_CONDITIONS}
        shown["joint"] = round(100 * record.joint, 1)
        shown["score"] = sum(shown[c] for c in JOINT_CONDITIONS)  # the finest figure it shows
        return shown


class OurBoard:
    """What our server shows a team after an upload: the Ladder's JOINT (the acknowledgement's board row)."""

    def __init__(self, server: Server, token: str, folder: Path):
        from gradio_client import handle_file

        self.client, self.token, self.folder, self.uploads = server.client(), token, folder, 0
        (folder / "probe.metadata.json").write_text(json.dumps(METADATA), encoding="utf-8")
        self.metadata = handle_file(str(folder / "probe.metadata.json"))
        self.handle_file = handle_file

    def __call__(self, answers: dict) -> dict:
        self.uploads += 1
        path = self.folder / "probe.jsonl"
        path.write_text("".join(json.dumps({"id": k, "prediction": v}) + "\n" for k, v in answers.items()))
        ack = self.client.predict(self.handle_file(str(path)), self.metadata, self.token, api_name="/submit")
        if ack["status"] != "accepted":
            raise SystemExit(f"refused: {ack['reasons']}")
        shown = {c: None for c in JOINT_CONDITIONS}  # not shown while the board is live
        shown["joint"] = round(100 * ack["shown"]["joint"], 1)
        shown["score"] = shown["joint"]
        return shown


def one_flip_per_reading(rows, view) -> tuple[int, int]:
    """(labels recovered, uploads) of the attack in the module docstring."""
    named = [row for row in rows if row["gold"] is not None]
    by_reading = {c: [row for row in named if row["condition"] == c] for c in JOINT_CONDITIONS}
    base = {row["id"]: "A" for row in rows}
    before = view(base)
    recovered = 0
    for k in range(max(len(items) for items in by_reading.values())):
        flipped = dict(base)
        for items in by_reading.values():
            if k < len(items):
                flipped[items[k]["id"]] = "B"
        after = view(flipped)
        for condition, items in by_reading.items():
            if k >= len(items) or before[condition] is None:
                continue  # the board shows no figure of this reading: nothing settled
            change = after[condition] - before[condition]
            recovered += ("B" if change > 0 else "A" if change < 0 else "C") == items[k]["gold"]
    return recovered, view.uploads


def adaptive(rows, view, uploads: int, seed: int, share: float = 0.1) -> tuple[float, int]:
    """(labels recovered beyond the random base, uploads) of the boosting attack."""
    rng = random.Random(seed)
    named = [row for row in rows if row["gold"] is not None]
    base = {row["id"]: rng.choice("ABC") for row in rows}
    start = sum(base[row["id"]] == row["gold"] for row in named)
    shown = view(base)["score"]
    kept = [base]
    while view.uploads < uploads:
        candidate = {k: (rng.choice(OTHER[v]) if rng.random() < share else v) for k, v in base.items()}
        score = view(candidate)["score"]
        if score > shown:
            kept.append(candidate)
            base, shown = candidate, score
    right = 0
    for row in named:
        votes = [answers[row["id"]] for answers in kept]
        best = max("ABC", key=lambda x: (votes.count(x), x == base[row["id"]]))
        right += best == row["gold"]
    return right - start, view.uploads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gold", help="gold rows JSONL (default: a synthetic hard_v3-shaped set)")
    parser.add_argument("--adaptive-uploads", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="adaptive runs (seeds seed, seed+1, ...) averaged")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        gold = Path(args.gold) if args.gold else synthetic_gold(tmp / "gold.jsonl", seed=args.seed)
        rows = gold_rows(gold=gold)
        n_labels = sum(row["gold"] is not None for row in rows)
        print(f"{n_labels} hidden labels ({gold.name}{'' if args.gold else ', synthetic'})")
        store = Store(tmp / "data")
        tokens = [store.add_team(f"probe {i}") for i in range(1 + args.repeats)]
        store.close()
        server = Server(tmp / "data", gold, "--quota", 0).start()
        try:
            results = [
                ("one flip per reading", "authors' app", *one_flip_per_reading(rows, AuthorsView(rows)), None),
                ("one flip per reading", "ours (Ladder)",
                 *one_flip_per_reading(rows, OurBoard(server, tokens[0], tmp)), None),
            ]  # fmt: skip
            for board, view in (("authors' app", lambda i: AuthorsView(rows)),
                                ("ours (Ladder)", lambda i: OurBoard(server, tokens[1 + i], tmp))):  # fmt: skip
                runs = [adaptive(rows, view(i), args.adaptive_uploads, args.seed + i) for i in range(args.repeats)]
                per_upload = [recovered / uploads for recovered, uploads in runs]
                error = statistics.stdev(per_upload) / len(runs) ** 0.5 if len(runs) > 1 else None
                results.append(("adaptive", board, statistics.mean(r for r, _ in runs), runs[0][1], error))
        finally:
            server.stop()
    print(f"{'attack':22} {'board':15} {'recovered':>10} {'uploads':>8} {'per upload':>11}")
    for attack, board, recovered, uploads, error in results:
        spread = "" if error is None else f" ± {error:.3f} (s.e., {args.repeats} seeds)"
        print(f"{attack:22} {board:15} {recovered:10.1f} {uploads:8d} {recovered / uploads:11.3f}{spread}")
    print("goal: under 0.05 labels per upload for both attacks on ours; load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))  # fmt: skip


if __name__ == "__main__":
    main()
