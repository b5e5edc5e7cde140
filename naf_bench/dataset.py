"""NAF-Bench as a Hugging Face dataset: one row schema, a GeneratorBasedBuilder, a cached loader, export.

Rows are generated and certified on first load, then read back from the ``datasets`` cache, under a key that
changes with the naf-bench version, the config, its overrides and the code that makes rows. Units (a cell of
the bins grid, or a leaderboard tier) are generated in parallel processes and merged into exactly the rows one
process makes. ``export`` writes a Hub dataset repository (parquet files, a dataset card with ``configs:`` and
``dataset_info``, LICENSE) that plain ``datasets.load_dataset(folder_or_repo_id, config)`` reads.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.generate.algorithm import CellStats, Instance, generate
from naf_bench.generate.bins import distance
from naf_bench.generate.config import CONFIGS, GenerationConfig, Unit, get_config
from naf_bench.generate.registry import FAMILIES
from naf_bench.readings import EFFORT_KEYS, LABEL_KEYS, gold_letter
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.prompt import render_prompt
from naf_bench.verbalize.trace import render_gold_trace
from naf_bench.verbalize.traced import render_traced_prompt

CITATION = """@misc{nafbench2026,
  title         = {Not What You Meant: Can {LLMs} Follow a Specified Negation Semantics?},
  author        = {Bao, Qiming and Mensfelt, Agnieszka and Witbrock, Michael and Stathis, Kostas},
  year          = {2026},
  eprint        = {2609.27517},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2609.27517},
  note          = {NAF-Bench; reference implementation https://github.com/14H034160212/NAFBench},
}

@misc{modellog2026,
  title         = {From Token Probabilities to Semantic Constraints: Towards Declarative Probabilistic
                   Evaluation of Language Models},
  author        = {Richardson, Kyle and Anderson, Cullen and Balakrishnan, Pranav and Ban, Takuto and
                   Ladia, Daksha and Gupta, Ankita and Hudspeth, Marisa},
  year          = {2026},
  eprint        = {2609.13520},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2609.13520},
}

