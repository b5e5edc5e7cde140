import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from naf_bench.leaderboard.service import Limits, Service

pytest.importorskip("jsonschema")


@pytest.fixture
def board(tmp_path, write_gold):
    rows = write_gold(tmp_path / "gold.jsonl", n_programs=12, seed=3)
    dev = write_gold(tmp_path / "dev.jsonl", n_programs=6, seed=4, prefix="d")
    limits = Limits(max_bytes=20_000, max_line_bytes=200)
    service = Service(tmp_path / "data", tmp_path / "gold.jsonl", tmp_path / "dev.jsonl", limits)
    return service, rows, dev, tmp_path


def _files(root: Path) -> list[Path]:
    return sorted(p for p in (root / "data" / "files").rglob("*") if p.is_file())


@pytest.fixture
def submit(answers, write_metadata, write_submission):
    """``submit(service, tmp, rows, solved, token, name="sub", **metadata)``: an upload solving ``solved`` programs."""

    def submit(service, tmp, rows, solved, token, name="sub", **metadata):
        path = write_submission(tmp / f"{name}.jsonl", answers(rows, solved))
        return service.submit(path, write_metadata(tmp / f"{name}.metadata.json", **metadata), service.team_for(token))

    return submit


def test_an_accepted_upload_is_scored_kept_and_shown(board, submit):
    service, rows, _, tmp = board
    token = service.store.add_team("alpha")
    ack = submit(service, tmp, rows, 5, token)
    assert ack["status"] == "accepted" and ack["board_changed"] and ack["split"] == "test"
    shown = ack["shown"]
    assert (shown["name"], shown["rank"], shown["joint_solved"], shown["n_programs"], shown["model"]) == (
        "alpha",
        1,
        5,
        12,
        "tiny-model",
    )
    assert shown["joint"] == 5 / 12 and shown["joint_ci95"] == pytest.approx([0.19326, 0.68049], abs=1e-5)
    # the hidden set shows JOINT only while live
    assert shown["per_semantics"] == {} and shown["coverage"] is None and shown["joint_per_family"] == {}
    assert "contact" not in shown["metadata"] and "secret-contact" not in json.dumps(service.board("standard"))
    (row,) = service.store.submissions()
    assert service.store.file_path(row["file_sha256"]).read_bytes() == (tmp / "sub.jsonl").read_bytes()
    assert row["metadata"]["contact"] == "secret-contact@example.org"  # kept for the maintainer
    assert row["record"]["joint"] == 5 / 12 and row["n_solved"] == 5


def test_dev_submissions_show_full_scores_and_no_item(board, submit):
    service, _, dev, tmp = board
    token = service.store.add_team("alpha")
    ack = submit(service, tmp, dev, 6, token)
    assert ack["split"] == "dev" and ack["shown"]["per_semantics"]["cred"] == 1.0
    text = json.dumps(service.board("standard", "dev"))
    assert "d0::" not in text  # no item is named anywhere on a board


def test_the_ladder_on_the_service(board, submit):
    service, rows, _, tmp = board
    service.quota = None
    token = service.store.add_team("alpha")
    shown = [submit(service, tmp, rows, k, token, name=f"s{k}")["shown"]["joint_solved"] for k in (4, 7, 8, 7)]
    assert shown == [4, 4, 8, 8]  # +3 programs are under the Ladder's minimum gain; +4 is not; worse never replaces
    history = service.history(service.team_for(token))["uploads"]
    assert [u["board_changed"] for u in history] == [True, False, True, False]


