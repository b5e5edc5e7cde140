import re
import sqlite3
import threading
from datetime import datetime, timedelta, timezone

import pytest

from naf_bench.errors import DataError
from naf_bench.leaderboard.store import Accepted, OverQuota, Store, StoreError, restore

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
PROGRAMS = [f"p{i}" for i in range(10)]


def _solved(k: int) -> dict:
    return {p: i < k for i, p in enumerate(PROGRAMS)}


def _files(root) -> int:
    return sum(path.is_file() for path in (root / "files").rglob("*"))


def _accept(store, team, k, minutes=0, data=None, track="standard", **options):
    return store.accept(
        team,
        split="test",
        track=track,
        data=data or f"file {k} {minutes}\n".encode(),
        metadata_bytes=b"{}",
        metadata={"model_name": "m", "contact": "me@example.org"},
        record={"joint": k / 10},
        solved=_solved(k),
        now=T0 + timedelta(minutes=minutes),
        **options,
    )


def test_tokens_are_kept_only_as_their_hash(tmp_path):
    store = Store(tmp_path)
    token = store.add_team("alpha")
    team = store.team_for_token(token)
    assert (team.name, team.kind, team.revoked) == ("alpha", "token", False)
    assert store.team_for_token(token + "x") is None
    store.close()
    for path in tmp_path.glob("board.sqlite*"):
        assert token.encode() not in path.read_bytes()
    assert Store(tmp_path).team_for_token(token).name == "alpha"


def test_names_are_unique_per_namespace_and_revocation_ends_a_team(tmp_path):
    store = Store(tmp_path)
    token = store.add_team("alpha")
    with pytest.raises(StoreError, match="already a token team named 'alpha'"):
        store.add_team("alpha")
    store.add_hub_user("alpha")  # a Hub user of the same name is another identity
    store.revoke_team("alpha")
    assert store.team_for_token(token).revoked
    with pytest.raises(StoreError, match="no active token team named 'alpha'"):
        store.revoke_team("alpha")
    with pytest.raises(StoreError, match="no active Hub user named 'beta'"):
        store.revoke_team("beta", hub=True)


@pytest.mark.parametrize(
    ("name", "reason"),
    [("", "a team needs a name"), ("   ", "a team needs a name"), ("x" * 65, "at most 64 characters; this one has 65"),
     ("x" * 100_000, "this one has 100,000"), ("a\tb", "has '\\t' at position 2"),
     ("ok\u202ename", "has '\\u202e' at position 3"), ("P1 ", "already a token team named 'P1'"),
     ("p1", "named 'P1' ('p1' looks like it: names are compared as they look)"), ("  STRASSE", "as they look"),
     ("straße", "as they look"), ("\u0420l", "named 'P1' ('\\u0420l' looks like it"),  # Cyrillic Er, small L
     ("\uff30\uff11", "already a token team named 'P1'"), ("stra\u0455\u0455e", "as they look"),
     ("x" * 63 + "\u0445", "as they look")],
)  # fmt: skip
def test_team_names_are_short_printable_and_unique_as_they_look(tmp_path, name, reason):
    """NFKC (fullwidth P1 is P1), case folded, and Unicode's confusable skeletons (UTS #39): a Cyrillic letter
    that looks like a Latin one makes no new name."""
    store = Store(tmp_path)
    store.add_team("P1")
    store.add_team("strasse")
    store.add_team("x" * 64)  # the longest name
    with pytest.raises(StoreError, match=re.escape(reason)):
        store.add_team(name)
    assert [team.name for team in store.teams()] == ["P1", "strasse", "x" * 64]


def test_a_hub_team_is_bound_to_the_stable_id_at_first_sign_in(tmp_path):
    store = Store(tmp_path)
    store.add_hub_user("carol")
    assert store.team_for_hub_user("sub-2", "dave") is None  # not approved
    team = store.team_for_hub_user("sub-1", "carol")
    assert (team.kind, team.name) == ("hub", "carol")
    assert store.team_for_hub_user("sub-1", "carol-renamed").id == team.id  # a rename keeps the team
    assert store.team_for_hub_user("sub-9", "carol") is None  # a new account under the old name is nobody


