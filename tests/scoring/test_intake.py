"""The intake: gold files in naf-bench's and the NAF-Bench authors' layouts (fixtures written here in their
formats), a submission's ids checked against its gold, and the set a submission's ids name."""

import json

import pytest

from naf_bench.cli import main
from naf_bench.data.gold import config_gold, gold_for, gold_rows, whose
from naf_bench.errors import ConfigError, DataError
from naf_bench.scoring.intake import NO_GOLD_ID, Gold, check, read_gold, read_submission

PROGRAMS = {  # rec_id: (family, gold letter per named condition: closed_world, cred, skept, wfs)
    "tx-loopy-i0": ("loopy", "CBAC"),
    "tx-decided-i0": ("decided", "AAAA"),
    "tx-decided-i1": ("decided", "BBBB"),
}
NAMED = ("closed_world", "cred", "skept", "wfs")


def records():
    """One record per (program, condition) in the authors' field names, the `none` prompt with a null gold."""
    for rec_id, (family, letters) in PROGRAMS.items():
        for condition, gold in (("none", None), *zip(NAMED, letters, strict=True)):
            yield rec_id, family, condition, gold, f"{rec_id}-{condition}::{condition}"


def leaderboard_set():  # their leaderboard/data/<set>.jsonl
    return [
        {
            "id": key,
            "rec_id": rec_id,
            "axis": family,
            "difficulty": f"{family}_d1",
            "cond": condition,
            "gold": gold,
            "labels": {},
            "signature": "x",
            "meta": {"query": "q"},
            "prompt": "Rules: ...",
        }
        for rec_id, family, condition, gold, key in records()
    ]


def dev_set():  # their leaderboard/data/dev.jsonl: no rec_id, the program is the id's stem
    return [
        {"id": key, "cond": condition, "divergence_bin": family, "gold": gold, "prompt": "Rules: ..."}
        for _, family, condition, gold, key in records()
    ]


def evaluate_gold():  # the gold their leaderboard/evaluate.py reads: {task_id: {gold, cond, divergence_bin, rec_id}}
    return {
        key: {"gold": gold, "cond": condition, "divergence_bin": family, "rec_id": rec_id}
        for rec_id, family, condition, gold, key in records()
    }


def prompt_set():  # their data/<set>_set.json
    return [
        {
            "task_id": key,
            "rec_id": rec_id,
            "cond": condition,
            "divergence_bin": family,
            "gold": gold,
            "labels": {},
            "program": "q.",
            "prompt": "Rules: ...",
        }
        for rec_id, family, condition, gold, key in records()
    ]


def write(path, value, lines=False):
    path.write_text("".join(json.dumps(r) + "\n" for r in value) if lines else json.dumps(value, indent=1))
    return path


LAYOUTS = {  # file name, its content, JSON lines or one JSON value, the layout named in the note
    "hard_x.jsonl": (leaderboard_set, True, "leaderboard set (their leaderboard/data/<set>.jsonl)"),
    "dev.jsonl": (dev_set, True, "leaderboard dev set"),
    "test_gold.json": (evaluate_gold, False, "evaluate.py gold"),
    "production_set.json": (prompt_set, False, "prompt set (their data/<set>_set.json)"),
}


def submission(path, wrong=("tx-loopy-i0-cred::cred",), extra=()):
    lines = [{"id": key, "prediction": "A" if key in wrong else gold} for *_, gold, key in records() if gold]
    return write(path, [*lines, *({"id": key, "prediction": "A"} for key in extra)], lines=True)


@pytest.mark.parametrize("name", LAYOUTS)
def test_an_authors_gold_layout_is_read_and_scored_as_their_evaluate_py_would(name, tmp_path, capsys):
    make, lines, layout = LAYOUTS[name]
    gold = write(tmp_path / name, make(), lines)
    rows = read_gold(gold).rows
    assert len(rows) == 15 and {row["program_id"] for row in rows} == set(PROGRAMS)
    assert rows[1] == {
        "id": "tx-loopy-i0-closed_world::closed_world",
        "program_id": "tx-loopy-i0",
        "family": "loopy",
        "condition": "closed_world",
        "gold": "C",
    }
    out = tmp_path / "scores.json"
    assert main(["score", str(submission(tmp_path / "sub.jsonl")), "--gold", str(gold), "--out", str(out)]) == 0
    scores = json.loads(out.read_text())
    assert (scores["joint"], scores["per_prompt_accuracy"], scores["joint_solved"]) == (2 / 3, 11 / 12, [2, 3])
    assert scores["joint_solved_per_family"] == {"decided": [2, 2], "loopy": [0, 1]}
    printed = capsys.readouterr().out
    assert f"note: {gold}: read as the NAF-Bench authors' {layout}" in printed
    assert "not certified by naf-bench (`naf-bench import-authors` certifies them" in printed


