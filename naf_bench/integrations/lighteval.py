"""lighteval custom tasks of naf-bench: ``lighteval endpoint litellm ... "naf_bench_joint|0" --custom-tasks
naf_bench.integrations.lighteval`` runs every generative lm-eval task (:mod:`naf_bench.integrations.tasks`) with its
name, prompt and generation settings. lighteval reads documents with ``datasets.load_dataset(hf_repo, hf_subset)``,
so the tasks read the export folder or Hub id that ``NAF_BENCH_DATASET`` names (``naf-bench export``); each answer
is read once by the scoring core's default answer policy, and accuracy, coverage, accuracy per reading and JOINT
(a corpus metric: a program's readings are documents of one task) are the core's aggregates.
``naf_bench_joint_prompt`` asks every reading in one prompt: its document is a program's first JOINT reading's row
(lighteval reads rows, one document each), the other readings' golds that row's certified labels.

Offline, lighteval 0.12.2 and 0.13.0 stop before they read this module: their registry imports every built-in task
module, and mt_bench and mix_eval build a vllm judge at import that calls ``HfApi.list_models(model_name=...)``
(refused by huggingface_hub 2.x, which transformers 5.25 requires; a network call under any version), while
tiny_benchmarks downloads a pickle from GitHub at import. With network access the CLI runs these tasks."""

from __future__ import annotations

import math
import os

from lighteval.metrics.metrics_sample import SampleLevelComputation
from lighteval.metrics.utils.metric_utils import SampleLevelMetricGrouping
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc, SamplingMethod

from naf_bench.integrations.tasks import TaskSpec, prompt_text, task_specs
from naf_bench.readings import joint_conditions, named_conditions
from naf_bench.scoring.formatting import nan_if_undefined

DATASET = "NAF_BENCH_DATASET"  # the export folder or Hub id the tasks read
ROW_FIELDS = ("id", "program_id", "family", "condition", "gold", "labels")


def _flat(values) -> list:
    """The (row, answer) pairs of the documents (a JOINT prompt's document gives one per reading)."""
    return [item for items in values for item in items]


def _scores(values):
    from naf_bench.scoring.core import Scores

    items = _flat(values)
    rows = [row for row, _ in items]
    return Scores(rows, [answer for _, answer in items], [True] * len(rows), extractor="", format_valid_rate=None)


def _accuracy(values) -> float:
    cell = _scores(values).cell()
    return cell.correct / cell.n if cell.n else math.nan


def _coverage(values) -> float:
    items = _flat(values)
    return sum(answer is not None for _, answer in items) / len(items) if items else math.nan


def _joint(values) -> float:
    return nan_if_undefined(_scores(values).joint())


def _reading_accuracy(reading: str):
    def accuracy(values) -> float:
        return _accuracy([[item for item in _flat(values) if item[0]["condition"] == reading]])

    return accuracy


CORPUS = {"acc": _accuracy, "coverage": _coverage, "joint": _joint} | {
    f"acc_{reading}": _reading_accuracy(reading) for reading in named_conditions()
}


class LetterOfResponse(SampleLevelComputation):
    """Each response's letter, read once by the task's reader (the core's answer policy, or the translation
    reader), kept with its row for the corpus metrics; a JOINT prompt's letter per reading (the JOINT reader, the
    core's default extractor), each with its reading's gold."""

    def __init__(self, spec: TaskSpec):
        self.spec = spec

    def compute(self, doc: Doc, model_response, **kwargs) -> dict:
        from naf_bench.scoring.core import decide_answer
        from naf_bench.scoring.extract import DEFAULT_EXTRACTOR
        from naf_bench.scoring.joint_answers import joint_answers
        from naf_bench.scoring.translation import answer_from_translation
        from naf_bench.training.rewards import joint_golds

        row, text = doc.specific, model_response.text[0]
        if self.spec.per_program:
            answers = joint_answers(text, DEFAULT_EXTRACTOR)
            items = tuple((row | {"condition": c, "gold": gold}, answers[c]) for c, gold in joint_golds(row).items())
            return dict.fromkeys(CORPUS, items)
        if self.spec.reader == "utils.translated_letters":
            answer = answer_from_translation(text, row["condition"]).letter
        else:
            answer = decide_answer(text, row)[0]
        return dict.fromkeys(CORPUS, ((row, answer),))


def _prompt(spec: TaskSpec):
    def prompt_function(line: dict, task_name: str) -> Doc:
        document = {"rows": [line]} if spec.per_program else line  # a JOINT prompt's: its program's one row
        return Doc(
            task_name=task_name,
            query=prompt_text(spec, document),
            choices=[line["gold"] or ""],
            gold_index=0,
            specific={key: line[key] for key in ROW_FIELDS},
        )

    return prompt_function


def _conditions(spec: TaskSpec):
    if spec.per_program:  # lighteval reads rows: a program is its first JOINT reading's row, the others its labels
        first = next(iter(joint_conditions()))
        return lambda line: line["condition"] == first
    conditions = set(spec.conditions or named_conditions())
    return lambda line: line["condition"] in conditions


def task_config(spec: TaskSpec, dataset: str) -> LightevalTaskConfig:
    """The lighteval config of one lm-eval task, reading ``dataset`` (an export folder or Hub id)."""
    metric = SampleLevelMetricGrouping(
        metric_name=list(CORPUS),
        higher_is_better=dict.fromkeys(CORPUS, True),
        category=SamplingMethod.GENERATIVE,
        sample_level_fn=LetterOfResponse(spec),
        corpus_level_fn=CORPUS,
    )
    return LightevalTaskConfig(
        name=spec.name,
        prompt_function=_prompt(spec),
        hf_repo=dataset,
        hf_subset=spec.config,
        hf_filter=_conditions(spec),
        hf_avail_splits=[spec.split],
        evaluation_splits=[spec.split],
        few_shots_split=None,
        few_shots_select=None,
        generation_size=spec.max_tokens,
        stop_sequence=list(spec.stop),
        metrics=[metric],
        version=0,
    )


def _dataset() -> str:
    if not os.environ.get(DATASET):
        from naf_bench.errors import ConfigError

        raise ConfigError(
            f"lighteval reads documents with datasets.load_dataset: set {DATASET} to an export folder "
            "(naf-bench export --out FOLDER) or a Hub id"
        )
    return os.environ[DATASET]


TASKS_TABLE = [task_config(spec, _dataset()) for spec in task_specs().values()]
