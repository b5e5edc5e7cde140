"""Every shipped config's rows are the recorded ones, byte for byte (scripts/hash_rows.py): a refactoring that
changes a row fails here; a new version of the data records new hashes with ``--write``."""

import json
import runpy
from pathlib import Path

ROOT = Path(__file__).parents[2]
RECORDED = Path(__file__).parents[1] / "golden" / "row_hashes.json"
script = runpy.run_path(str(ROOT / "scripts" / "hash_rows.py"))


def test_every_shipped_config_has_its_recorded_rows(capsys):
    assert script["main"](["--check", str(RECORDED)]) == 0
    recorded = json.loads(RECORDED.read_text())
    assert {name: {split: cell["rows"] for split, cell in splits.items()} for name, splits in recorded.items()} == {
        "framing": {"test": 96},
        "hard": {"test": 385, "train": 960, "validation": 385},
        "main": {"test": 600},
        "order": {"test": 640},
        "sft": {"train": 512, "validation": 512},
        "sweep": {"test": 360},
        "wfs44": {"test": 88},
        "zh": {"test": 600},
    }
    assert "11 splits as recorded, 0 changed" in capsys.readouterr().out


def test_a_changed_row_is_named(tmp_path, capsys):
    recorded = json.loads(RECORDED.read_text())
    recorded["main"]["test"]["sha256"] = "0" * 64
    (tmp_path / "hashes.json").write_text(json.dumps(recorded))
    assert script["main"](["main", "zh", "--check", str(tmp_path / "hashes.json")]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("changed: main/test: recorded {'rows': 600, 'sha256': '0000")
    assert "1 splits as recorded, 1 changed" in captured.out
