import random

import pytest

from naf_bench import ConfigError, ParseError, certify, parse_program
from naf_bench.generate.bins import BINS, assemble
from naf_bench.readings import all_conditions
from naf_bench.verbalize.prompt import check_leakage, render_prompt, render_rule_sentence
from naf_bench.verbalize.trace import derivation, parse_trace, render_gold_trace, trace_values

FIGURE1 = parse_program("a :- b. b :- not c. c :- not d. d :- not b.")


def test_abstract_template():
    program = parse_program("h :- b, not c. a.")
    sentence = "Proposition h is true if proposition b is true and proposition c is not true."
    assert render_rule_sentence(program.rules[0]) == sentence
    assert render_rule_sentence(program.rules[1]) == "Proposition a is true."
    assert render_rule_sentence(program.rules[0], "zh") == "如果命题 b 为真且命题 c 不为真，则命题 h 为真。"


def test_prompt_layout_per_condition():
    prompts = {condition: render_prompt(FIGURE1, "a", condition) for condition in all_conditions()}
    for prompt in prompts.values():
        assert "Rules:\nProposition a is true if proposition b is true." in prompt
        assert "Question: Is proposition a true?" in prompt
        assert "  A. Definitely yes\n  B. Definitely no\n  C. Cannot be determined" in prompt
        assert prompt.endswith("then end with a line 'ANSWER: X' where X is A, B, or C.")
    assert "no stable model at all" in prompts["cred"] and "B when there is no stable model" in prompts["cred"]
    assert "A (vacuously) when there is no stable model" in prompts["skept"]
    assert "undefined" in prompts["wfs"] and "never terminates" in prompts["closed_world"]
    assert "semantics" not in prompts["none"]
    assert render_prompt(FIGURE1, "a", "wfs", "zh").endswith("（X 为 A、B 或 C）。")


def test_leakage_check_and_bad_arguments():
    with pytest.raises(ConfigError, match="leaks the answer through \\['undefined'\\]"):
        check_leakage("Proposition a is undefined.")
    with pytest.raises(ConfigError, match="unknown condition"):
        render_prompt(FIGURE1, "a", "brave")
    with pytest.raises(ConfigError, match="unknown language"):
        render_prompt(FIGURE1, "a", "wfs", "fr")


@pytest.mark.parametrize("bin_name", list(BINS))
def test_gold_traces_parse_back_and_agree_with_the_certificate(bin_name):
    for seed in range(10):
        program = assemble(bin_name, random.Random(seed), 4, 3, 3 if bin_name == "odd" else 4)
        certificate = certify(program)
        steps = derivation(program, "q", certificate.wfs_values)
        for condition in all_conditions()[1:]:
            text = render_gold_trace(program, certificate, condition)
            trace = parse_trace(text)
            assert trace.steps == tuple(steps)
            assert trace_values(trace) == {a: certificate.wfs_values[a] for a in trace_values(trace)}
            assert trace_values(trace)["q"] == certificate.wfs_values["q"]
        assert render_gold_trace(program, certificate, "none") == ""


def test_gold_trace_exact_text():
    program = parse_program("q :- not a. a :- b. b :- a. c. q :- c, not c.")
    assert render_gold_trace(program, certify(program), "wfs") == (
        "Step 1: c is true by rule 4: it is a fact.\n"
        "Step 2: b, a are false: they support only each other.\n"
        "Step 3: q is true by rule 1: not a.\n"
        "Verdict: under the well-founded semantics q is true.\n"
        "ANSWER: A"
    )
    certificate = certify(FIGURE1, "a")
    assert render_gold_trace(FIGURE1, certificate, "skept").splitlines()[-3:] == [
        "Stable models: 0.",
        "Verdict: a is true in every stable model, since there is none.",
        "ANSWER: A",
    ]
    assert render_gold_trace(FIGURE1, certificate, "closed_world").splitlines()[-2] == (
        "Verdict: the Prolog proof of a does not terminate."
    )


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("Step 1: a is true.\nVerdict: x.", 1, "not a sentence of the trace grammar"),
        ("Step 2: a is false: it has no rule.\nVerdict: x.", 1, "expected step 1"),
        ("Step 1: a is false: it has no rule.", 1, "no 'Verdict:' line"),
        ("Verdict: x.\nStep 1: a is false: it has no rule.", 2, "nothing but 'ANSWER: X'"),
        ("Verdict: x.\nANSWER: D", 2, "expected 'ANSWER: A'"),
        ("Stable models: many.\nVerdict: x.", 1, "Stable models: N."),
    ],
)
def test_trace_parse_errors(text, line, reason):
    with pytest.raises(ParseError, match=reason) as info:
        parse_trace(text)
    assert info.value.line == line


def test_translate_then_solve():
    from naf_bench.scoring.translation import answer_from_translation
    from naf_bench.verbalize.mitigation import render_translation_prompt

    system, user = render_translation_prompt(FIGURE1, "a")
    assert "ground normal logic program" in system
    assert user.startswith("Rules:\nProposition a is true if proposition b is true.")
    assert user.endswith("Question: Is proposition a true?")
    good = "```\na :- b.\nb :- not c.\nc :- not d.\nd :- not b.\nQUERY: a\n```"
    assert answer_from_translation(good, "wfs").letter == "C"
    assert answer_from_translation(good, "skept").letter == "A"
    bad = answer_from_translation("a :- B.\nQUERY: a", "wfs")
    assert bad.letter is None and "variable 'B'" in bad.error
    assert answer_from_translation("a.", "wfs").error == "expected one QUERY line, found 0"
    assert answer_from_translation(":- initialization(halt).\nQUERY: a", "wfs").error.startswith("unparseable")


def test_verify_scaffold_replaces_the_final_instruction():
    from naf_bench.verbalize.mitigation import render_verify_prompt, verify_scaffold

    prompt = render_verify_prompt(FIGURE1, "a", "wfs")
    assert prompt.endswith(verify_scaffold("en")) and prompt.endswith("a line 'ANSWER: X' where X is A, B, or C.")
    assert "Use the well-founded semantics" in prompt
    assert prompt.count("ANSWER: X") == 1


def test_narrative_framings_use_iff_only_when_faithful():
    program = parse_program("q :- b, not c. b :- not d. d :- not b. c. c :- e.")
    prompt = render_prompt(program, "q", "wfs", framing="sensor")
    assert "The alarm is raised if sensor b is active and sensor c is not active." in prompt
    assert "Sensor b is active if and only if sensor d is not active." in prompt
    assert "Sensor c is active.\nSensor c is active if sensor e is active." in prompt
    assert "Question: Is the alarm raised?" in prompt
    with pytest.raises(ConfigError, match="unknown framing"):
        render_prompt(program, "q", "wfs", "zh", framing="sensor")
