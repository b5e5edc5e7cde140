"""Approving a model for the verified track: what was approved is what runs.

:func:`approve` checks every file of a model folder, a ``.gguf`` file, or a Hub id pinned to a commit (fetched at
approval, so that no run needs a Hub token) and copies them into the store (``DIR/models/<hash of the files>``);
the worker runs that copy, never the path it was approved from. Refused, with one line and nothing kept: a symbolic
link (a ``chat_template.jinja`` linked to the hidden gold would put it in every prompt), a file with another link
elsewhere (a hard link), anything that is not a regular file or a folder (a FIFO, a device), pickled weights
(``.bin``, ``.pt``, ``.pkl``, ... or any file that starts as a pickle does: loading one runs code), and a file that
is not what its name says (a ``.gguf`` without the GGUF magic, a ``.safetensors`` without its header, a ``.json``
that is not JSON).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from naf_bench.errors import ConfigError

HUB_PINNED = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+@[0-9a-f]{40}")
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".joblib", ".npy", ".npz")
MAX_FILES = 10_000  # files in one model folder


def approve(spec: str, models: Path) -> tuple[str, Path]:
    """``(the name teams submit, the checked copy under models)`` of the model ``spec`` names: a model folder
    (with its ``config.json``) or a ``.gguf`` file (its absolute path), or ``ORG/NAME@COMMIT`` (the commit's 40
    hexadecimal digits: a branch or tag moves); a ConfigError otherwise."""
    path = Path(spec).expanduser()
    if os.path.lexists(path):
        if path.is_symlink():
            raise ConfigError(f"{spec}: a symbolic link; approve the folder or file it points to")
        if path.is_dir() and (path / "config.json").is_file():
            return str(path.resolve()), _copy(_files(path), models)
        if path.is_file() and path.suffix == ".gguf":
            return str(path.resolve()), _copy({path.name: path}, models, run=path.name)
        raise ConfigError(f"{spec}: neither a model folder (with config.json) nor a .gguf file")
    if not HUB_PINNED.fullmatch(spec):
        raise ConfigError(
            f"{spec!r}: no such model folder or .gguf file, and not a Hub id pinned to a commit "
            "(ORG/NAME@COMMIT, the commit's 40 hexadecimal digits)"
        )
    repo, commit = spec.rsplit("@", 1)
    with tempfile.TemporaryDirectory(prefix="naf-bench-approve-") as fetched:
        try:
            from huggingface_hub import snapshot_download

            snapshot_download(repo, revision=commit, local_dir=fetched)
        except Exception as exc:
            raise ConfigError(f"{spec}: could not fetch it from the Hub ({type(exc).__name__})") from None
        shutil.rmtree(Path(fetched) / ".cache", ignore_errors=True)  # huggingface_hub's bookkeeping
        return spec, _copy(_files(Path(fetched)), models)


def _files(folder: Path) -> dict[str, Path]:
    """Every file under ``folder`` by its relative path; a ConfigError for anything but plain files and folders."""
    files = {}
    for parent, folders, names in os.walk(folder):
        for name in [*folders, *names]:
            path = Path(parent) / name
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise ConfigError(f"{path}: a symbolic link; a model's files are copied, never followed")
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                raise ConfigError(f"{path}: not a regular file or a folder")
            if stat.S_ISREG(mode):
                files[str(path.relative_to(folder))] = path
        if len(files) > MAX_FILES:
            raise ConfigError(f"{folder}: more than {MAX_FILES:,} files")
    return files


def content_problem(name: str, head: bytes, size: int) -> str | None:
    """Why the file ``name`` of ``size`` bytes that starts with ``head`` (its first bytes; all of a ``.json``)
    may not be approved; None when it may."""
    suffix = Path(name).suffix.lower()
    if suffix in PICKLE_SUFFIXES or (head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05")):
        return "pickled weights (loading them runs code): approve safetensors or GGUF"
    if suffix == ".gguf" and head[:4] != b"GGUF":
        return "named .gguf but not a GGUF file (no GGUF magic)"
    if suffix == ".safetensors":
        header = int.from_bytes(head[:8], "little") if len(head) >= 8 else 0
        if not 2 <= header <= size - 8 or head[8:9] != b"{":
            return "named .safetensors but without a safetensors header"
    if suffix == ".json":
        try:
            json.loads(head)
        except ValueError:
            return "named .json but not JSON"
    return None


def _copy_file(path: Path, name: str, out: Path) -> str:
    """Copy ``path`` to ``out`` after checking it (opened without following a link; a regular file with no other
    link; :func:`content_problem`): what was checked is what is copied. Its SHA-256."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    digest = hashlib.sha256()
    with os.fdopen(descriptor, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{path}: not a regular file")
        if info.st_nlink > 1:
            raise ConfigError(f"{path}: a hard link (another name points to the same file); copy it first")
        head = file.read() if name.lower().endswith(".json") else file.read(16)
        if problem := content_problem(name, head, info.st_size):
            raise ConfigError(f"{path}: {problem}")
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "wb") as copy:
            while head:
                digest.update(head)
                copy.write(head)
                head = file.read(1 << 20)
    return digest.hexdigest()


def _copy(files: dict[str, Path], models: Path, run: str | None = None) -> Path:
    """Check and copy every file into ``models/<hash of names and contents>`` (written under a temporary name,
    then renamed); the copy's folder, or its file ``run``."""
    models.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=".approving-", dir=models))
    try:
        digest = hashlib.sha256()
        for name, path in sorted(files.items()):
            digest.update(f"{name}\0{_copy_file(path, name, partial / name)}\0".encode())
        final = models / digest.hexdigest()[:32]
        if final.is_dir():
            shutil.rmtree(partial)
        else:
            os.replace(partial, final)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return final / run if run else final