def test_accepted_files_are_kept_byte_for_byte_under_their_hash(tmp_path):
    import hashlib

    store = Store(tmp_path)
    team = store.team_for_token(store.add_team("alpha"))
    data = b'{"id": "x", "prediction": "A"}\r\n\xe2\x80\xa8\n'
    accepted = _accept(store, team, 3, data=data)
    assert isinstance(accepted, Accepted) and accepted.replaced
    assert accepted.file_sha256 == hashlib.sha256(data).hexdigest()
    assert store.file_path(accepted.file_sha256).read_bytes() == data
    (row,) = store.submissions()
    assert (row["team"], row["n_solved"], row["n_programs"], row["metadata"]["contact"]) == (
        "alpha",
        3,
        10,
        "me@example.org",
    )
    assert sqlite3.connect(tmp_path / "board.sqlite").execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_quota_counts_uploads_per_team_on_every_track_in_any_24_hours(tmp_path):
    store = Store(tmp_path)
    alpha = store.team_for_token(store.add_team("alpha"))
    beta = store.team_for_token(store.add_team("beta"))
    for minutes in (0, 10, 20):
        assert isinstance(_accept(store, alpha, 1, minutes, quota=3), Accepted)
    refused = _accept(store, alpha, 2, 30, quota=3)
    assert refused == OverQuota(3, (T0 + timedelta(hours=24)).isoformat(timespec="microseconds"))
    assert len(store.submissions()) == 3 and _files(tmp_path) == 4  # 3 uploads and their metadata
    assert _accept(store, alpha, 2, 30, quota=3, track="enhanced") == refused  # another track: the same quota
    assert isinstance(_accept(store, beta, 2, 30, quota=3), Accepted)  # another team
    assert isinstance(_accept(store, alpha, 2, 24 * 60 + 1, quota=3), Accepted)  # the first one left the window
    second = _accept(store, alpha, 2, 24 * 60 + 2, quota=3)
    assert second.next_allowed == (T0 + timedelta(hours=24, minutes=10)).isoformat(timespec="microseconds")


def test_the_ladder_decides_what_is_shown_and_withdrawal_replays_it(tmp_path):
    store = Store(tmp_path)
    team = store.team_for_token(store.add_team("alpha"))
    results = [_accept(store, team, k, minutes) for minutes, k in enumerate([2, 5, 6, 5, 10])]
    assert [r.replaced for r in results] == [True, False, True, False, True]  # +3 is not enough; +4 is
    (shown,) = store.shown("test", "standard")
    assert (shown["id"], shown["n_solved"]) == (results[4].submission_id, 10)
    store.withdraw(results[4].submission_id, by="maintainer", reason="used the test labels")
    (shown,) = store.shown("test", "standard")
    assert shown["n_solved"] == 6
    withdrawn = store.submissions()[4]
    assert (withdrawn["withdrawn_by"], withdrawn["withdrawn_reason"]) == ("maintainer", "used the test labels")
    with pytest.raises(StoreError, match="withdrawn already"):
        store.withdraw(results[4].submission_id, by="maintainer", reason="again")
    with pytest.raises(StoreError, match="no submission 99"):
        store.withdraw(99, by="maintainer", reason="?")
    assert store.shown("test", "enhanced") == [] and store.shown("dev", "standard") == []


def test_one_ladder_per_team_across_tracks(tmp_path):
    store = Store(tmp_path)
    team = store.team_for_token(store.add_team("alpha"))
    assert _accept(store, team, 5, 0).replaced
    # the same answers with one program more, declared on the other track: compared with the shown one
    assert not _accept(store, team, 6, 1, track="enhanced").replaced
    assert [row["n_solved"] for row in store.shown("test", "standard")] == [5] and not store.shown("test", "enhanced")
    assert _accept(store, team, 9, 2, track="enhanced").replaced  # +4: the team now shows on the enhanced board
    assert store.shown("test", "standard") == [] and [r["n_solved"] for r in store.shown("test", "enhanced")] == [9]
    store.withdraw(store.submissions()[2]["id"], by="maintainer", reason="test")
    assert [row["n_solved"] for row in store.shown("test", "standard")] == [5] and not store.shown("test", "enhanced")


def test_a_frozen_board_takes_no_uploads(tmp_path):
    store = Store(tmp_path)
    team = store.team_for_token(store.add_team("alpha"))
    assert store.frozen_at() is None
    frozen = store.freeze()
    assert Store(tmp_path).frozen_at() == frozen
    with pytest.raises(StoreError, match="frozen"):
        _accept(store, team, 1)
    with pytest.raises(StoreError, match="frozen already"):
        store.freeze()
    assert store.submissions() == []


