"""The RL stacks take naf-bench in as they take any task: reasoning-gym through its own factory, pipeline extractor
and CompositeDataset; verl's compute_score and OpenRLHF's reward_func loaded from their files by path and called
with the arguments those frameworks pass, ground truth serialised as they carry it. Their values are the answer and
JOINT rewards."""

import importlib.util
import json
from pathlib import Path

import pytest

import naf_bench.integrations
from naf_bench.readings import joint_conditions
from naf_bench.training.rewards import answer_reward, joint_golds, joint_reward
from naf_bench.training.stream import Stream
from naf_bench.verbalize.joint_prompt import answer_line

reasoning_gym = pytest.importorskip("reasoning_gym", reason="reasoning-gym is the rl extra's")
from reasoning_gym.composite import CompositeConfig, CompositeDataset, DatasetSpec  # noqa: E402
from reasoning_gym.factory import create_curriculum  # noqa: E402
from reasoning_gym.utils import extract_answer  # noqa: E402

import naf_bench.integrations.reasoning_gym  # noqa: E402  (registers naf_bench)

FOLDER = Path(naf_bench.integrations.__file__).parent
STREAM = Stream(seed=5, levels={"bins": 2, "conditions": 2, "depth": 1})
JOINT_STREAM = Stream(seed=5, levels={"bins": 2}, joint=True)


def _by_path(name):  # as verl (custom_reward_function.path) and OpenRLHF (--remote_rm_url x.py) load it
    spec = importlib.util.spec_from_file_location("custom_module", FOLDER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rewards(reward, texts, rows):
    columns = {key: [row[key] for row in rows] for key in rows[0]}
    return reward(prompts=[row["prompt"] for row in rows], completions=texts, **columns)


def _completions(rows):
    """Per row: its gold answer in the instructed format, and a wrong one."""
    out = []
    for row in rows:
        if row["condition"] == "joint":
            golds = joint_golds(row)
            right = "\n".join(answer_line(c, golds[c]) for c in joint_conditions())
            out += [f"Reasoning.\n{right}", right.replace(f"wfs ANSWER: {golds['wfs']}", "wfs ANSWER: ?")]
        else:
            wrong = "A" if row["gold"] != "A" else "B"
            out += [f"Reasoning.\nANSWER: {row['gold']}", f"Reasoning.\nANSWER: {wrong}"]
    return out


def test_reasoning_gym_creates_and_scores_it_through_its_pipeline():
    dataset = reasoning_gym.create_dataset("naf_bench", seed=5, size=6, depth=2, bins=STREAM.value("bins"),
                                           conditions=STREAM.value("conditions"))  # fmt: skip
    entries = list(dataset)
    assert len(entries) == 6 and [e["metadata"]["id"] for e in entries] == [STREAM[i]["id"] for i in range(6)]
    for entry in entries:
        right = f"<think>…</think>\n<answer>{entry['answer']}</answer>"
        assert dataset.score_answer(extract_answer(right, tag_name="answer"), entry) == 1.0
        wrong = "A" if entry["answer"] != "A" else "B"
        assert dataset.score_answer(extract_answer(f"<answer>ANSWER: {wrong}</answer>"), entry) == 0.0
        assert dataset.score_answer(extract_answer("no tags"), entry) == 0.0  # None: unanswered
        (reward,) = _rewards(answer_reward, [f"ANSWER: {entry['answer']}"], [STREAM[entry["metadata"]["source_index"]]])
        assert reward == 1.0


def test_reasoning_gym_joint_items_score_as_the_joint_reward():
    dataset = reasoning_gym.create_dataset("naf_bench", seed=5, size=3, bins=JOINT_STREAM.value("bins"), joint=True)
    for i, entry in enumerate(dataset):
        assert entry["metadata"]["condition"] == "joint"
        texts = _completions([JOINT_STREAM[i]])
        scores = [dataset.score_answer(text, entry) for text in texts]
        assert scores == _rewards(joint_reward, texts, [JOINT_STREAM[i]] * 2) == [1.0, 0.0]


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
    composite = CompositeDataset(CompositeConfig(size=30, seed=3, datasets=[
        DatasetSpec("naf_bench", 1.0, {"depth": 2}), DatasetSpec("basic_arithmetic", 1.0, {})]))  # fmt: skip
    sources = {}
    for entry in composite:
        sources.setdefault(entry["metadata"]["source_dataset"], []).append(entry)
        assert composite.score_answer(entry["answer"], entry) == 1.0
    assert set(sources) == {"naf_bench", "basic_arithmetic"}
    naf = sources["naf_bench"][0]
    assert composite.score_answer("ANSWER: " + naf["answer"], naf) == 1.0


def _parquet_rows(tmp_path, rows):  # verl's data: a parquet file read back with datasets, as its RLHFDataset does
    import datasets

    from naf_bench.integrations.verl import verl_rows

    datasets.Dataset.from_list(verl_rows(rows)).to_parquet(tmp_path / "train.parquet")
    return list(datasets.load_dataset("parquet", data_files=str(tmp_path / "train.parquet"), split="train"))


@pytest.mark.parametrize(("stream", "reward"), [(STREAM, answer_reward), (JOINT_STREAM, joint_reward)])
def test_verl_compute_score_as_verl_calls_it(tmp_path, stream, reward):
    rows = stream.items(0, 4)
    compute_score = _by_path("verl").compute_score
    texts = _completions(rows)
    verl = _parquet_rows(tmp_path, rows)
    scores = [compute_score(data_source=item["data_source"], solution_str=text,
                            ground_truth=item["reward_model"]["ground_truth"], extra_info=item["extra_info"])
              for item, text in zip([r for r in verl for _ in (0, 1)], texts, strict=True)]  # fmt: skip
    assert scores == _rewards(reward, texts, [r for r in rows for _ in (0, 1)]) == [1.0, 0.0] * 4
    with pytest.raises(ValueError, match="scores 'naf_bench' rows"):
        compute_score("gsm8k", texts[0], verl[0]["reward_model"]["ground_truth"])


@pytest.mark.parametrize(("stream", "reward"), [(STREAM, answer_reward), (JOINT_STREAM, joint_reward)])
def test_openrlhf_reward_func_as_openrlhf_calls_it(tmp_path, stream, reward):
    from naf_bench.integrations.openrlhf import openrlhf_rows

    rows = stream.items(0, 3)
    data = tmp_path / "prompts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in openrlhf_rows(rows)))
    items = [json.loads(line) for line in data.read_text().splitlines() for _ in (0, 1)]
    prompts = [item["prompt"][0]["content"] for item in items]  # the prompt as rendered for the model
    texts = _completions(rows)
    out = _by_path("openrlhf").reward_func(
        queries=[p + t for p, t in zip(prompts, texts, strict=True)],
        prompts=prompts,
        labels=[i["label"] for i in items],
    )
    assert (
        out["rewards"].tolist() == out["scores"].tolist() == _rewards(reward, texts, [r for r in rows for _ in (0, 1)])
    )
    assert out["rewards"].tolist() == [1.0, 0.0] * 3
    assert out["extra_logs"]["format_reward"].tolist()[0] == 1.0
