"""naf_bench.integrations.reasoning_gym: reasoning-gym takes naf-bench in as it takes any task, through its own
factory, answer extractor, curriculum and CompositeDataset; its scores are the answer and JOINT rewards."""

import pytest

from naf_bench.training.rewards import answer_reward, joint_reward

reasoning_gym = pytest.importorskip("reasoning_gym", reason="reasoning-gym is the rl extra's")
from reasoning_gym.composite import CompositeConfig, CompositeDataset, DatasetSpec  # noqa: E402
from reasoning_gym.factory import create_curriculum  # noqa: E402
from reasoning_gym.utils import extract_answer  # noqa: E402

import naf_bench.integrations.reasoning_gym  # noqa: E402, F401  (registers naf_bench)


def test_reasoning_gym_creates_and_scores_it_through_its_pipeline(streams, trl_rewards):
    dataset = reasoning_gym.create_dataset(
        "naf_bench",
        seed=5,
        size=6,
        depth=2,
        bins=streams[False].value("bins"),
        conditions=streams[False].value("conditions"),
    )
    entries = list(dataset)
    assert len(entries) == 6 and [e["metadata"]["id"] for e in entries] == [streams[False][i]["id"] for i in range(6)]
    for entry in entries:
        right = f"<think>…</think>\n<answer>{entry['answer']}</answer>"
        assert dataset.score_answer(extract_answer(right, tag_name="answer"), entry) == 1.0
        wrong = "A" if entry["answer"] != "A" else "B"
        assert dataset.score_answer(extract_answer(f"<answer>ANSWER: {wrong}</answer>"), entry) == 0.0
        assert dataset.score_answer(extract_answer("no tags"), entry) == 0.0  # None: unanswered
        (reward,) = trl_rewards(
            answer_reward, [f"ANSWER: {entry['answer']}"], [streams[False][entry["metadata"]["source_index"]]]
        )
        assert reward == 1.0


def test_reasoning_gym_joint_items_score_as_the_joint_reward(streams, completions, trl_rewards):
    dataset = reasoning_gym.create_dataset("naf_bench", seed=5, size=3, bins=streams[True].value("bins"), joint=True)
    for i, entry in enumerate(dataset):
        assert entry["metadata"]["condition"] == "joint"
        texts = completions([streams[True][i]])
        scores = [dataset.score_answer(text, entry) for text in texts]
        assert scores == trl_rewards(joint_reward, texts, [streams[True][i]] * 2) == [1.0, 0.0]


def test_curriculum_and_a_composite_beside_reasoning_gyms_own():
    curriculum = create_curriculum("naf_bench")
    assert set(curriculum.attributes) == {"depth", "width", "bins", "conditions"}
    curriculum.increment_attr_level("depth")
    curriculum.increment_attr_level("conditions")
    config = curriculum.generate_configuration({"seed": 1, "size": 4})
    assert (config.depth, config.conditions) == (2, ("closed_world", "wfs"))
    assert all(
        entry["metadata"]["difficulty"]["depth"] == 2
        for entry in reasoning_gym.create_dataset("naf_bench", **vars(config))
    )
    composite = CompositeDataset(
        CompositeConfig(
            size=30,
            seed=3,
            datasets=[DatasetSpec("naf_bench", 1.0, {"depth": 2}), DatasetSpec("basic_arithmetic", 1.0, {})],
        )
    )
    sources = {}
    for entry in composite:
        sources.setdefault(entry["metadata"]["source_dataset"], []).append(entry)
        assert composite.score_answer(entry["answer"], entry) == 1.0
    assert set(sources) == {"naf_bench", "basic_arithmetic"}
    naf = sources["naf_bench"][0]
    assert composite.score_answer("ANSWER: " + naf["answer"], naf) == 1.0
