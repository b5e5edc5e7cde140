"""import-reference on the reference leaderboard's layout (REF/leaderboard/): sets, submissions, exact scores."""

import json

import pytest

from naf_bench import parse_program
from naf_bench.cli import main
from naf_bench.reference import import_reference
from naf_bench.verbalize.prompt import render_prompt

PROGRAMS = {  # rec_id: (axis, difficulty, program, labels)
    "lb-loopy-i0": ("loopy", "loopy_d1", "q :- a.\na :- not b.\nb :- not c.\nc :- not a.",
                    {"cred": "F", "skept": "T", "wfs": "u", "sldnf": "loop"}),
    "lb-decided-i0": ("decided", "decided_d1", "q :- a.\na :- not b.", {"cred": "T", "skept": "T", "wfs": "T",
                                                                       "sldnf": "T"}),
    "lb-decided-i1": ("decided", "decided_d2", "q :- a, b.\na.\nb :- not a.", {"cred": "F", "skept": "F",
                                                                               "wfs": "F", "sldnf": "F"}),
}  # fmt: skip
LETTERS = {"T": "A", "F": "B", "u": "C", "loop": "C"}
READING = {"closed_world": "sldnf", "cred": "cred", "skept": "skept", "wfs": "wfs"}
CONDITIONS = ("none", "closed_world", "cred", "skept", "wfs")


def _gold(labels, condition):
    return None if condition == "none" else LETTERS[labels[READING[condition]]]


def _hard(rec_id, condition):
    axis, difficulty, text, labels = PROGRAMS[rec_id]
    prompt = render_prompt(parse_program(text), "q", condition)
    return {"id": f"{rec_id}-{condition}::{condition}", "rec_id": rec_id, "axis": axis, "difficulty": difficulty,
            "cond": condition, "gold": _gold(labels, condition), "labels": labels, "signature": "x",
            "meta": {"query": "q", "depth": 1}, "prompt": prompt}  # fmt: skip


def _dev(rec_id, condition):
    axis, _, text, labels = PROGRAMS[rec_id]
    return {"id": f"{rec_id}-{condition}::{condition}", "cond": condition, "divergence_bin": axis,
            "gold": _gold(labels, condition), "prompt": render_prompt(parse_program(text), "q", condition)}  # fmt: skip


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


