"""Hidden sets' tiers (issue 50): the lemma the hidden configs add changes no reading's label and no published
config; reach is counted exactly; new-set --verified refuses a config with an enumerable tier; a hidden tier
reaches 10^9 programs. (The public-code attack on hidden sets is naf_bench.generate.bound.search's:
tests/generate/test_bound.py.)"""

import json
from collections import Counter
from pathlib import Path

import pytest

from naf_bench.certify import certify
from naf_bench.cli import main
from naf_bench.errors import ConfigError
from naf_bench.generate.bound import MIN_DRAWS, MIN_REACH, invariant, reach
from naf_bench.generate.config import CONFIGS, HIDDEN_CONFIGS, get_config, reserved_for_hidden_sets
from naf_bench.leaderboard.secret import new_set
from naf_bench.syntax.ast import Program, Rule
from naf_bench.syntax.structure import canonical_key

KEY = bytes(range(5, 37))


def _without_lemma(program: Program) -> Program:
    """The program with its lemma's rules (heads y0..) dropped and q no longer reading the lemma."""
    rules = []
    for rule in program.rules:
        if rule.head.startswith("y"):
            continue
        if rule.head == "q":
            rule = Rule("q", tuple(literal for literal in rule.body if not literal.atom.startswith("y")))
        rules.append(rule)
    return Program(tuple(rules))


def test_a_lemma_changes_no_reading_label_nor_the_stable_models_count():
    config = get_config("hidden")
    for unit in config.units():
        cell = config.cell(unit, "test")
        for index in range(2):
            program, _ = cell.assemble(index)
            (q,) = [rule for rule in program.rules if rule.head == "q"]
            assert sum(rule.head.startswith("y") for rule in program.rules) == 12
            assert [literal.atom for literal in q.body if literal.atom.startswith("y")], program
            with_lemma, without = certify(program, "q"), certify(_without_lemma(program), "q")
            assert (with_lemma.labels, with_lemma.n_stable_models) == (without.labels, without.n_stable_models)


def test_published_configs_draw_no_lemma_and_hidden_ones_are_reserved():
    for name in CONFIGS:
        config = get_config(name)
        assert not reserved_for_hidden_sets(config) and all("lemma" not in unit.axes for unit in config.units())
    assert [name for name in HIDDEN_CONFIGS if reserved_for_hidden_sets(get_config(name))] == ["hidden"]
    hidden = get_config("hidden")
    assert sum(unit.counts[0] for unit in hidden.units()) == 77 and len(hidden.units()) == 19
    groups = [f"{u.family} {u.axes}" for u in hidden.units()]
    assert groups[0] == "cnf {'size': 8, 'lemma': 12}" and groups[-1] == "cnf_control {'size': 22, 'lemma': 12}"
    with pytest.raises(ConfigError, match="lemma_atoms must be >= 0 and needs families"):
        get_config("main", lemma_atoms=3)


@pytest.mark.parametrize(("name", "unit"), [("hard", 6), ("hard", 10), ("hidden", 6), ("hard", 2)])
def test_reach_counts_exactly_the_canonical_keys(name, unit):
    """The invariant only decides which draws are keyed: the counts are the canonical keys' own."""
    config = get_config(name)
    chosen = config.units()[unit]
    keys = Counter(canonical_key(config.cell(chosen, "test").assemble(i)[0], "q") for i in range(300))
    cell = reach(config, chosen, "test", 300)
    assert (cell["distinct"], cell["once"], cell["twice"]) == (
        len(keys),
        sum(n == 1 for n in keys.values()),
        sum(n == 2 for n in keys.values()),
    )
    program = config.cell(chosen, "test").assemble(0)[0]
    excluded = {invariant(program, "q"): {canonical_key(program, "q")}}
    assert reach(config, chosen, "test", 300, excluded)["excluded"] == 1


def test_new_set_for_the_verified_track_refuses_enumerable_tiers_before_any_row(tmp_path, capsys):
    (tmp_path / "k").write_text(KEY.hex() + "\n")
    command = ["leaderboard", "new-set", "--key", str(tmp_path / "k"), "--verified", "--attempts", "200"]
    assert main([*command, "--config", "hard", "--out", str(tmp_path / "h")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("naf-bench leaderboard: ConfigError: config 'hard': 19 of its 19 tiers are enumerable")
    assert "(that takes 80,000 draws with no repeat); a verified set is drawn like one of hidden" in line
    assert not (tmp_path / "h").exists()
    with pytest.raises(ConfigError, match="config 'hidden': 19 of its 19 tiers are enumerable"):
        new_set(KEY, "hidden", tmp_path / "x", attempts=200, verified=True)  # too few draws to tell


@pytest.mark.slow  # 80,000 draws: 17 s at load average 3
def test_a_hidden_tier_reaches_a_billion_programs_up_to_renaming():
    config = get_config("hidden")
    (unit,) = [unit for unit in config.units() if unit.family == "decided" and unit.axes["size"] == 1]
    cell = reach(config, unit, "test", MIN_DRAWS)
    assert cell["chao1"] is None and cell["distinct"] == MIN_DRAWS and cell["at_least"] >= MIN_REACH


def test_the_worker_runs_a_hidden_set_with_the_hidden_tasks(tmp_path):
    from naf_bench.leaderboard.runner import run_command

    (tmp_path / "manifest.json").write_text(json.dumps({"config": "hidden"}))
    command = run_command("model", tmp_path, tmp_path / "run", {})
    assert command[command.index("--tasks") + 1] == "naf_bench_hidden"
    tasks = Path(__file__).parents[2] / "lm_eval_tasks" / "naf_bench"
    for reading in ("none", "joint"):
        assert (tasks / f"naf_bench_hidden_{reading}.yaml").read_text().endswith("dataset_name: hidden\n")


def test_new_set_verified_takes_a_config_whose_tiers_pass_and_says_so(tmp_path, capsys, monkeypatch):
    """The bar lowered to 10,000 programs, so that 300 draws per tier can clear it (15,000 without a repeat)."""
    from naf_bench.leaderboard import secret

    monkeypatch.setattr(secret, "MIN_REACH", 10_000)
    (tmp_path / "k").write_text(KEY.hex() + "\n")
    command = ["leaderboard", "new-set", "--key", str(tmp_path / "k"), "--config", "hidden", "--verified"]
    assert main([*command, "--attempts", "300", "--out", str(tmp_path / "h")]) == 0
    manifest = json.loads((tmp_path / "h" / "manifest.json").read_text())
    assert (manifest["verified"], manifest["enumerable"], manifest["programs"]) == (True, [], 77)
    assert {tier["reach"]["distinct"] for tier in manifest["tiers"]} == {300}
    assert "no tier is enumerable: each tier's 300 draws repeated no program, so each reaches more than 15,000" in (
        capsys.readouterr().out
    )
