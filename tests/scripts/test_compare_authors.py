"""scripts/compare_authors.py on a small folder written here in the layout of the authors' data/."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "scripts" / "compare_authors.py"


def authors_row(rec_id, bin_name, program, condition):
    rules = " ".join(f"Rule {line}" for line in program.splitlines())
    return {"rec_id": rec_id, "divergence_bin": bin_name, "cond": condition, "program": program,
            "prompt": f"Instructions.\n\nRules:\n{rules}\n\nQuestion: Is proposition q true?"}  # fmt: skip


def test_compare_authors_prints_both_sources(tmp_path):
    rows = [
        authors_row("r-control-0", "control", "q :- a.\na.\na.", condition)
        for condition in ("none", "wfs")  # a repeated fact, as our generator used to write
    ] + [authors_row("r-odd-0", "odd", "q :- x0.\nx0 :- not x1.\nx1 :- not x2.\nx2 :- not x0.\nb.", "wfs")]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "production_set.json").write_text(json.dumps(rows))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "--set", "programs_per_cell=1", "--json", str(tmp_path / "j")],
        capture_output=True,
        text=True,
        check=True,
    )
    stats = json.loads((tmp_path / "j").read_text())
    assert stats["authors"]["control"] == {
        "programs": 1,
        "rules": 3,
        "atoms": 2,
        "facts": 2,
        "negations": 0,
        "repeats_a_rule": 1,
        "prompt_chars": len(rows[0]["prompt"]),
        "prompt_words": 15,
        "rules_chars": len("Rule q :- a. Rule a. Rule a."),
    }
    assert stats["authors"]["odd"]["negations"] == 3 and stats["authors"]["odd"]["atoms"] == 5
    assert set(stats["nb main"]) == {"control", "even_one_sided", "odd", "even_both_sided"}
    assert all(ours["repeats_a_rule"] == 0 and ours["programs"] == 1 for ours in stats["nb main"].values())
    assert done.stdout.splitlines()[1].split()[:3] == ["control", "authors", "1.0"]
    missing = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "nowhere")], capture_output=True, text=True)
    assert missing.returncode == 2 and "production_set.json not found" in missing.stderr
