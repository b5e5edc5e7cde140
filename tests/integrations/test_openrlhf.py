"""naf_bench.integrations.openrlhf: OpenRLHF's reward_func loaded from its file by path and called with the
arguments OpenRLHF passes, the labels serialised as its prompts file carries them; its values are the answer and
JOINT rewards."""

import json

import pytest

from naf_bench.training.rewards import answer_reward, joint_reward


@pytest.mark.parametrize("joint", [False, True], ids=["answer", "joint"])
def test_openrlhf_reward_func_as_openrlhf_calls_it(tmp_path, joint, streams, completions, trl_rewards, by_path):
    stream, reward = streams[joint], joint_reward if joint else answer_reward
    from naf_bench.integrations.openrlhf import openrlhf_rows

    rows = stream.items(0, 3)
    data = tmp_path / "prompts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in openrlhf_rows(rows)))
    items = [json.loads(line) for line in data.read_text().splitlines() for _ in (0, 1)]
    prompts = [item["prompt"][0]["content"] for item in items]  # the prompt as rendered for the model
    texts = completions(rows)
    out = by_path("openrlhf").reward_func(
        queries=[p + t for p, t in zip(prompts, texts, strict=True)],
        prompts=prompts,
        labels=[i["label"] for i in items],
    )
    assert (
        out["rewards"].tolist()
        == out["scores"].tolist()
        == trl_rewards(reward, texts, [r for r in rows for _ in (0, 1)])
    )
    assert out["rewards"].tolist() == [1.0, 0.0] * 3
    assert out["extra_logs"]["format_reward"].tolist()[0] == 1.0
