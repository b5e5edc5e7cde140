"""naf_bench.verbalize.framing: each narrative framing turns atoms into actors and the query into the outcome,
and uses "if and only if" only for an atom whose one rule is a single negated condition."""

from naf_bench.syntax.parse import parse_program
from naf_bench.verbalize.framing import FRAMINGS, render_framed_rule, render_framed_rules

PROGRAM = parse_program("q :- r3, not t7.\nr3.\nt7 :- not q.\ns :- not t7.\ns :- r3.\n")


def test_the_escalation_framing_words_every_rule_and_the_question():
    assert render_framed_rules(PROGRAM, "q", "escalation") == (
        (
            "The case is escalated if reviewer r3 signs off and reviewer t7 does not sign off.",
            "Reviewer r3 signs off.",
            "Reviewer t7 signs off if and only if the case is not escalated.",
            "Reviewer s signs off if reviewer t7 does not sign off.",
            "Reviewer s signs off if reviewer r3 signs off.",
        ),
        "Question: Is the case escalated?",
    )


def test_if_and_only_if_needs_the_atoms_only_rule_to_be_one_negated_condition():
    sensor = FRAMINGS["sensor"]
    t7_rule, s_rule = PROGRAM.rules[2], PROGRAM.rules[3]
    assert (
        render_framed_rule(t7_rule, PROGRAM, "q", sensor)
        == "Sensor t7 is active if and only if the alarm is not raised."
    )
    # s has a second rule, so its negated condition is only sufficient
    assert render_framed_rule(s_rule, PROGRAM, "q", sensor) == "Sensor s is active if sensor t7 is not active."
    positive = parse_program("a :- b.")
    assert render_framed_rule(positive.rules[0], positive, "q", sensor) == "Sensor a is active if sensor b is active."


def test_each_framing_has_its_own_actor_outcome_and_question():
    rules, question = render_framed_rules(parse_program("q :- not x."), "q", "audit")
    assert rules == ("The override is granted if and only if auditor x does not approve.",)
    assert question == "Question: Is the override granted?"
    assert sorted(FRAMINGS) == ["audit", "escalation", "sensor"]
    assert [framing.subject for framing in FRAMINGS.values()] == ["the escalation", "the alarm", "the override"]
