"""The step checker scores a trace in any rendering, and tolerates only what does not change the logic."""

import random

import pytest

from naf_bench import certify, parse_program
from naf_bench.generate.bins import BINS, assemble
from naf_bench.scoring.core import check_row
from naf_bench.scoring.steps import JUSTIFIED, check_steps
from naf_bench.scoring.traces import compute_proof_metrics
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.prompt import render_prompt
from naf_bench.verbalize.trace import RENDERINGS, STEP_KINDS, render_gold_trace

NAMED = ("closed_world", "cred", "skept", "wfs")
ALL = dict.fromkeys(("parsed", "valid", "linear", "connects"), True)
PROGRAM = parse_program("q :- not a. a :- b. b :- a. c. q :- c, not c. q :- x. x :- not y. y :- not x.")


@pytest.mark.parametrize("bin_name", list(BINS))
def test_gold_traces_pass_all_four_flags_in_every_rendering(bin_name):
    for seed in range(3):
        program = assemble(bin_name, random.Random(seed), 4, 2, 3 if bin_name == "odd" else 4)
        certificate = certify(program)
        for framing, language in RENDERINGS:
            for condition in NAMED:
                text = render_gold_trace(program, certificate, condition, framing, language)
                assert check_steps(text, certificate, condition, framing, language) == ALL
                assert check_steps(text, certificate, condition) == ALL  # any rendering


@pytest.fixture(scope="module")
def certificate():
    return certify(PROGRAM)


def test_a_trace_is_scored_in_the_rendering_asked_for(certificate):
    audit = render_gold_trace(PROGRAM, certificate, "wfs", "audit", "en")
    assert check_steps(audit, certificate, "wfs", "audit", "en") == ALL
    assert check_steps(audit, certificate, "wfs", "abstract", "en") == dict.fromkeys(ALL, False)
    assert check_steps(audit, certificate, "wfs", "sensor") == dict.fromkeys(ALL, False)
    zh = render_gold_trace(PROGRAM, certificate, "wfs", "abstract", "zh")
    assert check_steps(zh, certificate, "wfs", language="zh") == ALL
    assert check_steps(zh, certificate, "wfs", language="en")["parsed"] is False


def test_a_model_response_in_markdown_with_free_whitespace_scores_like_the_gold(certificate):
    response = (
        "<think>The cycle through x and y has no ground.</think>\n\n"
        "1. **Step 1:** auditor c approves by rule 4: *it is a fact*.\n"
        "2. auditor b does not approve,  auditor a does not approve : they support only each other.\n\n"
        '3. **the override is granted** by rule "The override is granted if auditor a does not approve.": '
        "auditor a does not approve.\n"
        "- whether auditor y approves is undefined: it depends on the undefined auditor x.\n"
        "- Step 5: whether auditor x approves is undefined: it depends on the undefined auditor y.\n\n"
        "**Verdict:** under the well-founded semantics the override is granted.\n"
        "**ANSWER: A**"
    )
    prompt = render_prompt(PROGRAM, "q", "wfs", "en", "audit")
    assert check_steps(response, certificate, "wfs", "audit", "en", prompt) == ALL
    assert check_steps(response, certificate, "wfs", "audit", "en")["parsed"] is False  # no prompt to quote from


def test_each_flag_fails_on_its_own_defect_in_a_framed_trace(certificate):
    gold = render_gold_trace(PROGRAM, certificate, "wfs", "sensor", "en")
    wrong_value = gold.replace("sensor c is active by rule 4: it is a fact.", "sensor c is not active: it has no rule.")
    assert check_steps(wrong_value, certificate, "wfs", "sensor") == ALL | {"valid": False}
    lines = gold.splitlines()
    first, third = lines[2].replace("Step 3", "Step 1"), lines[0].replace("Step 1", "Step 3")
    swapped = "\n".join([first, lines[1], third, *lines[3:]])
    assert check_steps(swapped, certificate, "wfs", "sensor") == ALL | {"valid": False, "linear": False}
    wrong_rule = gold.replace("by rule 1: sensor a", "by rule 2: sensor a")
    assert check_steps(wrong_rule, certificate, "wfs", "sensor") == ALL | {"valid": False}
    wrong_verdict = gold.replace("the alarm is raised.\nANSWER: A", "the alarm is not raised.\nANSWER: B")
    assert check_steps(wrong_verdict, certificate, "wfs", "sensor") == ALL | {"connects": False}
    assert check_steps(gold + "\nThe alarm is raised.", certificate, "wfs", "sensor")["parsed"] is False


def test_check_row_and_proof_metrics_read_every_rendering(certificate):
    rows = [
        {
            "certificate": certificate.to_json(),
            "condition": c,
            "framing": f,
            "language": lang,
            "program": render_asp(PROGRAM),
            "prompt": render_prompt(PROGRAM, "q", c, lang, f),
        }
        for f, lang in RENDERINGS
        for c in NAMED
    ]
    traces = [render_gold_trace(PROGRAM, certificate, r["condition"], r["framing"], r["language"]) for r in rows]
    assert all(check_row(t, r) == ALL for t, r in zip(traces, rows, strict=True))
    scores = compute_proof_metrics(traces, rows)
    assert (scores["proof_accuracy"], scores["rfwr"], scores["n"]) == (1.0, 0.0, 20)


def test_sft_turns_cite_numbered_rules_in_the_prompts_words():
    import re

    from naf_bench.data.rows import build_rows
    from naf_bench.generate.config import get_config
    from naf_bench.verbalize.traced import render_row_prompt

    rows = build_rows(get_config("sft", programs_per_cell=1))["train"]
    assert {row["framing"] for row in rows} == {"abstract", "escalation", "sensor", "audit"}
    for row in rows:
        user, assistant = (message["content"] for message in row["messages"])
        assert user == row["prompt"] == render_row_prompt(row)
        rules_block = user.split("\n\n")[1]
        cited = {int(n) for n in re.findall(r"rule (\d+)", assistant)}
        assert cited and all(f"\n{n}. " in rules_block for n in cited)
        assert check_row(assistant, row) == ALL
        if row["framing"] != "abstract":  # the query is named as the prompt names it
            assert not re.search(r"\bq\b", assistant), assistant


def test_every_step_kind_has_its_rule_in_the_checker():
    assert set(JUSTIFIED) == set(STEP_KINDS)


def test_a_prompt_that_does_not_list_the_programs_rules_is_an_error(certificate):
    gold = render_gold_trace(PROGRAM, certificate, "wfs")
    with pytest.raises(ValueError, match="lists 0 rules, the program has 8"):
        check_steps(gold, certificate, "wfs", prompt="Rules:")
