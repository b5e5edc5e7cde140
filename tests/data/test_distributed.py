"""Generation on Ray: exactly the rows one process (and ``export``) makes, in the Hub layout, resumable.

A local Ray with 2 CPUs, started once for the module; skipped when Ray is not installed.
"""

import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import datasets
import pytest

from naf_bench.cli import main
from naf_bench.data.hub import export, withhold_gold
from naf_bench.data.rows import build_rows, rows_json
from naf_bench.generate.config import get_config
from naf_bench.readings import READINGS

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'naf-bench[ray]')")
psutil = pytest.importorskip("psutil", reason="psutil (a Ray dependency) is not installed")

from naf_bench.data.distributed import (  # noqa: E402
    ManifestError,
    _preflight,
    code_identity,
    generate_on_ray,
    node_problems,
    start_local_ray,
)

PYTHONPATH = os.environ.get("PYTHONPATH")  # this process's, before the local Ray starts


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    start_local_ray(num_cpus=2, object_store_memory=150 * 2**20)
    yield
    ray.shutdown()


def test_the_workers_import_what_the_driver_imports_and_its_environment_is_kept():
    tests = str(Path(__file__).parents[2])  # where pytest imports the test packages from: on its sys.path
    assert tests in sys.path
    assert tests in ray.get(ray.remote(lambda: sys.path).remote())
    assert os.environ.get("PYTHONPATH") == PYTHONPATH


def loaded(folder, config, tmp_path):
    dataset = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "hf"))
    return {split: rows_json(part.to_list()) for split, part in dataset.items()}


@functools.cache
def one_process(config, **overrides):
    return build_rows(get_config(config, **overrides))


def expected(config, **overrides):
    """The rows one process makes, as export releases them (hard test without gold)."""
    withheld = {"hard": ("test",)}.get(config, ())
    return {
        split: rows_json([withhold_gold(row) for row in part] if split in withheld else part)
        for split, part in one_process(config, **overrides).items()
    }


@pytest.fixture(scope="module")
def main_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ray") / "naf-bench"
    manifest = generate_on_ray("main", str(out), progress=False)
    return out, manifest


def test_main_is_the_rows_of_one_process_in_the_hub_layout(main_run, tmp_path):
    out, manifest = main_run
    names = sorted(p.name for p in (out / "data" / "main").iterdir())
    assert names == ["manifest.json"] + [f"test-{i:05d}-of-00004.parquet" for i in range(4)]  # a file per cell
    assert loaded(out, "main", tmp_path) == expected("main")
    assert manifest["passes"] == 1 and [len(f["attempts"]) for f in manifest["files"]["test"]] == [30] * 4
    card = (out / "README.md").read_text()
    assert "config_name: main" in card and "num_examples: 600" in card and (out / "LICENSE").is_file()


def test_the_folder_uploads_as_it_is(main_run, capsys):
    import importlib.util

    script = Path(__file__).parents[2] / "scripts" / "push_to_hub.py"
    spec = importlib.util.spec_from_file_location("push_to_hub", script)
    push = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(push)
    out, _ = main_run
    assert push.main(["--repo-id", "ORG/naf-bench", "--folder", str(out), "--dry-run"]) == 0
    assert "would upload data/main/test-00003-of-00004.parquet" in capsys.readouterr().out


def test_a_node_without_swipl_or_with_other_code_is_named(monkeypatch):
    here = code_identity()
    identity = READINGS.handing(code_identity)
    ready = ray.get(ray.remote(_preflight).remote(identity))  # what every run asks each node first
    assert (
        ready["swipl"] == shutil.which("swipl")
        and node_problems([{"NodeManagerAddress": "10.0.0.7"}], [ready], here) == []
    )
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # a node whose PATH has Python but no swipl
    bare = _preflight(identity)
    assert bare["swipl"].startswith("missing (SWI-Prolog ('swipl') was not found on PATH")
    older = {**ready, "code_version": "0" * 16}
    nodes = [{"NodeManagerAddress": "10.0.0.8"}, {"NodeManagerAddress": "10.0.0.9"}]
    assert node_problems(nodes, [bare, older], here) == [
        f"{bare['node']} (10.0.0.8): SWI-Prolog {bare['swipl']}",
        f"{older['node']} (10.0.0.9): naf-bench {here['naf_bench']} with row code {'0' * 16}, not "
        f"{here['naf_bench']} with {here['code_version']}",
    ]


