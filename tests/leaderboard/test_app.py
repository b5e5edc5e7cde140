"""naf_bench.leaderboard.app: the live board's pure parts: who a Hub sign-in is, and the board and the worker's runs
as the page's tables (columns, rank order, baselines and partial runs marked, percentages to one decimal)."""

from naf_bench.leaderboard.app import board_table, hub_identity, verified_table

TEAM = {
    "baseline": False, "rank": 1, "name": "team-a", "model": "m1", "joint": 0.39, "joint_ci95": [0.2, 0.6],
    "joint_solved": 39, "n_programs": 100, "coverage": 1.0, "n_unknown_ids": 3, "time": "2026-01-01",
    "per_semantics": {"closed_world": 0.5, "cred": 0.25, "skept": None, "wfs": 1.0},
}  # fmt: skip
PARTIAL = {**TEAM, "rank": 2, "name": "team-b", "partial": True, "n_given": 8, "n_prompts": 480}
BASELINE = {**TEAM, "baseline": True, "name": "random", "model": "random", "joint_ci95": None, "n_unknown_ids": 0}


def test_a_hub_sign_in_is_its_stable_id_and_its_user_name_and_nothing_without_both():
    assert hub_identity({"sub": "123", "preferred_username": "ada"}) == ("hf:123", "ada")
    assert hub_identity({"sub": "123"}) is None
    assert hub_identity({"sub": "", "preferred_username": "ada"}) is None
    assert hub_identity(None) is None


def test_the_full_board_lists_teams_then_marked_baselines_with_every_reading():
    table = board_table({"full_scores": True, "rows": [TEAM, PARTIAL]}, [BASELINE])
    records = table.data.to_dict("records")
    assert list(table.data.columns) == [
        "rank",
        "team",
        "model",
        "kind",
        "JOINT %",
        "95% interval",
        "programs solved",
        "closed_world %",
        "cred %",
        "skept %",
        "wfs %",
        "coverage %",
        "unknown ids",
        "submitted",
    ]
    assert records[0] == {
        "rank": 1,
        "team": "team-a",
        "model": "m1",
        "kind": "submission",
        "JOINT %": 39.0,
        "95% interval": "20.0–60.0",
        "programs solved": "39/100",
        "closed_world %": 50.0,
        "cred %": 25.0,
        "skept %": None,
        "wfs %": 100.0,
        "coverage %": 100.0,
        "unknown ids": 3,
        "submitted": "2026-01-01",
    }
    assert [r["kind"] for r in records] == ["submission", "partial: 8 of 480 prompts", "baseline"]
    assert (records[2]["rank"], records[2]["model"], records[2]["95% interval"]) == ("ref", "", "")


def test_percentages_show_one_decimal_and_a_missing_one_shows_empty():
    shown = board_table({"full_scores": True, "rows": [TEAM]}, []).to_string().splitlines()[1].split()
    # skept (None) shows as nothing, so the row has one cell fewer than the table has columns
    assert shown == [
        "0",
        "1",
        "team-a",
        "m1",
        "submission",
        "39.0",
        "20.0–60.0",
        "39/100",
        "50.0",
        "25.0",
        "100.0",
        "100.0",
        "3",
        "2026-01-01",
    ]


def test_the_live_board_without_full_scores_shows_joint_only():
    table = board_table({"full_scores": False, "rows": [TEAM]}, [])
    assert list(table.data.columns) == [
        "rank",
        "team",
        "model",
        "kind",
        "JOINT %",
        "95% interval",
        "programs solved",
        "submitted",
    ]


def test_the_worker_board_keeps_each_runs_set_kind_tokens_and_time():
    run = {"set": "s1", "rank": 1, "name": "t", "model": "m", "kind": "endpoint", "joint": 0.5, "joint_ci95": None,
           "joint_solved": 5, "n_programs": 10, "completion_tokens": 7, "run_seconds": 2.5}  # fmt: skip
    assert verified_table({"rows": [run]}).data.to_dict("records") == [
        {
            "set": "s1",
            "rank": 1,
            "team": "t",
            "model": "m",
            "kind": "endpoint",
            "JOINT %": 50.0,
            "95% interval": "",
            "programs solved": "5/10",
            "tokens": 7,
            "run s": 2.5,
            "submitted": "",
        }
    ]
