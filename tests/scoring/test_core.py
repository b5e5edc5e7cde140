"""The scoring core: the views (``score``'s record, the evaluate module's label scores, ``analyze``'s tables)
read one record, and its intervals are those of resampling whole clusters with ``random.Random.choices``."""

import random

import pytest

from naf_bench import certify, parse_program
from naf_bench.analysis.tables import analyze_run
from naf_bench.readings import gold_letter
from naf_bench.scoring.core import audits, proofs, score
from naf_bench.scoring.evaluation import score_rows
from naf_bench.scoring.labels import compute_label_metrics
from naf_bench.scoring.statistics import cluster_ci

READINGS = ("closed_world", "cred", "skept", "wfs")


def _run(seed: int, n_programs: int = 60):
    """Gold rows of ``n_programs`` programs (a none row each, four readings, two families) and answers: right,
    wrong, in words, unanswered."""
    rng = random.Random(seed)
    rows, outputs = [], {}
    for p in range(n_programs):
        for condition in ("none", *READINGS):
            key = f"p{p}::{condition}"
            gold = None if condition == "none" else rng.choice("ABC")
            rows.append({"id": key, "gold": gold, "condition": condition, "program_id": f"p{p}",
                         "family": f"f{p % 2}"})  # fmt: skip
            answer = rng.choice([gold or "A", gold or "B", "A", "C", None])
            outputs[key] = f"Some reasoning.\nANSWER: {answer}" if answer else "I cannot tell."
    return rows, outputs


@pytest.mark.parametrize("seed", [0, 5])
def test_the_views_read_one_record(seed):
    rows, outputs = _run(seed)
    record = score_rows(rows, {key: {"prediction": text} for key, text in outputs.items()}, extractor="strict")
    labels = compute_label_metrics(
        [outputs[r["id"]] for r in rows],
        [r["gold"] for r in rows],
        [r["condition"] for r in rows],
        [r["program_id"] for r in rows],
        bins=[r["family"] for r in rows],
    )
    tables = analyze_run(rows, outputs, "strict", n_bootstrap=0)
    named = [r for r in rows if r["gold"] is not None]
    right = [outputs[r["id"]].endswith(f"ANSWER: {r['gold']}") for r in named]
    assert record.per_prompt_accuracy == labels["strict_accuracy"] == tables["strict_accuracy"]
    assert tables["strict_accuracy"] == sum(right) / len(named)
    assert record.joint == labels["joint"] and record.joint_ci95 == labels["ci95"]["joint"]
    solved = [
        all(
            outputs[f"p{p}::{c}"].endswith(f"ANSWER: {r['gold']}")
            for c in READINGS
            for r in named
            if r["id"] == f"p{p}::{c}"
        )
        for p in range(60)
    ]
    assert record.joint == sum(solved) / 60 and record.joint_solved == (sum(solved), 60)
    for condition in READINGS:
        cell = tables["per_semantics"][condition]
        assert record.per_semantics[condition] == labels["per_condition"][condition]["strict_accuracy"]
        assert record.per_semantics[condition] == cell["correct"] / cell["n"]
    for family in ("f0", "f1"):
        assert labels["per_bin"][family]["strict_accuracy"] == tables["by_bin"][family]["all"]["strict_accuracy"]
        for condition in READINGS:
            assert record.by_bin_semantics[family][condition] == tables["by_bin"][family][condition]["strict_accuracy"]
    assert labels["default_correspondence"] == tables["default_correspondence"]


@pytest.mark.parametrize("seed", [0, 3])
def test_parsed_accuracy_intervals_resample_clusters_with_random_choices(seed):
    rows, outputs = _run(seed, n_programs=120)
    scores = score(rows, outputs, n_bootstrap=200, seed=seed)
    named = scores.scored
    clusters = sorted({rows[i]["program_id"] for i in named})
    members = {c: [i for i in named if rows[i]["program_id"] == c] for c in clusters}
    rng, values = random.Random(seed), []
    for _ in range(200):  # written out: each resample draws whole programs, then scores their parsed answers
        picked = [i for c in rng.choices(clusters, k=len(clusters)) for i in members[c]]
        parsed = [i for i in picked if scores.answers[i] is not None]
        if parsed:
            values.append(sum(scores.answers[i] == rows[i]["gold"] for i in parsed) / len(parsed))
    values.sort()
    expected = (values[int(0.025 * 199)], values[int(0.975 * 199)])
    assert scores.intervals(("accuracy",), "program")["accuracy"] == expected

    def parsed_accuracy(items):
        parsed = [i for i in items if scores.answers[i] is not None]
        return sum(scores.answers[i] == rows[i]["gold"] for i in parsed) / len(parsed) if parsed else None

    assert cluster_ci(named, lambda i: rows[i]["program_id"], parsed_accuracy, 200, seed) == list(expected)


def test_an_unanswered_trace_is_not_right_whatever_its_text_says():
    # the answer is read once, from the prediction: a trace that states an answer does not answer for it
    certificate = certify("q :- not p. p :- not q.")
    rows = [
        {
            "id": c,
            "gold": gold_letter(c, certificate.labels),
            "condition": c,
            "program_id": "even",
            "family": "even",
            "certificate": certificate.to_json(),
        }
        for c in READINGS
    ]
    traces = {row["id"]: f"q is true.\nANSWER: {row['gold']}" for row in rows}
    answered = score(rows, {row["id"]: row["gold"] for row in rows}, traces, extractor="flexible")
    unanswered = score(rows, dict.fromkeys(traces), traces, extractor="flexible")
    assert answered.proofs.label_accuracy == 1.0 and answered.joint() == 1.0
    assert unanswered.proofs.label_accuracy == 0.0 and unanswered.joint() == 0.0
    assert unanswered.proofs.n == 4 and unanswered.cell().coverage == 0.0