def test_a_registered_reading_reaches_every_node_or_is_named(tmp_path, wfs2_reading):
    wfs2, two_valued = wfs2_reading
    READINGS.register(wfs2, two_valued)  # the table travels with every task; its engine imports on the workers
    try:
        out = tmp_path / "naf-bench"
        generate_on_ray("main", str(out), {"programs_per_cell": 2}, progress=False)
        rows = loaded(out, "main", tmp_path)
        assert rows == {"test": rows_json(build_rows(get_config("main", programs_per_cell=2))["test"])}
        assert rows["test"].count('"condition": "wfs2"') == 8
        only_here = types.ModuleType("only_here")  # in this process's modules, on no path a worker has
        exec("def two_valued(solved, query):\n    raise NotImplementedError\n", only_here.__dict__)
        sys.modules["only_here"] = only_here
        READINGS.unregister("wfs2")
        READINGS.register(wfs2, only_here.two_valued)
        try:
            report = ray.get(ray.remote(_preflight).remote(READINGS.handing(code_identity)))
        finally:
            del sys.modules["only_here"]
        assert node_problems([{"NodeManagerAddress": "10.0.0.7"}], [report], code_identity()) == [
            f"{report['node']} (10.0.0.7): reading 'wfs2': its engine only_here:two_valued does not import here "
            "(ModuleNotFoundError: No module named 'only_here')"
        ]
    finally:
        READINGS.unregister("wfs2")


def test_resume_keeps_complete_files_and_makes_the_rest(main_run, tmp_path):
    out, _ = main_run
    folder = out / "data" / "main"
    files = sorted(folder.glob("test-*.parquet"))
    files[1].unlink()
    files[2].write_bytes(files[2].read_bytes()[:-100])  # a torn file: its hash is no longer the manifest's
    untouched = {path: path.stat().st_mtime_ns for path in (files[0], files[3])}
    generate_on_ray("main", str(out), resume=True, progress=False)
    assert {path: path.stat().st_mtime_ns for path in untouched} == untouched
    assert loaded(out, "main", tmp_path) == expected("main")
    with pytest.raises(ManifestError, match=r"seed 0 there, 1 here; overrides \{\} there, \{'seed': 1\} here"):
        generate_on_ray("main", str(out), {"seed": 1}, resume=True, progress=False)
    with pytest.raises(ManifestError, match=r"overrides \{\} there, \{'depths': \[3\]\} here"):
        generate_on_ray("main", str(out), {"depths": (3,)}, resume=True, progress=False)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["code"]["code_version"] = "0" * 16
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ManifestError, match="code version"):
        generate_on_ray("main", str(out), resume=True, progress=False)


def test_a_killed_driver_started_again_with_resume_keeps_the_complete_files(tmp_path):
    """``naf-bench generate --engine ray --resume`` killed (SIGKILL) while it writes, then the same command again:
    every file the manifest had recorded complete is kept as it is, only the rest are made."""
    out = tmp_path / "naf-bench"
    folder = out / "data" / "sft"
    address = ray.get_runtime_context().gcs_address  # this module's Ray: no second one started
    command = [sys.executable, "-m", "naf_bench.cli", "generate", "sft", "--engine", "ray", "--address", address,
               "--set", "programs_per_cell=3", "--out", str(out), "--resume"]  # fmt: skip
    # a run whose files are then lost (a fresh run writes its files as it decides cells, renamed all at once)
    assert subprocess.run(command, stdout=subprocess.DEVNULL, timeout=300).returncode == 0
    for path in folder.glob("*.parquet"):
        path.unlink()
    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # makes them again
    complete: set[str] = set()
    planned = {f["name"] for fl in _manifest(folder)["files"].values() for f in fl}
    deadline = time.monotonic() + 300
    while not 0 < len(complete) < len(planned) and driver.poll() is None and time.monotonic() < deadline:
        complete = {f["name"] for fl in _manifest(folder)["files"].values() for f in fl if "sha256" in f}
        time.sleep(0.02)
    driver.send_signal(signal.SIGKILL)
    driver.wait(30)
    assert driver.returncode == -signal.SIGKILL, "the driver ended before it could be killed mid-write"
    manifest = _manifest(folder)  # what the killed driver had recorded last
    complete = {f["name"] for fl in manifest["files"].values() for f in fl if "sha256" in f}
    planned = {f["name"] for fl in manifest["files"].values() for f in fl}
    assert 0 < len(complete) < len(planned)
    kept = {name: (folder / name).stat().st_mtime_ns for name in complete}
    before = time.time_ns()
    again = subprocess.run(command, stdout=subprocess.PIPE, text=True, timeout=300)
    assert again.returncode == 0 and "wrote" in again.stdout
    assert {name: (folder / name).stat().st_mtime_ns for name in complete} == kept
    made = {path.name for path in folder.glob("*.parquet") if path.stat().st_mtime_ns >= before}
    assert made == planned - complete
    assert not list(folder.glob(".*.tmp"))  # the killed run's temporaries are gone
    final = {f["name"]: f["sha256"] for fl in _manifest(folder)["files"].values() for f in fl}
    digests = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in planned}
    assert final == digests and {name: final[name] for name in complete} == {
        f["name"]: f["sha256"] for fl in manifest["files"].values() for f in fl if "sha256" in f
    }
    assert loaded(out, "sft", tmp_path) == expected("sft", programs_per_cell=3)


