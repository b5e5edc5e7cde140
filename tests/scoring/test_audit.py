"""The trace audit on free-form reasoning written for these tests, one or more per failure mode: restated
rules, questions, quotations, conditionals, hedges, markdown / LaTeX / code spans, <think> blocks, truncation,
model-relative values, entailment statements, bridge atoms of control programs, structural checkpoints."""

import time

import pytest

from naf_bench import certify, parse_program
from naf_bench.scoring.audit import audit, bridge_atom, clauses, normalise

ODD = "q :- a. a :- b. b :- not c. c :- not d. d :- not b. e."  # FTuloop, no stable model; bridge a
EVEN_ONE = "q :- cq. cq :- x0. x0 :- not x1. x1 :- not x0."  # TFuloop, two stable models; bridge cq
EVEN_BOTH = "q :- cq. cq :- x0. cq :- x1. x0 :- not x1. x1 :- not x0."  # TTuloop
CONTROL = "q :- t0. t0 :- cq. cq :- not blocked."  # TTTT; bridge cq (the negated condition)
CERTIFICATES = {
    name: certify(text)
    for name, text in (("odd", ODD), ("even_one", EVEN_ONE), ("even_both", EVEN_BOTH), ("control", CONTROL))
}

# A forward-chaining trace long enough to have stated a checkpoint, naming no cycle.
CHAIN = "Proposition e is a fact, so e holds. " * 8

