"""naf_bench.generate.bound and scripts/cell_bound.py: the Chao1 estimate, the script on the smallest cells the
generator takes, and the public-code attack on hidden sets (search): it finds whole a hidden set drawn like public
``hard``'s decided tiers, and none of a fresh ``hidden`` set's programs (scripts/hidden_attack.py runs it at 10^6
draws)."""

import json
import subprocess
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

import pytest

from naf_bench import parse_program
from naf_bench.generate.bound import chao1, search
from naf_bench.generate.config import get_config
from naf_bench.leaderboard.secret import new_set
from naf_bench.syntax.structure import canonical_key

KEY = bytes(range(5, 37))

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


def _programs(folder):
    rows = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    return list({row["program_id"]: parse_program(row["program"]) for row in rows}.values())


def test_the_public_code_attack_finds_every_program_of_a_hidden_set_drawn_like_public_hard_decided(tmp_path):
    """The attack works: a hidden set of hard's decided tiers (32 programs each, 22-23 public) is found whole."""
    new_set(KEY, "hard", tmp_path / "d", {"families": ("decided",)}, attempts=50)
    programs = _programs(tmp_path / "d")
    found = search(get_config("hard", families=("decided",)), programs, seeds=(1, 2), attempts=1000)
    assert len(programs) == 30 and found == {canonical_key(program, "q") for program in programs}


@pytest.mark.slow  # 2 x 10^4 draws per tier of 19 and a fresh set: a seed per process, as the script runs it
def test_the_public_code_attack_finds_no_program_of_a_fresh_hidden_set(tmp_path):
    manifest = new_set(KEY, "hidden", tmp_path / "h", attempts=50)
    programs = _programs(tmp_path / "h")
    assert manifest["programs"] == len(programs) == 77
    attack = partial(search, get_config("hidden"), programs, attempts=10_000)
    with ProcessPoolExecutor(2) as pool:
        assert set().union(*pool.map(attack, [[1], [2]])) == set()
