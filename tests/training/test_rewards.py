"""The RL rewards are the metric: on hand-written completions each reward is the value stated, and equals what
``naf-bench score``'s record, the evaluate module and the step checker say of the same text with the same
extractor; a property test compares them on generated completions."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import naf_bench.scoring
from naf_bench.certify import certify
from naf_bench.data.rows import instance_rows
from naf_bench.generate.algorithm import Instance
from naf_bench.scoring.evaluation import score_rows
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR
from naf_bench.scoring.labels import compute_label_metrics
from naf_bench.syntax.parse import parse_program
from naf_bench.training import rewards
from naf_bench.training.rewards import (
    EXTRACTOR,
    answer_reward,
    format_reward,
    joint_reward,
    pooled,
    proof_reward,
    reading_reward,
)
from naf_bench.training.stream import Stream

# cred T, skept F, wfs u, sldnf loop: gold A (cred), B (skept), C (wfs and closed_world)
PROGRAM = parse_program("c.\nb :- c.\nd :- not b.\nx :- not y.\ny :- not x.\nq :- not d, x.")


def _row(condition, joint=False, traced=True):
    certificate = certify(PROGRAM, "q")
    instance = Instance(
        PROGRAM,
        "q",
        certificate,
        "even_one_sided",
        "even_one_sided",
        {"depth": 1, "width": 0},
        0,
        "key",
        ((PROGRAM, certificate),),
    )
    (row,) = instance_rows(Stream(traced=traced).config(condition), instance, 0)
    return row


WFS = _row("wfs")
SOUND = WFS["gold_trace"]
WRONG_STEP = SOUND.replace("b is true by rule 2: c.", "b is true by rule 3: c.")
THINK_THEN_ANSWER = "<think>Under WFS the cycle x/y is undefined... ANSWER: B</think>\nANSWER: C"

# (completion, answer reward, format reward, proof reward) on the wfs row (gold C)
TABLE = [
    ("Reasoning.\nANSWER: C", 1.0, 1.0, 0.0),
    ("Reasoning.\nANSWER: B", 0.0, 1.0, 0.0),
    ("So the answer is probably C.", 0.0, 0.0, 0.0),  # a hedge stays unanswered
    ("x and y form an even loop, so q is undefined: $\\boxed{C}$", 1.0, 0.0, 0.0),  # read by flexible only
    ("**ANSWER: (C)**", 1.0, 1.0, 0.0),  # markdown around the instructed line
    (THINK_THEN_ANSWER, 1.0, 1.0, 0.0),  # the <think> block's answer is not read
    ("<think>q depends on x, which loops, so ANSWER: C", 0.0, 0.0, 0.0),  # truncated inside <think>
    ("Step 1: c is true by rule 1: it is a fact.\nStep 2: b is", 0.0, 0.0, 0.0),  # truncated trace
    (SOUND, 1.0, 1.0, 1.0),  # a sound proof ending in the gold letter
    (WRONG_STEP, 1.0, 1.0, 0.75),  # one step cites the wrong rule: not valid; parsed, linear, connects hold
    (SOUND.replace("ANSWER: C", "ANSWER: A"), 0.0, 1.0, 0.75),  # a sound derivation, the wrong letter
]


def _call(reward, completions, rows):
    columns = {key: [row[key] for row in rows] for key in rows[0]}
    return reward(
        prompts=[row["prompt"] for row in rows],
        completions=completions,
        completion_ids=None,
        trainer_state=None,
        log_extra=None,
        log_metric=None,
        **columns,
    )


def test_the_extractor_is_the_scoring_core_default():
    assert EXTRACTOR == DEFAULT_EXTRACTOR == "flexible"


@pytest.mark.parametrize(("text", "answer", "form", "proof"), TABLE)
def test_rewards_of_hand_written_completions(text, answer, form, proof):
    assert _call(answer_reward, [text], [WFS]) == [answer]
    assert _call(format_reward, [text], [WFS]) == [form]
    assert _call(proof_reward, [text], [WFS]) == [proof]
    conversation = [[{"role": "assistant", "content": text}]]  # a conversational dataset's completions
    assert _call(answer_reward, conversation, [WFS]) == [answer]


def test_rewards_equal_score_and_the_metric():
    texts = [text for text, *_ in TABLE]
    rows = [WFS | {"id": f"r{i}", "program_id": f"p{i}"} for i in range(len(texts))]
    answers = _call(answer_reward, texts, rows)
    record = score_rows(rows, {row["id"]: {"prediction": t} for row, t in zip(rows, texts, strict=True)}, n_bootstrap=0)
    assert record.extractor == EXTRACTOR and record.per_prompt_accuracy == sum(answers) / len(answers)
    label = naf_bench.scoring.load_metric("label")
    proof = naf_bench.scoring.load_metric("proof")
    for text, row, reward in zip(texts, rows, answers, strict=True):
        assert (
            label.compute(predictions=[text], references=["C"], extractor=EXTRACTOR, n_bootstrap=0)["strict_accuracy"]
            == reward
        )
        strict = label.compute(predictions=[text], references=["C"], extractor="strict", n_bootstrap=0)
        assert strict["coverage"] == _call(format_reward, [text], [row])[0]
        flags = proof.compute(
            predictions=[text],
            certificates=[row["certificate"]],
            conditions=["wfs"],
            framings=["abstract"],
            languages=["en"],
            prompts=[row["prompt"]],
        )["flags"]
        assert sum(v[0] for v in flags.values()) / 4 == _call(proof_reward, [text], [row])[0]


def test_none_where_a_row_has_nothing_to_score():
    none_row = _row("none", traced=False)
    assert none_row["gold"] is None
    assert _call(answer_reward, ["ANSWER: A"], [none_row]) == [None]
    assert _call(proof_reward, ["ANSWER: A"], [none_row]) == [None]
    assert _call(joint_reward, ["ANSWER: A"], [WFS]) == [None]  # not a JOINT row


JOINT_ROW = Stream(joint=True)[0] | {key: _row("wfs", traced=False)[key] for key in ("labels", "certificate")}


@pytest.mark.parametrize(
    ("text", "joint", "per_reading", "form"),
    [
        ("closed_world ANSWER: C\ncred ANSWER: A\nskept ANSWER: B\nwfs ANSWER: C", 1.0, [1, 1, 1, 1], 1.0),
        ("**closed_world** ANSWER: C\n[cred] ANSWER: A\n- skept: B\nwfs: \\boxed{C}", 1.0, [1, 1, 1, 1], 0.75),
        ("closed_world ANSWER: C\ncred ANSWER: A\nskept ANSWER: A\nwfs ANSWER: C", 0.0, [1, 1, 0, 1], 1.0),
        ("<think>wfs ANSWER: A</think>closed_world ANSWER: C\ncred ANSWER: A\nskept ANSWER: B", 0, [1, 1, 1, 0], 0.75),
        ("ANSWER: C", 0.0, [0, 0, 0, 0], 0.0),
    ],
)
def test_joint_reward_on_a_joint_prompt(text, joint, per_reading, form):
    assert _call(joint_reward, [text], [JOINT_ROW]) == [joint]
    assert [_call(reading_reward(c), [text], [JOINT_ROW])[0] for c in ("closed_world", "cred", "skept", "wfs")] == [
        float(v) for v in per_reading
    ]
    assert _call(format_reward, [text], [JOINT_ROW]) == [form]
    assert _call(answer_reward, [text], [JOINT_ROW]) == [None]  # a JOINT row has no single gold


def test_reward_names_are_what_trl_logs():
    assert [f.__name__ for f in rewards.rewards(["answer", "format", "proof", "joint", "answer_wfs"])] == [
        "answer_reward",
        "format_reward",
        "proof_reward",
        "joint_reward",
        "answer_wfs",
    ]
    with pytest.raises(ValueError, match="unknown rewards"):
        rewards.rewards(["answr"])


def test_a_process_pool_gives_the_same_rewards():
    texts = [text for text, *_ in TABLE]
    reward = pooled("proof", processes=2, chunk=3)
    try:
        assert _call(reward, texts, [WFS] * len(texts)) == [proof for *_, proof in TABLE]
    finally:
        reward.pool.shutdown()


PIECES = st.sampled_from(["ANSWER: A", "ANSWER: C", "answer: b", "\\boxed{C}", "\\boxed{B}", "<think>", "</think>",
                          "The answer is C.", "probably A", "Definitely no.", "C", "**B**", "\n", " ", "so q is",
                          "undefined", "true", SOUND[:40], "Verdict: q is undefined."])  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.lists(PIECES, max_size=8).map("".join), st.sampled_from(["cred", "skept", "wfs", "closed_world"]))
def test_reward_equals_metric_on_generated_completions(text, condition):
    row = _row(condition, traced=False)
    (reward,) = _call(answer_reward, [text], [row])
    record = score_rows([row], {row["id"]: {"prediction": text}}, n_bootstrap=0)
    assert record.per_prompt_accuracy == reward
    metric = compute_label_metrics([text], [row["gold"]], extractor=EXTRACTOR, n_bootstrap=0)
    assert metric["strict_accuracy"] == reward
    strict = compute_label_metrics([text], [row["gold"]], extractor="strict", n_bootstrap=0)
    assert strict["coverage"] == _call(format_reward, [text], [row])[0]


def test_certificate_columns_are_read_as_trl_passes_them():
    row = json.loads(json.dumps(WFS))  # through JSON, as a datasets column comes back
    assert _call(proof_reward, [SOUND], [row]) == [1.0]
