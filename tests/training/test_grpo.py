"""``naf-bench train grpo``: two GRPO steps of TRL's GRPOTrainer on a tiny model built here, on the stream, whose
logged reward means are the rewards of the completions it generated; the curriculum climbs as reward rises."""

import json
import re
from collections import defaultdict

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("peft")

from naf_bench.cli import main
from naf_bench.training.grpo import Climb, held_out_seed
from naf_bench.training.rewards import answer_reward, format_reward
from naf_bench.training.stream import Stream


def test_two_grpo_steps_log_the_rewards_of_their_completions(tiny_chat_lm, tmp_path):
    out = tmp_path / "grpo"
    argv = ["train", "grpo", "--model", str(tiny_chat_lm), "--max-steps", "2", "--out", str(out), "--device", "cpu",
            "--num-generations", "4", "--batch-size", "4", "--max-completion-length", "12", "--eval-items", "3",
            "--reward", "answer", "format", "--climb-at", "2"]  # fmt: skip
    assert main(argv) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    logged = [entry for entry in metrics["log"] if "rewards/answer_reward/mean" in entry]
    assert [entry["step"] for entry in logged] == [1, 2]
    assert all(entry["curriculum_level"] == 0 for entry in logged)
    recorded = [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]
    stream = Stream(seed=0)
    by_step = defaultdict(lambda: defaultdict(list))
    for item in recorded:
        row = stream[int(re.search(r"-i(\d+)-", item["id"]).group(1))]
        assert row["id"] == item["id"]
        reward = {"answer_reward": answer_reward, "format_reward": format_reward}[item["reward"]]
        (value,) = reward(
            prompts=[row["prompt"]],
            completions=[[{"role": "assistant", "content": item["completion"]}]],
            **{key: [row[key]] for key in ("gold", "condition", "labels", "certificate")},
        )
        assert value == item["value"]
        by_step[item["step"] + 1][item["reward"]].append(value)
    for entry in logged:
        for name in ("answer_reward", "format_reward"):
            values = by_step[entry["step"]][name]
            assert len(values) == 4  # one group of four completions of one prompt
            assert entry[f"rewards/{name}/mean"] == pytest.approx(sum(values) / len(values))
    for moment in ("before", "after"):
        assert metrics[moment]["n"] == 3 and set(metrics[moment]["rewards"]) == {"answer_reward", "format_reward"}
    assert metrics["config"]["held_out_seed"] == held_out_seed(0) != 0
    assert (out / "adapter" / "adapter_config.json").exists()


def test_the_curriculum_climbs_when_the_reward_reaches_the_threshold():
    climb = Climb(Stream(), "answer_reward", 0.8)
    climb.observe(1, {"rewards/answer_reward/mean": 0.5})
    assert climb.level == 0
    climb.observe(2, {"rewards/answer_reward/mean": 0.9})
    assert climb.level == 4 and climb.levels[-1] == (2, dict(climb.stream.levels))
    assert next(climb.examples())["prompt"][0]["content"] == Stream(levels=climb.stream.levels)[0]["prompt"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--num-generations", "1"], "--num-generations must be >= 2"),
        (["--reward", "answr"], "unknown rewards"),
        (["--joint", "--reward", "answer"], "reward them with joint"),
        (["--level", "1", "2"], "one level per curriculum attribute"),
        (["--level", "9", "0", "0", "0"], "depth level 9"),
    ],
)
def test_bad_options_are_refused_before_a_model_loads(tmp_path, capsys, extra, message):
    argv = ["train", "grpo", "--model", str(tmp_path / "absent"), "--max-steps", "1", "--out", str(tmp_path / "o")]
    assert main(argv + extra) == 2
    assert message in capsys.readouterr().err
