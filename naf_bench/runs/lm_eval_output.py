"""The one reader of lm-eval output folders (``--output_path`` with ``--log_samples``): each task's logged
samples with the model that made them and the run's ``results_*.json``. ``naf-bench report`` and
``naf-bench analyze`` read folders through it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from naf_bench.errors import DataError

# Tasks whose samples are not free-form answers to a row's own prompt: multiple choice (log-likelihoods of the
# letters) and the mitigation prompts of wfs44 (other prompts for the same row ids: each its own record in a
# report, never merged into the main scores)
MULTIPLE_CHOICE_TASKS = ("naf_bench_mc", "naf_bench_mc_order")
MITIGATION_TASKS = ("naf_bench_wfs44_verify", "naf_bench_wfs44_t2s")


@dataclass(frozen=True)
class TaskSamples:
    """The logged samples of one task of one run."""

    model: str  # the model's name (its folder, Hub name or .gguf file)
    task: str
    path: Path  # the samples_<task>_<timestamp>.jsonl file
    results: dict  # the run's results_<timestamp>.json ({} if the folder has none)
    samples: tuple[tuple[int, dict], ...]  # (line number, sample)


def read_output_folder(folder: str | Path) -> Iterator[TaskSamples]:
    """Every task's samples under ``folder``, in file-name order; a DataError naming file and line for a line that
    is not JSON, and for a folder without samples."""
    found = sorted(Path(folder).rglob("samples_*.jsonl"))
    if not found:
        raise DataError(Path(folder), "no samples_*.jsonl (an lm-eval output folder was expected)")
    for path in found:
        task, stamp = path.stem[len("samples_") :].rsplit("_", 1)
        results = path.parent / f"results_{stamp}.json"
        if not results.is_file():
            results = next(path.parent.glob("results_*.json"), None)
        data = json.loads(results.read_text(encoding="utf-8")) if results else {}
        samples = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                samples.append((number, json.loads(line)))
            except json.JSONDecodeError:
                raise DataError(path, "not a JSON line (an lm-eval sample was expected)", number) from None
        model = model_name(data.get("config", {}).get("model_args", "model"))
        yield TaskSamples(model, task, path, data, tuple(samples))


def model_name(model_args) -> str:
    """A run's model as lm-eval's ``model_args`` name it (a string ``pretrained=...,...`` or a dict)."""
    if isinstance(model_args, str):
        model_args = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part) or {
            "pretrained": model_args
        }
    pretrained = str(model_args.get("pretrained") or model_args.get("model") or "model")  # model: an endpoint's
    return model_args.get("gguf_file") or (Path(pretrained).name if Path(pretrained).exists() else pretrained)
