"""naf-bench import-reference on small fixtures written in the reference repository's data/ layout."""

import json

import pytest

from naf_bench import parse_program
from naf_bench.cli import main
from naf_bench.errors import DataError
from naf_bench.reference import import_reference, program_from_prompt
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.prompt import render_prompt

PROGRAMS = {
    "ref-odd-i0": ("odd", "q :- a.\na :- not b.\nb :- not c.\nc :- not a.", {"cred": "F", "skept": "T", "wfs": "u",
                                                                            "sldnf": "loop"}),
    "ref-control-i0": ("control", "q :- a.\na :- not b.", {"cred": "T", "skept": "T", "wfs": "T", "sldnf": "T"}),
}  # fmt: skip
GOLD = {
    "odd": {"none": None, "closed_world": "C", "cred": "B", "skept": "A", "wfs": "C"},
    "control": dict.fromkeys(("closed_world", "cred", "skept", "wfs"), "A") | {"none": None},
}


def _record(rec_id, condition, order=None):
    family, text, labels = PROGRAMS[rec_id]
    program = parse_program(text)
    if order == "reversed":
        program = type(program)(tuple(reversed(program.rules)))
    record = {
        "task_id": f"{rec_id}-{condition}{'-' + order if order else ''}::{condition}",
        "rec_id": rec_id if order is None else f"{rec_id}-{condition}",
        "cond": condition,
        "divergence_bin": family,
        "gold": GOLD[family][condition],
        "labels": labels,
        "prompt": render_prompt(program, "q", condition),
    }
    if order is None:
        record["program"] = text
    else:
        record["order_id"] = order
    return record


@pytest.fixture
def reference(tmp_path):
    data = tmp_path / "data"
    (data / "production_answers" / "run1").mkdir(parents=True)
    (data / "reorder_prod_answers").mkdir()
    production = [_record(r, c) for r in PROGRAMS for c in GOLD["odd"]]
    reorder = [_record(r, c, o) for r in PROGRAMS for c in ("cred", "wfs") for o in ("asis", "reversed")]
    (data / "production_set.json").write_text(json.dumps(production))
    (data / "reorder_prod_set.json").write_text(json.dumps(reorder))
    raw = {r["task_id"]: f"Reasoning about q.\nANSWER: {r['gold'] or 'C'}" for r in production}
    (data / "production_answers" / "run1" / "model-a.raw.json").write_text(json.dumps(raw))
    parsed = {"model": "model-b", "answers": {r["task_id"]: r["gold"] for r in reorder}}
    parsed["answers"][reorder[0]["task_id"]] = None
    (data / "reorder_prod_answers" / "model-b.json").write_text(json.dumps(parsed))
    return tmp_path


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_gold_rows_and_runs(reference, tmp_path):
    report = import_reference(reference, tmp_path / "out")
    assert report.disagreements == []
    assert report.rows == {"production": 10, "reorder": 8}
    rows = _jsonl(tmp_path / "out" / "production" / "gold.jsonl")
    odd = next(r for r in rows if r["id"] == "ref-odd-i0-skept::skept")
    assert (odd["program_id"], odd["family"], odd["gold"], odd["signature"]) == ("ref-odd-i0", "odd", "A", "FTuloop")
    assert json.loads(odd["certificate"])["incoherent"] is True
    reordered = _jsonl(tmp_path / "out" / "reorder" / "gold.jsonl")
    flipped = next(r for r in reordered if r["variant"] == "reversed" and r["family"] == "odd")
    assert flipped["program"].splitlines()[0] == "c :- not a."  # recovered from the prompt, in prompt order
    assert {r["variant"] for r in reordered} == {"asis", "reversed"}
    run = _jsonl(tmp_path / "out" / "production" / "runs" / "model-a.jsonl")
    assert len(run) == 10 and run[0]["prediction"].startswith("Reasoning about q.")
    letters = _jsonl(tmp_path / "out" / "reorder" / "runs" / "model-b.jsonl")
    assert letters[0]["prediction"] == "" and letters[1]["prediction"] == "B"
    assert any("no raw outputs" in note for note in report.notes)
    assert any("1 null outputs" in note for note in report.notes)


def test_program_from_prompt_round_trip():
    program = parse_program("q :- a, not b.\na.\nb :- not q.")
    recovered, query = program_from_prompt(render_prompt(program, "q", "wfs"))
    assert (render_asp(recovered), query) == (render_asp(program), "q")
    with pytest.raises(ValueError, match="cannot read the rule"):
        program_from_prompt("Rules:\nSomething else entirely.\n\nQuestion: Is proposition q true?")


def test_label_disagreements_are_reported(reference, tmp_path, capsys):
    path = reference / "data" / "production_set.json"
    records = json.loads(path.read_text())
    records[2]["gold"] = "A"  # ref-odd-i0 under cred: certified B
    path.write_text(json.dumps(records))
    assert main(["import-reference", str(reference), "--out", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert "label disagreements between the reference and our certifier: 1" in captured.out
    assert f"disagreement: production {records[2]['task_id']}" in captured.err


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: (d / "production_set.json").write_text('[\n{"task_id": 1,\n'), r"production_set.json:3: malformed"),
        (lambda d: (d / "production_set.json").write_text(json.dumps([{"task_id": "x"}])), "record 1: missing rec_id"),
        (lambda d: (d / "production_answers" / "run1" / "model-a.raw.json").write_text(json.dumps({"nope::wfs": "A"})),
         r"model-a.raw.json: 1 ids not in the production set"),
    ],
)  # fmt: skip
def test_bad_reference_data_names_file_and_line(reference, tmp_path, capsys, damage, message):
    damage(reference / "data")
    with pytest.raises(DataError, match=message):
        import_reference(reference, tmp_path / "out")
    assert main(["import-reference", str(reference), "--out", str(tmp_path / "out")]) == 1
    assert "naf-bench import-reference: DataError:" in capsys.readouterr().err


def test_missing_reference_folder(tmp_path):
    with pytest.raises(DataError, match=r"no reference data: expected data/production_set\.json"):
        import_reference(tmp_path, tmp_path / "out")
