"""The naf_bench tasks: yaml configs and their utils (loaded by lm-eval from this folder)."""
