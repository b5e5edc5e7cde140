"""The live board's page in a real browser (Debian's Chromium through Playwright), on the real server."""

import json
import shutil

import pytest

from naf_bench.leaderboard.local import Server
from naf_bench.leaderboard.store import Store

pytest.importorskip("gradio")
playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "no Chromium on PATH (apt-get install chromium): the page test needs a real browser", allow_module_level=True
    )

HOSTILE = "<img src=x onerror=window.pwned=1>"
# the table's body rows in display order (Gradio's table is virtual: rows carry their index), as cell texts
ROWS_JS = """selector => Array.from(document.querySelectorAll(selector + ' [role=row][data-index]'))
    .sort((a, b) => a.dataset.index - b.dataset.index)
    .map(row => Array.from(row.querySelectorAll('[role=gridcell]')).map(cell => cell.innerText.trim()))"""


def _poll(page, selector, accept, tries=150):
    """The table's rows once ``accept(rows)`` holds (bounded: ``tries`` x 0.2 s), else the last rows seen."""
    for _ in range(tries):
        rows = page.evaluate(ROWS_JS, selector)
        if accept(rows):
            return rows
        page.wait_for_timeout(200)
    return rows


def test_a_team_uploads_through_the_page_and_sees_its_row(
    tmp_path, answers, write_gold, write_metadata, write_submission
):
    from gradio_client import handle_file

    rows = write_gold(tmp_path / "gold.jsonl", n_programs=12, seed=8)
    store = Store(tmp_path / "data")
    hostile, other = store.add_team(HOSTILE), store.add_team("beta")
    store.close()
    server = Server(tmp_path / "data", tmp_path / "gold.jsonl").start()
    try:
        first = write_submission(tmp_path / "beta.jsonl", answers(rows, 9))
        meta = write_metadata(tmp_path / "beta.metadata.json", model_name="beta-model")
        assert (
            server.client().predict(handle_file(str(first)), handle_file(str(meta)), other, api_name="/submit")[
                "status"
            ]
            == "accepted"
        )
        upload = write_submission(tmp_path / "mine.jsonl", answers(rows, 4))
        upload_meta = write_metadata(tmp_path / "mine.metadata.json", model_name=HOSTILE)
        with playwright.sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page()
            errors = []
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(server.url)
            board = "#board-test-standard"
            shown = _poll(page, board, lambda rows: len(rows) == 1)
            assert [row[1] for row in shown] == ["beta"]  # no baseline on the hidden set while live
            page.get_by_role("tab", name="Submit").click()
            page.locator("#submission input[type=file]").set_input_files(str(upload))
            page.locator("#metadata input[type=file]").set_input_files(str(upload_meta))
            page.locator("#token input").fill(hostile)
            page.locator("#send").click()
            page.wait_for_function("document.querySelector('#answer').innerText.includes('accepted')", timeout=60_000)
            history = _poll(page, "#history", lambda rows: len(rows) == 1)
            # nothing the page keeps in the browser, or the server keeps for it, holds the token
            kept = page.evaluate("""() => JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage),
                                                          document.cookie])""")
            cookies = json.dumps(page.context.cookies())
            runs = page.request.get(server.url + "gradio_api/runs")
            assert hostile not in kept and hostile not in cookies and runs.status == 404 and hostile not in runs.text()
            assert history[0][:4] == ["2", history[0][1], "test", "standard"] and history[0][4] == "true"
            page.get_by_role("tab", name="hidden test · standard").click()
            shown = _poll(page, board, lambda rows: len(rows) == 2)
            assert [row[1] for row in shown] == ["beta", HOSTILE]  # rank order: 9/12, then 4/12; the name as text
            assert [row[2] for row in shown] == ["beta-model", HOSTILE] and {row[3] for row in shown} == {"submission"}
            assert page.locator(f"{board} img").count() == 0 and page.evaluate("window.pwned") is None
            header = page.locator(f"{board} [data-testid=header-4]")  # JOINT %
            header.hover()
            header.locator("button.cell-menu-button").click(force=True)
            page.get_by_text("Sort ascending", exact=True).click()
            ascending = _poll(page, board, lambda rows: rows[0][1] != "beta")
            assert [row[4] for row in ascending] == ["33.3", "75.0"] and ascending[-1][1] == "beta"
            browser.close()
        assert errors == []
    finally:
        server.stop()