def _manifest(folder: Path) -> dict:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def test_hard_where_cells_meet_is_what_export_writes(tmp_path):
    out = tmp_path / "naf-bench"
    manifest = generate_on_ray("hard", f"file://{out}", progress=False)  # a pyarrow filesystem URL
    assert manifest["passes"] > 1  # loopy tiers of sizes 1 and 3 meet: later cells were decided again
    assert not list((out / "data" / "hard").glob(".*.tmp"))  # files of decisions that did not stand are gone
    exported = export(tmp_path / "exported", ("hard",), str(tmp_path / "cache"))
    assert loaded(out, "hard", tmp_path) == loaded(exported, "hard", tmp_path / "e") == expected("hard")
    # both configs in one folder: main written next to hard keeps hard, and the card lists both
    generate_on_ray("main", str(out), {"programs_per_cell": 2}, progress=False)
    card = (out / "README.md").read_text()
    assert "config_name: hard" in card and "config_name: main" in card and "Gold withheld" in card
    assert loaded(out, "hard", tmp_path / "again") == expected("hard")


def test_a_killed_worker_is_retried_and_leaves_no_swipl(tmp_path):
    small = {"programs_per_cell": 3}
    out = tmp_path / "naf-bench"
    errors = []
    run = threading.Thread(
        target=lambda: errors.append(_call(generate_on_ray, "sft", str(out), small, progress=False)), daemon=True
    )
    run.start()
    killed, orphans = None, []
    deadline = time.monotonic() + 300
    while killed is None and run.is_alive() and time.monotonic() < deadline:
        for process in psutil.process_iter(["name", "ppid"]):
            if process.info["name"] == "swipl":
                try:
                    parent = psutil.Process(process.info["ppid"])
                    if parent.name().startswith("ray::"):
                        orphans.append(process)
                        killed = parent.pid
                        os.kill(parent.pid, signal.SIGKILL)  # a worker dies mid-task, its swipl still running
                        break
                except psutil.NoSuchProcess:
                    continue
        time.sleep(0.05)
    run.join(600)
    assert killed is not None, "no Ray worker with an SWI-Prolog child was seen"
    assert errors == [None]
    assert loaded(out, "sft", tmp_path) == expected("sft", **small)
    _, alive = psutil.wait_procs(orphans, timeout=30)
    assert alive == []  # the killed worker's swipl saw its pipe close and ended


def _call(function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except Exception as exc:  # reported to the test thread
        return exc
    return None


def test_cli_refuses_what_ray_does_not_take(tmp_path, capsys):
    out = str(tmp_path / "x")
    for arguments, message in (
        (["--engine", "ray", "--num-proc", "2", "--out", out], "--num-proc is for one machine, not --engine ray"),
        (["--engine", "ray", "--shard", "0/2", "--out", out], "--shard is for one machine, not --engine ray"),
        (["--engine", "ray"], "--engine ray needs --out DIR"),
        (["--resume", "--include-test-gold"], "--resume, --include-test-gold: only with --engine ray"),
    ):
        assert main(["generate", "main", *arguments]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_cli_writes_a_split_with_its_gold(tmp_path, capsys):
    out = tmp_path / "naf-bench"
    small = ["--set", "programs_per_split=77,77,77"]
    status = main(["generate", "hard", "--engine", "ray", "--split", "test", "--include-test-gold", "--out", str(out),
                   *small])  # fmt: skip
    assert status == 0
    assert sorted(p.name for p in (out / "data" / "hard").glob("*.parquet"))[0].startswith("test-")
    dataset = datasets.load_dataset(str(out), "hard", split="test", cache_dir=str(tmp_path / "hf"))
    assert rows_json(dataset.to_list()) == rows_json(one_process("hard", programs_per_split=(77, 77, 77))["test"])
    assert dataset[1]["gold"] is not None  # where export withholds it (row 0 is condition none: no gold)
    assert "rows)" in capsys.readouterr().out
