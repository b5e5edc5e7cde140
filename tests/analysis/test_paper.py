"""naf_bench.analysis.paper: the imported subsets each analyzed with its figure's extractor, an unreadable subset
reported beside the others, the cross-subset tables (mitigations, English against Chinese) and paper.md."""

import json

import pytest

from naf_bench.analysis.paper import analyze_authors, mitigation_table, render_paper
from naf_bench.errors import DataError


def imported(folder, subset, gold, run_lines):
    (folder / subset / "runs").mkdir(parents=True)
    (folder / subset / "gold.jsonl").write_text("".join(json.dumps(row) + "\n" for row in gold))
    (folder / subset / "runs" / "m.jsonl").write_text("".join(json.dumps(line) + "\n" for line in run_lines))


def test_the_pilots_english_and_chinese_side_by_side_and_a_bad_subset_reported(tmp_path, two_program_gold):
    ref = tmp_path / "ref"
    imported(
        ref,
        "pilot_en",
        two_program_gold,
        [{"id": row["id"], "prediction": "", "stored": row["gold"]} for row in two_program_gold],
    )
    imported(
        ref,
        "pilot_zh",
        two_program_gold,
        [{"id": row["id"], "prediction": "", "stored": "A"} for row in two_program_gold],
    )
    imported(ref, "reorder", two_program_gold, [{"id": "elsewhere", "prediction": "A"}])
    paper, written = analyze_authors(ref, tmp_path / "out", n_bootstrap=10)
    assert paper["extractors"] == {"pilot_en": "stored", "pilot_zh": "stored"}  # the pilots' figure's extractor
    assert paper["errors"] == {"reorder": f"{ref}/reorder/runs/m.jsonl:1: unknown id 'elsewhere' (not in the gold set)"}
    assert paper["language"] == {
        "m": {
            "en": {"correct": 2, "n": 2, "n_parsed": 2, "accuracy": 1.0, "strict_accuracy": 1.0},
            "zh": {"correct": 1, "n": 2, "n_parsed": 2, "accuracy": 0.5, "strict_accuracy": 0.5},
        }
    }
    assert written[-2:] == [tmp_path / "out" / "paper.json", tmp_path / "out" / "paper.md"]
    assert tmp_path / "out" / "pilot_zh" / "analysis.md" in written
    assert json.loads(written[-2].read_text()) == paper
    assert (
        written[-1]
        .read_text()
        .endswith("| model | en | zh |\n|---|---|---|\n| m | 2/2 (100.0; 2 parsed) | 1/2 (50.0; 2 parsed) |\n")
    )


def test_what_is_not_an_imported_folder_is_refused(tmp_path):
    with pytest.raises(DataError, match="no such folder, where an import-authors output folder"):
        analyze_authors(tmp_path / "absent", tmp_path / "out")
    with pytest.raises(DataError, match="no imported subset here"):
        analyze_authors(tmp_path, tmp_path / "out")
    submission = tmp_path / "run.jsonl"
    submission.write_text('{"id": "p1-wfs", "prediction": "A"}\n')
    with pytest.raises(DataError, match=f"to analyze it: naf-bench analyze {submission} --gold GOLD --out DIR"):
        analyze_authors(submission, tmp_path / "out")


def test_mitigations_are_tabled_per_model_and_rendered_side_by_side():
    direct = {"accuracy": 0.5, "correct": 1, "n_parsed": 2, "strict_accuracy": 0.25, "nulls": 2}
    translations = {"stored_ok": 3, "stored_ok_known": 4, "outcomes": {"read": 3, "unreadable": 1}}
    t2s = {**direct, "accuracy": 1.0, "correct": 2, "strict_accuracy": 0.5, "translations": translations}
    results = {
        "wfs_big_direct": {"runs": {"m": {"mitigation": direct}}},
        "wfs_big_t2s": {"runs": {"m": {"mitigation": t2s}, "other": {}}},
        "production": {"runs": {"m": {"mitigation": direct}}},  # names no mitigation
    }
    table = mitigation_table(results)
    assert table == {"m": {"direct": direct, "t2s": t2s}}
    text = render_paper({"extractors": {"wfs_big_direct": "stored"}, "errors": {}, "mitigation": table, "language": {}})
    assert text.splitlines()[-3:] == [
        "| model | direct | t2s | translated (authors) | our reader's outcomes |",
        "|---|---|---|---|---|",
        "| m | 50.0 (1/2; strict 25.0, 2 nulls) | 100.0 (2/2; strict 50.0, 2 nulls) | 3/4 | read 3, unreadable 1 |",
    ]
