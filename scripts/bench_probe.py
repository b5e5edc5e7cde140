"""How many hidden labels a team reads back from the live board, per upload, beyond a reference model's answers.

    python scripts/bench_probe.py [--days 30] [--seed 0] [--min-gain 4]

The real server (``leaderboard.app.serve`` on 127.0.0.1, in this process so that the store's clock is the
probe's) is driven with ``gradio_client`` at the default quota, 3 uploads per team in 24 hours, over ``--days``
simulated days: the clock moves 8 hours and a second before each upload, so each attack makes ``3 x days``
uploads, each as its own team. Every attack starts from the same prior, a reference model's answers, and ends
with the answers it believes best; "learnt" is the labels those answers get right minus the labels the prior
gets right, per upload (goal: at most 0.05 under every attack).

The gold is synthetic, shaped like the authors' hard_v3 (77 programs x 4 scored readings = 308 labels), with a
second set of 77 programs drawn the same way that the board never scores (the unseen programs). The reference
model answers each label right with a probability that depends on its confidence in the program, which the
attacker knows: 0.97 (30 % of the programs), 0.75 (40 %) or 0.45 (30 %), a JOINT of about 40 % (an
o4-mini-like model on a hard set).

- one flip: the prior, then the prior with one label changed per upload; adopted when the board moves.
- cross-track: the prior on the standard track, then the prior with one label changed on the enhanced track
  (each track's first upload was once shown as it was).
- null-first pair: an all-null upload, then per upload the shown answers plus two programs: a confident one as
  the prior has it and a less confident one with one reading changed to another letter (under the
  parameter-free rule, released exactly when both are right: the guess is learnt).
- carrier plus guess: the prior with the confident programs held back as carriers; each upload adds
  ``min gain - 1`` carriers (at least one) and changes one reading of one less confident program to another
  letter, so that the board moves exactly when the guess solved that program (given right carriers).
- boosting (Blum & Hardt): the prior with 10 % of its labels changed at random, kept when the board moves,
  then a majority vote per label over the kept ones. Also printed: its shown JOINT minus its true JOINT, the
  JOINT its method (the reference model: it learnt nothing that carries to other programs) gets on the
  unseen programs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from naf_bench.leaderboard.ladder import MIN_GAIN
from naf_bench.readings import JOINT_CONDITIONS, LETTERS, NO_SEMANTICS

METADATA = {"model_name": "probe", "track": "standard", "prompt_setting": "zero-shot", "reasoning_mode": "direct",
            "external_tools": False, "temperature": 0, "samples_per_item": 1}  # fmt: skip
ENHANCED = {**METADATA, "track": "enhanced", "method_url": "https://example.org/method"}
TIERS = ((0.97, 0.3), (0.75, 0.4), (0.45, 0.3))  # (probability a label is right, share of programs)


def synthetic(rng: random.Random, programs: int, prefix: str) -> tuple[list[dict], dict[str, str], dict[str, float]]:
    """Gold rows, the reference model's answers and its confidence per program."""
    rows, prior, confidence = [], {}, {}
    for i in range(programs):
        program = f"{prefix}{i}"
        right = rng.choices([p for p, _ in TIERS], weights=[w for _, w in TIERS])[0]
        confidence[program] = right
        rows.append({"id": f"{program}::{NO_SEMANTICS}", "gold": None, "condition": NO_SEMANTICS,
                     "program_id": program, "family": f"family{i % 7}"})  # fmt: skip
        prior[f"{program}::{NO_SEMANTICS}"] = "A"
        for condition in JOINT_CONDITIONS:
            key, gold = f"{program}::{condition}", rng.choice(LETTERS)
            rows.append({"id": key, "gold": gold, "condition": condition, "program_id": program,
                         "family": f"family{i % 7}"})  # fmt: skip
            prior[key] = gold if rng.random() < right else rng.choice([x for x in LETTERS if x != gold])
    return rows, prior, confidence


def joint(rows, answers) -> int:
    """Programs all of whose readings ``answers`` gets right."""
    wrong = {row["program_id"] for row in rows if row["gold"] is not None and answers.get(row["id"]) != row["gold"]}
    return len({row["program_id"] for row in rows} - wrong)


