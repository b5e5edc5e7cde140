"""import-authors on the authors' leaderboard's layout (REF/leaderboard/): sets, submissions, exact scores."""

import json

import pytest

from naf_bench import parse_program
from naf_bench.cli import main
from naf_bench.data.authors import import_authors
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
    hard[7]["gold"] = "C"  # lb-decided-i0 cred: the authors' letter, which our certifier does not give
    _write(board / "data" / "hard_x.jsonl", hard)
    _write(board / "data" / "dev.jsonl", [_dev(r, c) for r in PROGRAMS for c in CONDITIONS])
    _write(board / "data" / "ladder.jsonl", [{"task": "t1", "question": "?"}])
    named = [r for r in hard if r["gold"] is not None]
    # a: right everywhere except one reading of the loopy program, and one unanswered prompt; plus an id the set
    # does not have (the authors' submissions cover a larger set)
    a = [{"id": r["id"], "prediction": r["gold"]} for r in named]
    a[1]["prediction"] = "A"  # lb-loopy-i0 cred: gold B
    a[5]["prediction"] = None  # lb-decided-i0 cred: unanswered
    _write(board / "submissions_open" / "model-a.jsonl", [*a, {"id": "lb-other-i9-wfs::wfs", "prediction": "B"}])
    full = [
        {
            "id": r["id"],
            "prediction": r["gold"],
            "text": f"q is {r['gold']}.\nANSWER: {r['gold']}",
            "rec_id": "x",
            "completion_tokens": 10,
        }
        for r in named
    ]
    _write(board / "submissions_full" / "logs" / "model-b.raw.jsonl", full)
    _write(board / "submissions_batch" / "logs" / "model-b.raw.jsonl", full[:3])
    _write(board / "submissions_open" / "broken.jsonl", [{"id": "lb-loopy-i0-wfs::wfs", "answer": "C"}])
    return tmp_path / "ref"


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_leaderboard_sets_and_submissions(reference, tmp_path):
    report = import_authors(reference, tmp_path / "out")
    out = tmp_path / "out" / "leaderboard"
    assert report.rows == {"leaderboard/dev": 15, "leaderboard/hard_x": 15}
    assert report.programs == {"leaderboard/dev": 3, "leaderboard/hard_x": 3}
    assert report.disagreements == [
        "leaderboard/hard_x lb-decided-i0-cred::cred: their labels {'cred': 'T', 'skept': 'T', 'wfs': 'T', "
        "'sldnf': 'T'} gold C, ours {'cred': 'T', 'skept': 'T', 'wfs': 'T', 'sldnf': 'T'} gold A"
    ]
    rows = _jsonl(out / "hard_x" / "gold.jsonl")
    loopy = next(r for r in rows if r["id"] == "lb-loopy-i0-skept::skept")
    assert (loopy["program_id"], loopy["family"], loopy["tier"], loopy["gold"]) == (
        "lb-loopy-i0",
        "loopy",
        "loopy_d1",
        "A",
    )
    assert loopy["signature"] == "FTuloop" and loopy["program"] == "q :- a.\na :- not b.\nb :- not c.\nc :- not a.\n"
    assert next(r for r in rows if r["id"] == "lb-decided-i0-cred::cred")["gold"] == "C"  # theirs kept, listed
    dev = _jsonl(out / "dev" / "gold.jsonl")
    assert {r["program_id"] for r in dev} == set(PROGRAMS) and {r["family"] for r in dev} == {"loopy", "decided"}
    assert next(r for r in dev if r["id"] == "lb-decided-i1-wfs::wfs")["labels"]["wfs"] == "F"

    # each submission goes under the set it answers; dev and hard_x have the same ids, and these runs answer
    # part of them: the set sharing the most ids, ties by name
    names = sorted(p.name for p in (out / "hard_x" / "submissions").iterdir())
    assert names == ["model-a.jsonl", "submissions_batch-logs-model-b.jsonl", "submissions_full-logs-model-b.jsonl"]
    assert not (out / "dev" / "submissions").exists() and not (out / "submissions").exists()
    full = _jsonl(out / "hard_x" / "submissions" / "submissions_full-logs-model-b.jsonl")
    assert full[0] == {"id": "lb-loopy-i0-closed_world::closed_world", "prediction": "C", "trace": "q is C.\nANSWER: C"}
    a = _jsonl(out / "hard_x" / "submissions" / "model-a.jsonl")
    assert a[5] == {"id": "lb-decided-i0-cred::cred", "prediction": None} and len(a) == 13
    assert "leaderboard/submissions_open/model-a.jsonl: partial: answers 12 of the 15 ids of hard_x" in report.notes
    assert report.failed == {
        "leaderboard/data/ladder.jsonl": "unknown row layout (fields ['question', 'task']): expected {id, rec_id, "
        "axis, difficulty, cond, gold, prompt} or {id, cond, divergence_bin, gold, prompt} (the leaderboard set "
        "ladder)",
        "leaderboard/submissions_open/broken.jsonl": "record 1: unknown layout (needs 'id' and 'prediction') (a "
        "submission)",
    }
    assert "leaderboard submission hard_x/model-a: 1 null predictions (unanswered)" in report.notes


