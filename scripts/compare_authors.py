"""Structure statistics of our programs beside the authors' production set, per divergence bin.

    python scripts/compare_authors.py AUTHORS [--config main] [--set KEY=VALUE ...] [--json OUT]

AUTHORS is a folder holding ``data/production_set.json`` (a clone of the authors' repository, or the
reference-data folder laid out like it). Per bin and source it prints the programs, and per program the mean
rules, distinct atoms, facts, negated literals, the share of programs that repeat a rule, and the mean prompt
length (characters and words over every condition's prompt; characters of its rules section alone). Nothing
of the authors' files is copied or written anywhere but to the terminal (or ``--json``, statistics only).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from statistics import mean

from naf_bench.data.rows import build_rows
from naf_bench.errors import ConfigError
from naf_bench.generate.config import CONFIGS, get_config, parse_overrides
from naf_bench.syntax import parse_program

COLUMNS = (
    "programs",
    "rules",
    "atoms",
    "facts",
    "negations",
    "repeats_a_rule",
    "prompt_chars",
    "prompt_words",
    "rules_chars",
)


def _rules_section(prompt: str) -> str:
    """The verbalized rules alone, without the condition's instructions and the answer options."""
    return prompt.split("Rules:\n", 1)[-1].split("\n\nQuestion:", 1)[0]


def structure_stats(rows: list[dict], bin_key: str, program_key: str) -> dict[str, dict[str, float]]:
    """Per bin: program count, mean rules / distinct atoms / facts / negated literals per program, the share of
    programs with a repeated rule, and the mean prompt length over all rows (whole prompt; rules section)."""
    programs: dict[str, dict[str, str]] = defaultdict(dict)
    prompts: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        programs[row[bin_key]][row[program_key]] = row["program"]
        prompts[row[bin_key]].append(row["prompt"])
    stats = {}
    for bin_name, texts in programs.items():
        parsed = [parse_program(text) for text in texts.values()]
        stats[bin_name] = {
            "programs": len(parsed),
            "rules": mean(len(program.rules) for program in parsed),
            "atoms": mean(len(program.atoms) for program in parsed),
            "facts": mean(sum(not r.body for r in program.rules) for program in parsed),
            "negations": mean(sum(not lit.positive for r in program.rules for lit in r.body) for program in parsed),
            "repeats_a_rule": mean(len(set(program.rules)) < len(program.rules) for program in parsed),
            "prompt_chars": mean(len(prompt) for prompt in prompts[bin_name]),
            "prompt_words": mean(len(prompt.split()) for prompt in prompts[bin_name]),
            "rules_chars": mean(len(_rules_section(prompt)) for prompt in prompts[bin_name]),
        }
    return stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("authors", type=Path, help="folder with data/production_set.json (the authors' layout)")
    parser.add_argument("--config", default="main", choices=sorted(CONFIGS), help="our config (default: main)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override")
    parser.add_argument("--json", type=Path, help="also write the statistics as JSON")
    args = parser.parse_args(argv)
    path = args.authors / "data" / "production_set.json"
    if not path.is_file():
        print(f"compare_authors: {path} not found (give the folder that holds data/)", file=sys.stderr)
        return 2
    try:
        config = get_config(args.config, **parse_overrides(args.set))
    except ConfigError as exc:
        print(f"compare_authors: {exc}", file=sys.stderr)
        return 2
    authors = structure_stats(json.loads(path.read_text(encoding="utf-8")), "divergence_bin", "rec_id")
    ours = structure_stats([row for rows in build_rows(config).values() for row in rows], "family", "program_id")
    sources = {"authors": authors, f"nb {config.name}": ours}
    print(f"{'bin':<18}{'source':<12}" + "".join(f"{c:>15}" for c in COLUMNS))
    for bin_name in sorted(set(authors) | set(ours)):
        for source, stats in sources.items():
            if bin_name in stats:
                cells = "".join(
                    f"{stats[bin_name][c]:>15.0%}" if c == "repeats_a_rule" else f"{stats[bin_name][c]:>15.1f}"
                    for c in COLUMNS
                )
                print(f"{bin_name:<18}{source:<12}{cells}")
    if args.json:
        args.json.write_text(json.dumps(sources, indent=1, sort_keys=True), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