class Clock:
    def __init__(self):
        self.now = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


class Team:
    """One team's uploads through the server: ``upload(answers, track)`` -> (released, shown programs solved)."""

    def __init__(self, client, token: str, clock: Clock, folder: Path):
        from gradio_client import handle_file

        self.client, self.token, self.clock, self.folder, self.handle_file = client, token, clock, folder, handle_file
        self.uploads = 0
        self.metadata = {}
        for name, meta in (("standard", METADATA), ("enhanced", ENHANCED)):
            (folder / f"{name}.metadata.json").write_text(json.dumps(meta), encoding="utf-8")
            self.metadata[name] = handle_file(str(folder / f"{name}.metadata.json"))

    def upload(self, answers: dict, track: str = "standard") -> tuple[bool, int]:
        self.clock.now += timedelta(hours=8, seconds=1)  # the quota: 3 uploads in any 24 hours
        self.uploads += 1
        path = self.folder / "probe.jsonl"
        path.write_text("".join(json.dumps({"id": k, "prediction": v}) + "\n" for k, v in answers.items()))
        ack = self.client.predict(self.handle_file(str(path)), self.metadata[track], self.token, api_name="/submit")
        if ack["status"] != "accepted":
            raise SystemExit(f"refused: {ack['reasons']}")
        return ack["board_changed"], ack["shown"]["joint_solved"]


def programs_of(rows) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in rows:
        if row["gold"] is not None:
            out.setdefault(row["program_id"], []).append(row["id"])
    return out


def one_flip(team: Team, rows, prior, confidence, uploads: int, rng: random.Random, track: str = "standard") -> dict:
    best = dict(prior)
    team.upload(best)
    keys = [row["id"] for row in rows if row["gold"] is not None]
    while team.uploads < uploads:
        key = rng.choice(keys)
        flipped = {**best, key: rng.choice([x for x in LETTERS if x != best[key]])}
        released, _ = team.upload(flipped, track)
        if released:
            best = flipped
    return best


def cross_track(team: Team, rows, prior, confidence, uploads: int, rng: random.Random) -> dict:
    return one_flip(team, rows, prior, confidence, uploads, rng, track="enhanced")


def null_first_pair(team: Team, rows, prior, confidence, uploads: int, rng: random.Random) -> dict:
    return carrier_plus_guess(team, rows, prior, confidence, uploads, rng, carriers_per_guess=1, null_first=True)


def carrier_plus_guess(
    team: Team,
    rows,
    prior,
    confidence,
    uploads: int,
    rng: random.Random,
    carriers_per_guess: int = MIN_GAIN - 1,
    null_first: bool = False,
) -> dict:
    """Carriers (confident programs, held back) that lift an upload to the Ladder's minimum gain, plus one program
    with one reading guessed: released exactly when the guess solved it (given right carriers)."""
    by_program = programs_of(rows)
    carriers = [p for p in by_program if confidence[p] == TIERS[0][0]]
    rng.shuffle(carriers)
    targets = [p for p in by_program if confidence[p] == TIERS[1][0]]
    held = {key for p in carriers + (targets if null_first else []) for key in by_program[p]}
    shown = {key: (None if null_first or key in held else value) for key, value in prior.items()}
    team.upload(shown)
    tried: dict[str, set[str]] = {}
    best = dict(prior)
    while team.uploads < uploads and len(carriers) >= carriers_per_guess and targets:
        program = rng.choice(targets)
        key = rng.choice(by_program[program])
        options = [x for x in LETTERS if x != prior[key] and x not in tried.get(key, set())]
        if not options:
            targets.remove(program)
            continue
        guess = rng.choice(options)
        carry = carriers[:carriers_per_guess]
        candidate = {**shown, **{k: prior[k] for p in [*carry, program] for k in by_program[p]}, key: guess}
        released, _ = team.upload(candidate)
        if released:  # the guess solved the program: learnt
            shown, best[key] = candidate, guess
            carriers = carriers[carriers_per_guess:]
            targets.remove(program)
        else:
            tried.setdefault(key, set()).add(guess)
    return best


