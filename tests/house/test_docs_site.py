"""The documentation site as a reader meets it: built with ``mkdocs build --strict``, served on 127.0.0.1 and read
in headless Chromium. Every page names the repository in its header, no code block scrolls sideways at 1,280 px,
search finds the package's API names, no request leaves the machine, and only pages are published."""

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SEARCHED = {  # an API name the docs cite: the page search must find it on
    "label_columns": "Scoring",
    "load_metric": "Scoring",
    "submission_row": "Running a leaderboard",
}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the test's output is the assertions', not the server's request log
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site served on 127.0.0.1 (a free port): its folder and its base URL."""
    pytest.importorskip("mkdocs")
    folder = tmp_path_factory.mktemp("docs") / "site"
    quiet = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=quiet,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def test_only_pages_and_the_theme_are_published(site):
    folder, _ = site
    published = {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}
    assert not [name for name in published if name.endswith((".py", ".md")) or name.startswith("overrides/")]
    assert {"index.html", "first-hour/index.html", "search/search_index.json", "stylesheets/extra.css"} <= published


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium; scripts/setup.sh does it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


def test_every_page_names_the_repository_and_wraps_its_code(site, browser):
    folder, base = site
    pages = sorted(path.parent.relative_to(folder).as_posix() for path in folder.rglob("index.html"))
    assert len(pages) >= 19 and "first-hour" in pages
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests, errors, blocks = [], [], 0
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    for name in pages:
        page.goto(base + ("" if name == "." else f"{name}/"))
        assert page.locator(".md-header .md-source__repository").inner_text().strip() == "naf-bench/naf-bench", name
        widths = page.evaluate(
            "Array.from(document.querySelectorAll('pre > code'), c => c.scrollWidth - c.clientWidth)"
        )
        assert [excess for excess in widths if excess > 0] == [], name  # no block scrolls sideways
        blocks += len(widths)
    page.close()
    assert blocks >= 50  # the pages' code blocks were laid out and measured
    assert errors == []
    assert [url for url in requests if not url.startswith(base)] == []  # no font, no GitHub API, nothing else


def test_search_finds_api_names(site, browser):
    _, base = site
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    for name, title in SEARCHED.items():
        page.goto(f"{base}?q={name}")
        page.wait_for_function("document.querySelector('.md-search-result__meta')?.innerText.includes('matching')")
        found = page.locator(".md-search-result__item h1").all_inner_texts()
        assert title in found, (name, found)
    page.close()


def test_every_name_the_docs_cite_is_a_search_word(site):
    """Each ``naf_bench.x.y`` name the pages cite is a word of the search index, split as the search splits
    (its own ``separator``): so searching for ``y`` finds the page."""
    folder, _ = site
    index = json.loads((folder / "search" / "search_index.json").read_text(encoding="utf-8"))
    split = re.compile(index["config"]["separator"])
    words = {word.lower() for doc in index["docs"] for word in split.split(doc["title"] + " " + doc["text"])}
    cited = {
        name.split(".")[-1]
        for page in (ROOT / "docs").rglob("*.md")
        for name in re.findall(r"\bnaf_bench(?:\.[A-Za-z_]\w*)+", page.read_text(encoding="utf-8"))
    }
    assert len(cited) >= 30 and set(SEARCHED) <= cited
    assert sorted(name for name in cited if name.lower() not in words) == []
