"""The `evaluate` module folder: ``evaluate.load("modellog_metric", config)`` from the repository root,
or ``naf_bench.scoring.load_metric(config)`` from anywhere once naf-bench is installed."""
