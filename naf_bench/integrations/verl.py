"""verl: ``custom_reward_function.path=<this file> custom_reward_function.name=compute_score``.

verl loads this file by path and calls ``compute_score(data_source=..., solution_str=..., ground_truth=...,
extra_info=...)`` per response, ``ground_truth`` being the row's ``reward_model.ground_truth`` from the parquet
data that :func:`verl_rows` makes (``naf-bench train stream --format verl``).
"""

from __future__ import annotations

from naf_bench.training import rewards

DATA_SOURCE = "naf_bench"


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None) -> float:
    """The answer reward of the response (the JOINT reward on a JOINT row), from its ground truth string."""
    if data_source != DATA_SOURCE:
        raise ValueError(f"compute_score scores {DATA_SOURCE!r} rows, got data_source {data_source!r}")
    return rewards.verifiable_score(solution_str, ground_truth)


def verl_rows(rows, split: str = "train") -> list[dict]:
    """Stream rows as verl's RL parquet rows (its ``data_preprocess`` layout): a chat prompt, the reward's ground
    truth, and where the row came from."""
    return [
        {
            "data_source": DATA_SOURCE,
            "prompt": [{"role": "user", "content": row["prompt"]}],
            "ability": "logic",
            "reward_model": {"style": "rule", "ground_truth": rewards.ground_truth(row)},
            "extra_info": {"split": split, "index": index, "id": row["id"]},
        }
        for index, row in enumerate(rows)
    ]
