"""A fifth reading is one table entry and one engine: the well-founded semantics read two-valued (undefined as
false), registered through the table's API, is generated into a fresh cache, certified, prompted, traced and
scored through ``score``, the evaluate module and the lm-eval aggregation, with no other edit."""

import importlib.util
import json
import sys
import types
from pathlib import Path

import pytest

import naf_bench.scoring
from naf_bench import certify
from naf_bench.data.dataset import code_version, load_dataset
from naf_bench.data.rows import generate_units, rows_json, unit_rows
from naf_bench.errors import ConfigError
from naf_bench.generate.config import get_config
from naf_bench.readings import READINGS, all_conditions, gold_letter, joint_conditions, named_conditions
from naf_bench.scoring.core import check_row
from naf_bench.scoring.steps import FLAGS

ROOT = Path(__file__).parents[2]


@pytest.fixture
def fifth(wfs2_reading):
    before = code_version()
    READINGS.register(*wfs2_reading)
    try:
        yield before
    finally:
        READINGS.unregister("wfs2")
    assert code_version() == before


def test_a_fifth_reading_runs_through_generation_and_scoring(fifth, tmp_path):
    assert code_version() != fifth  # the rows' code version (and so the cache key) covers the table
    assert all_conditions()[-1] == named_conditions()[-1] == "wfs2" and "wfs2" not in joint_conditions()
    certificate = certify("q :- not a. a :- not q.")
    assert certificate.labels["wfs"] == "u" and certificate.labels["wfs2"] == "F"
    assert certificate.signature == "TFuloopF" and gold_letter("wfs2", certificate.labels) == "B"

    rows = load_dataset("main", split="test", cache_dir=str(tmp_path / "cache"), programs_per_cell=1).to_list()
    assert len(rows) == 4 * 6 and {row["condition"] for row in rows} == set(all_conditions())
    wfs2 = [row for row in rows if row["condition"] == "wfs2"]
    assert len(wfs2) == 4 and all("reading every statement it leaves undefined as false" in r["prompt"] for r in wfs2)
    assert [row["gold"] for row in wfs2] == ["A" if row["labels"]["wfs"] == "T" else "B" for row in wfs2]
    assert all(row["signature"].endswith(row["labels"]["wfs2"]) for row in wfs2)
    assert all(check_row(row["gold_trace"], row) == dict.fromkeys(FLAGS, True) for row in wfs2)

    # score: the gold letters everywhere except one wfs2 row answered wrong
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows))
    wrong = wfs2[0]["id"]
    answers = [
        {"id": row["id"], "prediction": ("A" if row["gold"] == "B" else "B") if row["id"] == wrong else row["gold"]}
        for row in rows
        if row["gold"] is not None
    ]
    submission = tmp_path / "submission.jsonl"
    submission.write_text("".join(json.dumps(answer) + "\n" for answer in answers))
    from naf_bench.cli import main

    assert main(["score", str(submission), "--gold", str(gold), "--out", str(tmp_path / "scores.json")]) == 0
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["per_semantics"]["wfs2"] == 0.75 and scores["per_semantics"]["wfs"] == 1.0
    assert scores["joint"] == 1.0  # wfs2 is not a JOINT reading

    # the evaluate module
    named = [row for row in rows if row["gold"] is not None]
    label = naf_bench.scoring.load_metric("label")
    predictions = [f"ANSWER: {answer['prediction']}" for answer in answers]
    metric = label.compute(predictions=predictions, **naf_bench.scoring.label_columns(named))
    assert metric["per_condition"]["wfs2"]["strict_accuracy"] == 0.75 and metric["joint"] == 1.0

    # the lm-eval tasks: the generated files name the reading, and the joint task's aggregation carries it
    spec = importlib.util.spec_from_file_location("lm_eval_task_files", ROOT / "scripts" / "lm_eval_tasks.py")
    task_files = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(task_files)
    files = task_files.task_files()
    assert "naf_bench_wfs2.yaml" in files and "naf_bench_hard_wfs2.yaml" in files
    assert "  - metric: acc_wfs2\n" in files["naf_bench_joint.yaml"]
    assert task_files.drift() == sorted(["naf_bench_wfs2.yaml", "naf_bench_hard_wfs2.yaml", "naf_bench_joint.yaml"])
    pytest.importorskip("lm_eval")
    from lm_eval.api.registry import get_aggregation

    spec = importlib.util.spec_from_file_location("naf_bench_task_utils", ROOT / "lm_eval_tasks/naf_bench/utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    documents = {}
    for row in named:
        documents.setdefault(row["program_id"], []).append(row)
    letter = {answer["id"]: answer["prediction"] for answer in answers}
    results = [utils.process_program({"rows": doc}, [letter[row["id"]] for row in doc]) for doc in documents.values()]
    mean = get_aggregation("mean")
    assert mean([r["acc_wfs2"] for r in results]) == 0.75 and mean([r["joint"] for r in results]) == 1.0


def test_the_task_files_are_the_tables():
    spec = importlib.util.spec_from_file_location("lm_eval_task_files", ROOT / "scripts" / "lm_eval_tasks.py")
    task_files = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(task_files)
    assert task_files.drift() == []
    assert task_files.main(["--check"]) == 0


def _rows(num_proc=None):
    splits, _ = generate_units(get_config("main", programs_per_cell=1), unit_rows, num_proc, min_saving=0)
    return rows_json([row for unit in splits["test"] for row in unit])


def test_a_registered_reading_reaches_the_worker_processes(fifth):
    rows = _rows(num_proc=2)  # the workers adopt this process's table, the fifth reading included
    assert rows == _rows() and rows.count('"condition": "wfs2"') == 4
    assert READINGS.portable()[-1] == (READINGS["wfs2"], "tests.conftest:two_valued")


def test_an_engine_workers_cannot_import_is_refused_naming_its_reading(wfs2_reading):
    wfs2, two_valued = wfs2_reading
    READINGS.register(wfs2, lambda solved, query: two_valued(solved, query))
    try:
        assert '"condition": "wfs2"' in _rows()  # one process needs no reference to its engine
        with pytest.raises(ConfigError, match=r"^reading 'wfs2': its engine <function .*<lambda>.* cannot reach"):
            _rows(num_proc=2)
    finally:
        READINGS.unregister("wfs2")
    module = types.ModuleType("only_here")  # imports here, but from no path a worker has
    exec(
        "def two_valued(solved, query):\n    return ('T' if solved.wfs.value(query) == 'T' else 'F'), {}", vars(module)
    )
    sys.modules["only_here"] = module
    READINGS.register(wfs2, module.two_valued)
    try:
        with pytest.raises(  # the worker adopts the table a job is handed with: its one line comes back here
            ConfigError,
            match=r"^reading 'wfs2': its engine only_here:two_valued does "
            r"not import here \(ModuleNotFoundError: No module named 'only_here'\)$",
        ):
            _rows(num_proc=2)
    finally:
        READINGS.unregister("wfs2")
        del sys.modules["only_here"]
