"""naf_bench.integrations.verl: verl's compute_score loaded from its file by path, called with the arguments verl
passes on rows read back from parquet as verl's RLHFDataset reads them; its values are the answer and JOINT rewards."""

import pytest

from naf_bench.training.rewards import answer_reward, joint_reward


def _parquet_rows(tmp_path, rows):  # verl's data: a parquet file read back with datasets, as its RLHFDataset does
    import datasets

    from naf_bench.integrations.verl import verl_rows

    datasets.Dataset.from_list(verl_rows(rows)).to_parquet(tmp_path / "train.parquet")
    return list(datasets.load_dataset("parquet", data_files=str(tmp_path / "train.parquet"), split="train"))


@pytest.mark.parametrize("joint", [False, True], ids=["answer", "joint"])
def test_verl_compute_score_as_verl_calls_it(tmp_path, joint, streams, completions, trl_rewards, by_path):
    stream, reward = streams[joint], joint_reward if joint else answer_reward
    rows = stream.items(0, 4)
    compute_score = by_path("verl").compute_score
    texts = completions(rows)
    verl = _parquet_rows(tmp_path, rows)
    scores = [
        compute_score(
            data_source=item["data_source"],
            solution_str=text,
            ground_truth=item["reward_model"]["ground_truth"],
            extra_info=item["extra_info"],
        )
        for item, text in zip([r for r in verl for _ in (0, 1)], texts, strict=True)
    ]
    assert scores == trl_rewards(reward, texts, [r for r in rows for _ in (0, 1)]) == [1.0, 0.0] * 4
    with pytest.raises(ValueError, match="scores 'naf_bench' rows"):
        compute_score("gsm8k", texts[0], verl[0]["reward_model"]["ground_truth"])
