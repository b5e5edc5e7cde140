import pytest

from naf_bench.scoring.extract import extract_answer
from naf_bench.scoring.labels import compute_label_metrics


@pytest.mark.parametrize(
    ("text", "strict", "flexible"),
    [
        ("ANSWER: B", "B", "B"),
        ("ANSWER: A\nthen ANSWER: C", "C", "C"),
        ("<think>ANSWER: A</think>The final answer is B.", "B", "B"),
        ("<think>never closed ANSWER: A", None, None),
        ("Therefore:\n(C)\n", "C", "C"),
        ("ANSWER: **b**", "B", "B"),
        ("B", "B", "B"),
        ("the answer is probably A", None, None),
        ("So the result is \\boxed{C}", None, "C"),
        ("Thus q is undefined.", None, "C"),
        ("Hence it is false.", None, "B"),
        ("Yes, q is true.", None, "A"),
        (None, None, None),
    ],
)
def test_extraction(text, strict, flexible):
    assert extract_answer(text) == strict
    assert extract_answer(text, "flexible") == flexible


def test_unknown_extractor():
    with pytest.raises(ValueError, match="extractor must be one of"):
        extract_answer("A", "lenient")


def program_rows():
    # two programs: p1 answered all correctly; p2 misses wfs; none rows carry the default reading
    conditions = ["none", "closed_world", "cred", "skept", "wfs"] * 2
    ids = ["p1"] * 5 + ["p2"] * 5
    references = [None, "C", "B", "A", "C", None, "A", "A", "A", "A"]
    predictions = ["ANSWER: A", "ANSWER: C", "ANSWER: B", "ANSWER: A", "ANSWER: C",
                   "ANSWER: B", "ANSWER: A", "ANSWER: A", "ANSWER: A", "ANSWER: B"]  # fmt: skip
    return predictions, references, conditions, ids


def test_label_metrics_exact_values():
    predictions, references, conditions, ids = program_rows()
    scores = compute_label_metrics(predictions, references, conditions, ids, bins=["odd"] * 5 + ["control"] * 5)
    assert (scores["accuracy"], scores["strict_accuracy"], scores["coverage"]) == (7 / 8, 7 / 8, 1.0)
    assert (scores["n_rows"], scores["n_scored"], scores["n_unparsed"]) == (10, 8, 0)
    assert scores["joint"] == 0.5
    assert scores["per_condition"]["wfs"]["accuracy"] == 0.5
    assert scores["per_bin"]["control"]["strict_accuracy"] == 0.75
    assert scores["majority_letter"] == "A"
    assert scores["baselines"] == {"constant_A": 5 / 8, "constant_B": 1 / 8, "constant_C": 2 / 8, "majority": 5 / 8}
    assert scores["baselines_joint"]["constant_A"] == 0.5  # p2's gold is all A
    assert scores["default_correspondence"] == 1.0  # the one wrong answer (p2 wfs: B) equals p2's none answer
    low, high = scores["ci95"]["strict_accuracy"]
    assert 0.0 <= low <= 7 / 8 <= high <= 1.0


def test_unparsed_answers_are_unanswered_not_zero():
    scores = compute_label_metrics(["I think A", "ANSWER: B"], ["A", "B"])
    assert (scores["accuracy"], scores["strict_accuracy"], scores["coverage"], scores["n_unparsed"]) == (
        1.0,
        0.5,
        0.5,
        1,
    )


def test_flip_rate():
    predictions = ["ANSWER: A", "ANSWER: A", "ANSWER: A", "ANSWER: B", "garbled", "ANSWER: C"]
    scores = compute_label_metrics(
        predictions,
        ["A"] * 6,
        conditions=["wfs"] * 6,
        program_ids=["p1", "p1", "p2", "p2", "p3", "p3"],
        variants=["o0", "o1"] * 3,
    )
    assert scores["flip_rate"] == 0.5  # p1 constant, p2 flips, p3 has one parsed answer only
    assert scores["n_flip_groups"] == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"predictions": ["A"], "references": ["A", "B"]}, "references has 2 entries but predictions has 1"),
        ({"predictions": ["A"], "references": ["D"]}, r"references\[0\] must be A, B, C or None"),
        ({"predictions": ["A"], "references": ["A"], "conditions": ["stable"]}, r"conditions\[0\] must be one of"),
        ({"predictions": ["A"], "references": ["A"], "program_ids": ["p", "q"]}, "program_ids has 2 entries"),
    ],
)
def test_bad_inputs_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        compute_label_metrics(**kwargs)


def test_solved_programs_are_the_terms_of_joint():
    from naf_bench.scoring.labels import score_answers, solved_programs

    conditions = ["closed_world", "cred", "skept", "wfs"] * 3 + ["wfs"]
    programs = ["p"] * 4 + ["q"] * 4 + ["r"] * 4 + ["s"]  # s has no row for three readings: JOINT leaves it out
    references = [*"ABCA" * 3, "A"]
    answers = list("ABCA") + list("ABCB") + [None, "B", "C", "A"] + ["A"]
    solved = solved_programs(answers, references, conditions, programs)
    assert solved == {"p": True, "q": False, "r": False}
    joint = score_answers(answers, references, conditions=conditions, program_ids=programs, n_bootstrap=0).joint
    assert joint == sum(solved.values()) / len(solved) == 1 / 3
