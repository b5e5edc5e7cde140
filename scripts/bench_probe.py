"""How many hidden labels a team reads back from the live board beyond a reference model's answers, per attack.

    python scripts/bench_probe.py [--seeds 0-9] [--days 30] [--min-gain 4] [--releases 4]

Each attack runs in this process through :meth:`naf_bench.leaderboard.service.Service.submit` (the checks, the
scoring core, the store's quota and Ladder: everything an upload meets but the web front), at the default quota
of 3 uploads per team in 24 hours, over ``--days`` simulated days (the clock moves 8 hours and a second before
each upload), so each attack makes ``3 x days`` uploads as a team of its own. Every attack starts from the same
prior, a reference model's answers, and ends with the answers it believes best; "learnt" is the labels those get
right minus the labels the prior gets right. Each seed draws another set, prior and second model; the script
prints, per attack, the labels learnt under each seed and the worst seed. ``--releases`` is how many times a
team's shown state may change (``ladder.RELEASES``; a large number shows the Ladder without the cap).

The gold is synthetic, shaped like the authors' hard_v3 (77 programs x 4 scored readings = 308 labels). The
reference model answers each label right with a probability that depends on its confidence in the program, which
the attacker knows: 0.97 (30 % of the programs), 0.75 (40 %) or 0.45 (30 %), a JOINT of about 40 %. The second
model answers the same way, its errors independent of the first's.

- one flip: the prior, then the prior with one label changed per upload; adopted when the board moves.
- cross-track: the same on the enhanced track (one Ladder state per team and split, whichever track).
- null-first pair: an all-null upload, then per upload the shown answers plus two programs: a confident one as
  the prior has it and a less confident one with one reading changed to another letter.
- carrier plus guess: the prior with the confident programs held back as carriers; each upload adds
  ``min gain - 1`` carriers and changes one reading of one less confident program to another letter, so that
  the board moves exactly when the guess solved that program (given right carriers).
- second model, one reading / two readings: the same, but the carriers are the programs on which both models
  agree on every reading, and the guesses are the second model's answers on the programs where the two disagree
  on exactly one reading (or two): a guesser far better than chance.
- boosting (Blum & Hardt): the prior with 10 % of its labels changed at random, kept when the board moves,
  then a majority vote per label over the kept ones.
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

from naf_bench.leaderboard.ladder import MIN_GAIN, RELEASES
from naf_bench.readings import NO_SEMANTICS, answer_letters, joint_conditions

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
        rows.append(
            {
                "id": f"{program}::{NO_SEMANTICS}",
                "gold": None,
                "condition": NO_SEMANTICS,
                "program_id": program,
                "family": f"family{i % 7}",
            }
        )
        prior[f"{program}::{NO_SEMANTICS}"] = "A"
        for condition in joint_conditions():
            key, gold = f"{program}::{condition}", rng.choice(answer_letters())
            rows.append(
                {"id": key, "gold": gold, "condition": condition, "program_id": program, "family": f"family{i % 7}"}
            )
            prior[key] = gold if rng.random() < right else rng.choice([x for x in answer_letters() if x != gold])
    return rows, prior, confidence


def second_model(rng: random.Random, rows, confidence) -> dict[str, str]:
    """Another model's answers: right on each label with the program's probability, independently of the first."""
    answers = {}
    for row in rows:
        gold = row["gold"]
        if gold is None:
            answers[row["id"]] = "A"
        else:
            right = rng.random() < confidence[row["program_id"]]
            answers[row["id"]] = gold if right else rng.choice([x for x in answer_letters() if x != gold])
    return answers


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
    """One team's uploads through ``Service.submit``: ``upload(answers, track)`` -> whether the board moved."""

    def __init__(self, service, token: str, clock: Clock, folder: Path):
        self.service, self.team, self.clock, self.folder = service, service.team_for(token), clock, folder
        self.uploads = 0
        for name, meta in (("standard", METADATA), ("enhanced", ENHANCED)):
            (folder / f"{name}.metadata.json").write_text(json.dumps(meta), encoding="utf-8")

    def upload(self, answers: dict, track: str = "standard") -> bool:
        self.clock.now += timedelta(hours=8, seconds=1)  # the quota: 3 uploads in any 24 hours
        self.uploads += 1
        path = self.folder / "probe.jsonl"
        path.write_text("".join(json.dumps({"id": k, "prediction": v}) + "\n" for k, v in answers.items()))
        ack = self.service.submit(path, self.folder / f"{track}.metadata.json", self.team)
        if ack["status"] != "accepted":
            raise SystemExit(f"refused: {ack['reasons']}")
        return ack["board_changed"]


