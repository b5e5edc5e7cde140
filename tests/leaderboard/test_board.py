"""The leaderboard: metadata schema, board rows over the scoring core, the static site, and a real browser."""

import json
import shutil
from pathlib import Path

import pytest

from naf_bench.certify import certify
from naf_bench.cli import main
from naf_bench.errors import DataError
from naf_bench.leaderboard.board import assemble_board, baseline_rows, build_board, refusal, submission_row
from naf_bench.leaderboard.site import write_site
from naf_bench.readings import all_conditions, gold_letter
from naf_bench.scoring.intake import Gold, check, read_gold, read_submission
from naf_bench.scoring.metadata import parse_metadata, validate_metadata
from naf_bench.syntax.parse import parse_program

PROGRAMS = {  # program id: (program, query, family)
    "fx-even": ("a :- not b.\nb :- not a.\nq :- a.\n", "q", "loopy"),
    "fx-odd": ("p :- not p.\nq :- not p.\n", "q", "loopy"),
    "fx-strat": ("a.\nq :- a, not c.\n", "q", "decided"),
}
HOSTILE = "<img src=x onerror=\"document.title='pwned'\">"
STANDARD = {
    "track": "standard",
    "prompt_setting": "zero-shot",
    "reasoning_mode": "cot",
    "external_tools": False,
    "temperature": 0,
    "samples_per_item": 1,
}


@pytest.fixture(scope="module")
def gold_rows():
    rows = []
    for program_id, (text, query, family) in PROGRAMS.items():
        certificate = certify(parse_program(text), query)
        for condition in all_conditions():
            rows.append(
                {
                    "id": f"{program_id}::{condition}",
                    "program_id": program_id,
                    "config": "fixture",
                    "family": family,
                    "condition": condition,
                    "gold": gold_letter(condition, certificate.labels),
                    "labels": dict(certificate.labels),
                    "signature": certificate.signature,
                    "program": text,
                    "query": query,
                    "certificate": certificate.to_json(),
                }
            )
    return rows


