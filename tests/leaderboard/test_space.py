"""The Space and the backup, up to the Hub's edge: the folder written, the snapshot, the restore from it."""

import os
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

from naf_bench.leaderboard.space import restore_from_backup, restore_if_empty, write_backup
from naf_bench.leaderboard.store import Store

pytest.importorskip("gradio")
ROOT = Path(__file__).resolve().parents[2]


def test_the_space_folder(tmp_path):
    import gradio

    from naf_bench.cli import main

    requirement = "naf-bench[leaderboard] @ git+https://github.com/example/naf-bench@v1.2"
    assert main(["leaderboard", "space", "--out", str(tmp_path), "--requirement", requirement, "--hub-sign-in"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "app.py", "requirements.txt"]
    assert (tmp_path / "requirements.txt").read_text() == requirement + "\n"
    card = (tmp_path / "README.md").read_text()
    front = card.split("---\n")[1]
    assert "sdk: gradio\n" in front and f"sdk_version: {gradio.__version__}\n" in front and "hf_oauth: true\n" in front
    assert "app_file: app.py\n" in front
    app = (tmp_path / "app.py").read_text()
    assert "from naf_bench.leaderboard.space import main" in app and "gold.jsonl" not in app
    compile(app, "app.py", "exec")


def test_the_space_files_agree_with_each_other_and_with_setup_cfg(tmp_path):
    """The front matter's Python is one setup.cfg admits, its Gradio is one the leaderboard extra admits, and
    the app file it names is there and imports what the requirement installs."""
    import configparser

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet

    from naf_bench.leaderboard.space import write_space

    write_space(tmp_path, requirement="naf-bench[leaderboard]", title="t")
    front = dict(line.split(": ", 1) for line in (tmp_path / "README.md").read_text().split("---\n")[1].splitlines())
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    assert front["python_version"] == '"3.11"'
    assert "3.11" in SpecifierSet(setup["options"]["python_requires"])
    extra = [Requirement(r) for r in setup["options.extras_require"]["leaderboard"].split("\n") if r.strip()]
    (gradio_requirement,) = [r for r in extra if r.name == "gradio"]
    assert front["sdk_version"] in gradio_requirement.specifier
    assert (tmp_path / front["app_file"]).is_file()
    (requirement,) = [Requirement(line) for line in (tmp_path / "requirements.txt").read_text().splitlines()]
    assert requirement.name == "naf-bench" and "leaderboard" in requirement.extras


@pytest.mark.skipif(shutil.which("python3.10") is None, reason="no Python 3.10 on PATH (pyenv install 3.10)")
def test_the_store_and_the_space_module_import_under_python_3_10():
    """setup.cfg admits 3.10 (the Hub's default): the service's standard-library-only modules import there."""
    script = (
        "import sys, types; package = types.ModuleType('naf_bench'); package.__path__ = [sys.argv[1]]; "
        "sys.modules['naf_bench'] = package; import naf_bench.leaderboard.store, naf_bench.leaderboard.space; "
        "print(sys.version_info[:2])"
    )
    done = subprocess.run(
        ["python3.10", "-c", script, str(ROOT / "naf_bench")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYENV_VERSION": "3.10.13"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(3, 10)"


def _fill(store, team, n):
    for i in range(n):
        store.accept(
            team,
            split="test",
            track="standard",
            data=f"upload {i}\n".encode(),
            metadata_bytes=b"{}",
            metadata={},
            record={},
            solved={"p": bool(i % 2)},
        )


def test_backup_while_uploads_go_on_then_restore_the_newest(tmp_path):
    store = Store(tmp_path / "live")
    team = store.team_for_token(store.add_team("alpha"))
    _fill(store, team, 3)
    write_backup(store, tmp_path / "backup")
    writer = threading.Thread(target=_fill, args=(store, team, 30))
    writer.start()
    second = write_backup(store, tmp_path / "backup")  # while another thread commits uploads
    writer.join()
    assert [p.name for p in (tmp_path / "backup" / "snapshots").iterdir()] == [second.name]  # the newest only
    assert sqlite3.connect(second).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    in_snapshot = sqlite3.connect(second).execute("SELECT count(*) FROM submissions").fetchone()[0]
    assert 3 <= in_snapshot <= 33
    assert restore_from_backup(tmp_path / "backup", tmp_path / "restored") == second
    restored = Store(tmp_path / "restored")
    assert len(restored.submissions()) == in_snapshot and restored.teams()[0].name == "alpha"
    for row in restored.submissions():
        assert restored.file_path(row["file_sha256"]).read_bytes() == store.file_path(row["file_sha256"]).read_bytes()
    assert restore_from_backup(tmp_path / "empty-backup", tmp_path / "other") is None
    assert restore_if_empty(tmp_path / "restored", "org/backup") is None  # not empty: the Hub is never asked
    assert restore_if_empty(tmp_path / "new", None) is None  # no backup repository


def test_the_space_starts_the_worker_beside_the_app_when_a_hidden_set_is_named(tmp_path):
    import time

    from naf_bench.leaderboard.approvals import approve
    from naf_bench.leaderboard.secret import new_set
    from naf_bench.leaderboard.space import start_worker
    from naf_bench.leaderboard.store import MODELS

    assert start_worker({}, tmp_path / "data") is None
    new_set(bytes(32), "main", tmp_path / "hidden", {"programs_per_cell": 1}, attempts=20)
    store = Store(tmp_path / "data")
    store.add_team("alpha")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{}")  # approved, but no model loads from it
    model, stored = approve(str(tmp_path / "broken"), store.root / MODELS)
    store.approve_model(model, str(stored))
    job = store.submit_job(store.teams()[0], kind="verified", model=str(tmp_path / "broken"), settings={})
    env = {"NAF_BENCH_HIDDEN": str(tmp_path / "hidden"), "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    worker = start_worker({**os.environ, **env}, tmp_path / "data")
    try:
        deadline = time.monotonic() + 300
        while (state := store.jobs()[0])["state"] in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.5)
        assert worker.poll() is None  # it keeps waiting for jobs beside the app
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert (state["id"], state["state"], state["attempts"]) == (job.id, "failed", 1)
    assert state["reason"].startswith("naf-bench run ended with exit status")
