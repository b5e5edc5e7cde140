"""Parallel generation from anywhere a user starts it (a script without a main guard, ``python -c``, IPython),
real worker processes seen from outside, and a worker that dies failing the call once with its cause."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pytest

from naf_bench.data.planner import PARALLEL_MIN_SAVING, processes, saving, unit_seconds
from naf_bench.data.pool import run_jobs
from naf_bench.data.rows import build_rows, generate_units, rows_json
from naf_bench.errors import ConfigError, WorkerError
from naf_bench.generate.config import CONFIGS, get_config

ROOT = Path(__file__).resolve().parents[2]
# sweep: 36 cells, ~0.5 s in one process, too little for processes to pay; the subprocesses below are told to use
# them wherever there are units to share (NAF_BENCH_PARALLEL_MIN_SAVING=0), and are seen doing so
CONFIG = "sweep"
# The README's 8,000-program sft run (98 s in one process on the quiet development machine, 1.8x with two)
LARGE = {"depths": (8, 10, 12, 14, 16), "widths": (4, 6), "programs_per_cell": 100}


@pytest.fixture(scope="module")
def one_process() -> str:
    return rows_json(build_rows(get_config(CONFIG))["test"])


def _workers(parent: int) -> set[int]:
    """The pool's worker processes (naf_bench.data.pool.WORKER) whose parent is ``parent``, read from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # not a process, or it ended meanwhile
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and b"naf_bench.data.pool" in cmdline:
            found.add(int(entry.name))
    return found


