"""The service on a Hugging Face Space: the folder ``naf-bench leaderboard space`` writes, what its ``app.py``
runs, and the backup of DIR to a private dataset repository.

On a Space the gold never comes from the repository that holds the app: ``NAF_BENCH_GOLD`` names a file on the
Space's persistent volume, or ``NAF_BENCH_GOLD_REPO`` a private dataset repository that the app downloads at
start with the Space's token (a secret, ``HF_TOKEN``). DIR (``NAF_BENCH_DATA``, by default on the volume) is
backed up by ``huggingface_hub.CommitScheduler``: before each scheduled commit, a snapshot of the database made
with SQLite's backup API (never the live files) and the kept submission files are put in ``DIR/backup``; a
server that starts on an empty DIR restores the newest snapshot. Everything up to the Hub's edge (the snapshot,
the backup folder, the restore from it) is tested; the push and the download are the Hub's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.leaderboard.store import FILES, Store, restore

BACKUP = "backup"
SPACE_PYTHON = "3.11"  # the Space's Python: one the Hub offers and setup.cfg's python_requires admits
SNAPSHOTS = "snapshots"

SPACE_APP = '''"""The naf-bench leaderboard Space: the gold comes from the environment (README.md), never from here."""

from naf_bench.leaderboard.space import main

main()
'''


def write_space(out: str | Path, requirement: str, title: str, hub_sign_in: bool = False) -> Path:
    """``app.py``, ``requirements.txt`` (naf-bench as the maintainer names it) and ``README.md`` (front matter)."""
    import gradio

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if "\n" in requirement or "\n" in title:
        raise ConfigError("the requirement and the title are one line each")
    (out / "app.py").write_text(SPACE_APP, encoding="utf-8")
    (out / "requirements.txt").write_text(f"{requirement}\n", encoding="utf-8")
    oauth = "hf_oauth: true\nhf_oauth_expiration_minutes: 480\n" if hub_sign_in else ""
    (out / "README.md").write_text(
        f"---\ntitle: {_yaml_string(title)}\nemoji: 🧮\ncolorFrom: indigo\ncolorTo: gray\nsdk: gradio\n"
        f'sdk_version: {gradio.__version__}\npython_version: "{SPACE_PYTHON}"\napp_file: app.py\npinned: false\n'
        f"{oauth}---\n\n"
        f"# {title}\n\n"
        "The naf-bench submission service. Set in the Space's settings:\n\n"
        "- persistent storage (the store lives in `NAF_BENCH_DATA`, default `/data/naf-bench`);\n"
        "- `NAF_BENCH_GOLD`: the hidden set's gold file on the volume, or `NAF_BENCH_GOLD_REPO` (a private dataset "
        "repository) with `NAF_BENCH_GOLD_FILE` (default `gold.jsonl`) and the secret `HF_TOKEN`;\n"
        "- optionally `NAF_BENCH_DEV_GOLD`, `NAF_BENCH_BACKUP_REPO` (a private dataset repository for backups), "
        "`NAF_BENCH_QUOTA`;\n"
        "- for the verified track, `NAF_BENCH_HIDDEN` (a `leaderboard new-set` folder on the volume) and "
        "`NAF_BENCH_KEY` (its key file, for endpoint jobs): the worker then runs beside the app (GPU hardware "
        "for models that need one).\n\n"
        "Teams are added, revoked, withdrawn and the board frozen with `naf-bench leaderboard add-team | "
        "revoke-team | withdraw | freeze --data DIR` in a shell on the volume (the Space's Dev Mode): the web "
        "API offers none of them.\n",
        encoding="utf-8",
    )
    return out


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main() -> None:
    """What the Space's ``app.py`` runs: read the environment, restore DIR if empty, back up, serve."""
    from naf_bench.leaderboard.app import serve
    from naf_bench.leaderboard.service import Service

    env = os.environ
    data = Path(env.get("NAF_BENCH_DATA", "/data/naf-bench"))
    gold = env.get("NAF_BENCH_GOLD")
    if not gold and env.get("NAF_BENCH_GOLD_REPO"):
        from huggingface_hub import hf_hub_download

        gold = hf_hub_download(
            env["NAF_BENCH_GOLD_REPO"],
            env.get("NAF_BENCH_GOLD_FILE", "gold.jsonl"),
            repo_type="dataset",
            token=env.get("HF_TOKEN"),
        )
    if not gold:
        raise ConfigError("set NAF_BENCH_GOLD (a file on the volume) or NAF_BENCH_GOLD_REPO (a private dataset)")
    backup_repo = env.get("NAF_BENCH_BACKUP_REPO")
    restore_if_empty(data, backup_repo)
    quota = int(env.get("NAF_BENCH_QUOTA", "3"))
    service = Service(data, gold, env.get("NAF_BENCH_DEV_GOLD"), quota=quota or None)
    if backup_repo:
        start_backup(service.store, backup_repo)
    start_worker(env, data)
    serve(
        service,
        host=env.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        port=int(env.get("PORT", "7860")),
        hub_sign_in=env.get("SPACE_ID") is not None and env.get("OAUTH_CLIENT_ID") is not None,
    )