@incollection{nlreasoningbenchmarks,
  title = {{NL} Reasoning Benchmarks: {FOLIO}, {LogicBench}, {PrOntoQA}},
  note  = {Part VI (Natural-Language Reasoning), Chapter 21: the step checker, proof accuracy and the
           right-for-the-wrong-reason rate that naf-bench's trace scores follow},
}"""


def features():
    """The one row schema shared by every config (the metric and the lm-eval tasks read it)."""
    import datasets

    string, int32 = datasets.Value("string"), datasets.Value("int32")
    return datasets.Features(
        {
            "id": string,
            "program_id": string,
            "config": string,
            "family": string,
            "condition": string,
            "gold": string,
            "labels": {key: string for key in LABEL_KEYS},
            "signature": string,
            "distance": int32,
            "program": string,
            "query": string,
            "depth": int32,
            "width": int32,
            "cycle_len": int32,
            "framing": string,
            "language": string,
            "order_id": int32,
            "n_stable_models": int32,
            "effort": {key: datasets.Value("int64") for key in EFFORT_KEYS},
            "certificate": string,
            "gold_trace": string,
            "prompt": string,
            "messages": [{"role": string, "content": string}],
            "seed": datasets.Value("int64"),
        }
    )


def _generate(config: GenerationConfig, unit: Unit, count: int, split: str, seen: set[str]):
    training = config.is_training(split)
    return generate(unit.family, unit.axes, config.seed, config.name, split, count, seen, config.n_orders, training)


def _unit_splits(job: tuple[GenerationConfig, int]) -> list[tuple[list[Instance], CellStats]]:
    """One unit across every split with its own ``seen`` (a worker's job: hashed seeds need nothing else)."""
    config, position = job
    unit = config.units()[position]
    seen: set[str] = set()
    return [_generate(config, unit, n, split, seen) for n, split in zip(unit.counts, config.splits, strict=True)]


def generate_splits(
    config: GenerationConfig, num_proc: int | None = None, shard: tuple[int, int] | None = None
) -> tuple[dict[str, list[Instance]], list[tuple[str, Unit, CellStats]]]:
    """Every split's instances and each (split, unit)'s statistics, exactly as one process makes them.

    One process walks the splits and, in each, the units, with one ``seen`` set of canonical keys. Here each
    unit runs across the splits with only its own keys (in ``num_proc`` worker processes), and the merge
    replays the walk: a unit none of whose programs another unit already used took the very same attempts,
    so it is kept; otherwise it is generated again against the true ``seen`` (cells differ in signature or
    size, so this is rare). ``shard=(i, n)`` generates the i-th of n contiguous ranges of units only.
    """
    units = config.units()
    positions = list(range(len(units)))
    if shard is not None:
        index, total = shard
        if not 0 <= index < total:
            raise ConfigError(f"shard {index}/{total}: expected 0 <= i < N")
        positions = positions[index * len(units) // total : (index + 1) * len(units) // total]
    jobs = [(config, position) for position in positions]
    if num_proc is not None and num_proc > 1 and len(jobs) > 1:
        import multiprocessing

        # spawn: the parent may hold an embedded SWI-Prolog and a swipl subprocess, which fork would share
        with multiprocessing.get_context("spawn").Pool(min(num_proc, len(jobs))) as pool:
            results = pool.map(_unit_splits, jobs, chunksize=1)
    else:
        results = [_unit_splits(job) for job in jobs]
    seen: set[str] = set()
    stale: set[int] = set()  # units regenerated in an earlier split: their later splits assumed other keys
    splits: dict[str, list[Instance]] = {split: [] for split in config.splits}
    stats = []
    for s, split in enumerate(config.splits):
        for position, per_split in zip(positions, results, strict=True):
            kept, unit_stats = per_split[s]
            if position in stale or any(instance.key in seen for instance in kept):
                kept, unit_stats = _generate(config, units[position], units[position].counts[s], split, seen)
                stale.add(position)
            else:
                seen.update(instance.key for instance in kept)
            splits[split].extend(kept)
            stats.append((split, units[position], unit_stats))
    return splits, stats


def row_indices(
    config: GenerationConfig, split: str, instances: list[Instance], shard: tuple[int, int] | None = None
) -> list[int]:
    """Each instance's index within its group (tier, or family) in the split; a shard's count starts after the
    units before it, whose sizes are fixed."""
    counters: dict[str, int] = {}
    if shard is not None:
        units = config.units()
        for unit in units[: shard[0] * len(units) // shard[1]]:
            group = FAMILIES[unit.family].group(unit.axes)
            counters[group] = counters.get(group, 0) + unit.counts[config.splits.index(split)]
    indices = []
    for instance in instances:
        indices.append(counters.get(instance.group, 0))
        counters[instance.group] = indices[-1] + 1
    return indices


def instance_rows(config: GenerationConfig, instance: Instance, index: int) -> Iterator[dict]:
    """The rows of one program: every condition, and every certified rule order for named conditions."""
    program_id = f"{config.prefix}-{instance.group}-i{index}"
    variants = [(order_id, framing) for order_id in range(config.n_orders) for framing in config.framings]
    for condition in config.conditions:
        for order_id, framing in variants if condition != "none" else variants[:1]:
            program, certificate = instance.orders[order_id]
            render = render_traced_prompt if config.traced else render_prompt
            prompt = render(program, instance.query, condition, config.language, framing)
            gold_trace = render_gold_trace(program, certificate, condition, framing, config.language)
            suffix = (f"-o{order_id}" if config.n_orders > 1 else "") + (
                f"-{framing}" if len(config.framings) > 1 else ""
            )
            yield {
                "id": f"{program_id}-{condition}{suffix}::{condition}",
                "program_id": program_id,
                "config": config.name,
                "family": instance.family,
                "condition": condition,
                "gold": gold_letter(condition, certificate.labels),
                "labels": dict(certificate.labels),
                "signature": certificate.signature,
                "distance": distance(certificate.labels),
                "program": render_asp(program),
                "query": instance.query,
                "depth": instance.axes["depth"],
                "width": instance.axes["width"],
                "cycle_len": instance.axes.get("cycle_len", instance.axes.get("size"))
                if instance.family != "control"
                else 0,
                "framing": framing,
                "language": config.language,
                "order_id": order_id,
                "n_stable_models": certificate.n_stable_models,
                "effort": {key: certificate.effort[key] for key in EFFORT_KEYS},
                "certificate": certificate.to_json(),
                "gold_trace": gold_trace,
                "prompt": prompt,
                "messages": [{"role": "user", "content": prompt}]
                + ([{"role": "assistant", "content": gold_trace}] if gold_trace else []),
                "seed": instance.seed,
            }


def build_rows(
    config: GenerationConfig, num_proc: int | None = None, shard: tuple[int, int] | None = None
) -> dict[str, list[dict]]:
    """Rows of every split (of one shard); canonical keys never repeat across splits."""
    splits, _ = generate_splits(config, num_proc, shard)
    return {
        split: [
            row
            for instance, index in zip(instances, row_indices(config, split, instances, shard), strict=True)
            for row in instance_rows(config, instance, index)
        ]
        for split, instances in splits.items()
    }


# The code that makes rows; the CLI, the scorers and the reports do not change a cached dataset.
ROW_CODE = ("syntax", "solvers", "generate", "verbalize", "certify.py", "dataset.py")


def row_code_files() -> list[Path]:
    """The package files that make rows (and only those: the CLI, scorers and reports never touch a row)."""
    root = Path(__file__).parent
    paths = [root / part for part in ROW_CODE]
    return sorted(p for f in paths for p in ([f] if f.is_file() else f.rglob("*")) if p.suffix in (".py", ".pl"))


def code_version() -> str:
    """Hash of the code that makes rows: cached datasets are rebuilt when the generator changes."""
    root = Path(__file__).parent
    digest = hashlib.sha256()
    for path in row_code_files():
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


BATCH = 64  # instances per gen_kwargs shard: datasets renders and writes the shards in num_proc processes


def _builder_class():
    import datasets

    from naf_bench import __version__

    class NafBenchConfig(datasets.BuilderConfig):
        """A generation config; ``datasets`` sets overrides as attributes (and hashes them into the cache key)."""

        def __init__(self, generation: GenerationConfig, **kwargs):
            super().__init__(
                name=generation.name, version=datasets.Version(__version__), description=generation.description,
                **kwargs,
            )  # fmt: skip
            self.base = generation
            for key in OVERRIDABLE:
                setattr(self, key, None)

        @property
        def generation(self) -> GenerationConfig:
            overrides = {key: getattr(self, key) for key in OVERRIDABLE if getattr(self, key) is not None}
            return self.base.override(**overrides)

    class NafBench(datasets.GeneratorBasedBuilder):
        """NAF-Bench: solver-certified normal logic programs under four readings of negation."""

        BUILDER_CONFIG_CLASS = NafBenchConfig
        BUILDER_CONFIGS = [NafBenchConfig(generation=config) for config in CONFIGS.values()]  # noqa: RUF012
        DEFAULT_CONFIG_NAME = "main"
        VERSION = datasets.Version(__version__)

        def _info(self):
            return dataset_info(self.config.generation)

        def _download_and_prepare(self, dl_manager, verification_mode, **prepare_split_kwargs):
            self._num_proc = prepare_split_kwargs.get("num_proc")  # certification runs in as many processes
            super()._download_and_prepare(dl_manager, verification_mode, **prepare_split_kwargs)

        def _split_generators(self, dl_manager):
            config = self.config.generation
            splits, _ = generate_splits(config, getattr(self, "_num_proc", None))
            generators = []
            for split, instances in splits.items():
                indexed = list(zip(instances, row_indices(config, split, instances), strict=True))
                batches = [indexed[i : i + BATCH] for i in range(0, len(indexed), BATCH)]
                generators.append(datasets.SplitGenerator(name=split, gen_kwargs={"batches": batches}))
            return generators

        def _generate_examples(self, batches):
            config = self.config.generation
            for batch in batches:
                for instance, index in batch:
                    for row in instance_rows(config, instance, index):
                        yield row["id"], row

    NafBench.__module__ = "naf_bench"  # datasets names a builder (and its cache folder) after its module
    return NafBench


OVERRIDABLE = tuple(name for name in GenerationConfig.__dataclass_fields__ if name not in ("name", "description"))


def builder(config: str = "main", cache_dir: str | None = None, **overrides):
    """The ``datasets`` builder of a config; overrides (``depths=(4,)``…) change its cache key."""
    if config not in CONFIGS:
        raise ConfigError(f"unknown config {config!r}; expected one of {sorted(CONFIGS)}")
    get_config(config, **overrides)  # validate before anything is built
    return _builder_class()(config_name=config, cache_dir=cache_dir, hash=code_version(), **overrides)


def load_dataset(
    config: str = "main",
    split: str | None = None,
    streaming: bool = False,
    num_proc: int | None = None,
    cache_dir: str | None = None,
    **overrides,
):
    """Generate, certify and render a config on first use (cached afterwards), as ``datasets.load_dataset`` would.

    ``split`` (``"test"``, ``"train[:100]"``…) gives a ``Dataset``, else a ``DatasetDict``; ``streaming`` an
    iterable one whose rows are rendered as they are read (nothing is cached; certification still comes
    first, in one process); ``num_proc`` certifies, renders and writes in that many processes, with the same
    rows. Overrides (``depths=(4,)``…) change the rows and the cache key.
    """
    dataset_builder = builder(config, cache_dir, **overrides)
    splits = dataset_builder.config.generation.splits
    if split is not None and split.split("[")[0] not in splits:
        raise ConfigError(f"config {config!r} has no split {split!r}; expected one of {list(splits)}")
    if streaming:
        return dataset_builder.as_streaming_dataset(split=split)
    dataset_builder.download_and_prepare(num_proc=num_proc)
    return dataset_builder.as_dataset(split=split)


# Splits released without their answers, as the paper's leaderboard releases its hard test split.
WITHHELD = {"hard": ("test",)}


def withhold_gold(row: dict) -> dict:
    """The row as a hidden test split releases it: prompt and provenance, nothing that gives the answer away."""
    return {
        **row,
        "gold": None,
        "labels": dict.fromkeys(LABEL_KEYS),
        "signature": None,
        "distance": None,
        "n_stable_models": None,
        "effort": dict.fromkeys(EFFORT_KEYS),  # a spent inference limit would reveal the SLDNF loop
        "certificate": None,
        "gold_trace": None,
        "messages": row["messages"][:1],
    }


def task_dataset(config: str = "main", conditions=None, dataset_path: str | None = None):
    """The documents of an lm-eval task: read from a dataset repository (``ORG/naf-bench`` on the Hub, or an
    exported folder) when ``dataset_path`` or else ``NAF_BENCH_DATASET`` names one, generated locally otherwise;
    only the rows of ``conditions`` when given."""
    source = dataset_path or os.environ.get("NAF_BENCH_DATASET")
    if source:
        import datasets

        dataset = datasets.load_dataset(source, config)
    else:
        dataset = load_dataset(config)
    return dataset.filter(lambda row: row["condition"] in conditions) if conditions else dataset


def dataset_info(config: GenerationConfig):
    """The ``DatasetInfo`` of a config: the builder's, and the card's ``dataset_info`` entry of an export."""
    import datasets

    from naf_bench import __version__

    return datasets.DatasetInfo(
        description=f"{SUMMARY} Config {config.name!r}: {config.description} "
        f"Generated by naf-bench {__version__} (row code {code_version()}).",
        features=features(),
        citation=CITATION,
        homepage=HOMEPAGE,
        license=LICENSE,
        version=__version__,
    )


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
    entries = []
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
            files.append((split, part, path.stat().st_size, withheld))
        entries.append((CONFIGS[name], files))
    dataset_card(entries, repo_id).save(out / "README.md")
    (out / "LICENSE").write_text(LICENSE_TEXT, encoding="utf-8")
    return out


def dataset_card(entries, repo_id: str):
    """The dataset card (``huggingface_hub.DatasetCard``) of exported ``(config, [(split, Dataset, parquet
    bytes)])`` entries: Hub metadata with ``configs`` and a ``dataset_info`` per config, then the sections."""
    import datasets
    from huggingface_hub import DatasetCard, DatasetCardData

    from naf_bench import __version__

    infos = []
    for config, files in entries:
        info = dataset_info(config)
        info.config_name = config.name
        info.splits = datasets.SplitDict.from_split_dict(
            [{"name": split, "num_bytes": part.data.nbytes, "num_examples": part.num_rows} for split, part, *_ in files]
        )
        info.download_size = sum(size for _, _, size, _ in files)
        info.dataset_size = sum(part.data.nbytes for _, part, *_ in files)
        yaml = info._to_yaml_dict()  # config_name, features, splits, sizes; datasets also reads the fields below
        yaml.update(description=info.description, citation=CITATION, homepage=HOMEPAGE, license=LICENSE)
        infos.append(yaml)
    rows = sum(part.num_rows for _, files in entries for _, part, *_ in files)
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
                "data_files": [
                    {"split": split, "path": f"data/{config.name}/{split}-*.parquet"} for split, *_ in files
                ],
            }
            for config, files in entries
        ],
        dataset_info=infos,
        naf_bench={"version": __version__, "code_hash": code_version()},
    )
    return DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{_card_body(entries, repo_id)}")


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


def _card_body(entries, repo_id: str) -> str:
    from naf_bench import __version__

    example = entries[0][0].name
    configs = "\n".join(
        f"| `{config.name}` | {', '.join(f'{split} {part.num_rows}' for split, part, *_ in files)} | "
        f"{_cell(config.description)} |"
        for config, files in entries
    )
    withheld = [f"`{config.name}` {split}" for config, files in entries for split, *_, held in files if held]
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
    return f"""# NAF-Bench

{SUMMARY}

Generated by naf-bench {__version__} (row code `{code_version()}`); ids, labels and signatures use the formats of
the reference implementation, <{HOMEPAGE}>. Ids follow its layout under an `nb-` prefix,
so that no id names one of the reference's programs.

```python
import datasets

ds = datasets.load_dataset("{repo_id}", "{example}")  # no naf-bench needed
```

With naf-bench installed, `naf_bench.load_dataset("{example}")` generates the same rows locally, and the lm-eval
tasks read this repository when `NAF_BENCH_DATASET={repo_id}` is set.

## Dataset Structure

| config | rows per split | content |
|---|---|---|
{configs}{gold_note}

Every config shares one schema:

| field | type | meaning |
|---|---|---|
{fields}

## Uses

- Measuring whether a language model follows the reading of negation a prompt names (closed-world/SLDNF,
  well-founded, credulous, skeptical) and which reading it adopts when none is named (condition `none`):
  per-semantics accuracy, JOINT over a program's four readings, flip rates across rule orders and framings.
- Checking reasoning: `gold_trace` is a certified derivation that the step checker of `naf_bench.scoring`
  accepts; `certificate` lets a scorer audit traces without re-solving.
- Fine-tuning: the `sft` config's `messages` pair each prompt with its certified trace; its splits are disjoint
  from each other and from every evaluation config by canonical program (renaming- and order-invariant): training
  programs come from one half of a hash partition of canonical keys, evaluation programs from the other.
- Not for: claims about natural-language negation in general (the programs are synthetic and ground), or
  training on `test` splits that are used for evaluation.

## Limitations and biases

- Synthetic, ground, propositional programs with controlled depth, width and cycle structure; real rule bases
  mix negation with knowledge the prompt never states.
- Labels are as good as the engines that certified them (clingo, SWI-Prolog, a well-founded solver, an exact
  SLDNF reference); every certificate records their agreement and versions, and disagreement rejects a program.
- Answers are read from the last `ANSWER: X` by the strict extractor; models that answer in other formats score
  as unanswered there, and the flexible extractor reads option lines, `\\boxed{{}}` and answer words.
- Distinct programs per cell are finite: large `programs_per_cell` values exhaust a cell (a ConfigError).
- Templates are English (and Chinese for `zh`), written by the authors: the wording is one source of variance
  that the framing and order configs only partly cover.

## Citation

```bibtex
{CITATION}
```

## License

{LICENSE.upper()}; the text is in `LICENSE` beside this card.
"""


SUMMARY = (
    "Ground normal logic programs, each certified under four readings of default negation — SLDNF (Prolog; "
    "`loop` for non-termination), the well-founded semantics (`u` for undefined), and credulous and skeptical "
    "stable models — rendered into prompts whose answer is A (definitely yes), B (definitely no) or C (cannot "
    "be determined)."
)
HOMEPAGE = "https://github.com/14H034160212/NAFBench"
TAGS = ["logic-programming", "negation-as-failure", "answer-set-programming", "well-founded-semantics", "reasoning",
        "benchmark", "synthetic"]  # fmt: skip
LICENSE = "mit"
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


FIELD_DOCS = {
    "id": "`nb-{config}-{family}-i{index}-{condition}::{condition}`: the reference's layout under an `nb-` prefix, "
    "so no id names a reference program (`-o{k}` marks rule order k)",
    "program_id": "shared by all rows of one program (the reference's `rec_id`); JOINT groups by it",
    "config": "the config the row belongs to",
    "family": "divergence bin (control, even_one_sided, odd, even_both_sided; wfs44 adds control_false FFFF and "
    "even_conjunctive FFuloop) or leaderboard family "
    "(cnf, decided, loopy, parity, coupled, control; the id names the tier, e.g. cnf_n8)",
    "condition": "none (C0, no semantics named), closed_world (scored against SLDNF), cred, skept, wfs",
    "gold": "A/B/C under the row's condition; null for `none`",
    "labels": "certified labels: cred/skept T|F, wfs T|F|u, sldnf T|F|loop",
    "signature": "cred+skept+wfs+sldnf, e.g. FTuloop",
    "distance": "divergence distance (Figure 1): how many of the cred, skept and wfs gold letters differ from the "
    "closed_world one, 0-3; 0 when the four readings agree (controls, decided), 2 on the four divergence bins",
    "program": "the program in ASP syntax, rules in the order the prompt lists them",
    "query": "the queried atom",
    "depth": "length of the negated chain from the query (hard: of the padding chain)",
    "width": "number of shared subgoals (hard: of padding facts)",
    "cycle_len": "length of the negation cycle, 0 for controls (hard: the tier's size: variables, cycles or depth)",
    "framing": "abstract (proposition template), or the narrative escalation, sensor or audit",
    "language": "en or zh",
    "order_id": "0 for the generated order, k > 0 for the k-th seeded permutation",
    "n_stable_models": "number of stable models (exact up to 1000)",
    "effort": "clingo choices/conflicts, WFS iterations, Prolog inferences, SLDNF fixpoint rounds",
    "certificate": "the full certificate as JSON (naf_bench.Certificate.from_json)",
    "gold_trace": "certified derivation in the controlled trace grammar, in the row's framing and language, "
    "citing rules by their number in the prompt (empty for `none`)",
    "prompt": "the full prompt; rules are numbered only where a trace is asked for (sft: the traced prompt with a "
    "worked example), letter-only prompts list them unnumbered as the reference implementation does",
    "messages": "chat form: the prompt as the user turn and, for named conditions, the gold trace (ending in "
    "'ANSWER: X') as the assistant turn — ready for supervised fine-tuning",
    "seed": "the item's seed, hashed from (root seed, config, split, bin, cell, attempt)",
}


def rows_json(rows: list[dict]) -> str:
    """Rows as canonical JSON lines (for byte-identity checks and ``generate --out x.jsonl``)."""
    return "".join(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n" for row in rows)
