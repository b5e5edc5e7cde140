"""naf-bench's lighteval tasks through lighteval's own task class and metric machinery, reading an export folder.

lighteval's CLI and Registry cannot run offline here (0.12.2 and 0.13.0 alike): building the registry imports
every built-in task module, and mt_bench and mix_eval construct a vllm judge at import that calls
HfApi.list_models(model_name=...), which huggingface_hub 2.x (transformers 5.25 requires >= 2.4) refuses, while
tiny_benchmarks downloads a pickle from GitHub at import. These tests drive the TASKS_TABLE the CLI would load."""

import math

import pytest

from naf_bench.integrations.tasks import task_rows, task_spec
from naf_bench.scoring.core import score

pytestmark = pytest.mark.harness  # inspect_ai, lighteval: see conftest.py


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    from naf_bench.data.hub import export

    folder = tmp_path_factory.mktemp("hub") / "naf-bench"
    return export(folder, ("main",), str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def lighteval_tasks(exported, monkeypatch):
    import importlib

    monkeypatch.setenv("NAF_BENCH_DATASET", str(exported))
    import naf_bench.integrations.lighteval as module

    return importlib.reload(module)  # TASKS_TABLE reads the dataset it names when imported


def test_every_generative_task_with_lm_evals_settings(lighteval_tasks):
    configs = {config.name: config for config in lighteval_tasks.TASKS_TABLE}
    assert set(configs) >= {"naf_bench_joint", "naf_bench_none", "naf_bench_cred", "naf_bench_wfs44_t2s"}
    assert "naf_bench_mc" not in configs  # log-probability tasks stay lm-eval's
    joint = configs["naf_bench_joint"]
    assert (joint.hf_subset, joint.evaluation_splits, joint.generation_size) == ("main", ("test",), 2048)


def test_joint_as_a_corpus_metric(lighteval_tasks, response_for):
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.lighteval_task import LightevalTask

    config = next(c for c in lighteval_tasks.TASKS_TABLE if c.name == "naf_bench_joint")
    task = LightevalTask(config)
    LightevalTask.load_datasets({"naf_bench_joint": task})
    docs = task.eval_docs()
    rows = task_rows(task_spec("naf_bench_joint")).to_list()
    assert [doc.query for doc in docs] == [row["prompt"] for row in rows]  # lm-eval's prompts, its 480 documents
    (metric,) = config.metrics
    items = [
        metric.compute_sample(doc=doc, model_response=ModelResponse(text=[response_for(doc.query)])) for doc in docs
    ]
    corpus = {name: fn([item[name] for item in items]) for name, fn in metric.get_corpus_aggregations().items()}
    expected = score(rows, {row["id"]: response_for(row["prompt"]) for row in rows})
    assert corpus["joint"] == pytest.approx(expected.joint())
    assert corpus["acc"] == pytest.approx(expected.cell().correct / 480)
    assert corpus["acc_wfs"] == pytest.approx(expected.cell(expected.where(condition="wfs")).correct / 120)
    none = next(c for c in lighteval_tasks.TASKS_TABLE if c.name == "naf_bench_none")
    assert none.hf_filter({"condition": "none"}) and not none.hf_filter({"condition": "wfs"})
    assert math.isnan(lighteval_tasks._joint([]))  # no program: JOINT undefined, never 0


def test_without_a_dataset_one_line_says_what_to_set(monkeypatch):
    import importlib

    import naf_bench.integrations.lighteval as module
    from naf_bench.errors import ConfigError

    monkeypatch.delenv("NAF_BENCH_DATASET", raising=False)
    with pytest.raises(ConfigError, match="set NAF_BENCH_DATASET to an export folder"):
        importlib.reload(module)


def test_joint_prompt_one_document_per_program(lighteval_tasks, response_for):
    """The JOINT prompt as lm-eval and inspect run it: one document a program, its answer lines read per reading,
    the values of the inspect test's four programs."""
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.lighteval_task import LightevalTask

    from naf_bench.integrations.tasks import prompt_text, task_documents

    config = next(c for c in lighteval_tasks.TASKS_TABLE if c.name == "naf_bench_joint_prompt")
    task = LightevalTask(config)
    LightevalTask.load_datasets({"naf_bench_joint_prompt": task})
    docs = task.eval_docs()
    spec = task_spec("naf_bench_joint_prompt")
    documents = task_documents(spec).to_list()
    assert [doc.query for doc in docs] == [prompt_text(spec, document) for document in documents]  # 120 programs
    (metric,) = config.metrics
    items = [
        metric.compute_sample(doc=doc, model_response=ModelResponse(text=[response_for(doc.query)])) for doc in docs[:4]
    ]
    corpus = {name: fn([item[name] for item in items]) for name, fn in metric.get_corpus_aggregations().items()}
    assert (corpus["joint"], corpus["acc"], corpus["coverage"]) == (0.25, 0.3125, 0.875)
    assert (corpus["acc_closed_world"], corpus["acc_cred"], corpus["acc_skept"], corpus["acc_wfs"]) == (
        0.25,
        0.5,
        0.25,
        0.25,
    )
