"""lm-eval-harness task folders of naf-bench (``--include_path lm_eval_tasks``)."""
