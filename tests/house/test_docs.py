"""The documentation: the MkDocs site builds with --strict, its generated parts come from the code, every code
block of the README and the docs runs (or says why not, counted and printed), CITATION.cff is valid Citation
File Format 1.2.0, and the versions and addresses agree wherever they are written."""

import configparser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from naf_bench import __version__
from naf_bench.cli import build_parser
from naf_bench.data.dataset import DATASET_VERSION
from naf_bench.leaderboard.commands import with_default_subcommand

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
SKIP = re.compile(r"^<!-- skip: (.+) -->$")


def blocks(path: Path):
    """(line, language, code, reason to skip or None) of every fenced block of a page."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, start, language, reason = [], None, "", None
    for number, line in enumerate(lines, start=1):
        match = FENCE.match(line)
        if start is None and match:
            start, language = number, match.group(1)
            previous = next((lines[k] for k in range(number - 2, -1, -1) if lines[k].strip()), "")
            reason = SKIP.match(previous.strip()).group(1) if SKIP.match(previous.strip()) else None
        elif start is not None and line.startswith("```"):
            found.append((start, language, "\n".join(lines[start : number - 1]), reason))
            start = None
    return found


def commands(code: str):
    """The ``naf-bench`` commands of a shell block, continuation lines joined and comments dropped."""
    for line in code.replace("\\\n", " ").splitlines():
        if not line.startswith("naf-bench"):  # other lines (a multi-line python -c) are not split
            continue
        words = shlex.split(line, comments=True)
        if words[:1] == ["naf-bench"]:
            yield words[1:]


def test_the_site_builds_strictly_with_its_generated_parts(tmp_path):
    pytest.importorskip("mkdocs")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    dataset = (tmp_path / "site" / "dataset" / "index.html").read_text()
    assert "<code>hard</code>" in dataset and "train 192 (960), validation 77 (385), test 77 (385)" in dataset
    cli = (tmp_path / "site" / "cli" / "index.html").read_text()
    for command in ("naf-bench certify", "naf-bench leaderboard new-set", "naf-bench import-authors"):
        assert command in cli
    assert "Keep a Changelog" in (tmp_path / "site" / "changelog" / "index.html").read_text()
    benchmarks = (tmp_path / "site" / "benchmarks" / "index.html").read_text()  # the other pages' figures, indexed
    assert "scripts/bench_serve.py" in benchmarks and "scripts/bench_api.py" in benchmarks
    urls = _project_urls()
    assert f'href="{urls["Source"]}"' in (tmp_path / "site" / "index.html").read_text()


def test_every_naf_bench_command_in_the_docs_exists_with_its_options():
    parser, checked = build_parser(), 0
    for page in PAGES:
        for line, language, code, _ in blocks(page):
            if language in ("bash", "sh", "shell"):
                for words in commands(code):
                    try:
                        parser.parse_args(with_default_subcommand(words))
                    except SystemExit as exit:  # --help and --version exit 0
                        if exit.code:
                            pytest.fail(f"{page.name}:{line}: naf-bench {' '.join(words)} does not parse")
                    checked += 1
    assert checked >= 20


# a dotted name of the package in the README and the docs, e.g. `naf_bench.scoring.intake.read_submission`
DOTTED = re.compile(r"\bnaf_bench(?:\.[A-Za-z_]\w*)+")


def _resolves(name: str) -> bool:
    """Whether ``name`` is a module of the package or an attribute of one (a module imported as far as it goes)."""
    import contextlib
    import importlib
    import importlib.util

    with contextlib.suppress(ImportError):  # a module of an extra whose framework is not installed here is a file
        if importlib.util.find_spec(name) is not None:
            return True
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for attribute in parts[end:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def test_every_name_of_the_package_the_docs_cite_exists():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    cited = {
        (page.relative_to(ROOT).as_posix(), name)
        for page in pages
        for name in DOTTED.findall(page.read_text(encoding="utf-8"))
        if not name.endswith(".yaml") and not name.startswith("naf_bench.lm_eval_tasks")
    }
    assert len(cited) >= 40
    assert sorted(f"{page}: {name}" for page, name in cited if not _resolves(name)) == []
    assert not _resolves("naf_bench.leaderboard.board.score_submission")  # gone with issue 39's one intake


def test_every_python_block_runs_or_says_why_not(tmp_path, capsys):
    """Each block runs in a fresh interpreter in an empty folder, offline; a skipped block names its reason."""
    ran, skipped = 0, []
    for page in PAGES:
        for line, language, code, reason in blocks(page):
            if language != "python":
                continue
            where = f"{page.relative_to(ROOT)}:{line}"
            if reason:
                skipped.append(f"{where}: {reason}")
                continue
            offline = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
            done = subprocess.run(
                [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=offline
            )
            assert done.returncode == 0, f"{where}:\n{done.stderr[-2000:]}"
            ran += 1
    with capsys.disabled():
        print(f"\ndocs: {ran} Python blocks ran, {len(skipped)} skipped:", *skipped, sep="\n  ")
    assert ran >= 3 and all(": " in entry for entry in skipped)


def test_every_shell_block_is_run_or_says_why_not(capsys):
    """Shell blocks are checked by parsing their naf-bench commands (above); one that is not also run says why."""
    unmarked = []
    reasons = []
    for page in PAGES:
        for line, language, _, reason in blocks(page):
            if language in ("bash", "sh", "shell"):
                (reasons if reason else unmarked).append(f"{page.relative_to(ROOT)}:{line}: {reason}")
    with capsys.disabled():
        print(f"\ndocs: {len(reasons)} shell blocks not run:", *reasons, sep="\n  ")
    assert unmarked == []


def _project_urls() -> dict[str, str]:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg", encoding="utf-8")
    lines = parser["metadata"]["project_urls"].strip().splitlines()
    return dict(line.split(" = ", 1) for line in lines)


def test_citation_is_valid_cff_and_names_the_three_works():
    jsonschema = pytest.importorskip("jsonschema")
    yaml = pytest.importorskip("yaml")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    # the Citation File Format 1.2.0 schema (CC-BY-4.0, https://github.com/citation-file-format/citation-file-format)
    schema = json.loads((Path(__file__).parent / "data" / "cff-1.2.0.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(citation, schema, cls=jsonschema.Draft7Validator)
    assert citation["version"] == __version__ and citation["repository-code"] == _project_urls()["Source"]
    titles = [reference["title"] for reference in citation["references"]]
    assert titles[0].startswith("Not What You Meant") and titles[1].startswith("From Token Probabilities")
    assert titles[2].startswith("NL Reasoning Benchmarks")
    broken = dict(citation, authors=[])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema, cls=jsonschema.Draft7Validator)


def test_the_changelog_and_the_package_name_the_same_versions():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog and f"## [{__version__}]" in changelog
    assert f"Package {__version__}, dataset {DATASET_VERSION}" in changelog
    assert f"**{DATASET_VERSION}**" in changelog
    done = subprocess.run([shutil.which("naf-bench") or "naf-bench", "--version"], capture_output=True, text=True)
    assert done.stdout.strip() == f"naf-bench {__version__}"
    assert set(_project_urls()) == {"Documentation", "Source", "Issues", "Changelog"}
