"""naf_bench.scoring.evaluation: a run's result record on a tiny two-program set (JOINT, per-semantics and per-bin
accuracy, coverage, unread answers, distances) and the input-blind baselines."""

from naf_bench.scoring.evaluation import constant_predictions, score_rows

# an odd program (FTuloop: cred B, skept A, wfs C, closed_world C) and a control (A under every reading)
GOLDS = {
    "p1": ("odd", 2, {"closed_world": "C", "cred": "B", "skept": "A", "wfs": "C"}),
    "p2": ("control", 0, {"closed_world": "A", "cred": "A", "skept": "A", "wfs": "A"}),
}
ROWS = [
    {
        "id": f"{p}-{condition}",
        "program_id": p,
        "family": family,
        "condition": condition,
        "gold": gold,
        "distance": distance,
    }
    for p, (family, distance, golds) in GOLDS.items()
    for condition, gold in [("none", None), *golds.items()]
]


def answers(**texts):
    predictions = {row["id"]: {"prediction": "ANSWER: A"} for row in ROWS}
    predictions.update({key.replace("_", "-", 1): {"prediction": text} for key, text in texts.items()})
    return predictions


def test_one_program_solved_and_one_wfs_answer_missing():
    record = score_rows(
        ROWS, answers(p1_cred="ANSWER: B", p1_wfs="ANSWER: C", p1_closed_world="ANSWER: C", p2_wfs=None), n_bootstrap=10
    )
    out = record.to_dict()
    assert (out["n_prompts"], out["joint"], out["joint_solved"]) == (8, 0.5, (1, 2))
    assert (out["per_prompt_accuracy"], out["accuracy"], out["coverage"]) == (0.875, 1.0, 0.875)
    assert out["per_semantics"] == {"closed_world": 1.0, "cred": 1.0, "skept": 1.0, "wfs": 0.5}
    assert out["by_bin_semantics"]["control"] == {"closed_world": 1.0, "cred": 1.0, "skept": 1.0, "wfs": 0.0}
    assert out["joint_per_family"] == {"control": 0.0, "odd": 1.0}
    assert out["joint_solved_per_family"] == {"control": (0, 1), "odd": (1, 1)}
    assert out["by_distance_semantics"][2] == {"closed_world": 1.0, "cred": 1.0, "skept": 1.0, "wfs": 1.0}
    assert "traces" not in out


def test_an_answer_the_extractor_cannot_read_counts_as_unread():
    out = score_rows(ROWS, answers(p2_skept="it depends"), n_bootstrap=10).to_dict()
    assert out["n_unread"] == 1
    assert out["reference_definitions"] == {"coverage": 1.0, "format_valid_rate": 7 / 8}


def test_rows_without_distances_give_no_distance_table():
    rows = [{key: value for key, value in row.items() if key != "distance"} for row in ROWS]
    assert "by_distance_semantics" not in score_rows(rows, answers(), n_bootstrap=10).to_dict()


def test_constant_baselines_answer_every_named_row():
    baselines = constant_predictions(ROWS)
    assert list(baselines) == ["constant_A", "constant_B", "constant_C", "best_constant_per_condition", "majority"]
    assert baselines["constant_C"]["p1-wfs"] == {"prediction": "C"}
    assert "p1-none" not in baselines["majority"]
    assert {p["prediction"] for p in baselines["majority"].values()} == {"A"}  # 5 of the 8 gold letters
    assert baselines["best_constant_per_condition"]["p1-skept"] == {"prediction": "A"}  # both skept golds are A
