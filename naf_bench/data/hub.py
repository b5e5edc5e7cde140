"""A Hub dataset repository of NAF-Bench: parquet per split, a dataset card with ``configs:`` and ``dataset_info``,
LICENSE; plain ``datasets.load_dataset(folder_or_repo_id, config)`` reads it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from naf_bench.data.dataset import (
    CITATION,
    DATASET_VERSION,
    HOMEPAGE,
    LICENSE,
    SUMMARY,
    code_version,
    dataset_info,
    load_dataset,
)
from naf_bench.data.schema import FIELD_DOCS, features
from naf_bench.generate.config import CONFIGS, GenerationConfig
from naf_bench.readings import answer_letters, effort_keys, label_keys

# Splits released without their answers, as the paper's leaderboard releases its hard test split.
WITHHELD = {"hard": ("test",)}


def withhold_gold(row: dict) -> dict:
    """The row as a hidden test split releases it: prompt and provenance, nothing that gives the answer away."""
    return {
        **row,
        "gold": None,
        "labels": dict.fromkeys(label_keys()),
        "signature": None,
        "distance": None,
        "n_stable_models": None,
        "effort": dict.fromkeys(effort_keys()),  # a spent inference limit would reveal the SLDNF loop
        "certificate": None,
        "gold_trace": None,
        "messages": row["messages"][:1],
    }


def export(
    out: str | Path,
    configs: tuple[str, ...] = tuple(CONFIGS),
    cache_dir: str | None = None,
    repo_id: str = "ORG/naf-bench",
    num_proc: int | None = None,
    include_test_gold: bool = False,
) -> Path:
    """Write a Hub dataset repository: ``data/<config>/<split>-00000-of-00001.parquet``, ``README.md`` (the
    dataset card) and ``LICENSE``; ``datasets.load_dataset(repo_id, config)`` reads it once uploaded.

    The splits in ``WITHHELD`` are written without gold unless ``include_test_gold`` (for private use).
    """
    out = Path(out)
    entries, evaluated = [], []
    for name in configs:
        dataset = load_dataset(name, num_proc=num_proc, cache_dir=cache_dir)
        files = []
        for split, part in dataset.items():
            withheld = not include_test_gold and split in WITHHELD.get(name, ())
            if withheld:
                part = part.map(withhold_gold, features=part.features)
            path = out / "data" / name / f"{split}-00000-of-00001.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            part.to_parquet(str(path))
            files.append(SplitFiles(split, part.data.nbytes, part.num_rows, path.stat().st_size, withheld))
        entries.append((CONFIGS[name], files))
        split = _evaluated_split(dataset, name, include_test_gold)
        if split is not None:
            gold = dataset[split].filter(lambda row: row["gold"] is not None).select_columns(list(EVAL_COLUMNS))
            path = out / "data" / f"{name}{GOLD_SUFFIX}" / f"{split}-00000-of-00001.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            gold.to_parquet(str(path))
            evaluated.append((name, SplitFiles(split, gold.data.nbytes, gold.num_rows, path.stat().st_size, False)))
    dataset_card(entries, repo_id, evaluated).save(out / "README.md")
    (out / "LICENSE").write_text(LICENSE_TEXT, encoding="utf-8")
    (out / "eval.yaml").write_text(eval_yaml(evaluated), encoding="utf-8")
    return out


# What `inspect eval hf/ORG/naf-bench` runs with nothing of naf-bench installed: per config, the rows with gold
# (a `<config>-gold` subset of these columns), the prompt as input and the gold letter as target
GOLD_SUFFIX = "-gold"
EVAL_COLUMNS = ("id", "program_id", "family", "condition", "gold", "prompt")  # the first four: a sample's metadata


# inspect's built-in pattern scorer: the last "ANSWER: X" (markdown emphasis and a parenthesis allowed around X),
# the strict extractor's first rule; anchored at the start, so a text without it is scanned once
def answer_pattern() -> str:
    return r"\A(?s:.*)(?i:answer)[ \t]*:[\s*_]*\(?([" + "".join(answer_letters()) + r"])\b"


def _evaluated_split(dataset, name: str, include_test_gold: bool) -> str | None:
    """The split an exported config is evaluated on: ``test`` (``validation`` where the test gold is withheld);
    None for a config without one (``sft``)."""
    withheld = not include_test_gold and "test" in WITHHELD.get(name, ())
    split = "validation" if withheld else "test"
    return split if split in dataset else None


def eval_yaml(evaluated: list[tuple[str, SplitFiles]]) -> str:
    """inspect's ``eval.yaml`` of the evaluated ``(config, its gold subset)``: one task per config, greedy generation
    (``--temperature 0 --max-tokens 2048`` on the command line: eval.yaml has no generation settings)."""
    import yaml

    tasks = [
        {
            "id": name,
            "config": f"{name}{GOLD_SUFFIX}",
            "split": files.split,
            # inspect's Hub loader numbers the samples: the row's id travels in the metadata
            "field_spec": {"input": "prompt", "target": "gold", "metadata": list(EVAL_COLUMNS[:4])},
            "solvers": [{"name": "generate"}],
            "scorers": [{"name": "pattern", "args": {"pattern": answer_pattern(), "ignore_case": False}}],
        }
        for name, files in evaluated
    ]
    return yaml.safe_dump({"tasks": tasks}, sort_keys=False, allow_unicode=True)


@dataclass(frozen=True)
class SplitFiles:
    """A split as written: its Arrow bytes, rows, Parquet bytes, and whether its gold is withheld."""

    split: str
    num_bytes: int
    num_examples: int
    size: int
    withheld: bool


def dataset_card(
    entries: list[tuple[GenerationConfig, list[SplitFiles]]], repo_id: str, evaluated: list[tuple[str, SplitFiles]] = ()
):
    """The dataset card (``huggingface_hub.DatasetCard``) of written ``(config, [SplitFiles])`` entries and the
    ``(config, gold subset)`` that ``eval.yaml`` evaluates: Hub metadata with ``configs`` and a ``dataset_info``
    per config and subset, then the sections."""
    import datasets
    from huggingface_hub import DatasetCard, DatasetCardData

    from naf_bench.version import __version__

    infos = []
    for config, files in entries:
        info = dataset_info(config)
        info.config_name = config.name
        info.splits = datasets.SplitDict.from_split_dict(
            [{"name": f.split, "num_bytes": f.num_bytes, "num_examples": f.num_examples} for f in files]
        )
        info.download_size = sum(f.size for f in files)
        info.dataset_size = sum(f.num_bytes for f in files)
        yaml = info._to_yaml_dict()  # config_name, features, splits, sizes; datasets also reads the fields below
        yaml.update(description=info.description, citation=CITATION, homepage=HOMEPAGE, license=LICENSE)
        infos.append(yaml)
    columns = features()
    for name, f in evaluated:  # the gold subsets eval.yaml reads
        info = datasets.DatasetInfo(
            description=f"The rows of {name} {f.split} that carry gold, for eval.yaml",
            features=datasets.Features({column: columns[column] for column in EVAL_COLUMNS}),
            config_name=f"{name}{GOLD_SUFFIX}",
            splits=datasets.SplitDict.from_split_dict(
                [{"name": f.split, "num_bytes": f.num_bytes, "num_examples": f.num_examples}]
            ),
            download_size=f.size,
            dataset_size=f.num_bytes,
        )
        infos.append(info._to_yaml_dict() | {"description": info.description, "license": LICENSE})
    rows = sum(f.num_examples for _, files in entries for f in files)
    data = DatasetCardData(
        pretty_name="NAF-Bench",
        license=LICENSE,
        language=sorted({"en", *(config.language for config, _ in entries)}),
        multilinguality="multilingual" if len(entries) > 1 else "monolingual",
        annotations_creators=["machine-generated"],
        language_creators=["machine-generated"],
        source_datasets=["original"],
        size_categories=[_size_category(rows)],
        task_categories=["question-answering", "text-generation"],
        task_ids=["closed-domain-qa"],
        tags=TAGS,
        configs=[
            {
                "config_name": config.name,
                **({"default": True} if config.name == "main" else {}),
                "data_files": [{"split": f.split, "path": f"data/{config.name}/{f.split}-*.parquet"} for f in files],
            }
            for config, files in entries
        ]
        + [
            {
                "config_name": f"{name}{GOLD_SUFFIX}",
                "data_files": [{"split": f.split, "path": f"data/{name}{GOLD_SUFFIX}/{f.split}-*.parquet"}],
            }
            for name, f in evaluated
        ],
        dataset_info=infos,
        naf_bench={"version": __version__, "dataset_version": DATASET_VERSION, "code_hash": code_version()},
    )
    return DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{_card_body(entries, repo_id, evaluated)}")


def _size_category(rows: int) -> str:
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]
    return next((name for bound, name in bounds if rows < bound), "1M<n<10M")


def _cell(text: str) -> str:
    """A markdown table cell: a bare | would end the cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _type_name(feature) -> str:
    if isinstance(feature, dict):
        return "{" + ", ".join(f"{key}: {_type_name(value)}" for key, value in feature.items()) + "}"
    if hasattr(feature, "feature"):  # datasets.List
        return f"list of {_type_name(feature.feature)}"
    return feature.dtype


