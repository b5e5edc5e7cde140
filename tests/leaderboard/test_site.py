"""naf_bench.leaderboard.site: the static page shows every string a submitter wrote as text (escaped, exactly),
shows baselines and partial runs apart from the ranked rows, loads nothing from anywhere, and the site's three
files are written as the board says."""

import json
import math
import re

import pytest

from naf_bench.leaderboard.site import page_context, partial_label, render_page, write_site

DATASET = {"name": "naf-hard", "gold_file": None, "n_prompts": 40, "n_programs": 10, "naf_bench_version": "1.0",
           "code_hash": "abc123", "families": ["chain", "cycle"]}  # fmt: skip
ROW = {
    "baseline": False, "rank": 1, "model": '<script>alert("x")</script> & co', "joint": 0.5, "joint_ci95": [0.25, 0.75],
    "per_prompt_accuracy": 0.625, "per_semantics": {"closed_world": 1.0, "cred": 0.5, "skept": None, "wfs": 0.0},
    "coverage": 1.0, "format_valid_rate": 0.9, "n_unread": 4, "n_unknown_ids": 1234, "trace_audit": None,
    "metadata": {"model_version": "v<1>", "reasoning_mode": "direct", "external_tools": True,
                 "external_tools_detail": "a 'solver' <b>", "method_url": 'https://e.org/?a=1&b="2"',
                 "params_billions": 7.0, "open_weights": True},
    "joint_per_family": {"chain": {"joint": 0.5, "solved": 1, "programs": 2}}, "extractor": "strict",
}  # fmt: skip
BASELINE = {**ROW, "baseline": True, "model": "random", "metadata": {}, "joint_ci95": None, "n_unread": 0}
PARTIAL = {**ROW, "model": "half", "n_given": 8, "n_prompts": 40, "metadata": {}}


def board(standard=(ROW,), baselines=(), partial=()):
    return {"dataset": DATASET, "tracks": {"standard": list(standard), "enhanced": []}, "baselines": list(baselines),
            "partial": {"standard": list(partial)}}  # fmt: skip


def test_a_row_shows_each_score_to_one_decimal_and_a_missing_one_as_a_dash():
    cells = page_context(board())["tracks"][0]["rows"][0]["cells"]
    assert [cell["text"] for cell in cells] == [
        1,
        '<script>alert("x")</script> & co',
        "50.0",
        "25.0–75.0",
        "62.5",
        "100.0",
        "50.0",
        "—",
        "0.0",
        "100.0",
        "90.0 (4 unread)",
        "1,234",
        "—",
        "direct · tools: a 'solver' <b> · open weights · 7 B params",
    ]
    assert [cell["sort"] for cell in cells][:4] == [1, '<script>alert("x")</script> & co', 0.5, 0.25]
    assert cells[7]["sort"] == ""  # a missing score sorts last


def test_every_string_a_submitter_wrote_reaches_the_page_as_text():
    page = render_page(board())
    name = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; co"
    assert f'<td data-sort="{name}">{name}<span class="version">v&lt;1&gt;</span></td>' in page
    assert (
        '<td data-sort="direct" class="wrap">direct · tools: a &#39;solver&#39; &lt;b&gt; · open weights · 7 B params'
        ' · <a href="https://e.org/?a=1&amp;b=&#34;2&#34;" rel="noopener noreferrer nofollow">method</a></td>'
    ) in page
    assert "<script>alert" not in page and "<b>" not in page and 'b="2"' not in page


def test_the_page_loads_nothing_from_anywhere():
    page = render_page(board())
    assert (
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">"
    ) in page
    assert re.findall(r"\bsrc=", page) == []
    assert re.findall(r'href="([^"]*)"', page) == ["data:,", "https://e.org/?a=1&amp;b=&#34;2&#34;"]


def test_baselines_are_marked_and_partial_runs_shown_apart_and_unranked():
    context = page_context(board(baselines=[BASELINE], partial=[PARTIAL]))
    standard, enhanced = context["tracks"]
    assert [row["cells"][0]["text"] for row in standard["rows"]] == [1, "ref"]
    assert [row["baseline"] for row in standard["rows"]] == [False, True]
    assert standard["rows"][1]["cells"][0]["sort"] == 10**6  # a baseline sorts below every rank
    assert [row["cells"][0]["text"] for row in standard["partial_rows"]] == ["partial: 8 of 40 prompts"]
    assert partial_label(PARTIAL) == "partial: 8 of 40 prompts"
    assert (standard["n_submissions"], enhanced["n_submissions"]) == (1, 0)
    assert [row["cells"][0]["text"] for row in enhanced["rows"]] == ["ref"]  # the baselines are on every track
    page = render_page(board(baselines=[BASELINE], partial=[PARTIAL]))
    assert "<h2>Partial runs (standard track), not ranked</h2>" in page
    assert '<td data-sort="random">random<span class="badge">baseline</span></td>' in page
    assert '<section class="track" id="track-enhanced" role="tabpanel" aria-labelledby="tab-enhanced" hidden>' in page


def test_the_site_is_the_board_as_json_the_page_and_a_space_card(tmp_path):
    paths = write_site(board(), tmp_path / "site")
    assert [path.name for path in paths] == ["leaderboard.json", "index.html", "README.md"]
    assert json.loads(paths[0].read_text()) == board()
    readme = paths[2].read_text()
    assert readme.startswith("---\ntitle: NAF-Bench leaderboard\n") and "sdk: static\napp_file: index.html\n" in readme
    assert (
        "Scored on `naf-hard`: 40 prompts over 10 programs\n(naf-bench 1.0, code abc123); 1\nstandard and 0" in readme
    )
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        write_site(board(standard=[{**ROW, "joint": math.nan}]), tmp_path / "nan")
