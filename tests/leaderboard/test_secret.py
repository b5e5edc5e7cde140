"""Hidden sets from a secret key (naf-bench leaderboard new-set): the same key gives the same bytes, another key
another set, no public program, no key in any file, and the tiers whose draws do not show a reach of 10^9 programs
named enumerable."""

import json
import stat

import pytest

from naf_bench import parse_program
from naf_bench.cli import main
from naf_bench.errors import ConfigError, DataError
from naf_bench.leaderboard.secret import fingerprint, new_key, new_set, public_keys, read_key
from naf_bench.syntax.structure import canonical_key

KEY = bytes(range(32))
OTHER = bytes(range(1, 33))


def _keys(folder):
    rows = [json.loads(line) for line in (folder / "gold.jsonl").read_text().splitlines()]
    return {canonical_key(parse_program(row["program"]), row["query"]) for row in rows}, rows


def test_a_key_file_is_new_private_and_read_back(tmp_path, capsys):
    path = tmp_path / "secret.key"
    key = new_key(path)
    assert len(key) == 32 and read_key(path) == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text() == key.hex() + "\n"
    with pytest.raises(ConfigError, match="a key file is there already; another key makes another set"):
        new_key(path)
    (tmp_path / "bad.key").write_text("not hex\n")
    with pytest.raises(DataError, match="not a key: expected 64 hexadecimal digits"):
        read_key(tmp_path / "bad.key")
    assert main(["leaderboard", "new-set", "--key", str(tmp_path / "none.key"), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"naf-bench leaderboard: DataError: {tmp_path / 'none.key'}: no such file (a key file "
        "(from --new-key) was expected)"
    ]


def test_the_same_key_gives_the_same_set_and_another_key_another(tmp_path):
    small = {"programs_per_cell": 1}
    first = new_set(KEY, "main", tmp_path / "a", small, attempts=50)
    new_set(KEY, "main", tmp_path / "b", small, attempts=50)
    new_set(OTHER, "main", tmp_path / "c", small, attempts=50)
    for name in ("gold.jsonl", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    keys, rows = _keys(tmp_path / "a")
    other, other_rows = _keys(tmp_path / "c")
    assert (first["rows"], first["programs"], len(rows), len(keys)) == (20, 4, 20, 4)
    assert not keys & other and all(row["id"].startswith(f"nb-h{fingerprint(KEY)}-") for row in rows)
    assert all(row["id"].startswith(f"nb-h{fingerprint(OTHER)}-") for row in other_rows)
    assert not (keys | other) & public_keys()  # no program of any split of any shipped config
    assert first["key_fingerprint"] == fingerprint(KEY) and first["split"] == "test"
    assert first["config"] == "main" and first["overrides"] == small and len(first["enumerable"]) == 4
    assert first["seed"] == "HMAC-SHA256(key, config name and dataset version): not recorded"
    assert all(KEY.hex() not in path.read_text() for path in (tmp_path / "a").iterdir())


def test_tiers_whose_draws_do_not_show_a_billion_programs_are_named_enumerable(tmp_path, capsys):
    """hard's decided tiers reach 32 programs (the public splits take 22 or 23 of them) and its loopy tiers 64;
    400 draws of cnf and control repeat no program, which puts their reach above 26,667 only: every tier is
    enumerable by this count (80,000 draws without a repeat would be needed)."""
    (tmp_path / "k").write_text(KEY.hex() + "\n")
    command = ["leaderboard", "new-set", "--key", str(tmp_path / "k"), "--config", "hard", "--attempts", "400"]
    assert main([*command, "--out", str(tmp_path / "h")]) == 0
    manifest = json.loads((tmp_path / "h" / "manifest.json").read_text())
    tiers = {tier["tier"]: tier for tier in manifest["tiers"]}
    assert len(manifest["enumerable"]) == len(tiers) == 19 and manifest["min_reach"] == 10**9
    assert tiers["decided_d1"]["reach"]["distinct"] == 32 and tiers["decided_d1"]["programs"] == 5
    assert 22 <= tiers["decided_d1"]["reach"]["excluded"] <= 23
    assert tiers["cnf_n8"]["reach"]["chao1"] is None and round(tiers["cnf_n8"]["reach"]["at_least"]) == 26_667
    assert manifest["reach_method"].startswith("per tier, attempts 0..399 of the set's own seed")
    assert (manifest["programs"], manifest["rows"], manifest["verified"]) == (77, 385, False)
    printed = capsys.readouterr().out
    assert f"hidden set {fingerprint(KEY)} of 'hard' (test): 77 programs, 385 rows" in printed
    left = 32 - tiers["decided_d1"]["reach"]["excluded"]
    assert f"enumerable: decided_d1 takes 5 of the {left} programs its draws reach beyond the public ones" in printed
    assert "enumerable: cnf_n8 takes 11 of the more than 26,667 programs (400 draws, no repeat) beyond" in printed