def _card_body(entries, repo_id: str, evaluated=()) -> str:
    """The card's markdown: ``templates/dataset_card.md.j2`` with the tables of these configs and fields."""
    from naf_bench.version import __version__

    example = entries[0][0].name
    configs = "\n".join(
        f"| `{config.name}` | {', '.join(f'{f.split} {f.num_examples}' for f in files)} | {_cell(config.description)} |"
        for config, files in entries
    )
    withheld = [f"`{config.name}` {f.split}" for config, files in entries for f in files if f.withheld]
    gold_note = (
        f"\n\n**Gold withheld** from {', '.join(withheld)}, as the paper's leaderboard releases it: `gold`, `labels`, "
        "`signature`, `distance`, `n_stable_models`, `effort`, `certificate` and `gold_trace` are null and `messages` "
        "holds the user turn only. `naf-bench score SUBMISSION.jsonl` scores against the gold the generator "
        "regenerates (or `--gold FILE.jsonl`, a private gold file from `naf-bench generate hard --split test --out "
        "FILE.jsonl`); `naf-bench export --include-test-gold` writes the gold for private use."
        if withheld
        else ""
    )
    fields = "\n".join(
        f"| `{name}` | {_cell(_type_name(feature))} | {_cell(FIELD_DOCS[name])} |"
        for name, feature in features().items()
    )
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(loader=PackageLoader("naf_bench"), keep_trailing_newline=True, undefined=StrictUndefined)
    return environment.get_template("dataset_card.md.j2").render(
        summary=SUMMARY,
        dataset_version=DATASET_VERSION,
        version=__version__,
        code_version=code_version(),
        homepage=HOMEPAGE,
        repo_id=repo_id,
        example=example,
        configs=configs,
        gold_note=gold_note,
        fields=fields,
        citation=CITATION,
        license=LICENSE.upper(),
        evaluated=evaluated,
        gold_suffix=GOLD_SUFFIX,
    )


TAGS = ["logic-programming", "negation-as-failure", "answer-set-programming", "well-founded-semantics", "reasoning",
        "benchmark", "synthetic"]  # fmt: skip
LICENSE_TEXT = """MIT License

Copyright (c) 2026 The naf-bench authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""