def test_quota_and_revocation(board, submit):
    service, rows, dev, tmp = board
    token = service.store.add_team("alpha")
    for k in range(3):
        assert submit(service, tmp, rows, k, token, name=f"s{k}")["status"] == "accepted"
    before = _files(tmp)
    refused = submit(service, tmp, rows, 9, token, name="s9")
    assert refused["status"] == "refused" and "over the quota of 3" in refused["reasons"][0]
    first = datetime.fromisoformat(service.store.submissions()[0]["submitted_at"])
    assert refused["reasons"][0].endswith(f"the next is allowed from {(first + timedelta(hours=24)).isoformat()}")
    refused = submit(service, tmp, rows, 9, token, name="e9", track="enhanced", method_url="https://x.org/m")
    assert refused["reasons"][0].startswith("over the quota of 3 uploads per team (all tracks together) in 24 hours")
    assert submit(service, tmp, dev, 9, token, name="d9")["status"] == "accepted"  # the public dev set: no quota
    assert len(_files(tmp)) == len(before) + 1  # the dev upload (its metadata has the bytes of one kept already)
    service.store.revoke_team("alpha")
    refused = submit(service, tmp, rows, 9, token, name="r9", track="enhanced", method_url="https://x.org/m")
    assert refused == {"status": "refused", "reasons": ["the team 'alpha' was revoked"]}
    assert service.submit(tmp / "r9.jsonl", tmp / "r9.metadata.json", service.team_for("nope"))["reasons"] == [
        "unknown team token"
    ]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "the file is empty"),
        (b'{"id": "p0::cred", "prediction": "A"}\n{"id": \n', "line 2: malformed JSON"),
        (b'{"id": "p0::cred", "prediction": "A"}\n\xff\xfe\n', "line 2: not UTF-8"),
        (b'{"id": "p0::cred", "prediction": 3}\n', "line 1: id 'p0::cred': 'prediction' is a JSON number"),
        (b'["p0::cred", "A"]\n', "a JSON array, where one JSON object per line was expected"),
        (b'{"id": 0, "prediction": "A"}\n', "line 1: id 0 is a JSON number; ids are strings"),
        (b'{"id": "p0::cred", "answer": "A"}\n', "line 1: id 'p0::cred' has no 'prediction' (it has 'answer'"),
        (b'{"id": "zz", "prediction": "A"}\n', "no id of the gold set"),
        (b'{"id": "p0::cred", "prediction": "A"}\n{"id": "p0::cred", "prediction": "B"}\n', "line 2: duplicate id"),
        (b'{"id": "p0::cred", "prediction": "' + b"A" * 300 + b'"}\n', "line 1: 336 bytes; the limit is 200"),
        (b"{}\n" * 700, "the file has 700 lines; the limit is 600"),
        (b"x" * 20_001, "the file is 20,001 bytes; the limit is 20,000"),
    ],
    ids=[
        "empty",
        "json",
        "utf8",
        "prediction",
        "array",
        "int-id",
        "answer-field",
        "no-gold-id",
        "duplicate",
        "long-line",
        "lines",
        "size",
    ],
)
def test_every_refusal_names_its_line_and_reason_and_keeps_nothing(board, body, reason, write_metadata):
    service, _, _, tmp = board
    token = service.store.add_team("alpha")
    (tmp / "bad.jsonl").write_bytes(body)
    answer = service.submit(tmp / "bad.jsonl", write_metadata(tmp / "m.json"), service.team_for(token))
    assert answer["status"] == "refused" and any(r.startswith(reason) for r in answer["reasons"]), answer
    assert service.store.submissions() == [] and _files(tmp) == []


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"track": "enhanced"}, "metadata: method_url: required on the enhanced track"),
        ({"temperature": 0.7}, "metadata: temperature: must be 0 on the standard track"),
        ({"track": "enhanced", "method_url": "javascript:alert(1)"}, "metadata: method_url: must be an http(s) URL"),
    ],
)
def test_invalid_metadata_is_refused_with_the_field(board, changes, reason, submit):
    service, rows, _, tmp = board
    token = service.store.add_team("alpha")
    answer = submit(service, tmp, rows, 3, token, **changes)
    assert answer["status"] == "refused" and answer["reasons"][0].startswith(reason), answer
    (tmp / "m.json").write_text('{"model_name": ', encoding="utf-8")
    answer = service.submit(tmp / "sub.jsonl", tmp / "m.json", service.team_for(token))
    assert answer["reasons"] == ["metadata: line 1: malformed JSON (Expecting value, column 16)"]
    assert service.store.submissions() == [] and _files(tmp) == []


