"""NAF-Bench as a Hugging Face dataset: one row schema, a GeneratorBasedBuilder, a cached loader, export.

Rows are generated and certified on first load, then read back from the ``datasets`` cache, under a key
that changes with the config, its overrides and the code. ``export`` writes a Hub-style folder (parquet
files plus a dataset card with ``configs:``) that plain ``datasets.load_dataset(folder, config)`` reads.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from naf_bench.errors import ConfigError
from naf_bench.generate.algorithm import CellStats, Instance, generate_cell, generate_tier
from naf_bench.generate.bins import Cell, distance
from naf_bench.generate.config import CONFIGS, GenerationConfig, get_config
from naf_bench.generate.families import TIERS, Tier, tier_counts
from naf_bench.readings import EFFORT_KEYS, LABEL_KEYS
from naf_bench.syntax.render import render_asp
from naf_bench.verbalize.prompt import gold_letter, render_prompt
from naf_bench.verbalize.trace import render_gold_trace
from naf_bench.verbalize.traced import render_traced_prompt

CITATION = """@misc{nafbench2026,
  title  = {Not What You Meant: Can LLMs Follow a Specified Negation Semantics?},
  year   = {2026},
  eprint = {2609.27517},
  archivePrefix = {arXiv},
  url    = {https://arxiv.org/abs/2609.27517},
  note   = {NAF-Bench; reference implementation https://github.com/14H034160212/NAFBench},
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


def generate_instances(
    config: GenerationConfig, split: str, seen: set[str]
) -> tuple[list[Instance], dict[Cell | Tier, CellStats]]:
    instances, stats = [], {}
    if config.families:
        counts = tier_counts(config.programs_per_split[config.splits.index(split)])
        for tier in TIERS:
            if tier.family in config.families:
                kept, stats[tier] = generate_tier(config.seed, config.name, split, tier, counts[tier.name], seen)
                instances.extend(kept)
        return instances, stats
    for cell, count in config.cells():
        kept, cell_stats = generate_cell(
            config.seed, config.name, split, cell, count, seen, config.n_orders, training=config.is_training(split)
        )
        instances.extend(kept)
        stats[cell] = cell_stats
    return instances, stats


def instance_rows(config: GenerationConfig, instance: Instance, index: int) -> Iterator[dict]:
    """The rows of one program: every condition, and every certified rule order for named conditions."""
    program_id = f"{config.prefix}-{instance.tier or instance.family}-i{index}"
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
                "depth": instance.cell.depth,
                "width": instance.cell.width,
                "cycle_len": instance.cell.cycle_len if instance.family != "control" else 0,
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


def build_rows(config: GenerationConfig, seen: set[str] | None = None) -> dict[str, list[dict]]:
    """Rows of every split; canonical keys never repeat across splits."""
    seen = set() if seen is None else seen
    splits = {}
    for split in config.splits:
        instances, _ = generate_instances(config, split, seen)
        counters: dict[str, int] = {}
        rows = []
        for instance in instances:
            group = instance.tier or instance.family
            index = counters.get(group, 0)
            counters[group] = index + 1
            rows.extend(instance_rows(config, instance, index))
        splits[split] = rows
    return splits


def code_version() -> str:
    """Hash of the package's code: cached datasets are rebuilt when the generator changes."""
    from naf_bench import __version__

    digest = hashlib.sha256(__version__.encode())
    root = Path(__file__).parent
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pl")]):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _builder_class():
    import datasets

    class NafBenchConfig(datasets.BuilderConfig):
        """A generation config; ``datasets`` sets overrides as attributes (and hashes them into the cache key)."""

        def __init__(self, generation: GenerationConfig, **kwargs):
            super().__init__(name=generation.name, description=generation.description, **kwargs)
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

        def _info(self):
            return datasets.DatasetInfo(
                description=self.config.generation.description,
                features=features(),
                citation=CITATION,
                homepage="https://github.com/14H034160212/NAFBench",
                license="mit",
            )

        def _split_generators(self, dl_manager):
            self._rows = build_rows(self.config.generation)
            return [datasets.SplitGenerator(name=split, gen_kwargs={"split": split}) for split in self._rows]

        def _generate_examples(self, split):
            for row in self._rows[split]:
                yield row["id"], row

    return NafBench


OVERRIDABLE = tuple(name for name in GenerationConfig.__dataclass_fields__ if name not in ("name", "description"))


def builder(config: str = "main", cache_dir: str | None = None, **overrides):
    """The ``datasets`` builder of a config; overrides (``depths=(4,)``…) change its cache key."""
    if config not in CONFIGS:
        raise ConfigError(f"unknown config {config!r}; expected one of {sorted(CONFIGS)}")
    get_config(config, **overrides)  # validate before anything is built
    return _builder_class()(config_name=config, cache_dir=cache_dir, hash=code_version(), **overrides)


def load_dataset(config: str = "main", cache_dir: str | None = None, **overrides):
    """Generate, certify and render a config on first use (cached afterwards); a ``DatasetDict``."""
    dataset_builder = builder(config, cache_dir, **overrides)
    dataset_builder.download_and_prepare()
    return dataset_builder.as_dataset()


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


def export(
    out: str | Path,
    configs: tuple[str, ...] = tuple(CONFIGS),
    cache_dir: str | None = None,
    include_test_gold: bool = False,
) -> Path:
    """Write a Hub-style dataset folder: ``data/<config>/<split>-00000-of-00001.parquet`` and ``README.md``.

    The splits in ``WITHHELD`` are written without gold unless ``include_test_gold`` (for private use).
    """
    out = Path(out)
    entries = []
    for name in configs:
        dataset = load_dataset(name, cache_dir)
        files = []
        for split, part in dataset.items():
            withheld = not include_test_gold and split in WITHHELD.get(name, ())
            if withheld:
                part = part.map(withhold_gold, features=part.features)
            path = out / "data" / name / f"{split}-00000-of-00001.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            part.to_parquet(str(path))
            files.append(
                {"split": split, "path": f"data/{name}/{split}-*.parquet", "rows": len(part), "gold_withheld": withheld}
            )
        entries.append((CONFIGS[name], files))
    (out / "README.md").write_text(dataset_card(entries), encoding="utf-8")
    return out


def dataset_card(entries) -> str:
    yaml = ["---", "license: mit", "language:", "- en", "- zh", "pretty_name: NAF-Bench", "configs:"]
    for config, files in entries:
        yaml.append(f"- config_name: {config.name}")
        if config.name == "main":
            yaml.append("  default: true")
        yaml.append("  data_files:")
        for file in files:
            yaml.extend([f"  - split: {file['split']}", f"    path: {file['path']}"])
    yaml.append("---")
    sizes = "\n".join(
        "| `{}` | {} | {} |".format(
            config.name, ", ".join(f"{f['split']} {f['rows']}" for f in files), config.description
        )
        for config, files in entries
    )
    fields_doc = "\n".join(f"| `{name}` | {doc} |" for name, doc in FIELD_DOCS.items())
    withheld = [f"`{config.name}` {f['split']}" for config, files in entries for f in files if f["gold_withheld"]]
    gold_note = (
        f"\n\n**Gold withheld** from {', '.join(withheld)}, as the paper's leaderboard releases it: `gold`, `labels`, "
        "`signature`, `distance`, `n_stable_models`, `effort`, `certificate` and `gold_trace` are null and `messages` "
        "holds the user turn only. `naf-bench score SUBMISSION.jsonl` scores against the gold the generator "
        "regenerates (or `--gold FILE.jsonl`, a private gold file from `naf-bench generate hard --split test --out "
        "FILE.jsonl`); `naf-bench export --include-test-gold` writes the gold for private use."
        if withheld
        else ""
    )
    return (
        "\n".join(yaml)
        + f"""

# NAF-Bench

Ground normal logic programs, each certified under four readings of default negation — SLDNF (Prolog;
`loop` for non-termination), the well-founded semantics (`u` for undefined), and credulous and skeptical
stable models — rendered into prompts whose answer is A (definitely yes), B (definitely no) or
C (cannot be determined). Generated by [naf-bench](https://github.com/14H034160212/NAFBench)-compatible code:
labels and signatures use the reference implementation's formats; ids follow its layout under an `nb-` prefix,
so that no id names one of the reference's programs.

```python
import datasets
ds = datasets.load_dataset("naf-bench", "main")  # from the folder that contains naf-bench/
```

## Configs

| config | rows | content |
|---|---|---|
{sizes}{gold_note}

## Fields

| field | meaning |
|---|---|
{fields_doc}

## Citation

```bibtex
{CITATION}
```
"""
    )


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
