"""The trace grammar in every rendering: exact texts, parse(render) == steps, what the parser tolerates."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from naf_bench import ConfigError, Literal, ParseError, Program, Rule, certify, parse_program
from naf_bench.solvers.wfs import solve_wfs
from naf_bench.verbalize.mitigation import render_translation_prompt, render_verify_prompt, verify_scaffold
from naf_bench.verbalize.prompt import build_prompt, render_prompt, rule_sentences
from naf_bench.verbalize.trace import (
    RENDERINGS,
    STEP_KINDS,
    AllRulesFail,
    Derived,
    NoRule,
    Undefined,
    Unfounded,
    derivation,
    grammar,
    parse_trace,
    render_gold_trace,
)
from naf_bench.verbalize.traced import EXAMPLE, render_traced_prompt, traced_prompt

PROGRAM = parse_program("q :- not a. a :- b. b :- a. c. q :- c, not c. q :- x. x :- not y. y :- not x. d :- e.")
GOLD = {
    ("abstract", "en"): [
        "Step 1: c is true by rule 4: it is a fact.",
        "Step 2: b, a are false: they support only each other.",
        "Step 3: q is true by rule 1: not a.",
        "Step 4: y is undefined: it depends on the undefined x.",
        "Step 5: x is undefined: it depends on the undefined y.",
        "Verdict: under the well-founded semantics q is true.",
        "ANSWER: A",
    ],
    ("abstract", "zh"): [
        "步骤 1：c 为真，依据规则 4：这是一个事实。",
        "步骤 2：b、a 为假：它们只相互支持。",
        "步骤 3：q 为真，依据规则 1：非 a。",
        "步骤 4：y 未定义：它依赖于未定义的 x。",
        "步骤 5：x 未定义：它依赖于未定义的 y。",
        "结论：在良基语义下，q 为真。",
        "ANSWER: A",
    ],
    ("audit", "en"): [
        "Step 1: auditor c approves by rule 4: it is a fact.",
        "Step 2: auditor b does not approve, auditor a does not approve: they support only each other.",
        "Step 3: the override is granted by rule 1: auditor a does not approve.",
        "Step 4: whether auditor y approves is undefined: it depends on the undefined auditor x.",
        "Step 5: whether auditor x approves is undefined: it depends on the undefined auditor y.",
        "Verdict: under the well-founded semantics the override is granted.",
        "ANSWER: A",
    ],
}


@pytest.fixture(scope="module")
def certificate():
    return certify(PROGRAM)


@pytest.mark.parametrize(("framing", "language"), list(GOLD))
def test_gold_trace_in_the_prompts_words(certificate, framing, language):
    assert render_gold_trace(PROGRAM, certificate, "wfs", framing, language).splitlines() == GOLD[framing, language]


def test_every_step_kind_in_every_rendering_of_the_worked_example():
    certificate = certify(EXAMPLE)
    steps = derivation(EXAMPLE, "q", certificate.wfs_values)
    assert {type(step) for step in steps} == set(STEP_KINDS)
    for framing, language in RENDERINGS:
        g = grammar(framing, language, "q")
        text = render_gold_trace(EXAMPLE, certificate, "skept", framing, language)
        assert parse_trace(text, g).steps == tuple(steps)
    sensor = render_gold_trace(EXAMPLE, certificate, "closed_world", "sensor", "en").splitlines()
    assert sensor[2] == (
        "Step 3: sensor d is not active: every rule fails: rule 3 needs sensor e is active; "
        "rule 4 needs sensor c is not active."
    )
    assert sensor[-2:] == ["Verdict: the Prolog proof of the alarm does not terminate.", "ANSWER: C"]


def test_verdicts_per_condition(certificate):
    g = grammar("escalation", "en", "q")
    assert g.verdict("cred", "T", 2) == "the case is escalated in some stable model."
    assert g.verdict("cred", "F", 0) == "the case is escalated in no stable model."
    assert g.verdict("skept", "T", 0) == "the case is escalated in every stable model, since there is none."
    assert g.verdict("skept", "F", 2) == "the case is not escalated in some stable model."
    assert g.verdict("wfs", "u", 2) == "under the well-founded semantics whether the case is escalated is undefined."
    assert grammar("abstract", "zh", "q").verdict("closed_world", "F", 1) == "对 q 的 Prolog 证明有限失败。"
    with pytest.raises(ConfigError, match="no trace rendering"):
        grammar("audit", "zh", "q")


ATOMS = ["q", "a", "b", "c", "d"]
literals = st.builds(Literal, st.sampled_from(ATOMS), st.booleans())
rules = st.builds(Rule, st.sampled_from(ATOMS), st.lists(literals, max_size=3).map(tuple))
programs = st.lists(rules, max_size=8).map(lambda rs: Program(tuple(rs)))


@settings(max_examples=200, deadline=None)
@given(programs, st.sampled_from(RENDERINGS))
def test_every_rendering_parses_back_to_the_same_steps(program, rendering):
    g = grammar(*rendering, "q")
    steps = derivation(program, "q", solve_wfs(program).values)
    text = g.render(steps, g.verdict("wfs", "T", 1), "A", n_stable_models=3)
    trace = parse_trace(text, g)
    assert trace.steps == tuple(steps)
    assert (trace.n_stable_models, trace.answer) == (3, "A")


FACT = "Step 1: c is true by rule 4: it is a fact."
TOLERATED = [
    ("extra whitespace", "Step  1 :   c is true  by rule 4:it is a fact .", FACT),
    ("markdown", "**Step 1:** *c* is true by rule `4`: _it is a fact_.", FACT),
    ("list marker", "- Step 3: q is true by rule 1: **not a**.", "Step 3: q is true by rule 1: not a."),
    ("no prefix", "q is true by rule 1: not a.", "Step 3: q is true by rule 1: not a."),
    ("rule text", 'q is true by rule "Proposition q is true if proposition a is not true.": not a.', None),
    ("rule text, no word 'rule'", "q is true by “3. proposition q is true if proposition a is not true”: not a.", None),
]


@pytest.mark.parametrize(("what", "line", "canonical"), TOLERATED, ids=[t[0] for t in TOLERATED])
def test_parser_tolerates_what_does_not_change_the_logic(what, line, canonical):
    g = grammar()
    rules, _ = rule_sentences(PROGRAM, "q")
    gold = "\n".join(GOLD["abstract", "en"])
    target = canonical or "Step 3: q is true by rule 1: not a."
    changed = gold.replace(target, line)
    assert changed != gold
    assert parse_trace(changed, g, rules) == parse_trace(gold, g, rules)


def test_rule_cited_by_its_text_in_framed_and_chinese_traces():
    audit = grammar("audit", "en", "q")
    rules, _ = rule_sentences(PROGRAM, "q", "en", "audit")
    line = 'Step 1: the override is granted by rule "The override is granted if auditor a does not approve": ' + (
        "auditor a does not approve."
    )
    assert parse_trace(line + "\nVerdict: x", audit, rules).steps == (Derived("q", 1, (Literal("a", False),)),)
    zh = grammar("abstract", "zh", "q")
    rules, _ = rule_sentences(PROGRAM, "q", "zh")
    trace = parse_trace("步骤 1：c 为真，依据规则「命题 c 为真。」：这是一个事实。\n结论：x", zh, rules)
    assert trace.steps == (Derived("c", 4, ()),)


@pytest.mark.parametrize(
    ("rendering", "text", "line", "reason"),
    [
        (("abstract", "en"), "Let me think.\nVerdict: x.", 1, "not a sentence of the trace grammar"),
        (("abstract", "en"), "Step 1: a is true.\nVerdict: x.", 1, "not a sentence of the trace grammar"),
        (("abstract", "en"), "Step 2: a is false: it has no rule.\nVerdict: x.", 1, "expected step 1"),
        (("abstract", "en"), "Step 1: a is false: it has no rule.", 1, "no 'Verdict:' line"),
        (("abstract", "en"), "Verdict: x.\nStep 1: a is false: it has no rule.", 2, "nothing but 'ANSWER: X'"),
        (("abstract", "en"), "Verdict: x.\nANSWER: D", 2, "expected 'ANSWER: A'"),
        (("abstract", "en"), "Stable models: many.\nVerdict: x.", 1, "Stable models: N."),
        (("abstract", "en"), 'c is true by rule "Proposition c holds.": it is a fact.\nVerdict: x', 1, "does not list"),
        (("audit", "en"), "Step 1: auditor q does not approve: it has no rule.\nVerdict: x", 1, "not a statement"),
        (("audit", "en"), "Step 1: c is true by rule 4: it is a fact.\nVerdict: x", 1, "(audit, en)"),
        (("abstract", "zh"), "步骤 1：c 为真。\n结论：x", 1, "not a sentence of the trace grammar"),
        (("abstract", "zh"), "步骤 1：c 为假：它没有规则。", 1, "no '结论：' line"),
    ],
)
def test_anything_else_is_a_parse_failure_with_line_and_reason(rendering, text, line, reason):
    g = grammar(*rendering, "q")
    rules, _ = rule_sentences(PROGRAM, "q", rendering[1], rendering[0])
    with pytest.raises(ParseError, match=reason.replace("(", r"\(").replace(")", r"\)")) as info:
        parse_trace(text, g, rules)
    assert info.value.line == line


def test_parser_is_linear_on_long_free_form_lines():
    g = grammar("audit", "en", "q")
    long_body = ", ".join(["auditor a does not approve"] * 20000)
    text = f"Step 1: the override is granted by rule 1: {long_body}\nVerdict: x"  # no full stop: no sentence
    with pytest.raises(ParseError, match="not a sentence"):
        parse_trace(text, g)
    steps = parse_trace(text.replace("\nVerdict", ".\nVerdict"), g).steps
    assert len(steps[0].body) == 20000


def test_step_kinds_hold_ast_literals():
    g = grammar()
    trace = parse_trace(
        "Step 1: e is false: it has no rule.\nStep 2: d is false: every rule fails: rule 9 needs e.\n"
        "Step 3: a, b are false: they support only each other.\nStep 4: x is undefined: it depends on the "
        "undefined y.\nVerdict: x",
        g,
    )
    assert trace.steps == (
        NoRule("e"),
        AllRulesFail("d", ((9, Literal("e")),)),
        Unfounded(("a", "b")),
        Undefined("x", ("y",)),
    )


def test_prompt_is_typed_and_letter_only_prompts_stay_unnumbered():
    prompt = build_prompt(PROGRAM, "q", "wfs", "zh")
    assert prompt.render() == render_prompt(PROGRAM, "q", "wfs", "zh")
    assert "\n1. 如果命题 a 不为真，则命题 q 为真。" not in prompt.render()
    numbered = replace(prompt, numbered=True).render()
    assert "规则：\n1. 如果命题 a 不为真，则命题 q 为真。\n2. " in numbered
    _, user = render_translation_prompt(PROGRAM, "q", language="zh")
    assert user.startswith("规则：\n如果命题 a 不为真") and user.endswith("问题：命题 q 为真吗？")
    verify = render_verify_prompt(PROGRAM, "q", "wfs", "audit")
    assert "Rules:\n1. The override is granted if auditor a does not approve.\n" in verify
    assert verify.endswith(verify_scaffold("en")) and "citing the numbers of the rules" in verify
    assert render_verify_prompt(PROGRAM, "q", "wfs", language="zh").endswith(verify_scaffold("zh"))
    assert verify_scaffold("zh").endswith("（X 为 A、B 或 C）。")


def test_traced_prompt_numbers_rules_and_shows_a_worked_example_in_the_same_words():
    prompt = traced_prompt(PROGRAM, "q", "cred", "en", "sensor")
    assert prompt.numbered and prompt.rules[0] == "The alarm is raised if sensor a is not active."
    text = render_traced_prompt(PROGRAM, "q", "cred", "en", "sensor")
    assert "Rules:\n1. The alarm is raised if sensor a is not active.\n2. Sensor a is active if" in text
    assert "Worked example. Rules:\n1. Sensor c is active.\n2. Sensor b is active if sensor c is active." in text
    assert "Trace:\nStep 1: sensor c is active by rule 1: it is a fact.\n" in text
    assert text.endswith("Stable models: 2.\nVerdict: the alarm is raised in some stable model.\nANSWER: A")
    zh = render_traced_prompt(PROGRAM, "q", "wfs", "zh")
    assert "推理轨迹：\n步骤 1：c 为真，依据规则 1：这是一个事实。" in zh
    with pytest.raises(ConfigError, match="needs a named condition"):
        traced_prompt(PROGRAM, "q", "none")
