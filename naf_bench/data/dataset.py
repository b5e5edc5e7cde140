"""NAF-Bench as a Hugging Face dataset: an ArrowBasedBuilder, its cache key and a cached loader.

Rows are generated and certified on first load, then read back from the ``datasets`` cache, under a key that
changes with the naf-bench version, the config, its overrides and the code that makes rows. Units (a cell of
the bins grid, or a leaderboard tier) are generated, certified and rendered into Arrow tables in parallel
processes and merged into exactly the rows one process makes (``naf_bench.data.rows``); ``naf_bench.data.hub.export``
writes a Hub dataset repository.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from functools import partial
from pathlib import Path

from naf_bench.data.rows import generate_units, unit_rows
from naf_bench.data.schema import features
from naf_bench.errors import ConfigError
from naf_bench.generate.algorithm import Instance
from naf_bench.generate.config import CONFIGS, GenerationConfig, get_config
from naf_bench.readings import READINGS

CITATION = """@misc{nafbench2026,
  title         = {Not What You Meant: Can {LLMs} Follow a Specified Negation Semantics?},
  author        = {Bao, Qiming and Mensfelt, Agnieszka and Witbrock, Michael and Stathis, Kostas},
  year          = {2026},
  eprint        = {2609.27517},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2609.27517},
  note          = {NAF-Bench; the authors' implementation https://github.com/14H034160212/NAFBench},
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


# The rows' version: a new one whenever the same seed and config make other rows. 0.2.0: canonical keys from
# BLISS's canonical labelling (python-igraph), which changes the key hashes and so which programs the
# training/evaluation partition gives each split (0.1.0: keys by hand-written individualisation-refinement).
# 0.3.0: a split other than test is named in its row ids, so ids are unique across a config's splits.
DATASET_VERSION = "0.3.0"

# The code that makes rows, and the builder that writes them; the CLI, scorers and reports never change a cache.
ROW_CODE = ("syntax", "solvers", "generate", "verbalize", "certify.py", "readings.py", "data/schema.py",
            "data/rows.py", "data/dataset.py")  # fmt: skip


def row_code_files() -> list[Path]:
    """The package files that make rows (and only those: the CLI, scorers and reports never touch a row)."""
    root = Path(__file__).parent.parent
    paths = [root / part for part in ROW_CODE]
    return sorted(p for f in paths for p in ([f] if f.is_file() else f.rglob("*")) if p.suffix in (".py", ".pl"))


def code_version() -> str:
    """Hash of the code that makes rows and of the readings table (a reading registered at run time makes other
    rows): cached datasets are rebuilt when either changes."""
    root = Path(__file__).parent.parent
    digest = hashlib.sha256(READINGS.fingerprint().encode())
    for path in row_code_files():
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _rows_table(config: GenerationConfig, split: str, position: int, instances: list[Instance]):
    """A unit's rows of one split as an Arrow table in the one schema (pyarrow reads the rows as they are: they
    hold only strings, ints and dicts and lists of them, which ``Features.encode_example`` would copy unchanged)."""
    import pyarrow as pa

    return pa.Table.from_pylist(unit_rows(config, split, position, instances), schema=features().arrow_schema)


def unit_file(spill: str, config: GenerationConfig, split: str, position: int, instances: list[Instance]) -> str:
    """A unit's rows of one split written as an Arrow file in ``spill``, where it was generated (a worker process),
    so the builder only copies them into the cache."""
    import pyarrow as pa

    table = _rows_table(config, split, position, instances)
    path = str(Path(spill) / f"{split}-{position}.arrow")
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return path


def _builder_class():
    import datasets
    from datasets.builder import Key

    class NafBenchConfig(datasets.BuilderConfig):
        """A generation config; ``datasets`` sets overrides as attributes (and hashes them into the cache key)."""

        def __init__(self, generation: GenerationConfig, **kwargs):
            super().__init__(
                name=generation.name,
                version=datasets.Version(DATASET_VERSION),
                description=generation.description,
                **kwargs,
            )
            self.base = generation
            for key in OVERRIDABLE:
                setattr(self, key, None)

        @property
        def generation(self) -> GenerationConfig:
            overrides = {key: getattr(self, key) for key in OVERRIDABLE if getattr(self, key) is not None}
            return self.base.override(**overrides)

    class NafBench(datasets.ArrowBasedBuilder):
        """NAF-Bench: solver-certified normal logic programs under four readings of negation."""

        BUILDER_CONFIG_CLASS = NafBenchConfig
        BUILDER_CONFIGS = [NafBenchConfig(generation=config) for config in CONFIGS.values()]  # noqa: RUF012
        DEFAULT_CONFIG_NAME = "main"
        VERSION = datasets.Version(DATASET_VERSION)

        def _info(self):
            return dataset_info(self.config.generation)

        def _download_and_prepare(self, dl_manager, verification_mode, **prepare_split_kwargs):
            # num_proc processes generate, certify and render whole units into Arrow files; this one copies them
            num_proc = prepare_split_kwargs.pop("num_proc", None)
            with tempfile.TemporaryDirectory(prefix="naf-bench-") as spill:
                self._files, _ = generate_units(self.config.generation, partial(unit_file, spill), num_proc)
                try:
                    super()._download_and_prepare(dl_manager, verification_mode, **prepare_split_kwargs)
                finally:
                    del self._files

        def _split_generators(self, dl_manager):
            # streaming: no files; each unit's programs are rendered as they are read
            parts = getattr(self, "_files", None) or generate_units(self.config.generation)[0]
            return [
                datasets.SplitGenerator(name=split, gen_kwargs={"split": split, "units": list(enumerate(units))})
                for split, units in parts.items()
            ]

        def _generate_tables(self, split, units):
            import pyarrow as pa

            for position, unit in units:
                if isinstance(unit, str):
                    table = pa.ipc.open_file(pa.memory_map(unit)).read_all()
                else:
                    table = _rows_table(self.config.generation, split, position, unit)
                yield Key(0, position), table

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
    first, in one process); ``num_proc`` generates, certifies and renders units in that many processes (this
    one copies their tables into the cache), with the same rows, where they are estimated to pay for starting
    them (``naf_bench.data.planner.processes``; else in one process, with a warning). Overrides (``depths=(4,)``…)
    change the rows and the cache key.
    """
    dataset_builder = builder(config, cache_dir, **overrides)
    splits = dataset_builder.config.generation.splits
    if split is not None and split.split("[")[0] not in splits:
        raise ConfigError(f"config {config!r} has no split {split!r}; expected one of {list(splits)}")
    if streaming:
        return dataset_builder.as_streaming_dataset(split=split)
    dataset_builder.download_and_prepare(num_proc=num_proc)
    return dataset_builder.as_dataset(split=split)


def task_dataset(config: str = "main", conditions=None, dataset_path: str | None = None):
    """The documents of an lm-eval task: read from a dataset repository (``ORG/naf-bench`` on the Hub, or an
    exported folder) or a hidden set's folder (``leaderboard new-set``) when ``dataset_path`` or else
    ``NAF_BENCH_DATASET`` names one, generated locally otherwise; only the rows of ``conditions`` when given."""
    source = dataset_path or os.environ.get("NAF_BENCH_DATASET")
    if source and (Path(source) / "manifest.json").is_file():
        dataset = hidden_dataset(source, config)
    elif source:
        import datasets

        dataset = datasets.load_dataset(source, config)
    else:
        dataset = load_dataset(config)
    return dataset.filter(lambda row: row["condition"] in conditions) if conditions else dataset


def program_documents(rows):
    """One document per program (``{"program_id", "rows"}``, in first-seen order) from a task's rows: what a JOINT
    task scores as one unit (lm-eval's ``by_program``, inspect's sample)."""
    import datasets

    programs = {}
    for row in rows:
        programs.setdefault(row["program_id"], []).append(row)
    return datasets.Dataset.from_list([{"program_id": key, "rows": value} for key, value in programs.items()])


def hidden_dataset(folder: str | Path, config: str):
    """A hidden set's rows (``leaderboard new-set``'s ``gold.jsonl``) as a ``DatasetDict`` of its one split, for
    the tasks of the config it was drawn like."""
    import json

    import datasets

    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("config") != config:
        raise ConfigError(
            f"{folder}: a hidden set drawn like {manifest.get('config')!r}, where the task reads "
            f"{config!r}; run the tasks of {manifest.get('config')!r}"
        )
    rows = [json.loads(line) for line in (folder / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    part = datasets.Dataset.from_list(rows, features=features())
    return datasets.DatasetDict({manifest["split"]: part})


def dataset_info(config: GenerationConfig):
    """The ``DatasetInfo`` of a config: the builder's, and the card's ``dataset_info`` entry of an export."""
    import datasets

    from naf_bench.version import __version__

    return datasets.DatasetInfo(
        description=f"{SUMMARY} Config {config.name!r}: {config.description} "
        f"Dataset version {DATASET_VERSION}, generated by naf-bench {__version__} (row code {code_version()}).",
        features=features(),
        citation=CITATION,
        homepage=HOMEPAGE,
        license=LICENSE,
        version=DATASET_VERSION,
    )


SUMMARY = (
    "Ground normal logic programs, each certified under four readings of default negation — SLDNF (Prolog; "
    "`loop` for non-termination), the well-founded semantics (`u` for undefined), and credulous and skeptical "
    "stable models — rendered into prompts whose answer is A (definitely yes), B (definitely no) or C (cannot "
    "be determined)."
)
HOMEPAGE = "https://github.com/14H034160212/NAFBench"
LICENSE = "mit"
