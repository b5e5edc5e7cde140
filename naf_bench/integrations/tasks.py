"""The lm-eval tasks (``lm_eval_tasks/naf_bench``) read as plain specs, so every other harness runs the same tasks:
their names, configs, readings, prompts, generation settings and scoring follow the yaml files, and a task added
there follows into inspect_ai and lighteval. Only ``generate_until`` tasks are read (the log-probability tasks,
``naf_bench_mc*``, stay lm-eval's)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from naf_bench.errors import ConfigError

PROMPT = "{{prompt}}"  # the row's own prompt


@dataclass(frozen=True)
class TaskSpec:
    """One generative lm-eval task: what any harness needs to run it as lm-eval does."""

    name: str
    config: str  # the naf-bench config (lm-eval's dataset_name)
    split: str
    conditions: tuple[str, ...] | None  # None: every named reading's rows
    prompt: str  # PROMPT or the utils function that writes it (utils.traced_prompt, ...)
    reader: str  # the utils filter that reads a letter (utils.strict_letters, utils.translated_letters) or none
    results: str  # the utils function that scores a document (utils.process_results, ...)
    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    per_program: bool = False  # one prompt per program document (lm-eval's by_program with a document's prompt)


def _load(text: str) -> dict:
    """A task file's yaml, ``!function utils.f`` kept as the string ``utils.f``."""
    import yaml

    class Loader(yaml.SafeLoader):  # a subclass: the tag is not added to yaml's own safe loader
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    return yaml.load(text, Loader=Loader) or {}


def _resolved(path: Path) -> dict:
    """A task file with its ``include`` chain merged in (the included file first, as lm-eval merges it)."""
    data = _load(path.read_text(encoding="utf-8"))
    if "include" in data:
        data = _resolved(path.parent / data.pop("include")) | data
    return data


@cache
def task_specs() -> dict[str, TaskSpec]:
    """Every generative task of the lm-eval folder by name, in file-name order."""
    from naf_bench.runs.run import tasks_dir

    specs = {}
    for path in sorted((tasks_dir() / "naf_bench").glob("*.yaml")):
        data = _resolved(path)
        if not isinstance(data.get("task"), str) or data.get("output_type") != "generate_until":
            continue  # a group, or a log-probability task
        kwargs = data.get("generation_kwargs", {})
        custom = [step["filter_fn"] for f in data.get("filter_list", ()) for step in f["filter"] if "filter_fn" in step]
        dataset = data.get("dataset_kwargs") or {}
        specs[data["task"]] = TaskSpec(
            name=data["task"],
            config=data.get("dataset_name", "main"),
            split=data.get("test_split", "test"),
            conditions=tuple(dataset["conditions"]) if dataset.get("conditions") else None,
            prompt=data["doc_to_text"],
            reader=custom[0] if custom else "none",
            results=data["process_results"],
            max_tokens=int(kwargs.get("max_gen_toks", 256)),
            temperature=float(kwargs.get("temperature", 0.0)),
            stop=tuple(kwargs.get("until") or ()),
            # utils.ProgramTask sends one prompt per row of a program's document; any other task one per document
            per_program=bool(dataset.get("by_program")) and data.get("class") != "utils.ProgramTask",
        )
    return specs


def task_spec(name: str) -> TaskSpec:
    specs = task_specs()
    if name not in specs:
        raise ConfigError(f"no generative naf-bench task {name!r}; the tasks are {', '.join(specs)}")
    return specs[name]


def _translation_prompt(row: Mapping) -> str:
    from naf_bench.syntax import parse_program
    from naf_bench.verbalize.mitigation import render_translation_prompt

    system, user = render_translation_prompt(
        parse_program(row["program"]), row["query"], row["framing"], row["language"]
    )
    return f"{system}\n\n{user}"


def _verify_prompt(row: Mapping) -> str:
    from naf_bench.syntax import parse_program
    from naf_bench.verbalize.mitigation import render_verify_prompt

    program = parse_program(row["program"])
    return render_verify_prompt(program, row["query"], row["condition"], row["framing"], row["language"])


def _traced_prompt(row: Mapping) -> str:
    from naf_bench.verbalize.traced import render_row_prompt

    return render_row_prompt(row)


def _joint_prompt(document: Mapping) -> str:
    from naf_bench.syntax import parse_program
    from naf_bench.verbalize.joint_prompt import render_joint_prompt

    row = document["rows"][0]
    return render_joint_prompt(parse_program(row["program"]), row["query"], row["language"], row["framing"])


# the task files' prompt writers (lm_eval_tasks/naf_bench/utils.py): one entry per doc_to_text they name
PROMPTS: dict[str, Callable[[Mapping], str]] = {
    PROMPT: lambda row: row["prompt"],
    "utils.translation_prompt": _translation_prompt,
    "utils.verify_prompt": _verify_prompt,
    "utils.traced_prompt": _traced_prompt,
    "utils.joint_prompt": _joint_prompt,  # of a program's document (TaskSpec.per_program)
}


def prompt_text(spec: TaskSpec, row: Mapping) -> str:
    """The text lm-eval sends for ``row`` (a program's document where ``spec.per_program``) under ``spec`` (its
    chat template puts it in one user turn)."""
    return PROMPTS[spec.prompt](row)


def task_rows(spec: TaskSpec, config: str | None = None, split: str | None = None, dataset_path: str | None = None):
    """The task's rows (a ``datasets.Dataset``): those lm-eval's task reads, from ``config`` and ``split`` where
    given, and from ``dataset_path`` (an export folder or Hub id) where given."""
    from naf_bench.data.dataset import task_dataset
    from naf_bench.readings import named_conditions

    dataset = task_dataset(config or spec.config, spec.conditions or tuple(named_conditions()), dataset_path)
    split = split or spec.split
    if split not in dataset:
        raise ConfigError(f"config {config or spec.config!r} has no split {split!r}; it has {', '.join(dataset)}")
    return dataset[split]


def task_documents(
    spec: TaskSpec, config: str | None = None, split: str | None = None, dataset_path: str | None = None
):
    """The task's documents as lm-eval reads them: its rows, or one document per program where ``spec.per_program``
    (``{"program_id", "rows"}``, :func:`naf_bench.data.dataset.program_documents`)."""
    from naf_bench.data.dataset import program_documents

    rows = task_rows(spec, config, split, dataset_path)
    return program_documents(rows) if spec.per_program else rows