def write_gold(rows, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def answers(rows, wrong=(), unanswered=()):
    """Every named row answered with its gold letter, except ``wrong`` ids (a wrong letter) and ``unanswered``
    ids (a null prediction)."""
    out = []
    for row in rows:
        if row["gold"] is None:
            continue
        if row["id"] in unanswered:
            out.append({"id": row["id"], "prediction": None})
        else:
            letter = "ABC"[("ABC".index(row["gold"]) + 1) % 3] if row["id"] in wrong else row["gold"]
            out.append({"id": row["id"], "prediction": f"ANSWER: {letter}"})
    return out


def write_submission(folder, name, lines, metadata):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    if metadata is not None:
        (folder / f"{name}.metadata.json").write_text(json.dumps(metadata))


@pytest.fixture()
def submissions(tmp_path, gold_rows):
    folder = tmp_path / "submissions"
    write_submission(
        folder,
        "alpha",
        answers(gold_rows),
        {**STANDARD, "model_name": "Alpha-7B", "model_version": "r2", "contact": "alpha-team@example.org"},
    )
    write_submission(folder, "beta", answers(gold_rows, wrong={"fx-odd::wfs"}), {**STANDARD, "model_name": "Beta"})
    write_submission(
        folder,
        "gamma",
        answers(gold_rows, wrong={"fx-odd::wfs", "fx-even::cred"}, unanswered={"fx-strat::skept"}),
        {**STANDARD, "model_name": HOSTILE},
    )
    traced = [{**line, "trace": "q holds because a holds."} for line in answers(gold_rows, wrong={"fx-even::wfs"})]
    write_submission(
        folder,
        "delta",
        [*traced, {"id": "not-in-gold::wfs", "prediction": "A"}],
        {
            **STANDARD,
            "model_name": "Delta agent",
            "track": "enhanced",
            "reasoning_mode": "agent",
            "external_tools": True,
            "external_tools_detail": "clingo",
            "temperature": 0.6,
            "samples_per_item": 5,
            "method_url": "https://example.org/delta",
        },
    )
    write_submission(folder, "hot", answers(gold_rows), {**STANDARD, "model_name": "Hot", "temperature": 0.7})
    write_submission(folder, "nometa", answers(gold_rows), None)
    # all right on two programs of three (JOINT 66.7, the third unanswered): shown apart, not ranked
    part = [line for line in answers(gold_rows) if not line["id"].startswith("fx-odd")]
    write_submission(folder, "eps", part, {**STANDARD, "model_name": "Eps partial"})
    return folder


# --- metadata -------------------------------------------------------------------------------------------------


def test_metadata_track_rules_name_field_and_reason():
    valid = {**STANDARD, "model_name": "m"}
    assert validate_metadata(valid) == []
    assert validate_metadata({**valid, "temperature": 0.0}) == []
    assert validate_metadata({**valid, "temperature": 0.7, "samples_per_item": 4, "external_tools": True}) == [
        ("external_tools", "must be false on the standard track, got true"),
        ("samples_per_item", "must be 1 on the standard track, got 4"),
        ("temperature", "must be 0 on the standard track, got 0.7"),
    ]
    enhanced = {**valid, "track": "enhanced", "temperature": 1.0, "samples_per_item": 8}
    assert validate_metadata(enhanced) == [
        ("method_url", "required on the enhanced track (a link to the paper, code or model card describing the method)")
    ]
    assert validate_metadata({**enhanced, "method_url": "https://example.org/m"}) == []
    assert validate_metadata(
        {
            "model_name": "m",
            "track": "open",
            "method_url": "javascript:alert(1)",
            "evaluation_date": "2026-02-30",
            "colour": "red",
        }
    ) == [
        ("colour", "unknown field"),
        ("evaluation_date", 'must be a date YYYY-MM-DD, got "2026-02-30"'),
        ("external_tools", "required"),
        ("method_url", 'must be an http(s) URL, got "javascript:alert(1)"'),
        ("prompt_setting", "required"),
        ("reasoning_mode", "required"),
        ("track", 'must be one of "standard", "enhanced", got "open"'),
    ]
    assert validate_metadata([1]) == [("(metadata)", "must be object, got [1]")]


def test_metadata_read_once_with_typed_problems(tmp_path):
    assert parse_metadata(b"{") == (
        None,
        [("", "line 1: malformed JSON (Expecting property name enclosed in double quotes, column 2)")],
    )
    assert parse_metadata(b"\xff") == (None, [("", "not UTF-8 (byte 1)")])
    metadata, problems = parse_metadata(json.dumps({**STANDARD, "model_name": "m", "temperature": 1}).encode())
    assert metadata["model_name"] == "m" and problems == [("temperature", "must be 0 on the standard track, got 1")]
    (tmp_path / "m.jsonl").write_text('{"id": "x", "prediction": "A"}\n')
    with pytest.raises(DataError, match="no metadata file"):
        read_submission(tmp_path / "m.jsonl", metadata=tmp_path / "m.metadata.json")


# --- board rows -----------------------------------------------------------------------------------------------


def _board_row(path, gold, metadata=None):
    """The board row of a submission file, through the intake as the board reads it."""
    submission = read_submission(path, metadata=metadata or path.with_name(path.stem + ".metadata.json"))
    assert refusal(submission) == []
    return submission_row(check(submission, gold), n_bootstrap=200)[0]


def test_submission_row_of_the_checked_record(tmp_path, gold_rows, submissions):
    gold = read_gold(write_gold(gold_rows, tmp_path / "gold.jsonl"))
    row = _board_row(submissions / "gamma.jsonl", gold)
    assert (row["name"], row["model"], row["track"], row["baseline"]) == ("gamma", HOSTILE, "standard", False)
    assert (row["joint"], row["joint_solved"], row["n_programs"]) == (0.0, 0, 3)
    assert row["per_prompt_accuracy"] == 9 / 12 and row["accuracy"] == 9 / 11
    assert row["coverage"] == 11 / 12 and row["reference_definitions"] == {
        "coverage": 11 / 12,
        "format_valid_rate": 1.0,
    }
    assert row["per_semantics"] == {"closed_world": 1.0, "cred": 2 / 3, "skept": 2 / 3, "wfs": 2 / 3}
    assert row["joint_per_family"] == {
        "decided": {"joint": 0.0, "solved": 0, "programs": 1},
        "loopy": {"joint": 0.0, "solved": 0, "programs": 2},
    }
    assert (row["n_unknown_ids"], row["n_missing"], row["trace_audit"]) == (0, 0, None)
    assert (row["n_given"], row["n_prompts"], row["partial"]) == (12, 12, False)
    assert "contact" not in row["metadata"]

    traced = _board_row(submissions / "delta.jsonl", Gold(gold_rows, "fixture"))
    assert (traced["joint"], traced["joint_solved"], traced["n_unknown_ids"]) == (2 / 3, 2, 1)
    # "q holds because a holds." on every prompt: sound where q is true (and said so under the reading), else not
    audit = traced["trace_audit"]
    assert audit["audit"] == {"sound": 2, "contradicted": 4, "unverifiable": 6, "no_derivation": 0}
    assert (audit["n"], audit["reasoned_soundly"], audit["contradicted_among_correct"]) == (12, 0.4, 0.6)
    # the authors' shares: sound among the 11 correct traced answers, and among all 12 traces
    assert audit["reference_definitions"] == {"sound_among_correct": 2 / 11, "sound_of_traced": 2 / 12}
    low, high = traced["joint_ci95"]
    assert 0.0 <= low <= 2 / 3 <= high <= 1.0

    silent = [{**line, "prediction": None} for line in answers(gold_rows)]
    write_submission(tmp_path, "silent", [*silent, {"id": "not-in-gold::wfs", "prediction": "A"}], STANDARD)
    nothing = _board_row(tmp_path / "silent.jsonl", gold, metadata={**STANDARD, "model_name": "s"})
    assert (nothing["joint"], nothing["n_given"], nothing["coverage"], nothing["format_valid_rate"]) == (
        0.0,
        12,
        None,
        None,
    )
    assert nothing["reference_definitions"] == {"coverage": None, "format_valid_rate": None}  # not 0, not 100

    hot = read_submission(submissions / "hot.jsonl", metadata=submissions / "hot.metadata.json")
    assert refusal(hot) == [("metadata.temperature", "must be 0 on the standard track, got 0.7")]
    with pytest.raises(DataError, match="no metadata file"):
        read_submission(submissions / "nometa.jsonl", metadata=submissions / "nometa.metadata.json")
    (submissions / "broken.jsonl").write_text('{"id": "fx-odd::wfs", "prediction": "A"}\n{oops\n')
    broken = read_submission(submissions / "broken.jsonl", metadata={**STANDARD, "model_name": "b"})
    assert [field for field, _ in refusal(broken)] == ["submission"]
    assert refusal(broken)[0][1].startswith("line 2: malformed JSON")


def test_baselines_and_ranking(gold_rows):
    baselines = {row["name"]: row for row in baseline_rows(gold_rows, n_bootstrap=0)}
    assert set(baselines) == {
        "constant_A",
        "constant_B",
        "constant_C",
        "best_constant_per_condition",
        "majority",
        "oracle",
    }
    assert baselines["oracle"]["joint"] == 1.0 and baselines["oracle"]["baseline"] is True
    assert all(row["track"] is None and row["metadata"] is None for row in baselines.values())
    rows = [
        {"name": name, "track": "standard", "joint": joint, "per_prompt_accuracy": pp}
        for name, joint, pp in (("c", 0.5, 0.9), ("a", 0.5, 0.8), ("b", 0.75, 0.1), ("d", None, None))
    ]
    board = assemble_board(rows, [], {"families": []})
    assert [(r["rank"], r["name"]) for r in board["tracks"]["standard"]] == [(1, "b"), (2, "c"), (2, "a"), (4, "d")]
    assert board["tracks"]["enhanced"] == []


# --- the site -------------------------------------------------------------------------------------------------


def test_leaderboard_command_writes_site_and_refuses_invalid(tmp_path, gold_rows, submissions, capsys):
    gold = write_gold(gold_rows, tmp_path / "hard" / "gold.jsonl")
    site = tmp_path / "site"
    assert main(["leaderboard", str(submissions), "--gold", str(gold), "--out", str(site), "--bootstrap", "100"]) == 1
    captured = capsys.readouterr()
    assert "refused hot: metadata.temperature: must be 0 on the standard track, got 0.7" in captured.err
    assert "refused nometa: metadata: no metadata file" in captured.err
    assert "standard track: 1. alpha 100.0, 2. beta 66.7, 3. gamma 0.0\n" in captured.out
    assert "standard track, not ranked: eps 66.7 (partial: 8 of 12 prompts)" in captured.out
    board = json.loads((site / "leaderboard.json").read_text())
    assert [row["name"] for row in board["tracks"]["standard"]] == ["alpha", "beta", "gamma"]
    assert [row["name"] for row in board["tracks"]["enhanced"]] == ["delta"]
    assert [(row["name"], row["n_given"], row["n_prompts"]) for row in board["partial"]["standard"]] == [("eps", 8, 12)]
    assert "rank" not in board["partial"]["standard"][0]
    assert [row["n_unknown_ids"] for row in board["tracks"]["enhanced"]] == [1]
    assert board["dataset"]["name"] == "hard" and board["dataset"]["n_programs"] == 3
    assert len(board["dataset"]["code_hash"]) == 16
    published = {path.name: path.read_text() for path in site.iterdir()}
    assert set(published) == {"leaderboard.json", "index.html", "README.md"}
    for text in published.values():
        assert "Hot" not in text and "nometa" not in text  # refused: nothing of them is published
        assert "alpha-team@example.org" not in text  # the contact stays with the maintainer
    page = published["index.html"]
    assert "Scored on <code>hard</code> (gold file <code>hard/gold.jsonl</code>)" in page
    assert HOSTILE not in page and "&lt;img src=x onerror=&#34;document.title=&#39;pwned&#39;&#34;&gt;" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://example.org/delta" in page
    assert (
        published["README.md"].startswith("---\ntitle: NAF-Bench leaderboard\n")
        and "sdk: static\n" in published["README.md"]
    )


def test_board_names_a_gold_file_in_the_current_folder_and_refuses_an_empty_folder(
    tmp_path, gold_rows, submissions, monkeypatch, capsys
):
    monkeypatch.chdir(write_gold(gold_rows, tmp_path / "set-a" / "gold.jsonl").parent)  # as the --help example runs
    assert (
        main(["leaderboard", "build", str(submissions), "--gold", "gold.jsonl", "--out", "site", "--bootstrap", "0"])
        == 1
    )
    assert (
        "Scored on <code>set-a</code> (gold file <code>set-a/gold.jsonl</code>)" in Path("site/index.html").read_text()
    )
    (tmp_path / "none").mkdir()
    assert main(["leaderboard", "build", str(tmp_path / "none"), "--gold", "gold.jsonl", "--out", "empty"]) == 1
    assert "no submissions (NAME.jsonl or an inspect log NAME.eval, with NAME.metadata.json) in this folder" in (
        capsys.readouterr().err
    )
    assert not Path("empty").exists()  # nothing written: a board of baselines alone is no board


def test_board_refuses_what_score_refuses_with_one_duplicate_rule(tmp_path, gold_rows, capsys):
    """A file answering no id of the set, another set's, an empty one and one with a duplicate id are refused by
    the board, and ``score`` exits 1 on each of them too; the duplicate's message says what each did."""
    gold = write_gold(gold_rows, tmp_path / "gold.jsonl")
    folder = tmp_path / "subs"
    meta = {**STANDARD, "model_name": "m"}
    write_submission(folder, "full", answers(gold_rows), meta)
    write_submission(folder, "other", [{"id": "hard-x-0::wfs", "prediction": "A"}], meta)
    write_submission(folder, "empty", [], meta)
    first, *rest = answers(gold_rows)
    write_submission(folder, "twice", [first, *rest, {**first, "prediction": "C"}], meta)
    enhanced = {**meta, "track": "enhanced", "method_url": "https://example.org/m"}
    write_submission(folder, "half", [line for line in rest if line["id"].startswith("fx-odd")], enhanced)
    site = tmp_path / "site"
    assert main(["leaderboard", str(folder), "--gold", str(gold), "--out", str(site), "--bootstrap", "0"]) == 1
    err = capsys.readouterr().err
    assert "refused other: submission: 0 of 1 submitted ids are in" in err
    assert "refused empty: submission: empty file, where a submission" in err
    duplicate = f"line 13: duplicate id {first['id']!r} (first on line 1)"
    assert f"refused twice: submission: {duplicate}; the file is refused" in err
    board = json.loads((site / "leaderboard.json").read_text())
    assert [row["name"] for row in board["tracks"]["standard"]] == ["full"] and board["partial"]["standard"] == []
    assert board["tracks"]["enhanced"] == [] and [row["n_given"] for row in board["partial"]["enhanced"]] == [4]
    assert "No full run on this track yet: 1 partial, below." in (site / "index.html").read_text()
    for name in ("other", "empty", "twice"):
        assert main(["score", str(folder / f"{name}.jsonl"), "--gold", str(gold)]) == 1, name
    assert f"{duplicate}; kept the first" in capsys.readouterr().err


def test_site_holds_no_private_gold(tmp_path, gold_rows, submissions):
    """Nothing in SITE is a gold row's id, certificate, labels or signature: only aggregates are published."""
    gold = write_gold(gold_rows, tmp_path / "gold.jsonl")
    board, _ = build_board(submissions, gold, n_bootstrap=50)
    site = tmp_path / "site"
    write_site(board, site)
    published = "".join(path.read_text() for path in site.iterdir())
    for row in gold_rows:
        assert row["id"] not in published and row["program_id"] not in published
        assert row["certificate"] not in published and row["signature"] not in published
        assert json.dumps(row["labels"]) not in published and row["program"] not in published


# --- a real browser -------------------------------------------------------------------------------------------


def _browser():
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium; scripts/setup.sh does it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")
    return sync_api, executable


# how far each table's box scrolls sideways (0: it fits), and on how many lines each cell's text is laid out
OVERFLOWING_BOXES = (
    "Array.from(document.querySelectorAll('section:not([hidden]) .scroll'), b => b.scrollWidth - b.clientWidth)"
)
LINES_OF_RANKS = """selector => Array.from(document.querySelectorAll(selector.endsWith('.badge') ? selector
    : selector + ' tbody td:first-child'), cell => {
  const range = document.createRange(); range.selectNodeContents(cell);
  return new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size; })"""


def test_page_in_headless_chromium(tmp_path, gold_rows, submissions):
    sync_api, executable = _browser()
    gold = write_gold(gold_rows, tmp_path / "gold.jsonl")
    board, _ = build_board(submissions, gold, n_bootstrap=50)
    write_site(board, tmp_path / "site")
    errors, requests = [], []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requests.append(request.url))
        page.goto((tmp_path / "site" / "index.html").as_uri())

        def models(table):
            return page.locator(f"#{table} tbody tr td:nth-child(2)").all_inner_texts()

        standard = models("board-standard")
        assert standard[:3] == ["Alpha-7Br2", "Beta", HOSTILE]  # rank order, the hostile name as text
        assert [name.endswith("baseline") for name in standard[3:]] == [True] * 6
        assert page.title() == "NAF-Bench leaderboard" and page.locator("#board-standard img").count() == 0
        assert page.locator("#board-standard tr.baseline").count() == 6

        page.locator("#board-standard thead th:nth-child(2) button").click()  # by model name, ascending
        names = models("board-standard")
        assert names == sorted(names, key=str.lower)
        page.locator("#board-standard thead th:nth-child(3) button").click()  # by JOINT, highest first
        joints = page.locator("#board-standard tbody tr td:nth-child(3)").all_inner_texts()
        assert joints == sorted(joints, key=float, reverse=True)
        page.locator("#board-standard thead th:nth-child(3) button").click()  # again: lowest first
        joints = page.locator("#board-standard tbody tr td:nth-child(3)").all_inner_texts()
        assert joints == sorted(joints, key=float)

        assert not page.locator("#board-enhanced").is_visible()
        page.locator("#tab-enhanced").click()
        assert page.locator("#board-enhanced").is_visible() and not page.locator("#board-standard").is_visible()
        assert models("board-enhanced")[0] == "Delta agent"
        delta = page.locator("#board-enhanced tbody tr").first
        assert delta.locator("td:nth-child(12)").inner_text() == "1"  # its unknown id
        assert delta.locator("td:nth-child(13)").inner_text() == "40.0 (12 traced)"  # the trace-audit column
        assert delta.locator("td:nth-child(14) a").get_attribute("href") == "https://example.org/delta"
        assert delta.locator("td:nth-child(14)").inner_text() == "agent · tools: clingo · method"
        assert page.locator("#families-enhanced tbody tr").first.inner_text().split("\t")[1:] == [
            "100.0 (1/1)",
            "50.0 (1/2)",
        ]
        assert page.locator("#chart-enhanced circle").count() == 7

        page.locator("#tab-standard").click()
        assert page.locator("#partial-standard tbody tr td:first-child").all_inner_texts() == [
            "partial: 8 of 12 prompts"
        ]
        assert models("partial-standard") == ["Eps partial"] and "Eps partial" not in models("board-standard")
        page.set_viewport_size({"width": 1280, "height": 900})  # every column in view, no horizontal scroll bar
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        right = page.evaluate(
            "Math.max(...Array.from(document.querySelectorAll('table.board'), t => t.getBoundingClientRect().right))"
        )
        assert 1000 < right <= 1280  # the tables are laid out (not hidden), and within the window
        assert page.evaluate(OVERFLOWING_BOXES) == [
            0,
            0,
            0,
        ]  # ranked, partial, per family: no table scrolls in its box either
        # the rank column: "ref" on one line, a partial run's label at its spaces on at most three
        assert page.evaluate(LINES_OF_RANKS, "#board-standard") == [1] * 9
        assert page.evaluate(LINES_OF_RANKS, "#partial-standard") in ([2], [3])
        assert page.evaluate(LINES_OF_RANKS, "#board-standard .badge") == [1] * 6
        page.set_viewport_size({"width": 390, "height": 800})  # a phone: the page does not scroll sideways ...
        assert page.evaluate("document.documentElement.scrollWidth") == 390
        assert page.evaluate(OVERFLOWING_BOXES)[0] > 0  # ... the ranked table scrolls inside its own box
        browser.close()
    assert errors == []
    assert all(url.startswith("file://") for url in requests)


def test_the_page_names_the_extractor_and_counts_what_it_could_not_read(tmp_path, gold_rows, submissions):
    lines = answers(gold_rows)
    lines[0]["prediction"] = "I would rather not say."  # answered, but nothing the extractor reads
    write_submission(submissions, "zeta", lines, {**STANDARD, "model_name": "Zeta"})
    board, _ = build_board(submissions, write_gold(gold_rows, tmp_path / "gold.jsonl"), n_bootstrap=20)
    zeta = next(row for row in board["tracks"]["standard"] if row["name"] == "zeta")
    assert (zeta["extractor"], zeta["n_unread"], zeta["coverage"]) == ("flexible", 1, 11 / 12)
    page = write_site(board, tmp_path / "site")[1].read_text()
    assert "Answers read by the <code>flexible</code> extractor" in page
    assert page.count(" unread)") == 1 and "91.7 (1 unread)" in page  # format-valid 11 of 12, one unread
