"""Programs into prompts: templates per language and framing, rule orders, typed prompts, gold traces."""

from naf_bench.verbalize.prompt import Prompt, build_prompt, render_prompt, render_rules

__all__ = ["Prompt", "build_prompt", "render_prompt", "render_rules"]
