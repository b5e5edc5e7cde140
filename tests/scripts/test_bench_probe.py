"""scripts/bench_probe.py: every attack through Service.submit, and the figures docs/leaderboard.md quotes for each
attack's worst seed rerun within one label."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bench_probe.py"


def _probe():
    spec = importlib.util.spec_from_file_location("bench_probe", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def documented() -> dict[str, tuple[int, int]]:
    """The table in docs/leaderboard.md: attack -> (its worst seed, labels learnt there in 90 uploads)."""
    text = (ROOT / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([a-z0-9 ,-]+?) \| (\d) \| (\d+) \(", text, re.MULTILINE)
    return {name: (int(seed), int(learnt)) for name, seed, learnt in rows}


def test_the_probe_runs_every_attack_and_the_docs_quote_each():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--seeds", "0", "--days", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = list(_probe().ATTACKS)
    rows = re.findall(rf"^({'|'.join(names)}) +0 +(\d+) ", done.stdout, re.MULTILINE)
    assert [name for name, _ in rows] == names and all(int(n) <= 3 for _, n in rows)  # 3 uploads: 2 releases
    assert list(documented()) == names


@pytest.mark.slow  # 7 attacks x 90 uploads through the service: about a minute
def test_each_attack_learns_at_its_documented_worst_seed_what_the_docs_say():
    probe = _probe()
    for name, (seed, learnt) in documented().items():
        (got,) = probe.learnt(seed, 90, attacks=(name,)).values()
        assert abs(got - learnt) <= 1, (name, seed, got, learnt)
        assert got <= 4 * (probe.RELEASES - 1)  # in these attacks, each release after the first confirms one program
