"""Integrations: one module per outside framework that takes naf-bench in, each as thin as the framework allows,
each calling the rewards (:mod:`naf_bench.training.rewards`) and the stream (:mod:`naf_bench.training.stream`).

- :mod:`.reasoning_gym`: ``import naf_bench.integrations.reasoning_gym`` registers the dataset ``naf_bench``
  (with a curriculum) with reasoning-gym's ``register_dataset`` (the ``rl`` extra).
- :mod:`.verl`: a file to point verl's ``custom_reward_function.path`` at (``compute_score``), and the rows of
  its parquet data (``verl_rows``).
- :mod:`.openrlhf`: a file to point OpenRLHF's ``--remote_rm_url`` at (``reward_func``), and its prompt rows.

TRL needs no module here: its ``GRPOTrainer`` takes the rewards as they are (``naf-bench train grpo``).
"""