CASES = [
    # (program, condition, trace, expected class)
    (
        "odd",
        "wfs",
        "The cycle b, c, d runs through negation, so b is undefined. Hence a is undefined and q is "
        "undefined.\nANSWER: C",
        "sound",
    ),
    ("odd", "wfs", "**a** is **undefined**, so q is **undefined**.\n\nANSWER: C", "sound"),
    ("odd", "wfs", "Thus $a$ is \\text{undefined} and \\(q\\) is undefined.\nANSWER: C", "sound"),
    ("odd", "wfs", "`a` is undefined; therefore `q` is undefined.", "sound"),
    ("odd", "wfs", "<think>a is undefined, so q is undefined.</think>\nANSWER: C", "sound"),
    ("odd", "wfs", "b, c and d are all undefined, so a is undefined. q is undefined.", "sound"),
    ("odd", "wfs", "Values: a = u, q = u.", "sound"),
    ("odd", "wfs", "a is not true (it is undefined), and q is undefined.", "sound"),
    ("odd", "wfs", "a is undefined.\n- q = e & a = true & undefined = **undefined**\nSo q is undefined.", "sound"),
    ("odd", "wfs", "In model 1, q is true. But a is undefined and q is undefined.", "sound"),
    ("odd", "wfs", "Proposition q is true if proposition a is true.\nANSWER: C", "no_derivation"),
    ("odd", "wfs", "q :- a. a :- b.\nANSWER: C", "no_derivation"),
    ("odd", "wfs", "Question: Is proposition q true? Let me look at the rules.\nANSWER: C", "no_derivation"),
    ("odd", "wfs", 'a is undefined. We cannot claim "q is true".', "unverifiable"),
    ("odd", "wfs", "a is undefined. If q were true, then a would be true.", "unverifiable"),
    ("odd", "wfs", "Suppose q is true. Then b is false. a is undefined.", "unverifiable"),
    ("odd", "wfs", "a is undefined. Then q is probably true.", "unverifiable"),
    ("odd", "wfs", "There is no rule making q true. a is undefined.", "unverifiable"),
    ("odd", "wfs", "The rules b, c and d form a cycle through negation. a is", "no_derivation"),
    ("odd", "wfs", "a is false, hence q is false.\nANSWER: B", "contradicted"),
    ("odd", "wfs", "a is undefined, so q is true.\nANSWER: A", "contradicted"),
    ("odd", "wfs", CHAIN + "So q is undefined.\nANSWER: C", "contradicted"),
    (
        "odd",
        "closed_world",
        "The proof of b loops forever through c and d, a cycle, so a does not terminate and q does not terminate.",
        "sound",
    ),
    ("odd", "closed_world", "a is undefined, so q cannot be determined.\nANSWER: C", "sound"),
    ("odd", "closed_world", "a fails, so q is false.\nANSWER: B", "contradicted"),
    ("odd", "cred", "The odd cycle b, c, d has no stable model, so q is in no stable model.\nANSWER: B", "sound"),
    ("odd", "cred", "There is no stable model at all.\nANSWER: B", "sound"),
    ("odd", "cred", CHAIN + "So q holds in at least one answer set.\nANSWER: A", "contradicted"),
    ("odd", "skept", "There are no stable models, so q is vacuously true in every stable model.", "sound"),
    ("odd", "skept", "Forward chaining: q is true.\nANSWER: A", "unverifiable"),
    (
        "odd",
        "skept",
        "The other atoms would be fixed by the cycle — but the program has no answer sets. Hence q holds.",
        "sound",
    ),
    ("odd", "skept", "q is true in every stable model.\nANSWER: A", "sound"),
    (
        "even_one",
        "skept",
        "There are two stable models, {x0, cq, q} and {x1}. q is true in one but false in the "
        "other, so q does not hold in every stable model.\nANSWER: B",
        "sound",
    ),
    (
        "even_one",
        "skept",
        "Since q is true in one answer set and false in the other, it does not hold in every answer set.",
        "sound",
    ),
    ("even_one", "skept", "x0 is true, so cq is true and q holds in every answer set.\nANSWER: A", "contradicted"),
    (
        "even_one",
        "skept",
        'The statement "q is in every stable model" is wrong: q is not in every stable model.',
        "sound",
    ),
    (
        "even_one",
        "cred",
        "In the stable model {x0, cq, q}, q is true, so q is true in at least one stable model.",
        "sound",
    ),
    ("even_one", "cred", "q is not in any stable model.\nANSWER: B", "contradicted"),
    ("even_one", "cred", "Is q in some stable model?\nANSWER: A", "no_derivation"),
    (
        "even_one",
        "wfs",
        "x0 and x1 form an even cycle through negation, so both are undefined; cq is undefined, hence q is undefined.",
        "sound",
    ),
    ("even_one", "wfs", "Since x1 is not true, x0 is true, so cq is true and q is true.\nANSWER: A", "contradicted"),
    (
        "even_one",
        "skept",
        "One answer set lacks x0, so we cannot conclude that q is true in every answer set.",
        "sound",
    ),
    (
        "even_one",
        "closed_world",
        "The proof of x0 never terminates, so t (and q) fails to reach a definite result.",
        "sound",
    ),
    (
        "even_one",
        "wfs",
        "x0 and x1 are undefined. Without being able to confirm that cq is true, q is undefined.",
        "sound",
    ),
    ("even_both", "skept", "In both stable models cq is true, so q is true in every stable model.", "sound"),
    ("even_both", "wfs", "The negation loop x0, x1 leaves cq undefined, making q undefined.", "sound"),
    ("control", "wfs", "blocked has no rule, so it is false; cq is true, hence q is true.\nANSWER: A", "sound"),
    ("control", "closed_world", "blocked fails finitely, so cq succeeds and q succeeds.\nANSWER: A", "sound"),
    ("control", "wfs", "cq is false, so q is false.\nANSWER: B", "contradicted"),
    ("control", "cred", "There is exactly one stable model and q is in some stable model.\nANSWER: A", "sound"),
    ("control", "wfs", "$q$ is false since $cq$ is false.", "contradicted"),
    ("control", "wfs", "t0 needs cq, but we are missing confirmed cq=true. q is true.", "sound"),
    ("odd", "wfs", "<think>a is undefined, so q is undefi", "unverifiable"),
    ("odd", "cred", "Proposition q is true if proposition a is true, in every stable model.", "no_derivation"),
    ("control", "wfs", "ANSWER: A", "no_derivation"),
    ("control", "wfs", "", "no_derivation"),
]