def boosting(team: Team, rows, prior, confidence, uploads: int, rng: random.Random, share: float = 0.1) -> dict:
    keys = [row["id"] for row in rows if row["gold"] is not None]
    base = dict(prior)
    team.upload(base)
    kept = [base]
    while team.uploads < uploads:
        candidate = {k: (rng.choice([x for x in LETTERS if x != v]) if k in keys and rng.random() < share else v)
                     for k, v in base.items()}  # fmt: skip
        released, _ = team.upload(candidate)
        if released:
            kept.append(candidate)
            base = candidate
    votes = {}
    for key in prior:
        letters = [answers[key] for answers in kept]
        votes[key] = max(LETTERS, key=lambda x: (letters.count(x), x == base[key]))
    return votes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--days", type=int, default=30, help="simulated days at 3 uploads a day per team")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-gain", type=int, default=MIN_GAIN, help="the Ladder's minimum gain (programs)")
    args = parser.parse_args()
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from gradio_client import Client

    from naf_bench.leaderboard.app import serve
    from naf_bench.leaderboard.service import Service
    from naf_bench.runs.serving import free_port

    rng = random.Random(args.seed)
    rows, prior, confidence = synthetic(rng, 77, "probe-")
    unseen_rows, unseen_prior, _ = synthetic(rng, 77, "unseen-")
    uploads = 3 * args.days
    attacks: list[tuple[str, Callable]] = [
        ("one flip", one_flip), ("cross-track", cross_track), ("null-first pair", null_first_pair),
        ("carrier plus guess", lambda *a: carrier_plus_guess(*a, carriers_per_guess=max(1, args.min_gain - 1))),
        ("boosting", boosting),
    ]  # fmt: skip
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        gold = tmp / "gold.jsonl"
        gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        clock = Clock()
        service = Service(tmp / "data", gold, clock=clock, min_gain=args.min_gain)  # the default quota: 3 a day
        tokens = [service.store.add_team(f"attack {i}") for i in range(len(attacks))]
        port = free_port()
        demo = serve(service, "127.0.0.1", port, block=False)
        try:
            client = Client(f"http://127.0.0.1:{port}/", verbose=False, download_files=False, analytics_enabled=False)
            n_labels = sum(row["gold"] is not None for row in rows)
            right_prior = sum(prior[row["id"]] == row["gold"] for row in rows if row["gold"] is not None)
            print(f"{n_labels} hidden labels (synthetic, hard_v3-shaped); the prior gets {right_prior} right, "
                  f"JOINT {joint(rows, prior)}/77; Ladder minimum gain {args.min_gain}; {uploads} uploads per attack "
                  f"({args.days} days at 3 a day)")  # fmt: skip
            print(f"{'attack':20} {'uploads':>8} {'learnt':>7} {'per upload':>11}")
            for (name, attack), token in zip(attacks, tokens, strict=True):
                team = Team(client, token, clock, tmp)
                final = attack(team, rows, prior, confidence, uploads, random.Random(args.seed + 1))
                right = sum(final[row["id"]] == row["gold"] for row in rows if row["gold"] is not None)
                learnt = right - right_prior
                print(f"{name:20} {team.uploads:8d} {learnt:7d} {learnt / team.uploads:11.3f}", flush=True)
                if name == "boosting":
                    (shown,) = [s for s in service.store.shown("test", "standard") if s["team"] == "attack 4"]
                    shown_joint, true = shown["n_solved"] / 77, joint(unseen_rows, unseen_prior) / 77
                    print(f"{'':20} boosting: shown JOINT {shown_joint:.3f} - true JOINT on the 77 unseen programs "
                          f"{true:.3f} = {shown_joint - true:+.3f}; the prior's own JOINT on the board's programs "
                          f"{joint(rows, prior) / 77:.3f} (so {shown_joint - joint(rows, prior) / 77:+.3f} of the "
                          "difference is the attack's)")  # fmt: skip
        finally:
            demo.close()
    print(f"goal: at most 0.05 labels per upload under every attack; {time.perf_counter() - started:.0f} s; "
          "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))  # fmt: skip


if __name__ == "__main__":
    main()