def test_the_board_and_the_analysis_read_an_authors_gold(tmp_path, capsys, write_metadata):

    gold = write(tmp_path / "test_gold.json", evaluate_gold())
    folder = tmp_path / "submissions"
    folder.mkdir()
    submission(folder / "model.jsonl")
    write_metadata(folder / "model.metadata.json")
    assert main(["leaderboard", "build", str(folder), "--gold", str(gold), "--out", str(tmp_path / "site")]) == 0
    board = json.loads((tmp_path / "site" / "leaderboard.json").read_text())
    assert board["tracks"]["standard"][0]["joint"] == 2 / 3
    run = submission(tmp_path / "run.jsonl")
    out = tmp_path / "analysis"
    prompts = write(tmp_path / "set.json", prompt_set())
    assert main(["analyze", str(run), "--gold", str(prompts), "--out", str(out)]) == 0
    analysis = json.loads((out / "analysis.json").read_text())
    assert analysis["runs"]["run"]["accuracy"] == 11 / 12
    assert "read as the NAF-Bench authors' prompt set" in capsys.readouterr().err  # a note beside the tables


@pytest.mark.parametrize(("content", "line", "reason"), [
    ([{"id": "a::wfs", "prediction": "A"}], 1, "a submission ({id, prediction} lines), not gold rows; expected gold"),
    ([{"task": "t1", "question": "?"}], 1, "not a gold row (fields ['question', 'task'])"),
    ([{"id": "a-wfs::wfs", "cond": "wfs", "divergence_bin": "odd", "gold": "yes", "prompt": "..."}], 1,
     "gold 'yes' is not A, B, C or null"),
    ([*leaderboard_set()[:2], {"id": "x::wfs", "cond": "wfs", "gold": "A"}], 3, "row needs id, rec_id, axis, cond"),
    ([*leaderboard_set()[:2], leaderboard_set()[1]], 3, "duplicate id 'tx-loopy-i0-closed_world::closed_world'"),
])  # fmt: skip
def test_a_gold_file_that_cannot_be_read_names_its_line_and_reason(content, line, reason, tmp_path):
    gold = write(tmp_path / "gold.jsonl", content, lines=True)
    with pytest.raises(DataError) as error:
        read_gold(gold)
    assert str(error.value).startswith(f"{gold}:{line}: {reason}")


def test_a_record_of_a_json_list_is_named_by_its_place(tmp_path):
    records = prompt_set()
    records[4]["gold"] = "D"
    with pytest.raises(DataError, match=r"set\.json: record 5: gold 'D' is not A, B, C or null$"):
        read_gold(write(tmp_path / "set.json", records))


def check_ids(ids, gold, origin, explain=whose):
    """The problems ``score`` reports of an upload giving ``ids`` (each answered "A"), through the intake."""
    data = "".join(json.dumps({"id": key, "prediction": "A"}) + "\n" for key in ids).encode()
    return check(read_submission(data, origin=origin), gold, explain).id_problems()


def test_a_submission_is_read_once_alike_from_its_file_or_its_bytes(tmp_path):
    lines = [{"id": "x1", "prediction": "A", "trace": "a holds"}, {"id": "x2", "prediction": None}, "{oops",
             {"id": "x1", "prediction": "C"}, {"id": "x3", "prediction": "B"}]  # fmt: skip
    data = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines).encode()
    (tmp_path / "m.jsonl").write_bytes(data)
    meta = json.dumps({"model_name": "m", "track": "standard"}).encode()
    from_file = read_submission(tmp_path / "m.jsonl", metadata=meta)
    from_bytes = read_submission(data, name="m", metadata=meta)
    for record in (from_file, from_bytes):
        assert record.name == "m" and list(record.entries) == ["x1", "x2", "x3"]
        assert str(record.entries["x1"]["trace"]) == "a holds" and record.entries["x1"]["prediction"] == "A"
        assert record.line_problems(refused=False) == [
            "line 3: malformed JSON (Expecting property name enclosed in double quotes, column 2)",
            "line 4: duplicate id 'x1' (first on line 1); kept the first",
        ]
        assert (
            record.line_problems(refused=True)[1] == "line 4: duplicate id 'x1' (first on line 1); the file is refused"
        )
        assert ("prompt_setting", "required") in record.metadata_problems and record.metadata["model_name"] == "m"
    assert (from_file.data, from_bytes.data) == (None, data)  # the upload's bytes, kept for the store


