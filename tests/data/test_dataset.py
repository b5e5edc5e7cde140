import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from huggingface_hub import DatasetCard

import naf_bench
from naf_bench import ConfigError
from naf_bench.cli import main
from naf_bench.data.dataset import CITATION, DATASET_VERSION, builder, code_version, row_code_files
from naf_bench.data.hub import export
from naf_bench.data.rows import build_rows, generate_units, rows_json, unit_rows
from naf_bench.data.schema import FIELD_DOCS, features
from naf_bench.generate.config import get_config

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("hf-cache"))


def test_load_dataset_generates_then_reads_the_cache(cache):
    dataset = naf_bench.load_dataset("main", cache_dir=cache)
    assert list(dataset) == ["test"]
    assert dataset["test"].num_rows == 600
    assert dataset["test"].features == features()
    first = dataset["test"][0]
    assert first["id"] == "nb-main-control-i0-none::none" and first["gold"] is None
    cached = builder("main", cache_dir=cache)
    assert cached.info.splits["test"].num_examples == 600  # prepared already: read back, not regenerated
    assert naf_bench.load_dataset("main", cache_dir=cache)["test"].to_list() == dataset["test"].to_list()
    assert (cached.info.builder_name, str(cached.info.version)) == ("naf_bench", DATASET_VERSION)
    folder = Path(cached.cache_dir).relative_to(cache).parts
    assert folder == ("naf_bench", "main", "0.3.0", code_version())  # the rows' version: BLISS canonical keys


def test_the_cache_key_hashes_only_the_code_that_makes_rows():
    names = {path.relative_to(REPOSITORY / "naf_bench").as_posix() for path in row_code_files()}
    assert {
        "data/dataset.py",
        "data/rows.py",
        "data/schema.py",
        "readings.py",
        "certify.py",
        "generate/bins.py",
        "verbalize/trace.py",
        "solvers/prolog/sldnf.pl",
    } <= names
    assert not names & {
        "cli/__init__.py",
        "runs/run.py",
        "runs/report.py",
        "scoring/evaluation.py",
        "scoring/labels.py",
        "data/pool.py",
        "data/planner.py",
        "data/hub.py",
        "__init__.py",
    }


def test_load_dataset_takes_split_streaming_and_num_proc(tmp_path, monkeypatch):
    small = {"programs_per_cell": 17}
    one = naf_bench.load_dataset("sft", split="validation", cache_dir=str(tmp_path / "one"), **small)
    monkeypatch.setenv("NAF_BENCH_PARALLEL_MIN_SAVING", "0")  # ~1.5 s of one core: too little for processes to pay
    two = naf_bench.load_dataset("sft", split="validation", num_proc=2, cache_dir=str(tmp_path / "two"), **small)
    assert isinstance(one, datasets.Dataset) and one.num_rows == 4 * 17 * 4 * 4
    assert two.data.table.equals(one.data.table)  # units generated and rendered apart, in two processes
    streamed = naf_bench.load_dataset("sft", split="validation", streaming=True, cache_dir=str(tmp_path / "s"), **small)
    assert isinstance(streamed, datasets.IterableDataset)
    assert list(streamed) == one.to_list()
    assert naf_bench.load_dataset("sft", split="train[:3]", cache_dir=str(tmp_path / "one"), **small)["id"] == [
        "nb-sft-train-control-i0-closed_world-abstract::closed_world",
        "nb-sft-train-control-i0-closed_world-escalation::closed_world",
        "nb-sft-train-control-i0-closed_world-sensor::closed_world",
    ]
    with pytest.raises(ConfigError, match="has no split 'test'; expected one of \\['train', 'validation'\\]"):
        naf_bench.load_dataset("sft", split="test", **small)


