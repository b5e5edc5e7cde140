"""The lm-eval tasks' tests' fixture: the ``lm_eval`` command line with our task folder."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def lm_eval(*args, cwd, timeout=1500):
    """The lm_eval CLI, run outside the repository (a folder named like a task would be taken for it)."""
    command = [sys.executable, "-m", "lm_eval", *args, "--include_path", str(ROOT / "lm_eval_tasks")]
    return subprocess.run(command, cwd=cwd, env=OFFLINE, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session", name="lm_eval")
def lm_eval_fixture():
    """``lm_eval(*args, cwd, timeout=1500) -> CompletedProcess``: ``python -m lm_eval ARGS --include_path
    lm_eval_tasks``, offline, in ``cwd``."""
    return lm_eval
