"""Integrations: one module per outside framework that takes naf-bench in, each as thin as the framework allows,
each calling the scoring core, the rewards (:mod:`naf_bench.training.rewards`) and the stream
(:mod:`naf_bench.training.stream`).

- :mod:`.reasoning_gym`: ``import naf_bench.integrations.reasoning_gym`` registers the dataset ``naf_bench``
  (with a curriculum) with reasoning-gym's ``register_dataset`` (the ``rl`` extra).
- :mod:`.verl`: a file to point verl's ``custom_reward_function.path`` at (``compute_score``), and the rows of
  its parquet data (``verl_rows``).
- :mod:`.openrlhf`: a file to point OpenRLHF's ``--remote_rm_url`` at (``reward_func``), and its prompt rows.
- :mod:`.tasks`: the generative tasks of the lm-eval folder, read from its yaml files, for the harnesses below.
- :mod:`.inspect`: every such task as an inspect_ai ``@task`` (``naf_bench/<task>``, the ``inspect`` extra's entry
  point), with the core's scorer and JOINT among its metrics.
- :mod:`.lighteval`: lighteval's ``TASKS_TABLE`` for ``--custom-tasks naf_bench.integrations.lighteval``.

TRL needs no module here: its ``GRPOTrainer`` takes the rewards as they are (``naf-bench train grpo``).
"""