def test_unknown_ids_are_reported_and_ignored(board, answers, write_metadata, write_submission):
    service, rows, _, tmp = board
    token = service.store.add_team("alpha")
    path = write_submission(tmp / "s.jsonl", answers(rows, 12), ['{"id": "extra-1", "prediction": null}'])
    ack = service.submit(path, write_metadata(tmp / "m.json"), service.team_for(token))
    assert ack["status"] == "accepted" and ack["shown"]["joint_solved"] == 12
    assert ack["notes"] == ["1 ids are not in the gold set and were ignored, e.g. ['extra-1']"]


def test_freezing_publishes_full_scores_and_ends_uploads(board, submit):
    service, rows, _, tmp = board
    token = service.store.add_team("alpha")
    submit(service, tmp, rows, 6, token)
    assert service.baseline_rows() == []  # live: no baseline, no other aggregate of the hidden labels
    first = service.baseline_rows("dev")[0]  # the dev set: all of them, every column
    assert first["name"] == "constant_A" and first["per_semantics"] != {}
    service.store.freeze()
    board_now = service.board("standard")
    assert board_now["full_scores"] and board_now["rows"][0]["coverage"] == 1.0
    baselines = service.baseline_rows()
    assert baselines[-1]["name"] == "oracle" and baselines[-1]["joint_solved"] == 12
    refused = submit(service, tmp, rows, 7, token, name="late")
    assert refused["status"] == "refused" and "frozen" in refused["reasons"][0]


def test_hub_users_sign_in_by_their_stable_id():
    import gradio as gr

    from naf_bench.leaderboard.app import hub_identity

    profile = gr.OAuthProfile({"sub": "65f0c0ffee", "preferred_username": "carol", "name": "Carol",
                               "profile": "https://huggingface.co/carol", "picture": ""})  # fmt: skip
    assert hub_identity(profile) == ("hf:65f0c0ffee", "carol")
    assert hub_identity(None) is None


def test_a_hub_team_needs_approval(board, answers, write_metadata, write_submission):
    service, rows, _, tmp = board
    assert service.team_for(None, ("hf:1", "carol")) == "the Hugging Face user 'carol' is not approved for this board"
    service.store.add_hub_user("carol")
    team = service.team_for(None, ("hf:1", "carol"))
    ack = service.submit(write_submission(tmp / "s.jsonl", answers(rows, 2)), write_metadata(tmp / "m.json"), team)
    assert ack["shown"]["name"] == "carol" and ack["shown"]["team_kind"] == "hub"


def test_the_board_exported_from_the_store_follows_the_live_rules(board, submit):
    from naf_bench.cli import main

    service, rows, dev, tmp = board
    token = service.store.add_team("<img src=x onerror=alert(1)>")
    submit(service, tmp, rows, 6, token)
    submit(service, tmp, dev, 3, token, name="dev-upload")
    args = ["leaderboard", "build", "--data", str(tmp / "data"), "--gold", str(tmp / "gold.jsonl"), "--dev-gold",
            str(tmp / "dev.jsonl"), "--out", str(tmp / "site"), "--bootstrap", "50"]  # fmt: skip
    assert main(args) == 0
    live = json.loads((tmp / "site" / "leaderboard.json").read_text())
    (row,) = live["tracks"]["standard"]
    assert (row["name"], row["joint_solved"], row["n_programs"]) == ("<img src=x onerror=alert(1)>", 6, 12)
    assert row["per_semantics"] == {} and row["joint_per_family"] == {} and live["live"]["full_scores"] is False
    assert live["baselines"] == []  # no aggregate of the hidden labels while live
    dev_board = json.loads((tmp / "site" / "dev" / "leaderboard.json").read_text())
    assert dev_board["tracks"]["standard"][0]["per_semantics"]["cred"] == 1.0
    for site in (tmp / "site", tmp / "site" / "dev"):
        for name in ("leaderboard.json", "index.html", "README.md"):
            text = (site / name).read_text(encoding="utf-8")
            assert "secret-contact" not in text and "p0::" not in text and "d0::" not in text
    assert "<img src=x" not in (tmp / "site" / "index.html").read_text(encoding="utf-8")  # escaped
    service.store.freeze()
    assert main(args) == 0
    frozen = json.loads((tmp / "site" / "leaderboard.json").read_text())
    (row,) = frozen["tracks"]["standard"]
    assert row["per_semantics"]["cred"] == 1.0 and row["joint_ci95"] is not None and row["joint"] == 0.5


