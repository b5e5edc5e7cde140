import random

import pytest

from naf_bench.readings import joint_conditions
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
    assert extract_answer(text, "strict") == strict
    assert extract_answer(text, "flexible") == flexible == extract_answer(text)  # flexible: the default


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
    from naf_bench.scoring.core import score
    from naf_bench.scoring.labels import score_answers

    conditions = ["closed_world", "cred", "skept", "wfs"] * 3 + ["wfs"]
    programs = ["p"] * 4 + ["q"] * 4 + ["r"] * 4 + ["s"]  # s has no row for three readings: JOINT leaves it out
    references = [*"ABCA" * 3, "A"]
    answers = list("ABCA") + list("ABCB") + [None, "B", "C", "A"] + ["A"]
    rows = [
        {"id": i, "gold": g, "condition": c, "program_id": p}
        for i, (g, c, p) in enumerate(zip(references, conditions, programs, strict=True))
    ]
    solved = score(rows, dict(enumerate(answers)), extractor="flexible").solved()
    assert solved == {"p": True, "q": False, "r": False}
    joint = score_answers(answers, references, conditions=conditions, program_ids=programs, n_bootstrap=0).joint
    assert joint == sum(solved.values()) / len(solved) == 1 / 3


def _resampled_row_by_row(answers, references, conditions, programs, n_bootstrap, seed):
    """The program-clustered bootstrap written out: each resample draws programs with random.choices and
    scores the rows of the drawn programs (a program drawn twice counts twice)."""
    clusters = sorted({p for p, r in zip(programs, references, strict=True) if r is not None})
    rows = {p: [i for i, q in enumerate(programs) if q == p and references[i] is not None] for p in clusters}
    rng, strict, joint = random.Random(seed), [], []
    for _ in range(n_bootstrap):
        drawn = rng.choices(clusters, k=len(clusters))
        picked = [i for p in drawn for i in rows[p]]
        strict.append(sum(answers[i] == references[i] for i in picked) / len(picked))
        terms = []
        for p in drawn:
            gold = {conditions[i]: references[i] for i in rows[p]}
            said = {conditions[i]: answers[i] for i in rows[p]}  # the last row of a condition, as JOINT reads it
            if all(c in gold for c in joint_conditions()):
                terms.append(all(said[c] is not None and said[c] == gold[c] for c in joint_conditions()))
        if terms:
            joint.append(sum(terms) / len(terms))

    def interval(values):
        values = sorted(values)
        return values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]

    return {"strict_accuracy": interval(strict), **({"joint": interval(joint)} if joint else {})}


@pytest.mark.parametrize("seed", [0, 11])
def test_bootstrap_intervals_are_those_of_resampling_row_by_row(seed):
    # 400 programs with some readings missing (not counted by JOINT), repeated rows, None answers, none rows
    rng = random.Random(seed)
    answers, references, conditions, programs = [], [], [], []
    for p in range(400):
        for condition in rng.sample(["closed_world", "cred", "skept", "wfs", "none"], rng.randint(2, 5)):
            for _ in range(rng.choice([1, 1, 2])):
                gold = None if condition == "none" else rng.choice("ABC")
                answers.append(rng.choice(["A", "B", "C", None, gold, gold]))
                references.append(gold)
                conditions.append(condition)
                programs.append(f"p{p}")
    scores = compute_label_metrics(
        answers, references, conditions, programs, extractor="flexible", n_bootstrap=300, seed=seed
    )
    expected = _resampled_row_by_row(answers, references, conditions, programs, 300, seed)
    assert set(expected) == {"strict_accuracy", "joint"}
    assert scores["ci95"] == expected
    by_row = compute_label_metrics(answers, references, n_bootstrap=300, seed=seed)["ci95"]  # rows as clusters
    assert by_row == _resampled_row_by_row(answers, references, conditions, list(range(len(answers))), 300, seed)
