"""Tests of the harnesses (inspect_ai, lighteval) that run in their own environment (scripts/harness_envs.sh)."""