def test_overrides_change_the_cache_key(cache):
    small = naf_bench.load_dataset("main", cache_dir=cache, programs_per_cell=2, depths=(3,))
    assert small["test"].num_rows == 4 * 2 * 5
    assert set(small["test"]["depth"]) == {3}
    assert builder("main", cache_dir=cache, programs_per_cell=2).cache_dir != builder("main", cache_dir=cache).cache_dir
    with pytest.raises(ConfigError, match="odd_cycle_len must be odd"):
        naf_bench.load_dataset("main", cache_dir=cache, odd_cycle_len=2)


@pytest.fixture(scope="module")
def repo(cache, tmp_path_factory):
    return export(tmp_path_factory.mktemp("export") / "naf-bench", ("main", "zh"), cache, repo_id="my-org/naf-bench")


def test_export_card_has_the_hub_metadata(repo):
    card = DatasetCard.load(repo / "README.md")
    data = card.data
    assert (data.license, data.pretty_name, data.language) == ("mit", "NAF-Bench", ["en", "zh"])
    assert data.task_categories == ["question-answering", "text-generation"]
    assert data.size_categories == ["1K<n<10K"]  # 1,200 rows
    assert data.annotations_creators == ["machine-generated"] and data.source_datasets == ["original"]
    assert {"logic-programming", "negation-as-failure"} <= set(data.tags)
    assert data.configs[0] == {
        "config_name": "main",
        "default": True,
        "data_files": [{"split": "test", "path": "data/main/test-*.parquet"}],
    }
    infos = {info["config_name"]: info for info in data.dataset_info}
    assert set(infos) == {"main", "zh", "main-gold", "zh-gold"}  # -gold: the rows with gold, which eval.yaml reads
    assert infos["main-gold"]["splits"][0]["num_examples"] == 480  # condition none's 120 rows have no gold
    assert datasets.Features._from_yaml_list(infos["zh"]["features"]) == features()
    assert infos["zh"]["splits"] == [{"name": "test", "num_bytes": infos["zh"]["dataset_size"], "num_examples": 600}]
    assert data.naf_bench == {"version": naf_bench.__version__, "dataset_version": "0.3.0", "code_hash": code_version()}
    for section in ("## Dataset Structure", "## Uses", "## Limitations and biases", "## Citation", "## License"):
        assert section in card.text
    assert 'datasets.load_dataset("my-org/naf-bench", "main")' in card.text
    assert (repo / "LICENSE").read_text() == (REPOSITORY / "LICENSE").read_text()
    assert "MIT License" in (REPOSITORY / "LICENSE").read_text()


def test_card_tables_keep_every_cell_when_rendered(repo):
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(DatasetCard.load(repo / "README.md").text)
    tables = html.split("<table>")[1:]
    fields = tables[1].split("<tr>")[2:]  # the header row, then one row per field
    assert len(fields) == len(features()) == len(FIELD_DOCS)
    assert all(row.count("<td>") == 3 for row in fields)
    labels = next(row for row in fields if "<code>labels</code>" in row)
    assert "cred/skept T|F, wfs T|F|u, sldnf T|F|loop" in labels
    assert "{cred: string, skept: string, wfs: string, sldnf: string}" in labels
    messages = next(row for row in fields if "<code>messages</code>" in row)
    assert "list of {role: string, content: string}" in messages


def test_export_is_read_back_by_plain_datasets(repo, cache, tmp_path):
    hub = datasets.load_dataset(str(repo), "main", cache_dir=str(tmp_path / "hub"))
    assert hub["test"].to_list() == naf_bench.load_dataset("main", cache_dir=cache)["test"].to_list()
    info = hub["test"].info
    assert (info.license, info.citation, info.homepage) == ("mit", CITATION, "https://github.com/14H034160212/NAFBench")
    assert info.description.endswith(
        f"Dataset version 0.3.0, generated by naf-bench {naf_bench.__version__} (row code {code_version()})."
    )
    assert "Config 'main': Seed 000's main set" in info.description


