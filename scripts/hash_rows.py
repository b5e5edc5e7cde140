"""The rows of every shipped config, hashed: what a refactoring must leave byte-identical.

    python scripts/hash_rows.py                     # print {config: {split: {rows, sha256}}} for every config
    python scripts/hash_rows.py main hard           # only these configs
    python scripts/hash_rows.py --check tests/golden/row_hashes.json

Each split's rows are hashed as ``naf_bench.data.rows.rows_json`` writes them (canonical JSON lines, keys sorted) after
``build_rows`` at the config's own settings, in one process. ``--check`` compares with a recorded file and exits 1
naming every split whose rows or hash changed; ``--write`` records them. Published rows change only with a
version: a change this prints is a new version of the data, or a bug.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from naf_bench.data.rows import build_rows, rows_json
from naf_bench.generate.config import CONFIGS, get_config


def row_hashes(names: list[str]) -> dict[str, dict[str, dict]]:
    """``{config: {split: {"rows": n, "sha256": hex}}}`` of the named configs at their shipped settings."""
    out = {}
    for name in names:
        splits = build_rows(get_config(name), num_proc=1)
        out[name] = {
            split: {"rows": len(rows), "sha256": hashlib.sha256(rows_json(rows).encode()).hexdigest()}
            for split, rows in splits.items()
        }
    return out


def differences(recorded: dict, now: dict) -> list[str]:
    """One line per config or split whose rows differ from the recorded ones."""
    lines = []
    for name in sorted(set(recorded) | set(now)):
        before, after = recorded.get(name, {}), now.get(name, {})
        for split in sorted(set(before) | set(after)):
            if before.get(split) != after.get(split):
                lines.append(f"{name}/{split}: recorded {before.get(split)}, now {after.get(split)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="*", help=f"configs to hash (default: all of {', '.join(CONFIGS)})")
    parser.add_argument("--check", metavar="FILE", help="compare with recorded hashes; exit 1 on any difference")
    parser.add_argument("--write", metavar="FILE", help="record the hashes in FILE")
    args = parser.parse_args(argv)
    now = row_hashes(args.configs or list(CONFIGS))
    if args.write:
        Path(args.write).write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.check:
        recorded = json.loads(Path(args.check).read_text(encoding="utf-8"))
        recorded = {name: splits for name, splits in recorded.items() if not args.configs or name in args.configs}
        changed = differences(recorded, now)
        for line in changed:
            print(f"changed: {line}", file=sys.stderr)
        print(f"{sum(len(s) for s in now.values()) - len(changed)} splits as recorded, {len(changed)} changed")
        return 1 if changed else 0
    print(json.dumps(now, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
