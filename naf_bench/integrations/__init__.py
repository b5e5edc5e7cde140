"""Outside frameworks that register naf-bench: one module per framework, each a thin shell over the scoring core."""
