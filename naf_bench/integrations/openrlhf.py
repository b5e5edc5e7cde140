"""OpenRLHF: ``--remote_rm_url <this file> --label_key label --input_key prompt``.

OpenRLHF loads this file by path and calls ``reward_func(queries, prompts, labels)``: ``queries`` are prompt and
response together, ``labels`` the rows' ``label`` column, the JSON ground truth that :func:`openrlhf_rows` writes
(``naf-bench train stream --format openrlhf``).
"""

from __future__ import annotations

from naf_bench.training.rewards import format_score, ground_truth, verifiable_score


def reward_func(queries: list[str], prompts: list[str], labels: list[str]) -> dict:
    """``{"rewards", "scores", "extra_logs"}``: the answer (or JOINT) reward of each response as a tensor, and the
    format reward's in the logs."""
    import json

    import torch

    responses = [
        query[len(prompt) :] if query.startswith(prompt) else query
        for query, prompt in zip(queries, prompts, strict=True)
    ]
    scores = [verifiable_score(text, label) for text, label in zip(responses, labels, strict=True)]
    formats = [format_score(text, json.loads(label)) for text, label in zip(responses, labels, strict=True)]
    rewards = torch.tensor(scores, dtype=torch.float32)
    return {"rewards": rewards, "scores": rewards.clone(), "extra_logs": {"format_reward": torch.tensor(formats)}}


def openrlhf_rows(rows) -> list[dict]:
    """Stream rows as OpenRLHF's prompt data: ``prompt`` (a chat, for ``--apply_chat_template``) and ``label``."""
    return [{"prompt": [{"role": "user", "content": row["prompt"]}], "label": ground_truth(row)} for row in rows]