@pytest.mark.parametrize(("program", "condition", "trace", "expected"), CASES)
def test_audit_class(program, condition, trace, expected):
    result = audit(trace, CERTIFICATES[program], condition)
    assert result["class"] == expected, result
    assert result["reason"]


def test_at_least_forty_cases_of_every_class():
    assert len(CASES) >= 40
    assert {c for *_, c in CASES} == {"sound", "contradicted", "unverifiable", "no_derivation"}


def test_reasons_name_what_disagrees():
    odd = CERTIFICATES["odd"]
    assert audit("a is false, hence q is false.", odd, "wfs")["reason"] == "bridge atom a is u, the trace says F"
    assert audit(CHAIN + "So q is undefined.", odd, "wfs")["reason"] == "the negation cycle is never registered"
    assert "never says so" in audit(CHAIN + "So q holds in at least one answer set.", odd, "cred")["reason"]
    several = audit("x0 is true, so cq is true and q holds in every answer set.", CERTIFICATES["even_one"], "skept")
    assert several["reason"].endswith("(one model considered where several exist)")


def test_checkpoints_and_earned_skeptical_answers():
    odd = CERTIFICATES["odd"]
    earned = audit("There are no stable models, so q is vacuously true in every stable model.", odd, "skept")
    assert earned["earned"] is True and earned["checkpoints"]["no_stable_model_stated"] is True
    assert audit("q is true in every stable model.", odd, "skept")["earned"] is False
    assert audit("If there were no stable model, q would hold.", odd, "skept")["earned"] is False
    hedged = audit("The atoms would be fixed — but the program has no answer sets.", odd, "skept")
    assert hedged["earned"] is True and hedged["entailment"] == "T"
    assert audit("q is true.", CERTIFICATES["control"], "skept")["earned"] is True  # not an incoherent program
    cycle = audit("b, c and d form a cycle; a is undefined.", odd, "wfs")["checkpoints"]
    assert cycle == {"cycle_registered": True}
    assert audit("a is undefined.", CERTIFICATES["control"], "wfs")["checkpoints"] == {"cycle_registered": None}


def test_bridge_atoms():
    assert bridge_atom(parse_program(ODD), "q") == "a"
    assert bridge_atom(parse_program(EVEN_ONE), "q") == "cq"
    assert bridge_atom(parse_program(CONTROL), "q") == "cq"
    assert bridge_atom(parse_program("q :- a. a."), "q") is None


def test_normalise_and_clauses():
    text = normalise('**Q** is `true` -> $x0$ "quoted q is false" \\(cq\\) <- x0')
    assert [tokens for tokens, _ in clauses(text)] == [["q", "is", "true"], ["x0", "cq", "if", "x0"]]
    assert clauses(normalise("Is q true? q is true."))[0] == (["is", "q", "true"], True)


ADVERSARIAL = {  # name -> text of n units
    "spaces": lambda n: " " * n,
    "atom repeated": lambda n: "q " * n,
    "atom list": lambda n: "a, " * n + "are undefined",
    "copulas": lambda n: "is " * n,
    "quotes": lambda n: '"' * n,
    "stars": lambda n: "*" * n,
    "restated rules": lambda n: "q is true if " * (n // 4),
    "braces": lambda n: "{" * (n // 2) + "q" + "}" * (n // 2),
    "equations": lambda n: "q = a = " * (n // 4),
    "no models": lambda n: "no stable model, " * (n // 4),
}


def _seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        audit(text, CERTIFICATES["odd"], "wfs")
        audit(text, CERTIFICATES["odd"], "skept")
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_audit_is_linear_on_adversarial_text(name):
    small, large = _seconds(ADVERSARIAL[name](4000)), _seconds(ADVERSARIAL[name](16000))
    assert large < 8 * small + 0.05  # four times the text: quadratic work would take sixteen times as long
    assert large < 2.0