def test_handled_uploads_leave_gradios_cache_and_identical_uploads_do_not_lose_each_other(tmp_path, monkeypatch):
    import os
    import time

    from naf_bench.leaderboard.uploads import Claimed

    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "cache"))
    cached = tmp_path / "cache" / "0f" / "sub.jsonl"  # Gradio's layout: a folder per content hash
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"first upload")
    outside = tmp_path / "mine.jsonl"
    outside.write_bytes(b"not in the cache")
    with Claimed(cached, outside) as (first, same):
        assert first.read_bytes() == b"first upload" and same == outside
        (tmp_path / "cache" / "incoming").write_bytes(b"first upload")  # an identical upload, renamed onto it
        os.rename(tmp_path / "cache" / "incoming", cached)
        with Claimed(cached) as (second,):
            assert second.read_bytes() == b"first upload"
        assert cached.exists()  # the first request still works on that path: it stays
    assert not cached.parent.exists() and outside.exists()  # the last request out removes it
    cached.parent.mkdir()
    cached.write_bytes(b"uploaded twice, handled once so far")
    with Claimed(cached, grace=0.3):
        pass
    with Claimed(cached) as (again,):  # the second identical upload's request comes within the grace
        assert again.read_bytes() == b"uploaded twice, handled once so far"
    time.sleep(0.6)
    assert not cached.exists()
    kept = tmp_path / "cache" / "1a" / "meta.json"
    kept.parent.mkdir()
    kept.write_bytes(b"{}")
    with pytest.raises(FileNotFoundError), Claimed(kept, cached):  # one of the two is gone: the request fails
        pass
    assert not kept.parent.exists()  # and what it had claimed leaves the cache as a handled upload does


def test_maintainer_commands(board, capsys, submit):
    from naf_bench.cli import main

    service, rows, _, tmp = board
    data = str(tmp / "data")
    assert main(["leaderboard", "add-team", "delta", "--data", data]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    assert service.team_for(token).name == "delta"
    ack = submit(service, tmp, rows, 5, token)
    assert (
        main(["leaderboard", "withdraw", str(ack["submission"]), "--reason", "a test", "--by", "m", "--data", data])
        == 0
    )
    assert service.board("standard")["rows"] == []
    assert main(["leaderboard", "add-team", "delta", "--data", data]) == 1
    assert "already a token team named 'delta'" in capsys.readouterr().err
    assert main(["leaderboard", "add-team", "erin", "--hub-user", "--data", data]) == 0
    assert main(["leaderboard", "revoke-team", "delta", "--data", data]) == 0
    assert service.team_for(token) == "the team 'delta' was revoked"
    assert main(["leaderboard", "freeze", "--data", data]) == 0 and service.store.frozen_at()


def test_the_upload_folder_keeps_what_a_request_works_on_and_removes_old_unclaimed_uploads(tmp_path, monkeypatch):
    import os
    import time

    from naf_bench.leaderboard.uploads import Claimed, UploadFolder

    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "uploads"))
    folder = UploadFolder(tmp_path / "uploads", space=1000, max_age=60)
    old, working, fresh = (tmp_path / "uploads" / name / "f.jsonl" for name in ("aa", "bb", "cc"))
    for path, size in ((old, 100), (working, 200), (fresh, 300)):
        path.parent.mkdir(parents=True)
        path.write_bytes(b"x" * size)
    hour_ago = time.time() - 3600
    for path in (old, working):
        os.utime(path, (hour_ago, hour_ago))
    (tmp_path / "uploads" / "tmp0zero").write_bytes(b"")  # what Gradio leaves of a multipart upload
    os.utime(tmp_path / "uploads" / "tmp0zero", (hour_ago, hour_ago))
    with Claimed(working):
        assert folder.unclaimed_bytes() == 400  # the old and the fresh upload, not the one a request works on
        assert folder.clean() == 2  # the old upload and the old tmp file
        assert not old.exists() and not old.parent.exists() and working.exists() and fresh.exists()
    assert folder.clean(everything=True) == 1  # at start: all of it (the claimed one left when its request ended)
    assert [p for p in (tmp_path / "uploads").rglob("*")] == []