@pytest.fixture
def reference(tmp_path):
    board = tmp_path / "ref" / "leaderboard"
    hard = [_hard(r, c) for r in PROGRAMS for c in CONDITIONS]
    hard[7]["gold"] = "C"  # lb-decided-i0 cred: the reference's letter, which our certifier does not give
    _write(board / "data" / "hard_x.jsonl", hard)
    _write(board / "data" / "dev.jsonl", [_dev(r, c) for r in PROGRAMS for c in CONDITIONS])
    _write(board / "data" / "ladder.jsonl", [{"task": "t1", "question": "?"}])
    named = [r for r in hard if r["gold"] is not None]
    # a: right everywhere except one reading of the loopy program, and one unanswered prompt; plus an id the set
    # does not have (the reference's submissions cover a larger set)
    a = [{"id": r["id"], "prediction": r["gold"]} for r in named]
    a[1]["prediction"] = "A"  # lb-loopy-i0 cred: gold B
    a[5]["prediction"] = None  # lb-decided-i0 cred: unanswered
    _write(board / "submissions_open" / "model-a.jsonl", [*a, {"id": "lb-other-i9-wfs::wfs", "prediction": "B"}])
    full = [{"id": r["id"], "prediction": r["gold"], "text": f"q is {r['gold']}.\nANSWER: {r['gold']}", "rec_id": "x",
             "completion_tokens": 10} for r in named]  # fmt: skip
    _write(board / "submissions_full" / "logs" / "model-b.raw.jsonl", full)
    _write(board / "submissions_batch" / "logs" / "model-b.raw.jsonl", full[:3])
    _write(board / "submissions_open" / "broken.jsonl", [{"id": "lb-loopy-i0-wfs::wfs", "answer": "C"}])
    return tmp_path / "ref"


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_leaderboard_sets_and_submissions(reference, tmp_path):
    report = import_reference(reference, tmp_path / "out")
    out = tmp_path / "out" / "leaderboard"
    assert report.rows == {"leaderboard/dev": 15, "leaderboard/hard_x": 15}
    assert report.programs == {"leaderboard/dev": 3, "leaderboard/hard_x": 3}
    assert report.disagreements == [
        "leaderboard/hard_x lb-decided-i0-cred::cred: reference labels {'cred': 'T', 'skept': 'T', 'wfs': 'T', "
        "'sldnf': 'T'} gold C, ours {'cred': 'T', 'skept': 'T', 'wfs': 'T', 'sldnf': 'T'} gold A"
    ]
    rows = _jsonl(out / "hard_x" / "gold.jsonl")
    loopy = next(r for r in rows if r["id"] == "lb-loopy-i0-skept::skept")
    assert (loopy["program_id"], loopy["family"], loopy["tier"], loopy["gold"]) == ("lb-loopy-i0", "loopy", "loopy_d1",
                                                                                    "A")  # fmt: skip
    assert loopy["signature"] == "FTuloop" and loopy["program"] == "q :- a.\na :- not b.\nb :- not c.\nc :- not a.\n"
    assert next(r for r in rows if r["id"] == "lb-decided-i0-cred::cred")["gold"] == "C"  # theirs kept, listed
    dev = _jsonl(out / "dev" / "gold.jsonl")
    assert {r["program_id"] for r in dev} == set(PROGRAMS) and {r["family"] for r in dev} == {"loopy", "decided"}
    assert next(r for r in dev if r["id"] == "lb-decided-i1-wfs::wfs")["labels"]["wfs"] == "F"

    names = sorted(p.name for p in (out / "submissions").iterdir())
    assert names == ["model-a.jsonl", "submissions_batch-logs-model-b.jsonl", "submissions_full-logs-model-b.jsonl"]
    full = _jsonl(out / "submissions" / "submissions_full-logs-model-b.jsonl")
    assert full[0] == {"id": "lb-loopy-i0-closed_world::closed_world", "prediction": "C", "trace": "q is C.\nANSWER: C"}
    a = _jsonl(out / "submissions" / "model-a.jsonl")
    assert a[5] == {"id": "lb-decided-i0-cred::cred", "prediction": None} and len(a) == 13
    assert any(
        "ladder.jsonl: not imported: unknown row layout (fields ['question', 'task'])" in n for n in report.notes
    )
    assert any("broken.jsonl: not imported: record 1: unknown layout (needs 'id' and 'prediction')" in n
               for n in report.notes)  # fmt: skip
    assert "leaderboard submission model-a: 1 null predictions (unanswered)" in report.notes


def test_scores_as_the_reference_leaderboard_gives_them(reference, tmp_path, capsys):
    """JOINT, per-prompt accuracy, coverage, accuracy per reading and solved/total per family, by hand from the
    reference scorer's definitions on this fixture: model-a misses loopy's cred and leaves decided-i0's cred
    unanswered, so 1 of 3 programs is solved; 10 of 12 prompts right; 11 of 12 answered."""
    assert main(["import-reference", str(reference), "--out", str(tmp_path / "out")]) == 1  # one disagreement
    capsys.readouterr()
    out = tmp_path / "out" / "leaderboard"
    gold = _jsonl(out / "hard_x" / "gold.jsonl")
    for row in gold:  # score against the certified letters
        if row["gold"] is not None:
            row["gold"] = LETTERS[row["labels"][READING[row["condition"]]]]
    _write(out / "certified.jsonl", gold)
    scores = tmp_path / "a.json"
    args = ["score", str(out / "submissions" / "model-a.jsonl"), "--gold", str(out / "certified.jsonl")]
    assert main([*args, "--out", str(scores)]) == 1  # an unknown id is reported; the scores are still written
    record = json.loads(scores.read_text())
    assert (record["joint"], record["joint_solved"]) == (1 / 3, [1, 3])
    assert record["per_prompt_accuracy"] == 10 / 12 and record["coverage"] == 11 / 12
    assert record["reference_definitions"] == {"coverage": 11 / 12, "format_valid_rate": 1.0}
    assert record["per_semantics"] == {"closed_world": 1.0, "cred": 1 / 3, "skept": 1.0, "wfs": 1.0}
    assert record["joint_solved_per_family"] == {"decided": [1, 2], "loopy": [0, 1]}
    assert "unknown id 'lb-other-i9-wfs::wfs' (not in the gold set)" in record["problems"]
    printed = capsys.readouterr().out
    assert "JOINT per family (solved/programs): decided 50.0 (1/2), loopy 0.0 (0/1)" in printed
    assert "as the reference leaderboard defines them: coverage 91.7 (non-null predictions)" in printed