def test_concurrent_uploads_are_all_kept(tmp_path):
    store = Store(tmp_path)
    teams = [store.team_for_token(store.add_team(f"team {i}")) for i in range(20)]
    threads = [threading.Thread(target=_accept, args=(store, team, i % 10, i)) for i, team in enumerate(teams)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(row["team"] for row in store.shown("test", "standard")) == sorted(t.name for t in teams)


def test_files_no_row_names_are_removed_when_the_server_opens_the_store(tmp_path):
    store = Store(tmp_path)
    team = store.team_for_token(store.add_team("alpha"))
    kept = _accept(store, team, 1)
    store.close()
    orphan = tmp_path / "files" / "ab" / ("ab" + "0" * 62)
    orphan.parent.mkdir()
    orphan.write_bytes(b"upload whose commit never came")
    (tmp_path / "files" / "tmp" / "half").write_bytes(b"half a fil")
    Store(tmp_path)  # a maintainer's command leaves the folder alone
    assert orphan.exists()
    store = Store(tmp_path, recover=True)
    assert not orphan.exists() and not (tmp_path / "files" / "tmp" / "half").exists()
    assert store.file_path(kept.file_sha256).exists() and len(store.submissions()) == 1


def test_snapshot_and_restore(tmp_path):
    store = Store(tmp_path / "live")
    team = store.team_for_token(store.add_team("alpha"))
    for minutes in range(3):
        _accept(store, team, minutes + 2, minutes)
    snapshot = store.snapshot(tmp_path / "backup" / "board-1.sqlite")
    _accept(store, team, 9, 5)  # after the snapshot: not in it
    restore(snapshot, tmp_path / "live" / "files", tmp_path / "restored")
    restored = Store(tmp_path / "restored")
    assert [row["n_solved"] for row in restored.submissions()] == [2, 3, 4]
    assert restored.team_for_token("nope") is None and restored.teams()[0].name == "alpha"
    for row in restored.submissions():
        assert restored.file_path(row["file_sha256"]).read_bytes() == store.file_path(row["file_sha256"]).read_bytes()
    with pytest.raises(DataError, match="only into an empty folder"):
        restore(snapshot, tmp_path / "live" / "files", tmp_path / "restored")
    with pytest.raises(DataError, match="missing or damaged; nothing restored"):
        restore(snapshot, tmp_path / "nowhere", tmp_path / "other")
    assert not (tmp_path / "other").exists()


def test_approvals_of_a_store_made_before_models_were_copied_are_dropped(tmp_path):
    import sqlite3

    old = sqlite3.connect(tmp_path / "board.sqlite")
    old.execute("CREATE TABLE approved_models (model TEXT PRIMARY KEY, approved_at TEXT NOT NULL)")
    old.execute("INSERT INTO approved_models VALUES ('/srv/unchecked', '2026-12-01T00:00:00+00:00')")
    old.commit()
    old.close()
    store = Store(tmp_path)
    assert store.approved_models() == []
    store.add_team("alpha")
    assert store.approve_model("/srv/checked", str(tmp_path / "models" / "abc"), "alpha")
    assert store.approved_model("/srv/checked", store.teams()[0].id) == tmp_path / "models" / "abc"


def test_a_team_state_on_a_set_is_released_at_most_four_times_and_a_new_set_starts_afresh(tmp_path):
    """Six uploads each solving 4 programs more: the first four change the board, the last two are kept unshown
    (on either track); another split (another hidden set) has releases of its own, and a withdrawal gives none back."""
    store = Store(tmp_path)
    team = store.team_for_token(store.add_team("alpha"))
    programs = [f"p{i}" for i in range(24)]

    def upload(k, minutes, split="test", track="standard"):
        solved = {p: i < k for i, p in enumerate(programs)}
        return store.accept(
            team,
            split=split,
            track=track,
            data=f"{split} {k}\n".encode(),
            metadata_bytes=b"{}",
            metadata={"model_name": "m"},
            record={"joint": k / 24},
            solved=solved,
            now=T0 + timedelta(minutes=minutes),
        ).replaced

    assert [upload(4 * i, i) for i in range(4)] == [True] * 4
    assert [upload(16, 4), upload(20, 5, track="enhanced"), upload(24, 6)] == [False, False, False]
    assert [row["n_solved"] for row in store.shown("test", "standard")] == [12]
    assert upload(20, 7, split="other-set") and upload(24, 8, split="other-set")
    store.withdraw(store.submissions()[3]["id"], by="maintainer", reason="test")
    assert upload(24, 9) is False  # the withdrawn release was seen: still four
