"""The Hub repository layout: push_to_hub's checks, the lm-eval tasks reading a repository, the wheel's packages."""

import configparser
import os
import subprocess
import sys
from pathlib import Path

import pytest

from naf_bench.data.dataset import load_dataset, task_dataset
from naf_bench.data.hub import export

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "push_to_hub.py"


def push(*args, cache):
    environment = {**os.environ, "HF_DATASETS_CACHE": str(cache)}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=environment)


def test_push_to_hub_exports_checks_and_lists_the_upload(tmp_path):
    done = push(
        "--repo-id",
        "me/naf-bench",
        "--configs",
        "wfs44",
        "--out",
        str(tmp_path / "repo"),
        "--dry-run",
        cache=tmp_path / "cache",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "wfs44: test 88 rows",
        "wfs44-gold: test 44 rows",  # what eval.yaml evaluates: the rows with gold
        "would upload README.md",
        "would upload LICENSE",
        "would upload eval.yaml",
        "would upload data/wfs44/test-00000-of-00001.parquet",
        "would upload data/wfs44-gold/test-00000-of-00001.parquet",
    ]
    other = push("--repo-id", "you/naf-bench", "--folder", str(tmp_path / "repo"), "--dry-run", cache=tmp_path / "c")
    assert other.returncode != 0 and "export again with --repo-id you/naf-bench" in other.stderr
    empty = push("--repo-id", "me/x", "--folder", str(tmp_path), "--dry-run", cache=tmp_path / "c")
    assert empty.returncode != 0 and "not an exported dataset" in empty.stderr


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("cache"))
    return export(tmp_path_factory.mktemp("hub") / "naf-bench", ("wfs44",), cache), cache


def test_tasks_read_a_dataset_repository_when_named(repository, monkeypatch):
    folder, cache = repository
    local = load_dataset("wfs44", cache_dir=cache)["test"].filter(lambda row: row["condition"] == "wfs")
    monkeypatch.setenv("NAF_BENCH_DATASET", str(folder))
    from_env = task_dataset("wfs44", ["wfs"])["test"]
    assert from_env.to_list() == local.to_list() and from_env.num_rows == 44
    assert from_env.cache_files[0]["filename"] != local.cache_files[0]["filename"]  # read from the repository
    monkeypatch.setenv("NAF_BENCH_DATASET", str(folder.parent / "missing"))
    assert task_dataset("wfs44", ["wfs"], dataset_path=str(folder))["test"].to_list() == local.to_list()


def test_the_wheel_installs_the_task_folder_inside_the_package():
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    packages = setup["options"]["packages"].split()
    modules = {path.parent.relative_to(ROOT).as_posix().replace("/", ".") for path in ROOT.glob("naf_bench/**/*.py")}
    assert sorted(packages) == sorted(
        [*modules, "modellog_metric", "naf_bench.lm_eval_tasks", "naf_bench.lm_eval_tasks.naf_bench"]
    )
    assert not any(p.startswith("lm_eval_tasks") for p in packages)
    assert setup["options"]["package_dir"].split() == ["naf_bench.lm_eval_tasks", "=", "lm_eval_tasks"]