def test_a_checked_submission_counts_its_unknown_and_missing_ids_once(tmp_path):
    rows = [
        {"id": f"p{i}::wfs", "program_id": f"p{i}", "family": "f", "condition": "wfs", "gold": "A"} for i in range(10)
    ]
    gold = Gold(rows, "ten")
    data = (
        b"".join(b'{"id": "p%d::wfs", "prediction": "A"}\n' % i for i in range(8))
        + b'{"id": "q", "prediction": null}\n'
    )
    checked = check(read_submission(data), gold)
    assert (checked.unknown, checked.missing, checked.n_given, checked.n_prompts) == (
        ["q"],
        ["p8::wfs", "p9::wfs"],
        8,
        10,
    )
    assert checked.partial and checked.counts() == {"n_unknown_ids": 1, "n_missing": 2, "n_given": 8}
    with pytest.raises(DataError, match=f"the upload: {NO_GOLD_ID}$"):
        check(
            read_submission(b'{"id": "p1::none", "prediction": "A"}\n'),
            Gold([*rows, {**rows[0], "id": "p1::none", "gold": None}], "t"),
        )
    with pytest.raises(DataError, match=f"the upload: {NO_GOLD_ID}$"):
        check(read_submission(b'{"id": "zz", "prediction": "A"}\n'), gold)
    nothing = check(
        read_submission(b'{"id": "p1::wfs", "prediction": null}\n{"id": "p2::wfs", "prediction": null}\n'), gold
    )
    assert (nothing.n_given, nothing.n_answered, checked.n_answered) == (2, 0, 8)
    with pytest.raises(DataError, match=r"the upload: 1 of 3 submitted ids are in ten$"):
        check(
            read_submission(
                b'{"id": "p1::wfs", "prediction": "A"}\n{"id": "a", "prediction": "A"}\n'
                b'{"id": "b", "prediction": "A"}\n'
            ),
            gold,
        )


def test_ids_not_in_the_gold_are_listed_up_to_five_then_counted(tmp_path):
    gold = read_gold(write(tmp_path / "hard_x.jsonl", leaderboard_set(), lines=True))
    entries = {row["id"]: None for row in gold.rows[:12]} | {f"zz-{i}::wfs": None for i in range(7)}
    problems = check_ids(entries, gold, "sub.jsonl")
    assert problems[:5] == [f"unknown id 'zz-{i}::wfs' (not in the gold set)" for i in range(5)]
    assert problems[5] == (
        f"... and 2 more unknown ids (7 of 19 submitted ids are not in {gold.name}; they are not scored)"
    )
    assert problems[6].startswith("3 gold ids have no prediction (scored as unanswered), e.g. ['tx-decided-i1-")
    assert len(problems) == 7


@pytest.fixture(scope="module")
def main_ids():
    return [row["id"] for row in gold_rows("main", "test")]


def test_a_submission_of_another_set_is_refused_with_one_line_saying_whose_ids_they_are(main_ids, tmp_path):
    gold = read_gold(write(tmp_path / "hard_x.jsonl", leaderboard_set(), lines=True))
    with pytest.raises(DataError) as error:
        check_ids(main_ids, gold, "run/submission.jsonl")
    assert str(error.value) == (
        f"run/submission.jsonl: 0 of 600 submitted ids are in {gold.name}; they are "
        "main/test's ids: score them with --config main"
    )
    hard_train = gold_rows("hard", "train")
    with pytest.raises(DataError, match=r"they are hard's ids: score them with --config hard --split train$"):
        check_ids([row["id"] for row in hard_train], config_gold("hard", "test"), "sub.jsonl")
    with pytest.raises(DataError, match=r"those not in it name no naf-bench config \(ids such as 'zz-0', 'zz-1'\)"):
        check_ids(["zz-0", "zz-1"], gold, "sub.jsonl")


def test_without_config_or_gold_the_ids_tell_the_set_or_the_candidates_are_named(main_ids):
    assert gold_for(main_ids).name == "main/test"
    hard = {split: [row["id"] for row in gold_rows("hard", split)] for split in ("train", "test")}
    assert gold_for(hard["train"]).name == "hard/train"  # a split other than test is named in its ids
    assert gold_for(hard["test"]).name == "hard/test"
    with pytest.raises(ConfigError) as error:
        gold_for(["nb-hard-zz-0", "nb-hard-zz-1"])  # hard's prefix, in none of its splits
    assert str(error.value) == (
        "the submission's ids are in 3 splits of hard alike, so they cannot tell which it answers: give one of "
        "--config hard --split train, --config hard --split validation, --config hard --split test"
    )
    with pytest.raises(ConfigError, match="give --gold FILE or --config/--split, not both"):
        gold_for(main_ids, config="main", gold="gold.jsonl")
