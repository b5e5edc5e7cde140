"""Small gold sets, submissions and metadata written by the leaderboard tests (never the reference data)."""

import json
import random

CONDITIONS = ("none", "closed_world", "cred", "skept", "wfs")


def write_gold(path, n_programs=12, seed=0, prefix="p"):
    rng = random.Random(seed)
    rows = []
    for i in range(n_programs):
        for condition in CONDITIONS:
            rows.append({
                "id": f"{prefix}{i}::{condition}", "gold": None if condition == "none" else rng.choice("ABC"),
                "condition": condition, "program_id": f"{prefix}{i}", "family": f"fam{i % 3}",
            })  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return rows


def answers(rows, solved: int, wrong="A"):
    """Predictions solving the first ``solved`` programs (all four readings right) and missing the rest."""
    programs = list(dict.fromkeys(row["program_id"] for row in rows))
    good = set(programs[:solved])
    out = {}
    for row in rows:
        if row["gold"] is None:
            out[row["id"]] = "A"
        elif row["program_id"] in good:
            out[row["id"]] = row["gold"]
        else:  # one reading wrong is enough to miss the program; keep the others right
            first = row["condition"] == "closed_world"
            out[row["id"]] = ("B" if row["gold"] == wrong else wrong) if first else row["gold"]
    return out


def write_submission(path, predictions, extra_lines=()):
    lines = [json.dumps({"id": key, "prediction": value}) for key, value in predictions.items()]
    path.write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return path


METADATA = {
    "model_name": "tiny-model", "track": "standard", "prompt_setting": "zero-shot", "reasoning_mode": "direct",
    "external_tools": False, "temperature": 0, "samples_per_item": 1, "contact": "secret-contact@example.org",
}  # fmt: skip


def write_metadata(path, **changes):
    path.write_text(json.dumps({**METADATA, **changes}), encoding="utf-8")
    return path