def test_export_loads_with_no_naf_bench(repo, tmp_path):
    script = (
        "import sys; sys.modules['naf_bench'] = None  # importing naf_bench now fails\n"
        "import datasets\n"
        f"ds = datasets.load_dataset({str(repo)!r}, 'zh', split='test', cache_dir={str(tmp_path)!r})\n"
        "print(ds.num_rows, ds[1]['prompt'][:6])"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["600", "请把这些规则"]


def test_export_command(cache, tmp_path, capsys):
    assert main(["export", "--out", str(tmp_path / "out"), "--configs", "sweep", "--cache-dir", cache]) == 0
    assert "wrote" in capsys.readouterr().out
    sweep = datasets.load_dataset(str(tmp_path / "out"), "sweep", cache_dir=str(tmp_path / "hub"))["test"]
    assert sweep.num_rows == 3 * 3 * 4 * 2 * 5
    assert sorted(set(zip(sweep["depth"], sweep["width"], strict=True))) == [
        (d, w) for d in (2, 8, 16) for w in (0, 4, 8)
    ]


def test_export_withholds_the_gold_of_hard_test(cache, tmp_path):
    out = export(tmp_path / "naf-bench", configs=("hard",), cache_dir=cache)
    card = (out / "README.md").read_text()
    assert "**Gold withheld** from `hard` test" in card and "--include-test-gold" in card
    hub = datasets.load_dataset(str(out), "hard", cache_dir=str(tmp_path / "hub"))
    test, train = hub["test"].to_list(), hub["train"].to_list()
    assert len(test) == 385 and {r["id"][:8] for r in test} == {"nb-hard-"}
    for row in test:
        assert row["gold"] is row["signature"] is row["certificate"] is row["gold_trace"] is row["distance"] is None
        assert set(row["labels"].values()) == set(row["effort"].values()) == {None}
        assert [m["role"] for m in row["messages"]] == ["user"] and row["prompt"]
    assert {r["gold"] for r in train} == {None, "A", "B", "C"} and all(r["certificate"] for r in train)
    private = export(tmp_path / "private", configs=("hard",), cache_dir=cache, include_test_gold=True)
    assert "Gold withheld" not in (private / "README.md").read_text()
    full = datasets.load_dataset(str(private), "hard", cache_dir=str(tmp_path / "hub2"))["test"]
    assert full.to_list() == naf_bench.load_dataset("hard", cache_dir=cache)["test"].to_list()


def test_baselines_on_wfs44_print_the_constant_answers(capsys):
    assert main(["baselines", "wfs44"]) == 0
    lines = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines() if line.strip()}
    # columns: JOINT acc cover closed_world cred skept wfs; wfs44 asks only under wfs (gold A 10 / B 10 / C 24)
    assert [lines[f"constant_{x}"][-3] for x in "ABC"] == ["22.7", "22.7", "54.5"]  # then: read by (unread)
    assert lines["oracle"][-3] == "100.0"


def test_parallel_units_that_meet_an_earlier_units_program_are_regenerated_exactly():
    config = get_config("hard")  # 10 of its units keep a program an earlier unit of the walk kept: redone in the merge
    one = build_rows(config)
    two, _ = generate_units(config, unit_rows, num_proc=2, min_saving=0)  # ~2 s: too little to pay, forced here
    for split in config.splits:
        assert rows_json([row for rows in two[split] for row in rows]) == rows_json(one[split])


def test_shards_concatenate_to_the_config(tmp_path):
    arguments = ["generate", "sweep", "--set", "programs_per_cell=1"]  # 36 cells: row indices run across them
    assert main([*arguments, "--out", str(tmp_path / "all.jsonl"), "--cache-dir", str(tmp_path / "cache")]) == 0
    for index in range(3):
        assert main([*arguments, "--shard", f"{index}/3", "--out", str(tmp_path / f"part{index}.jsonl")]) == 0
    parts = b"".join((tmp_path / f"part{index}.jsonl").read_bytes() for index in range(3))
    assert parts == (tmp_path / "all.jsonl").read_bytes() and parts.count(b"\n") == 36 * 5
