import datasets
import pytest

import naf_bench
from naf_bench import ConfigError
from naf_bench.cli import main
from naf_bench.dataset import FIELD_DOCS, builder, export, features


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


def test_overrides_change_the_cache_key(cache):
    small = naf_bench.load_dataset("main", cache_dir=cache, programs_per_cell=2, depths=(3,))
    assert small["test"].num_rows == 4 * 2 * 5
    assert set(small["test"]["depth"]) == {3}
    assert builder("main", cache_dir=cache, programs_per_cell=2).cache_dir != builder("main", cache_dir=cache).cache_dir
    with pytest.raises(ConfigError, match="odd_cycle_len must be odd"):
        naf_bench.load_dataset("main", cache_dir=cache, odd_cycle_len=2)


def test_export_is_read_back_by_plain_datasets(cache, tmp_path, monkeypatch):
    out = export(tmp_path / "naf-bench", configs=("main", "zh"), cache_dir=cache)
    card = (out / "README.md").read_text()
    assert (
        "- config_name: main\n  default: true\n  data_files:\n  - split: test\n    path: data/main/test-*.parquet"
        in card
    )
    assert all(f"| `{name}` |" in card for name in FIELD_DOCS)
    hub = datasets.load_dataset(str(out), "main", cache_dir=str(tmp_path / "hub"))
    assert hub["test"].to_list() == naf_bench.load_dataset("main", cache_dir=cache)["test"].to_list()
    monkeypatch.chdir(tmp_path)
    zh = datasets.load_dataset("naf-bench", "zh", cache_dir=str(tmp_path / "hub2"))["test"]
    assert zh.num_rows == 600 and zh[1]["prompt"].startswith("请把这些规则")


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
    assert [lines[f"constant_{x}"][-1] for x in "ABC"] == ["22.7", "22.7", "54.5"]
    assert lines["oracle"][-1] == "100.0"