def test_the_audit_table_and_the_proof_metrics_read_one_audit():
    # analyze's Tables 11-13 and the evaluate module's proof metrics are views of the core's audit of each text
    certificate = certify("q :- not p. p :- not q.")
    rows = [
        {
            "id": f"{c}{k}",
            "gold": gold_letter(c, certificate.labels),
            "condition": c,
            "program_id": f"even{k}",
            "family": "even",
            "certificate": certificate.to_json(),
        }
        for c in READINGS
        for k in range(3)
    ]
    texts = {
        row["id"]: [
            "p and q depend on each other through negation: a cycle, so q is undefined.",
            "q is true.",
            "There is no stable model.",
        ][int(row["id"][-1])]
        + f"\nANSWER: {'ABC'[int(row['id'][-1])]}"
        for row in rows
    }
    answers = ["ABC"[int(row["id"][-1])] for row in rows]
    audited = audits([texts[r["id"]] for r in rows], rows, answers)
    found = proofs([texts[r["id"]] for r in rows], rows, answers)
    table = analyze_run(rows, texts, "strict", n_bootstrap=0)["audit"]
    assert found.audits == audited and "audits" not in found.to_dict()
    assert table["by_correctness"] == found.audit_by_correctness == audited.by_correctness
    assert list(table["classes"].values()) == found.audit_classes and list(table["reasons"].values()) == audited.reasons
    assert audited.correct == [a == r["gold"] for a, r in zip(answers, rows, strict=True)]
    assert table["checkpoints"]["cycle_registered"]["stated"] == sum(
        c["cycle_registered"] is True for c in audited.checkpoints
    )


def test_every_baseline_has_one_tie_rule_in_the_core():
    """The majority letter and the best constant per condition break ties in A/B/C order, whichever letter comes
    first in the rows; the metric, the baselines command, the analysis and training all read them here."""
    from naf_bench.scoring.core import best_constants, majority_letter
    from naf_bench.scoring.evaluation import constant_predictions
    from naf_bench.training.held_out import answer_report

    rows = [
        {"id": f"p{p}-{c}", "program_id": f"p{p}", "condition": c, "gold": gold}
        for p, golds in enumerate(["CBBA", "BACA"])
        for c, gold in zip(("closed_world", "cred", "skept", "wfs"), golds, strict=True)
    ]
    assert majority_letter(["C", "B", "B", "C", None]) == "B" and majority_letter([None]) is None
    assert best_constants(rows) == {"closed_world": "B", "cred": "A", "skept": "B", "wfs": "A"}
    run = score(rows, {row["id"]: "A" for row in rows})
    assert run.best_constants == best_constants(rows) and run.majority == "A"  # A 3, B 3, C 2
    assert run.best_constant_accuracy() == 5 / 8 and run.best_constant_accuracy(run.where(condition="cred")) == 0.5
    predictions = constant_predictions(rows)["best_constant_per_condition"]
    assert {i: p["prediction"] for i, p in predictions.items() if i.startswith("p0")} == {
        "p0-closed_world": "B",
        "p0-cred": "A",
        "p0-skept": "B",
        "p0-wfs": "A",
    }
    report = answer_report(rows, ["A"] * len(rows), "strict")
    assert {c: cell["best_constant"] for c, cell in report["conditions"].items()} == best_constants(rows)


def test_one_answer_policy_for_stored_letters_translations_and_extractors():
    from naf_bench.scoring.core import STORED, decide_answer

    translated = "```\na :- b.\nb :- not c.\nc :- not d.\nd :- not b.\nQUERY: a\n```"
    t2s = {"id": "x::wfs", "condition": "wfs", "mitigation": "t2s"}
    letter, translation = decide_answer(translated, t2s, "strict")
    assert (letter, translation.letter) == ("C", "C")  # our reader solves the model's program, whatever it says
    assert decide_answer(translated + "\nANSWER: A", {**t2s, "mitigation": "direct"}, "strict") == ("A", None)
    letter, translation = decide_answer(translated, t2s, STORED, stored="B")
    assert letter == "B" and translation.letter == "C"  # the authors' letter, the translation kept for its table
    assert decide_answer("ANSWER: A", {"condition": "wfs"}, STORED, stored="maybe") == (None, None)
    assert decide_answer(None, t2s, "strict") == (None, None)


def test_a_scoring_pass_parses_each_program_once(monkeypatch):
    """600 traced rows of 120 programs: 120 parses, where the audit and the step checker each read them again."""
    from naf_bench.scoring import audit, core, steps

    parsed = []

    def counting(text):
        parsed.append(text)
        return parse_program(text)

    for module in (core, audit, steps):
        monkeypatch.setattr(module, "parse_program", counting)
    rows, answers, traces = [], {}, {}
    for k in range(120):  # atoms of this test's own, so no program text was read before it
        certificate = certify(f"q :- not once{k}.\nonce{k} :- not q.")
        for condition in ("none", *READINGS):
            key = f"once{k}::{condition}"
            gold = gold_letter(condition, certificate.labels)
            rows.append({"id": key, "gold": gold, "condition": condition, "program_id": f"once{k}",
                         "family": "even", "certificate": certificate.to_json()})  # fmt: skip
            answers[key] = f"ANSWER: {gold or 'A'}"
            traces[key] = f"once{k} holds, so q is false."
    scored = score(rows, answers, traces, extractor="flexible", n_bootstrap=10)
    assert scored.proofs.n == 480 and len(rows) == 600
    assert len(parsed) == len(set(parsed)) == 120