def _run(command: list[str], cwd: Path, kill_a_worker: bool = False, timeout: float = 300):
    """Run ``command`` with this checkout first on the path, watching its worker processes (killing the first
    seen, if asked); its exit status, stderr and the worker pids seen."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", NAF_BENCH_PARALLEL_MIN_SAVING="0")
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while process.poll() is None:
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"{command} still running after {timeout} s: it hangs")
        workers = _workers(process.pid)
        if kill_a_worker and workers and not seen:
            os.kill(min(workers), signal.SIGKILL)
        seen |= workers
        time.sleep(0.02)
    _, stderr = process.communicate()
    return process.returncode, stderr.decode(), seen


def test_load_dataset_num_proc_from_a_script_without_a_main_guard(tmp_path, one_process):
    # spawn workers would run this script again and wait on the cache lock this process holds
    (tmp_path / "script.py").write_text(
        textwrap.dedent(f"""\
            import naf_bench
            from naf_bench.data.rows import rows_json
            dataset = naf_bench.load_dataset({CONFIG!r}, num_proc=2, cache_dir="cache")
            open("rows.jsonl", "w").write(rows_json(dataset["test"].to_list()))
        """)
    )
    status, stderr, workers = _run([sys.executable, "script.py"], tmp_path)
    assert status == 0, stderr
    assert len(workers) == 2  # the pool really ran
    assert (tmp_path / "rows.jsonl").read_text() == one_process


def test_generate_num_proc_from_python_c_and_build_rows_from_ipython(tmp_path, one_process):
    arguments = ["generate", CONFIG, "--num-proc", "2", "--cache-dir", "cache", "--out", "c.jsonl"]
    code = f"from naf_bench.cli import main; main({arguments!r})"
    status, stderr, workers = _run([sys.executable, "-c", code], tmp_path)
    assert status == 0, stderr
    assert len(workers) == 2
    assert (tmp_path / "c.jsonl").read_text() == one_process
    # IPython's __main__ (as in a notebook) has no file; the same holds
    code = (
        "from naf_bench.generate.config import get_config; from naf_bench.data.rows import build_rows, rows_json; "
        f"open('i.jsonl', 'w').write(rows_json(build_rows(get_config({CONFIG!r}), num_proc=2)['test']))"
    )
    status, stderr, workers = _run([sys.executable, "-m", "IPython", "--no-banner", "-c", code], tmp_path)
    assert status == 0, stderr
    assert len(workers) == 2
    assert (tmp_path / "i.jsonl").read_text() == one_process


def test_a_killed_worker_fails_generate_once_naming_the_signal(tmp_path):
    command = [
        sys.executable,
        "-m",
        "naf_bench.cli",
        "generate",
        CONFIG,
        "--num-proc",
        "2",
        "--cache-dir",
        "cache",
        "--out",
        "x.jsonl",
    ]
    status, stderr, workers = _run(command, tmp_path, kill_a_worker=True, timeout=120)
    assert status == 1 and workers
    # the kill lands on a unit, or (on a loaded machine) before the worker said it was ready
    assert re.fullmatch(
        r"naf-bench generate: WorkerError: (unit .+|a worker process could not start): worker process \d+ killed by "
        r"signal 9 \(SIGKILL\)\n",
        stderr,
    ), stderr
    assert not (tmp_path / "x.jsonl").exists()


def render_or_die(config, split, position, instances):
    """A Render whose worker dies (as the out-of-memory killer would end it) at the fourth unit."""
    if position == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return [instance.key for instance in instances]


def test_a_worker_that_dies_is_a_worker_error_naming_its_unit():
    config = get_config(CONFIG, programs_per_cell=1)
    with pytest.raises(
        WorkerError, match=r"^unit 3 of 'sweep' \(control \{'depth': 8, .*\}\): worker process \d+ killed by signal 9"
    ):
        generate_units(config, render_or_die, num_proc=2, min_saving=0)


def test_a_job_the_worker_cannot_import_is_a_worker_error_with_its_last_words():
    module = types.ModuleType("only_here")  # in this process's modules, on no path a worker has
    exec("def double(x):\n    return 2 * x\n", module.__dict__)
    sys.modules["only_here"] = module
    try:
        with pytest.raises(
            WorkerError, match=r"(?s)job [01]: worker process \d+ exited with status 1.*No module named"
        ):
            run_jobs(module.double, [(1,), (2,)], 2)
    finally:
        del sys.modules["only_here"]
    assert run_jobs(json.dumps, [([1, 2],), ("x",)], 2) == ["[1, 2]", '"x"']


def test_an_exception_in_a_job_is_raised_again_here():
    with pytest.raises(json.JSONDecodeError, match="Expecting value"):
        run_jobs(json.loads, [("[1]",), ("not json",)], 2)


def _costs(name: str, **overrides) -> list[float]:
    config = get_config(name, **overrides)
    return [unit_seconds(config, unit) for unit in config.units()]


def test_parallel_only_where_it_pays_and_said_once(monkeypatch):
    large = _costs("sft", **LARGE)
    assert saving(large, 2) > 10 * PARALLEL_MIN_SAVING  # ~120 s of one core estimated, half of it saved
    assert processes(large, 2, cores=2) == 2 and processes(large, 4, cores=2) == 4
    assert processes(large, None) == processes(large, 1) == 1
    assert processes(large, 2, cores=1) == 1  # one core: processes only take turns
    near = _costs("sft", programs_per_cell=70)  # 4 units, ~6.7 s: two processes save ~3.3 s, just enough
    assert processes(near, 2, cores=2) == 2
    assert processes(near, 4, cores=2) == 1  # four workers on two cores start in two rounds: 6 s needed
    for name in CONFIGS:  # every shipped config takes ~2 s or less in one process: workers would not pay
        assert processes(_costs(name), 2) == 1, name
    sweep = _costs("sweep")
    assert processes(sweep, 2, min_saving=0) == 2
    monkeypatch.setenv("NAF_BENCH_PARALLEL_MIN_SAVING", "0")
    assert processes(sweep, 2) == 2
    monkeypatch.setenv("NAF_BENCH_PARALLEL_MIN_SAVING", "soon")
    with pytest.raises(ConfigError, match="NAF_BENCH_PARALLEL_MIN_SAVING='soon': expected seconds >= 0"):
        processes(sweep, 2)
    monkeypatch.delenv("NAF_BENCH_PARALLEL_MIN_SAVING")
    message = r"num_proc=2: 'wfs44' is generated in one process \(12 units, an estimated 0\.\d s of one core; 2 proc"
    with pytest.warns(UserWarning, match=message) as caught:
        two = build_rows(get_config("wfs44"), num_proc=2)
    assert len(caught) == 1
    assert rows_json(two["test"]) == rows_json(build_rows(get_config("wfs44"))["test"])


def test_the_estimate_grows_with_programs_rules_rows_and_orders():
    config = get_config("order", programs_per_cell=1)
    rows = build_rows(config)["test"]
    assert config.rows_per_program() == len(rows) // len({row["program_id"] for row in rows}) == 16
    base = sum(_costs("main"))
    assert sum(_costs("main", programs_per_cell=60)) == pytest.approx(2 * base)
    assert sum(_costs("main", depths=(16,), widths=(8,))) > 1.4 * base  # ~48 rules a program against ~27
    assert sum(_costs("main", framings=("abstract", "sensor"), conditions=("wfs",))) < base  # 2 rows, not 5
    assert sum(_costs("main", n_orders=4)) > 2 * base  # each order certified, and 4 times the named rows
