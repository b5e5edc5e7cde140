"""Programs into prompts: templates per language and framing, conditions, gold letters, leakage check."""

from naf_bench.verbalize.prompt import CONDITIONS, Prompt, build_prompt, gold_letter, render_prompt, render_rules

__all__ = ["CONDITIONS", "Prompt", "build_prompt", "gold_letter", "render_prompt", "render_rules"]