def start_worker(env, data: Path):
    """The verified track's worker beside the app when ``NAF_BENCH_HIDDEN`` names a hidden set's folder (with
    ``NAF_BENCH_KEY``, the worker's key file, for endpoint jobs): ``naf-bench leaderboard worker`` in a process
    of its own, its output in the Space's log; None without it."""
    import subprocess
    import sys

    hidden = env.get("NAF_BENCH_HIDDEN")
    if not hidden:
        return None
    command = [sys.executable, "-m", "naf_bench.cli", "leaderboard", "worker", "--data", str(data), "--hidden", hidden]
    if env.get("NAF_BENCH_KEY"):
        command += ["--key", env["NAF_BENCH_KEY"]]
    return subprocess.Popen(command, env=dict(env))


# -- backup and restore ------------------------------------------------------------------------------------------


def write_backup(store: Store, folder: str | Path, now: datetime | None = None) -> Path:
    """Put a snapshot of the database and the kept files not yet there into ``folder`` (what is committed)."""
    folder = Path(folder)
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S%fZ")
    snapshot = store.snapshot(folder / SNAPSHOTS / f"board-{stamp}.sqlite")
    for older in (folder / SNAPSHOTS).glob("board-*.sqlite"):
        if older != snapshot:
            older.unlink()  # the repository's history keeps it; the folder keeps only what the next commit needs
    for kept in (store.root / FILES).glob("??/*"):
        target = folder / FILES / kept.parent.name / kept.name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(kept, target)
    return snapshot


def restore_from_backup(folder: str | Path, data_dir: str | Path) -> Path | None:
    """Restore an empty DIR from the newest snapshot in a backup folder (as downloaded); None when it has none."""
    snapshots = sorted(Path(folder).glob(f"{SNAPSHOTS}/board-*.sqlite"))
    if not snapshots:
        return None
    restore(snapshots[-1], Path(folder) / FILES, data_dir)
    return snapshots[-1]


def _empty(data_dir: Path) -> bool:
    return not data_dir.exists() or not any(data_dir.iterdir())


def restore_if_empty(data_dir: str | Path, backup_repo: str | None) -> Path | None:
    """``serve`` on an empty DIR with a backup repository: download it and restore the newest snapshot."""
    data_dir = Path(data_dir)
    if not backup_repo or not _empty(data_dir):
        return None
    from huggingface_hub import snapshot_download

    with tempfile.TemporaryDirectory() as local:
        snapshot_download(backup_repo, repo_type="dataset", local_dir=local)
        return restore_from_backup(local, data_dir)


def start_backup(store: Store, backup_repo: str, every_minutes: float = 10.0):
    """A ``CommitScheduler`` that commits a fresh snapshot and the new kept files every ``every_minutes``."""
    from huggingface_hub import CommitScheduler

    folder = store.root / BACKUP

    class SnapshotScheduler(CommitScheduler):
        def push_to_hub(self):
            with self.lock:
                write_backup(store, folder)
            return super().push_to_hub()

    folder.mkdir(exist_ok=True)
    return SnapshotScheduler(
        repo_id=backup_repo, repo_type="dataset", folder_path=folder, every=every_minutes, private=True
    )
