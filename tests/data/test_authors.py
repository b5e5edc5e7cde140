"""naf-bench import-authors on small fixtures written in the authors' repository's data/ layout."""

import json

import pytest

from naf_bench import parse_program
from naf_bench.cli import main
from naf_bench.data.authors import import_authors
from naf_bench.errors import DataError
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.prompt import render_prompt
from naf_bench.verbalize.read_back import program_from_prompt

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
    report = import_authors(reference, tmp_path / "out")
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
    assert main(["import-authors", str(reference), "--out", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert "label disagreements between the authors and our certifier: 1" in captured.out
    assert f"disagreement: production {records[2]['task_id']}" in captured.err


@pytest.mark.parametrize(
    ("damage", "file", "message", "kept"),
    [
        (lambda d: (d / "production_set.json").write_text('[\n{"task_id": 1,\n'), "data/production_set.json",
         "line 3: malformed JSON", "reorder/gold.jsonl"),
        (lambda d: (d / "production_set.json").write_text(json.dumps([{"task_id": "x"}])), "data/production_set.json",
         "record 1: missing rec_id", "reorder/runs/model-b.jsonl"),
        (lambda d: (d / "production_answers" / "run1" / "model-a.raw.json").write_text(json.dumps({"nope::wfs": "A"})),
         "data/production_answers/run1/model-a.raw.json",
         "1 ids not in the production set", "production/gold.jsonl"),
    ],
)  # fmt: skip
def test_bad_reference_data_is_listed_and_the_rest_imported(reference, tmp_path, capsys, damage, file, message, kept):
    """A file that cannot be read is named with its line and reason; every other file is still imported."""
    damage(reference / "data")
    report = import_authors(reference, tmp_path / "out")
    assert report.failed[file].startswith(message) and report.failed[file].endswith(
        " set)" if "set" in file else "run of production)"
    )
    assert (tmp_path / "out" / kept).exists()
    assert json.loads((tmp_path / "out" / "import.json").read_text())["failed"] == report.failed
    assert main(["import-reference", str(reference), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert f"not imported: {reference / file}: {message}" in err and "Traceback" not in err


def test_missing_reference_folder(tmp_path):
    with pytest.raises(DataError, match=r"none of the authors' files: expected their data/production_set\.json"):
        import_authors(tmp_path, tmp_path / "out")


THEMED = (
    "Use WELL-FOUNDED semantics.\n\nRules:\nThe alarm HOLDS unless the test passes.\n\nQuestion: Is the alarm raised?"
)


def _certified(task_id, shape, gold, condition="wfs", **extra):
    stable, wfs = ("brave", "undefined") if shape == "divergent" else ("true", "true")
    return {
        "task_id": f"{task_id}::{condition}", "rec_id": task_id, "cond": condition, "family": "cycle_gadget",
        "gold": gold, "certified": {"stable": stable, "wfs": wfs, "sldnf": "loop" if shape == "divergent" else "true"},
        "prompt": THEMED, **extra,
    }  # fmt: skip


@pytest.fixture
def paper_sets(tmp_path):
    """One small set per layout of the rest of the paper: the grid (abstract prompts and a program field), the
    sweep (themed prompts, program field), framing (themed, no program), the WFS set with direct and T2S answers,
    and the pilot (a `stable` condition, an untutored prompt with a gold letter)."""
    data = tmp_path / "data"
    for folder in (
        "grid_large_answers",
        "v3_answers",
        "verb_answers",
        "wfs_big_answers",
        "t2s_big_answers",
        "auto_answers",
    ):
        (data / folder).mkdir(parents=True)
    grid = []
    for rec_id, text in (
        ("g-d0-i0", "q :- a.\na :- not b.\nb :- not a."),
        ("g-d0-i1", "q :- x.\nx :- not y.\ny :- not x."),
    ):
        program = parse_program(text)
        for condition, gold in (("cred", "A"), ("wfs", "C")):
            grid.append({
                "task_id": f"{rec_id}-{condition}::{condition}", "rec_id": rec_id, "cond": condition,
                "divergence_bin": "even_one_sided", "depth": 0, "width": 0, "gold": gold, "program": text,
                "labels": {"cred": "T", "skept": "F", "wfs": "u", "sldnf": "loop"},
                "prompt": render_prompt(program, "q", condition), "length": {"tokens": 90},
            })  # fmt: skip
    (data / "grid_large_set.json").write_text(json.dumps(grid))
    (data / "grid_large_answers" / "m.raw.json").write_text(json.dumps({r["task_id"]: "ANSWER: A" for r in grid}))
    (data / "grid_large_answers" / "m.json").write_text(json.dumps({"answers": {r["task_id"]: "A" for r in grid}}))
    sweep = [
        {
            "task_id": f"v-control-d2-t{t}::wfs",
            "rec_id": f"v-control-d2-t{t}",
            "cond": "wfs",
            "theme": t,
            "depth": 2,
            "width": 0,
            "divergence_bin": "control",
            "gold": "A",
            "program": "q :- a.\na :- not b.",
            "labels": {"cred": "T", "skept": "T", "wfs": "T", "sldnf": "T"},
            "prompt": THEMED,
            "length": {"tokens": 50 + t},
        }
        for t in (0, 1)
    ]
    (data / "v3_full.json").write_text(json.dumps(sweep))
    (data / "v3_answers" / "m.json").write_text(json.dumps({"answers": {r["task_id"]: None for r in sweep}}))
    (data / "v3_answers" / "m2.json").write_text(json.dumps({"answers": {r["task_id"]: "A" for r in sweep}}))
    verb = [
        {
            "task_id": f"verb-odd-d4-wfs-t{t}::wfs",
            "rec_id": "verb-odd-d4-wfs",
            "cond": "wfs",
            "theme": t,
            "divergence_bin": "odd",
            "depth": 4,
            "width": 2,
            "gold": "C",
            "prompt": THEMED,
            "labels": {"cred": "F", "skept": "T", "wfs": "u", "sldnf": "loop"},
        }
        for t in (0, 1, 2)
    ]
    (data / "verb_set.json").write_text(json.dumps(verb))
    (data / "verb_answers" / "m.raw.json").write_text(json.dumps({r["task_id"]: "ANSWER: C" for r in verb}))
    wfs = [_certified("cyc2-disj-meeting", "divergent", "C", kind="divergent"),
           _certified("cyc2-disj-panel", "divergent", "C", kind="divergent"),
           _certified("def-approval-1-0", "control", "A", kind="control")]  # fmt: skip
    (data / "wfs_big.json").write_text(json.dumps(wfs))
    (data / "wfs_big_answers" / "m.raw.json").write_text(json.dumps({r["task_id"]: "ANSWER: C" for r in wfs}))
    translations = {r["rec_id"]: {"text": "p :- not q.\nq :- not p.\nQUERY: p.", "ok": True, "query": "p"} for r in wfs}
    t2s = {"answers": {r["task_id"]: "C" for r in wfs}, "translations": translations}
    (data / "t2s_big_answers" / "m.json").write_text(json.dumps(t2s))
    pilot = [_certified("naf-001", "divergent", "C", "stable", divergent=True),
             _certified("naf-001", "divergent", "C", divergent=True),
             _certified("naf-002", "control", "A", "none", divergent=False)]  # fmt: skip
    (data / "eval_set.json").write_text(json.dumps(pilot))
    (data / "auto_answers" / "m.json").write_text(json.dumps({"answers": {r["task_id"]: "C" for r in pilot}}))
    return tmp_path


def test_the_rest_of_the_paper_imports_with_marks(paper_sets, tmp_path):
    report = import_authors(paper_sets, tmp_path / "out")
    assert report.disagreements == []
    assert report.rows == {
        "grid_large": 4,
        "v3_sweep": 2,
        "framing": 3,
        "wfs_big_direct": 3,
        "wfs_big_t2s": 3,
        "pilot_en": 3,
    }
    assert report.programs == {
        "grid_large": 2,
        "v3_sweep": 1,
        "framing": 0,
        "wfs_big_direct": 0,
        "wfs_big_t2s": 0,
        "pilot_en": 0,
    }
    out = tmp_path / "out"
    grid = _jsonl(out / "grid_large" / "gold.jsonl")
    # the two grid programs are one up to renaming of atoms: one cluster
    assert {r["cluster"] for r in grid} == {"g-d0-i0"} and grid[0]["signature"] == "TFuloop"
    assert (grid[0]["tokens"], grid[0]["marks"]) == (90, [])
    sweep = _jsonl(out / "v3_sweep" / "gold.jsonl")
    assert [r["framing"] for r in sweep] == ["escalation", "sensor"] and {r["cluster"] for r in sweep} == {
        "v-control-d2-t0"
    }
    assert sweep[0]["marks"] == ["rules from the 'program' field (the themed prompt cannot be read back)"]
    verb = _jsonl(out / "framing" / "gold.jsonl")
    assert {r["cluster"] for r in verb} == {"verb-odd-d4"} and [r["variant"] for r in verb] == [
        "escalation",
        "sensor",
        "audit",
    ]
    assert verb[0]["certificate"] is None and verb[0]["labels"]["wfs"] == "u"
    wfs = _jsonl(out / "wfs_big_direct" / "gold.jsonl")
    assert [r["cluster"] for r in wfs] == ["cyc2-disj", "cyc2-disj", "def-1-0"]
    assert [r["family"] for r in wfs] == ["divergent", "divergent", "control"]
    assert wfs[0]["labels"] == {"cred": "T", "skept": "F", "wfs": "u", "sldnf": "loop"}
    assert report.marks["wfs_big_t2s"] == {
        "no divergence_bin: family is the authors' kind (control / divergent)": 3,
        "rules not known (a themed prompt and no 'program' field): the authors' labels": 3,
    }
    t2s = _jsonl(out / "wfs_big_t2s" / "runs" / "m.jsonl")
    assert t2s[0] == {
        "id": "cyc2-disj-meeting::wfs",
        "prediction": "p :- not q.\nq :- not p.\nQUERY: p.",
        "stored": "C",
        "stored_ok": True,
    }
    assert _jsonl(out / "wfs_big_direct" / "runs" / "m.jsonl")[0] == {
        "id": "cyc2-disj-meeting::wfs",
        "prediction": "ANSWER: C",
        "stored": None,
    }
    assert _jsonl(out / "grid_large" / "runs" / "m.jsonl")[0]["stored"] == "A"
    assert [r["prediction"] for r in _jsonl(out / "v3_sweep" / "runs" / "m.jsonl")] == ["", ""]
    assert [r["prediction"] for r in _jsonl(out / "v3_sweep" / "runs" / "m2.jsonl")] == ["A", "A"]
    pilot = _jsonl(out / "pilot_en" / "gold.jsonl")
    assert [(r["condition"], r["gold"], r["family"]) for r in pilot] == [
        ("stable", "C", "divergent"),
        ("wfs", "C", "divergent"),
        ("none", None, "control"),
    ]
    assert report.marks["pilot_en"]["condition 'stable' has no reading in naf-bench's table: gold is the authors'"] == 1
    assert report.marks["pilot_en"]["the authors give the untutored prompt gold A; naf-bench's rows have none"] == 1


def test_analyze_authors_puts_the_mitigations_and_languages_side_by_side(paper_sets, tmp_path, capsys):
    import shutil

    data = paper_sets / "data"
    shutil.copy(data / "wfs_big.json", data / "wfs_big_verify.json")
    (data / "wfs_big_verify_answers").mkdir()
    ids = [r["task_id"] for r in json.loads((data / "wfs_big.json").read_text())]
    (data / "wfs_big_verify_answers" / "m.json").write_text(json.dumps({"answers": dict(zip(ids, "CBA", strict=True))}))
    (data / "wfs_big_answers" / "m.json").write_text(
        json.dumps({"answers": dict(zip(ids, ("C", None, "A"), strict=True))})
    )
    shutil.copy(data / "eval_set.json", data / "eval_set_zh.json")
    (data / "zh_answers").mkdir()
    (data / "zh_answers" / "m.json").write_text(json.dumps({"answers": {"naf-001::wfs": "B"}}))
    import_authors(paper_sets, tmp_path / "ref")
    out = tmp_path / "analysis"
    # v3's run m has only null letters: that subset is reported, not analyzed; the rest are
    assert main(["analyze", "--authors", str(tmp_path / "ref"), "--bootstrap", "5", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "v3_sweep: not analyzed: " in captured.err and "m.jsonl: no parsable answer" in captured.err
    printed = captured.out
    assert "framing: answers read with the 'authors' extractor" in printed
    assert "grid_large: answers read with the 'authors' extractor" in printed
    paper = json.loads((out / "paper.json").read_text())
    assert set(paper["errors"]) == {"v3_sweep"}
    cells = paper["mitigation"]["m"]
    assert {m: (c["correct"], c["n_parsed"], c["nulls"]) for m, c in cells.items()} == {
        "direct": (2, 2, 1),
        "verify": (2, 3, 0),
        "t2s": (2, 3, 0),
    }
    assert cells["t2s"]["translations"]["outcomes"] == {"answered": 3}
    assert paper["language"]["m"]["en"]["correct"] == 1 and paper["language"]["m"]["zh"]["n_parsed"] == 1
    assert (out / "wfs_big_t2s" / "analysis.md").exists()
    text = (out / "paper.md").read_text()
    assert "| m | 100.0 (2/2; strict 66.7, 1 nulls) | 66.7 (2/3; strict 66.7, 0 nulls) |" in text
    assert "| m | 1/1 (100.0; 1 parsed) | 0/1 (0.0; 1 parsed) |" in text
    assert main(["analyze", "--authors", str(tmp_path / "ref"), "--gold", "x", "--out", str(out)]) != 0


def test_the_old_import_path_is_a_deprecated_alias():
    import importlib
    import sys

    sys.modules.pop("naf_bench.data.reference", None)  # imported afresh, so that its warning is raised here
    with pytest.deprecated_call(match="naf_bench.data.authors"):
        old = importlib.import_module("naf_bench.data.reference")
    assert old.import_reference is import_authors
