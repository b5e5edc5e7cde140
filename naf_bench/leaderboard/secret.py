"""Hidden sets from a secret key: ``naf-bench leaderboard new-set --key KEYFILE --config CONFIG --out DIR``.

A generated benchmark cannot keep the gold of a prompt it publishes (the program is in the prompt, and a solver
labels it), and the public configs' seeds are public (``naf-bench generate hard --split test`` makes the "hidden"
test gold again). A hidden set is generated from a root seed that only the key's holder can compute,
HMAC-SHA256(key, config name and dataset version), and shares no program (canonical key) with any split of any
shipped config. Its prompts must then never leave the maintainer's runner.

``DIR/gold.jsonl`` holds the set's rows (one split, the config's ``test``), ``DIR/manifest.json`` what the set
is: the config and its overrides, the dataset and code versions, the key's fingerprint (never the key, never the
seed), the sha256 of the rows, and per tier the programs it takes beside the distinct programs its draws reach up
to renaming (:func:`naf_bench.generate.bound.reach`, less those the public splits took). A tier whose draws do not
put its reach at :data:`~naf_bench.generate.bound.MIN_REACH` (10^9) or more, which takes
:data:`~naf_bench.generate.bound.MIN_DRAWS` (80,000) draws that repeat no program, is *enumerable*: anyone with
the public code can draw its programs until they have them all (``scripts/hidden_attack.py``), so a team could
tune on every program of it. The manifest names such tiers; ``verified=True`` (``new-set --verified``) refuses
them before any row is made: a verified set is drawn like a config of :data:`naf_bench.generate.config.HIDDEN_CONFIGS`,
whose every tier passes. Public ``hard``'s decided, loopy, parity and coupled tiers reach 32 to 128 programs.
The same key and config give the same files, byte for byte; another key, another set. Row ids start with
``nb-h<fingerprint>``, so no hidden id is a public one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from naf_bench.errors import ConfigError, DataError
from naf_bench.generate.bound import MIN_DRAWS, MIN_REACH, invariant
from naf_bench.generate.config import CONFIGS, HIDDEN_CONFIGS, GenerationConfig, get_config
from naf_bench.scoring.intake import input_file

KEY_BYTES = 32


def new_key(path: str | Path) -> bytes:
    """A fresh key (``secrets.token_bytes``) written as hex to a new file only its owner may read."""
    path = Path(path)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ConfigError(
            f"{path}: a key file is there already; another key makes another set (use it without "
            "--new-key, or move it away first)"
        ) from None
    key = secrets.token_bytes(KEY_BYTES)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(key.hex() + "\n")
    return key


def read_key(path: str | Path) -> bytes:
    """The key in a key file (hex, as :func:`new_key` writes it)."""
    text = input_file(path, "a key file (from --new-key)").read_text(encoding="ascii", errors="replace").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise DataError(path, f"not a key: expected {2 * KEY_BYTES} hexadecimal digits, as --new-key writes them")
    return key


def fingerprint(key: bytes) -> str:
    """What names a key in public (manifests, boards, row ids): 12 hex digits of a hash of it."""
    return hashlib.sha256(b"naf-bench hidden set\x00" + key).hexdigest()[:12]


def secret_seed(key: bytes, config: str, version: str) -> int:
    """The hidden set's root seed: 63 bits of HMAC-SHA256(key, config and dataset version)."""
    digest = hmac.new(key, f"{config}\x1f{version}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def public_keys() -> frozenset[str]:
    """The canonical keys of every program in every split of every shipped config (a few seconds)."""
    return frozenset(key for keys in public_programs().values() for key in keys)


def public_programs() -> dict[int, set[str]]:
    """Every program in every split of every shipped config: canonical keys by invariant
    (:func:`naf_bench.generate.bound.invariant`), what :func:`~naf_bench.generate.bound.reach` excludes."""
    from naf_bench.data.rows import generate_units

    out: dict[int, set[str]] = {}
    for name in CONFIGS:
        splits, _ = generate_units(get_config(name))
        for instances in (instances for units in splits.values() for instances in units):
            for instance in instances:
                out.setdefault(invariant(instance.program, instance.query), set()).add(instance.key)
    return out


def hidden_config(key: bytes, name: str, overrides: dict | None = None) -> GenerationConfig:
    """``name``'s config with ``overrides``, reduced to its test split (its last, where it has none), seeded
    from the key, its ids prefixed with the key's fingerprint."""
    from naf_bench.data.dataset import DATASET_VERSION

    base = get_config(name, **(overrides or {}))
    split = "test" if "test" in base.splits else base.splits[-1]
    per_split = (base.programs_per_split[base.splits.index(split)],) if base.programs_per_split else ()
    return base.override(
        seed=secret_seed(key, base.name, DATASET_VERSION),
        splits=(split,),
        programs_per_split=per_split,
        prefix=f"nb-h{fingerprint(key)}",
    )


def new_set(
    key: bytes,
    name: str,
    out: str | Path,
    overrides: dict | None = None,
    attempts: int = MIN_DRAWS,
    verified: bool = False,
) -> dict:
    """Write ``out/gold.jsonl`` and ``out/manifest.json`` (see the module docstring); the manifest. With
    ``verified``, a ConfigError before any row is made where a tier is enumerable."""
    from naf_bench.data.dataset import DATASET_VERSION, code_version
    from naf_bench.data.rows import build_rows, rows_json
    from naf_bench.generate.bound import reach
    from naf_bench.generate.registry import FAMILIES
    from naf_bench.version import __version__

    config = hidden_config(key, name, overrides)
    (split,) = config.splits
    public = public_programs()
    tiers = []
    for unit in config.units():
        cell = reach(config, unit, split, attempts, public)
        tiers.append(
            {
                "tier": FAMILIES[unit.family].group(unit.axes),
                "family": unit.family,
                "axes": unit.axes,
                "programs": unit.counts[0],
                "reach": cell,
                "enumerable": cell["at_least"] - cell["excluded"] < MIN_REACH,
            }
        )
    enumerable = [tier["tier"] for tier in tiers if tier["enumerable"]]
    if verified and enumerable:
        raise ConfigError(
            f"config {name!r}: {len(enumerable)} of its {len(tiers)} tiers are enumerable ({', '.join(enumerable)}): "
            f"{attempts:,} draws do not put their reach at {MIN_REACH:,} programs or more (that takes "
            f"{MIN_DRAWS:,} draws with no repeat); a verified set is drawn like one of "
            f"{', '.join(HIDDEN_CONFIGS)}"
        )
    text = rows_json(build_rows(config, exclude=frozenset(k for keys in public.values() for k in keys))[split])
    manifest = {
        "config": name,
        "overrides": overrides or {},
        "split": split,
        "dataset_version": DATASET_VERSION,
        "code_version": code_version(),
        "naf_bench": __version__,
        "key_fingerprint": fingerprint(key),
        "seed": "HMAC-SHA256(key, config name and dataset version): not recorded",
        "rows": text.count("\n"),
        "programs": sum(tier["programs"] for tier in tiers),
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "public_programs_excluded": sum(map(len, public.values())),
        "verified": verified,
        "reach_method": (
            f"per tier, attempts 0..{attempts - 1} of the set's own seed, assembled as the walk does and keyed up to "
            "renaming (naf_bench.generate.bound.reach); with no program drawn twice the reach is above draws^2 / 6 "
            "at 95 % (a Poisson count of repeats is 0), else the distinct programs drawn; enumerable: under "
            f"{MIN_REACH:,} beyond the public programs"
        ),
        "min_reach": MIN_REACH,
        "enumerable": enumerable,
        "tiers": tiers,
    }
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gold.jsonl").write_text(text, encoding="utf-8")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest
