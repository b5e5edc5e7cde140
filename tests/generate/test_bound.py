"""naf_bench.generate.bound and scripts/cell_bound.py: the Chao1 estimate, and the script on the smallest cells
the generator takes."""

import subprocess
import sys
from collections import Counter
from pathlib import Path

from naf_bench.generate.bound import chao1

SCRIPT = Path(__file__).parents[2] / "scripts" / "cell_bound.py"


def test_chao1_is_the_bias_corrected_estimate_and_none_without_a_repeat():
    # S = 3 distinct, f1 = 2 drawn once, f2 = 1 drawn twice: 3 + 2 * 1 / (2 * 2)
    assert chao1(Counter({"a": 1, "b": 1, "c": 2})) == 3.5
    # S = 2, f1 = 0: nothing unseen is estimated
    assert chao1(Counter({"a": 3, "b": 2})) == 2
    assert chao1(Counter({"a": 1, "b": 1})) is None


def test_the_smallest_cells_give_their_every_program_within_a_thousand_attempts():
    """Depth 3, width 2, the smallest cores: each bin's cell has a few dozen programs, all drawn (none once)."""
    command = [sys.executable, str(SCRIPT), "--config", "sft", "--attempts", "1000"]
    for pair in ("depths=3", "widths=2", "even_cycle_lens=2", "odd_cycle_len=1"):
        command += ["--set", pair]
    lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    found = {line.split(" ", 1)[0]: line.split("}: ", 1)[1].split(";")[0] for line in lines}
    assert found == {
        "control": "1000 attempts in train, 96 distinct keys (1 once, 0 twice)",
        "even_one_sided": "1000 attempts in train, 64 distinct keys (0 once, 0 twice)",
        "odd": "1000 attempts in train, 64 distinct keys (0 once, 0 twice)",
        "even_both_sided": "1000 attempts in train, 64 distinct keys (0 once, 0 twice)",
    }
    assert all("Chao1 96;" in line or "Chao1 64;" in line for line in lines)


def test_a_split_the_config_lacks_is_refused_with_the_splits_it_has():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--config", "sft", "--split", "test", "--attempts", "1"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "config 'sft' has no split 'test'; it has ['train', 'validation']" in done.stderr
