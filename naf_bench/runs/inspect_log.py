"""The one reader of inspect_ai eval logs (``inspect eval ... --log-dir``): each log's rows and responses, its task,
model and generation settings, read without inspect installed. A ``.json`` log is plain JSON; an ``.eval`` log is a
zip archive whose members inspect compresses with zstd, which Python's zipfile reads only where the
``zipfile-zstd`` package (installed with inspect-ai) is importable. ``naf-bench report`` and ``leaderboard build``
read logs through it, as they read lm-eval output folders."""

from __future__ import annotations

import contextlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

from naf_bench.errors import DataError

LOG = "an inspect eval log (.eval, or .json from --log-format json)"


@dataclass(frozen=True)
class InspectLog:
    """One inspect eval log: the first epoch's (row, response) of every sample (a row: the sample's metadata, its
    target the gold where the metadata has none; a response: the model's text (:func:`_response`), None where it
    made none)."""

    path: Path
    task: str  # without the package's namespace: naf_bench_joint, or the eval.yaml task's id
    model: str
    generate_config: dict
    samples: tuple[tuple[dict, str | None], ...]


def is_inspect_log(path: str | Path) -> bool:
    """Whether ``path`` is an inspect eval log by its name and first bytes (never read whole)."""
    path = Path(path)
    if path.suffix == ".eval":
        return path.is_file()
    if path.suffix != ".json" or not path.is_file():
        return False
    with open(path, "rb") as file:
        head = file.read(200).lstrip()
    return head.startswith(b"{") and b'"version"' in head and b'"status"' in head


def read_inspect_log(path: str | Path) -> InspectLog:
    """The log at ``path``; a DataError naming it when it is not one or cannot be read here."""
    path = Path(path)
    header, samples = _eval_archive(path) if path.suffix == ".eval" else _json_log(path)
    if not isinstance(header.get("eval"), dict) or "task" not in header["eval"]:
        raise DataError(path, f"no 'eval' header; {LOG} was expected")
    evaluation = header["eval"]
    rows = []
    for sample in samples:
        if sample.get("epoch", 1) != 1:
            continue
        row = dict(sample.get("metadata") or {})
        row.setdefault("id", str(sample["id"]))
        row.setdefault("gold", sample.get("target") or None)
        rows.append((row, _response(sample.get("output") or {})))
    config = (header.get("plan") or {}).get("config") or {}
    return InspectLog(
        path, evaluation["task"].rsplit("/", 1)[-1], evaluation.get("model", "model"), config, tuple(rows)
    )


def _response(output: dict) -> str | None:
    """The model's text as the model wrote it: inspect keeps a ``<think>`` block apart as reasoning (its completion
    is the rest), so the reasoning goes back inside ``<think>…</think>`` before the completion."""
    choices = output.get("choices") or [{}]
    content = (choices[0].get("message") or {}).get("content")
    completion = output.get("completion")
    if not isinstance(content, list):
        return completion
    reasoning = "".join(part.get("reasoning") or "" for part in content if part.get("type") == "reasoning")
    return f"<think>{reasoning}</think>\n{completion or ''}" if reasoning else completion


def _json_log(path: Path) -> tuple[dict, list]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(path, f"not JSON ({getattr(exc, 'msg', exc)}); {LOG} was expected") from None
    if not isinstance(data, dict):
        raise DataError(path, f"not a JSON object; {LOG} was expected")
    return data, data.get("samples") or []


def _eval_archive(path: Path) -> tuple[dict, list]:
    with contextlib.suppress(ImportError):
        import zipfile_zstd  # noqa: F401  (registers zstd with zipfile; installed with inspect-ai)
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            header = json.loads(archive.read("header.json"))
            samples = [json.loads(archive.read(name)) for name in sorted(names) if name.startswith("samples/")]
    except NotImplementedError:
        raise DataError(
            path,
            "zstd-compressed: install inspect-ai (or zipfile-zstd) to read it, or write logs with --log-format json",
        ) from None
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError):
        raise DataError(path, f"not a finished .eval archive (no readable header.json); {LOG} was expected") from None
    return header, samples


def submission_bytes(log: InspectLog) -> bytes:
    """The log's answers as a leaderboard submission's lines (``{id, prediction}``, a missing response null): the
    board reads each answer with its extractor, as it reads every submission."""
    lines = (json.dumps({"id": row["id"], "prediction": response}, ensure_ascii=False) for row, response in log.samples)
    return "".join(line + "\n" for line in lines).encode()
