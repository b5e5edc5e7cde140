"""MkDocs hooks: the pages' generated parts, made from the code at build time so they cannot drift from it.

A page asks for one with an HTML comment on a line of its own:

- ``<!-- generated: configs -->``: every config with its description, splits, programs and rows per split;
- ``<!-- generated: fields -->``: every field of the row schema with its description;
- ``<!-- generated: cli -->``: every command's ``--help``, from the parser itself;
- ``<!-- generated: changelog -->``: ``CHANGELOG.md``;
- ``<!-- generated: measurements -->``: every paragraph of the other pages that states a measured figure (it
  names the load average), with its page, its section and the scripts it was measured with.

The site's addresses (``site_url``, ``repo_url`` and the ``repo_name`` the header shows) are read from
``setup.cfg``'s ``project_urls``, the one place they are set.
"""

from __future__ import annotations

import argparse
import configparser
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent


def on_config(config, **kwargs):
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg", encoding="utf-8")
    urls = dict(
        line.split(" = ", 1) for line in parser["metadata"]["project_urls"].strip().splitlines() if " = " in line
    )
    config["site_url"] = urls["Documentation"]
    config["repo_url"] = urls["Source"]
    # mkdocs derives repo_name from repo_url while it validates the config, before this hook runs: the header
    # would show "None"
    config["repo_name"] = urlparse(urls["Source"]).path.strip("/")
    return config


def configs_table() -> str:
    from naf_bench.generate.config import CONFIGS

    lines = ["| config | what it is | splits: programs (rows) |", "|---|---|---|"]
    for name, config in CONFIGS.items():
        programs = [sum(unit.counts[s] for unit in config.units()) for s in range(len(config.splits))]
        splits = ", ".join(
            f"{split} {n} ({n * config.rows_per_program()})" for split, n in zip(config.splits, programs, strict=True)
        )
        lines.append(f"| `{name}` | {config.description} | {splits} |")
    return "\n".join(lines)


def fields_table() -> str:
    from naf_bench.data.schema import FIELDS

    lines = ["| field | type | what it holds |", "|---|---|---|"]
    lines += [f"| `{name}` | `{kind}` | {doc} |" for name, kind, doc in FIELDS]
    return "\n".join(lines)


def cli_reference() -> str:
    import os

    from naf_bench.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps help to the terminal: the same width on every machine

    def walk(parser: argparse.ArgumentParser, name: str):
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                names = {choice.dest for choice in action._choices_actions}  # an alias is not a section of its own
                for sub_name, sub in action.choices.items():
                    if sub_name in names:
                        yield from walk(sub, f"{name} {sub_name}")

    sections = []
    for name, parser in walk(build_parser(), "naf-bench"):
        depth = "##" if name.count(" ") < 2 else "###"
        sections.append(f"{depth} `{name}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(sections)


def changelog() -> str:
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def measurements() -> str:
    import re

    lines = ["| page | section | measured | with |", "|---|---|---|---|"]
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name == "benchmarks.md":
            continue
        heading, fenced, paragraphs, current, shown = page.stem, False, [], [], []
        for line in [*page.read_text(encoding="utf-8").splitlines(), ""]:
            if line.startswith("```"):
                fenced = not fenced
                continue
            if fenced:  # a command shown in the section stands for the paragraphs after it
                shown += re.findall(r"scripts/[a-z_]+\.py", line)
                continue
            if line.startswith("#"):
                heading, shown = line.lstrip("#").strip(), []
            if line.strip():
                current.append(line)
            elif current:
                paragraphs.append((heading, " ".join(current), list(shown)))
                current = []
        for section, text, commands in paragraphs:
            if "load average" in text:
                scripts = sorted(set(re.findall(r"scripts/[a-z_]+\.py", text) or commands)) or ["(see the section)"]
                first = text.split(". ")[0].replace("|", "/")[:160]
                lines.append(f"| [{page.stem}]({page.name}) | {section} | {first} | {', '.join(scripts)} |")
    return "\n".join(lines)


GENERATED = {
    "configs": configs_table,
    "fields": fields_table,
    "cli": cli_reference,
    "changelog": changelog,
    "measurements": measurements,
}


def on_page_markdown(markdown: str, **kwargs) -> str:
    for name, make in GENERATED.items():
        marker = f"<!-- generated: {name} -->"
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
