"""Runs: ``naf-bench run`` through lm-eval (local models and endpoints), the reasoner baselines, lm-eval's
output folders, and reports."""