def programs_of(rows) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row in rows:
        if row["gold"] is not None:
            out.setdefault(row["program_id"], []).append(row["id"])
    return out


def one_flip(team: Team, rows, prior, other, confidence, uploads, rng, min_gain, track="standard") -> dict:
    best = dict(prior)
    team.upload(best)
    keys = [row["id"] for row in rows if row["gold"] is not None]
    while team.uploads < uploads:
        key = rng.choice(keys)
        flipped = {**best, key: rng.choice([x for x in answer_letters() if x != best[key]])}
        if team.upload(flipped, track):
            best = flipped
    return best


def cross_track(team: Team, rows, prior, other, confidence, uploads, rng, min_gain) -> dict:
    return one_flip(team, rows, prior, other, confidence, uploads, rng, min_gain, track="enhanced")


def carriers_and_guesses(team: Team, rows, prior, uploads, carriers, guesses, per_upload, null_first=False) -> dict:
    """Held-back ``carriers`` lift each upload to the Ladder's minimum gain (``per_upload`` of them), plus one
    program answered with one of ``guesses`` (program, {id: letter}): released exactly when the guess solved it
    (given right carriers); a guess released is learnt and its carriers spent."""
    by_program = programs_of(rows)
    held = {key for p in carriers + ([p for p, _ in guesses] if null_first else []) for key in by_program[p]}
    shown = {key: (None if null_first or key in held else value) for key, value in prior.items()}
    team.upload(shown)
    best = dict(prior)
    guesses = list(guesses)
    while team.uploads < uploads and len(carriers) >= per_upload and guesses:
        program, guess = guesses.pop(0)
        carry = carriers[:per_upload]
        candidate = {**shown, **{k: prior[k] for p in [*carry, program] for k in by_program[p]}, **guess}
        if team.upload(candidate):
            shown = candidate
            best.update(guess)
            carriers = carriers[per_upload:]
            guesses = [(p, g) for p, g in guesses if p != program]
    return best


def _one_reading_guesses(rows, prior, confidence, rng) -> tuple[list[str], list[tuple[str, dict]]]:
    """Confident programs as carriers; each less confident program's readings changed one at a time to each
    other letter, in a random order."""
    by_program = programs_of(rows)
    carriers = [p for p in by_program if confidence[p] == TIERS[0][0]]
    rng.shuffle(carriers)
    guesses = [
        (p, {key: x})
        for p in by_program
        if confidence[p] == TIERS[1][0]
        for key in by_program[p]
        for x in answer_letters()
        if x != prior[key]
    ]
    rng.shuffle(guesses)
    return carriers, guesses


def null_first_pair(team: Team, rows, prior, other, confidence, uploads, rng, min_gain) -> dict:
    carriers, guesses = _one_reading_guesses(rows, prior, confidence, rng)
    return carriers_and_guesses(team, rows, prior, uploads, carriers, guesses, 1, null_first=True)


def carrier_plus_guess(team: Team, rows, prior, other, confidence, uploads, rng, min_gain) -> dict:
    carriers, guesses = _one_reading_guesses(rows, prior, confidence, rng)
    return carriers_and_guesses(team, rows, prior, uploads, carriers, guesses, max(1, min_gain - 1))


def second_model_guesses(readings: int) -> Callable:
    """The second-model attack whose guesses change ``readings`` readings of a program to the second model's."""

    def attack(team: Team, rows, prior, other, confidence, uploads, rng, min_gain) -> dict:
        by_program = programs_of(rows)
        disagree = {p: [k for k in keys if prior[k] != other[k]] for p, keys in by_program.items()}
        carriers = [p for p, keys in disagree.items() if not keys]
        rng.shuffle(carriers)
        guesses = [(p, {k: other[k] for k in keys}) for p, keys in disagree.items() if len(keys) == readings]
        rng.shuffle(guesses)
        return carriers_and_guesses(team, rows, prior, uploads, carriers, guesses, max(1, min_gain - 1))

    return attack


