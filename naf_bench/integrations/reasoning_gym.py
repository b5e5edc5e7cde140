"""reasoning-gym: ``import naf_bench.integrations.reasoning_gym`` registers the dataset ``naf_bench``.

Then ``reasoning_gym.create_dataset("naf_bench", seed=0, size=500, depth=4, ...)`` gives the training stream's
items (:class:`naf_bench.training.stream.Stream`) as reasoning-gym entries, ``{"question", "answer", "metadata"}``,
and ``reasoning_gym.create_curriculum("naf_bench")`` its curriculum (depth, width, bins, readings). The dataset's
``score_answer(answer, entry)`` is the answer reward (the JOINT reward on a JOINT item) of the text reasoning-gym's
pipelines extract (``extract_answer(completion, tag_name="answer")``): the letter alone, or ``ANSWER: X``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reasoning_gym.coaching import BaseCurriculum, ScalarAttributeDefinition
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import register_dataset

from naf_bench.errors import ConfigError
from naf_bench.readings import joint_conditions
from naf_bench.training import rewards
from naf_bench.training.stream import CURRICULUM, JOINT, Stream
from naf_bench.verbalize.joint_prompt import answer_line

DATASET_NAME = "naf_bench"
SCORED = ("id", "condition", "gold", "labels", "certificate", "program", "query", "framing", "language", "prompt")


@dataclass
class NafBenchConfig:
    """The stream's settings as reasoning-gym configs hold them: each curriculum attribute by its value."""

    seed: int | None = None
    size: int = 500
    depth: int = CURRICULUM["depth"][0]
    width: int = CURRICULUM["width"][0]
    bins: tuple[str, ...] = CURRICULUM["bins"][0]
    conditions: tuple[str, ...] = CURRICULUM["conditions"][0]
    language: str = "en"
    framing: str = "abstract"
    joint: bool = False

    def stream(self, seed: int) -> Stream:
        """The :class:`Stream` of these settings (a ValueError names a value off the curriculum's ladders)."""
        levels = {}
        for name in CURRICULUM:
            value = getattr(self, name)
            value = tuple(value) if isinstance(value, list) else value
            if value not in CURRICULUM[name]:
                raise ValueError(
                    f"naf_bench: {name}={value!r} is not on the curriculum; expected one of {CURRICULUM[name]}"
                )
            levels[name] = CURRICULUM[name].index(value)
        try:
            return Stream(seed, levels, self.language, self.framing, joint=self.joint)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    def validate(self) -> None:
        if self.size < 1:
            raise ValueError(f"naf_bench: size must be positive, got {self.size}")
        self.stream(0)


class NafBenchDataset(ProceduralDataset):
    """The training stream as a reasoning-gym dataset (item ``idx`` is the stream's item ``idx``)."""

    def __init__(self, config: NafBenchConfig):
        super().__init__(config=config, seed=config.seed, size=config.size)
        self.stream = config.stream(self.seed)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        row = self.stream[idx]
        if row["condition"] == JOINT:
            golds = rewards.joint_golds(row)
            answer = "\n".join(answer_line(condition, golds[condition]) for condition in joint_conditions())
        else:
            answer = row["gold"]
        difficulty = {name: getattr(self.config, name) for name in CURRICULUM}
        return {
            "question": row["prompt"],
            "answer": answer,
            "metadata": {"source_dataset": DATASET_NAME, "source_index": idx, "difficulty": difficulty}
            | {key: row[key] for key in SCORED},
        }

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """The answer reward (the JOINT reward on a JOINT item) of the extracted answer; 0.0 when there is none."""
        row = entry["metadata"]
        value = (
            rewards.joint_score(answer or "", row)
            if row["condition"] == JOINT
            else rewards.answer_score(answer or "", row)
        )
        return 0.0 if value is None else value


class NafBenchCurriculum(BaseCurriculum):
    """One scalar attribute per ladder of :data:`naf_bench.training.stream.CURRICULUM`."""

    def __init__(self):
        super().__init__(NafBenchCurriculum.__name__, NafBenchConfig)
        attributes = [
            ScalarAttributeDefinition(
                name=name, field_name=name, levels=list(levels), description=f"the stream's {name}"
            )
            for name, levels in CURRICULUM.items()
        ]
        self._define_attributes(*attributes)


register_dataset(DATASET_NAME, NafBenchDataset, NafBenchConfig, NafBenchCurriculum)
