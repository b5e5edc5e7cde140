"""naf_bench.runs.tasks_path: ``python -m naf_bench.runs.tasks_path`` prints the folder to give lm-eval's
``--include_path``, the one holding the naf_bench task group."""

import subprocess
import sys
from pathlib import Path

from naf_bench.runs.run import tasks_dir


def test_running_the_module_prints_the_include_path_of_the_naf_bench_tasks():
    done = subprocess.run(
        [sys.executable, "-m", "naf_bench.runs.tasks_path"], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == f"{tasks_dir()}\n"
    assert (Path(done.stdout.strip()) / "naf_bench" / "naf_bench.yaml").is_file()