def boosting(team: Team, rows, prior, other, confidence, uploads, rng, min_gain, share: float = 0.1) -> dict:
    keys = [row["id"] for row in rows if row["gold"] is not None]
    base = dict(prior)
    team.upload(base)
    kept = [base]
    letters = answer_letters()
    while team.uploads < uploads:
        candidate = {
            k: (rng.choice([x for x in letters if x != v]) if k in keys and rng.random() < share else v)
            for k, v in base.items()
        }
        if team.upload(candidate):
            kept.append(candidate)
            base = candidate
    votes = {}
    for key in prior:
        letters = [answers[key] for answers in kept]
        votes[key] = max(answer_letters(), key=lambda x: (letters.count(x), x == base[key]))
    return votes


ATTACKS: dict[str, Callable] = {
    "one flip": one_flip,
    "cross-track": cross_track,
    "null-first pair": null_first_pair,
    "carrier plus guess": carrier_plus_guess,
    "second model, 1 reading": second_model_guesses(1),
    "second model, 2 readings": second_model_guesses(2),
    "boosting": boosting,
}


def learnt(
    seed: int,
    uploads: int,
    min_gain: int = MIN_GAIN,
    releases: int = RELEASES,
    attacks: tuple[str, ...] = tuple(ATTACKS),
) -> dict[str, int]:
    """The labels each of ``attacks`` learns beyond the prior with ``seed``'s set, prior and second model, each
    attack a team of its own on one service."""
    from naf_bench.leaderboard.service import Service

    rng = random.Random(seed)
    rows, prior, confidence = synthetic(rng, 77, "probe-")
    other = second_model(rng, rows, confidence)
    scored = [row for row in rows if row["gold"] is not None]
    right_prior = sum(prior[row["id"]] == row["gold"] for row in scored)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        gold = tmp / "gold.jsonl"
        gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        clock = Clock()
        service = Service(tmp / "data", gold, clock=clock, min_gain=min_gain, releases=releases)  # quota: 3 a day
        for name in attacks:
            attack = ATTACKS[name]
            team = Team(service, service.store.add_team(name), clock, tmp)
            final = attack(team, rows, prior, other, confidence, uploads, random.Random(seed + 1), min_gain)
            out[name] = sum(final[row["id"]] == row["gold"] for row in scored) - right_prior
    return out


def seed_range(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=seed_range, default=seed_range("0-9"), help="e.g. 0-9 or 3")
    parser.add_argument("--days", type=int, default=30, help="simulated days at 3 uploads a day per team")
    parser.add_argument("--min-gain", type=int, default=MIN_GAIN, help="the Ladder's minimum gain (programs)")
    parser.add_argument("--releases", type=int, default=RELEASES, help="times a team's shown state may change")
    args = parser.parse_args()
    uploads = 3 * args.days
    started = time.perf_counter()
    print(
        f"308 hidden labels per seed (synthetic, hard_v3-shaped); Ladder minimum gain {args.min_gain}, at most "
        f"{args.releases} releases per team; {uploads} uploads per attack ({args.days} days at 3 a day)"
    )
    per_seed = {seed: learnt(seed, uploads, args.min_gain, args.releases) for seed in args.seeds}
    print(f"{'attack':26} {'worst seed':>10} {'learnt':>7} {'per upload':>11}  labels learnt per seed")
    for name in ATTACKS:
        seed = max(args.seeds, key=lambda s: (per_seed[s][name], -s))
        worst = per_seed[seed][name]
        print(
            f"{name:26} {seed:10d} {worst:7d} {worst / uploads:11.3f}  "
            + " ".join(str(per_seed[s][name]) for s in args.seeds),
            flush=True,
        )
    print(f"{time.perf_counter() - started:.0f} s; load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