def test_a_partial_upload_goes_through_the_ladder_and_another_sets_is_refused(
    board, answers, write_metadata, write_submission
):
    service, rows, _, tmp = board
    token = service.store.add_team("alpha")
    named = [row for row in rows if row["gold"] is not None]
    part = {key: value for key, value in answers(rows, 12).items() if key.startswith(("p0::", "p1::"))}
    ack = service.submit(
        write_submission(tmp / "part.jsonl", part), write_metadata(tmp / "m.json"), service.team_for(token)
    )
    assert ack["status"] == "accepted" and ack["shown"]["rank"] == 1 and ack["shown"]["joint_solved"] == 2
    assert ack["notes"] == [f"{len(named) - 8} of the {len(named)} scored items have no prediction (unanswered)"]
    kept = service.store.submissions()[0]["record"]
    assert (kept["partial"], kept["n_given"], kept["n_prompts"], kept["n_unknown_ids"]) == (True, 8, len(named), 0)
    other = {f"zz{i}::wfs": "A" for i in range(3)} | {named[0]["id"]: named[0]["gold"]}
    answer = service.submit(
        write_submission(tmp / "other.jsonl", other), write_metadata(tmp / "m.json"), service.team_for(token)
    )
    assert answer == {"status": "refused", "reasons": ["1 of 4 submitted ids are in the hidden test set"]}
    assert len(service.store.submissions()) == 1


def test_the_full_page_table_marks_a_partial_upload_and_counts_unknown_ids(
    board, answers, write_metadata, write_submission
):
    pytest.importorskip("pandas")
    from naf_bench.leaderboard.app import board_table

    service, _, dev, tmp = board
    token = service.store.add_team("alpha")
    part = {key: value for key, value in answers(dev, 6).items() if key.startswith(("d0::", "d1::"))}
    part["d-extra::wfs"] = "A"
    ack = service.submit(
        write_submission(tmp / "part.jsonl", part), write_metadata(tmp / "m.json"), service.team_for(token)
    )
    assert ack["status"] == "accepted" and ack["split"] == "dev"
    frame = board_table(service.board("standard", "dev"), service.baseline_rows("dev")).data
    ours = frame[frame["team"] == "alpha"].iloc[0]
    assert (ours["kind"], ours["unknown ids"]) == ("partial: 8 of 24 prompts", 1)
    assert set(frame[frame["kind"] == "baseline"]["unknown ids"].isna()) == {True}
    shown = board_table(service.board("standard", "dev"), service.baseline_rows("dev")).to_html()
    assert ">nan<" not in shown and ">partial: 8 of 24 prompts<" in shown


def test_the_acknowledgement_reads_the_uploaders_row_as_the_board_shows_it(board, submit):
    service, rows, _, tmp = board
    service.quota = None
    enhanced = {"track": "enhanced", "method_url": "https://example.org/method"}
    uploads = [("alpha", 5, {}), ("beta", 9, {}), ("gamma", 5, {}), ("delta", 9, enhanced), ("alpha", 10, enhanced)]
    tokens = {name: service.store.add_team(name) for name in ("alpha", "beta", "gamma", "delta")}
    for number, (name, solved, metadata) in enumerate(uploads):
        ack = submit(service, tmp, rows, solved, tokens[name], name=f"u{number}", **metadata)
        (row,) = [row for row in service.board(ack["track"])["rows"] if row["name"] == name]
        assert ack["shown"] == row  # rank, interval and every column alike
    assert [(row["name"], row["rank"]) for row in service.board("standard")["rows"]] == [("beta", 1), ("gamma", 2)]
    assert [(row["name"], row["rank"]) for row in service.board("enhanced")["rows"]] == [("alpha", 1), ("delta", 2)]