def test_every_file_is_imported_or_listed_with_its_reason(reference, tmp_path, capsys):
    """A set without labels keeps the authors' family; a complete run goes under the smallest set it answers;
    figures, scripts, unknown layouts and runs of no set are each listed with why they were not read."""
    board = reference / "leaderboard"
    unlabelled = [{k: v for k, v in _hard(r, c).items() if k != "labels"} for r in PROGRAMS for c in CONDITIONS]
    _write(board / "data" / "hard_old.jsonl", unlabelled[:10])  # the first two programs, as hard_v2 has no labels
    _write(board / "submissions_c" / "model-c.jsonl", [{"id": r["id"], "prediction": "A"} for r in unlabelled])
    _write(board / "submission_sample.jsonl", [{"id": "naflb-x-i0-wfs::wfs", "prediction": "A"}])
    (board / "figure.png").write_bytes(b"\x89PNG")
    (board / "make_sets.py").write_text("print(1)\n")
    (reference / "data").mkdir()
    (reference / "data" / "odd_set.json").write_text(json.dumps([{"task_id": "t::wfs", "cond": "wfs"}]))
    (reference / "data" / "notes.json").write_text(json.dumps({"_note": "x"}))
    _write(reference / "data" / "pad_answers" / "m.json", [{"answers": {}}])

    assert main(["import-reference", str(reference), "--out", str(tmp_path / "out")]) == 1
    printed = capsys.readouterr()
    summary = json.loads((tmp_path / "out" / "import.json").read_text())
    out = tmp_path / "out" / "leaderboard"
    assert {r["family"] for r in _jsonl(out / "hard_old" / "gold.jsonl")} == {"loopy", "decided"}
    assert (
        "leaderboard/hard_old: the set carries no labels, only gold letters: only those are checked against "
        "naf-bench's certificates"
    ) in summary["notes"]
    assert _jsonl(out / "hard_old" / "submissions" / "model-c.jsonl")[0] == {
        "id": "lb-loopy-i0-none::none",
        "prediction": "A",
    }
    assert (
        "leaderboard/submissions_c/model-c.jsonl: answers every id of hard_old and 5 ids it does not have; it also "
        "answers every id of dev, hard_x"
    ) in summary["notes"]
    assert summary["skipped"] == {
        "data/notes.json": "not a set: a JSON dict with keys ['_note'], not a list of prompt records",
        "data/odd_set.json": "a set in no layout naf-bench reads: its records lack rec_id, divergence_bin, gold, "
        "labels, prompt of the binned layout",
        "data/pad_answers/m.json": "answers to no imported set: no set naf-bench imports reads data/pad_answers/",
        "leaderboard/figure.png": "a figure",
        "leaderboard/make_sets.py": "a script: naf-bench runs none of the authors' code",
        "leaderboard/submission_sample.jsonl": "a submission to no set: its ids belong to no leaderboard set here",
    }
    assert summary["counts"] == {"imported": 7, "failed": 2, "skipped": 6}
    assert summary["imported"]["leaderboard/data/hard_old.jsonl"] == ["leaderboard/hard_old/gold.jsonl"]
    listed = {*summary["imported"], *summary["failed"], *summary["skipped"]}
    assert listed == {p.relative_to(reference).as_posix() for p in reference.rglob("*") if p.is_file()}
    assert "files under" in printed.out and "7 imported, 2 could not be read, 6 not read (" in printed.out


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
    args = ["score", str(out / "hard_x" / "submissions" / "model-a.jsonl"), "--gold", str(out / "certified.jsonl")]
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
    assert "as the authors' leaderboard defines them: coverage 91.7 (non-null predictions)" in printed
