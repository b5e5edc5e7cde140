"""inspect_ai tasks of naf-bench: ``inspect eval naf_bench/<task> --model ...`` runs every generative lm-eval task
(:mod:`naf_bench.integrations.tasks`) with lm-eval's prompt and generation settings, one sample per prompt whose
metadata is its row (id, program, reading, bin: the log viewer shows them), or its program's rows where one
prompt asks every reading (``naf_bench_joint_prompt``: the JOINT reader reads a letter from each answer line). The
scorer reads each answer once with the scoring core's default extractor (``-T extractor=flexible`` for another) and
the metrics are the core's aggregates over the samples: accuracy (an unanswered prompt counts as wrong), coverage,
accuracy per reading, JOINT with its program-clustered 95 % interval, and, where the task's lm-eval scoring has them,
the answer shares, flip rate and proof accuracy. Registered through the ``inspect_ai`` entry point (the ``inspect``
extra)."""

from __future__ import annotations

import math

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from naf_bench.integrations.tasks import TaskSpec, prompt_text, task_documents, task_spec, task_specs
from naf_bench.readings import answer_letters
from naf_bench.scoring.formatting import nan_if_undefined

_SHOWN_IN_INPUT = ("prompt", "messages")  # the input already shows them


def _scores(scores: list[SampleScore]):
    """The scoring core's :class:`Scores` of the samples: each row (its metadata) with the answer read once; a
    program's sample (a JOINT prompt) gives each of its rows the answer of its reading's line."""
    from naf_bench.scoring.core import Scores

    rows, answers = [], []
    for s in scores:
        metadata = s.sample_metadata or {}
        if "rows" in metadata:
            rows += metadata["rows"]
            answers += [s.score.metadata["answers"][row["condition"]] for row in metadata["rows"]]
        else:
            rows.append(metadata)
            answers.append(s.score.answer or None)
    return Scores(rows, answers, [True] * len(rows), extractor="", format_valid_rate=None)


@metric
def accuracy() -> Metric:
    """Share of prompts with gold answered right; an unanswered prompt counts as wrong (lm-eval's ``acc``)."""

    def compute(scores: list[SampleScore]) -> float:
        cell = _scores(scores).cell()
        return cell.correct / cell.n if cell.n else math.nan

    return compute


@metric
def coverage() -> Metric:
    """Share of prompts (of a JOINT prompt's readings) whose answer reads as a letter."""

    def compute(scores: list[SampleScore]) -> float:
        answers = _scores(scores).answers
        return sum(answer is not None for answer in answers) / len(answers) if answers else math.nan

    return compute


@metric
def accuracy_by_reading() -> Metric:
    """Accuracy per reading (``acc_<reading>``), as the joint task reports it."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        graded = _scores(scores)
        by_reading = graded.by("condition").items()
        return {f"acc_{reading}": graded.cell(rows).correct / len(rows) for reading, rows in by_reading}

    return compute


@metric
def joint() -> Metric:
    """JOINT (share of programs whose every JOINT reading is answered right) with its 95 % interval, resampling
    whole programs (``joint_low``, ``joint_high``); NaN where the samples hold no program JOINT counts."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        graded = _scores(scores)
        low, high = graded.intervals(["joint"], cluster="program").get("joint", (math.nan, math.nan))
        return {"joint": nan_if_undefined(graded.joint()), "joint_low": low, "joint_high": high}

    return compute


@metric
def answer_shares() -> Metric:
    """Share of each letter among the prompts (condition none: the reading a model defaults to)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        n = len(scores) or math.nan
        return {f"answer_{x}": sum(s.score.answer == x for s in scores) / n for x in answer_letters()}

    return compute


@metric(name="flip_rate")
def flip_rate_of_variants() -> Metric:
    """Share of (program, reading) groups with two or more answers whose answer changes (rule orders, framings)."""

    def compute(scores: list[SampleScore]) -> float:
        return nan_if_undefined(_scores(scores).flip_rate()[0])

    return compute


@metric
def proof_accuracy() -> Metric:
    """Share of traced prompts whose trace the step checker passes (parsed, valid, linear and connected)."""

    def compute(scores: list[SampleScore]) -> float:
        proved = [all(s.score.metadata.values()) for s in scores if s.score.metadata]
        return sum(proved) / len(proved) if proved else math.nan

    return compute


# the metrics of each lm-eval scoring function (lm_eval_tasks/naf_bench/utils.py), one entry per function
TASK_METRICS = {
    "utils.process_results": (accuracy, coverage),
    "utils.process_program": (joint, accuracy, coverage, accuracy_by_reading),
    "utils.process_default": (coverage, answer_shares),
    "utils.process_variants": (flip_rate_of_variants, accuracy, coverage),
    "utils.process_sweep": (accuracy, coverage, accuracy_by_reading),
    "utils.process_traced": (accuracy, proof_accuracy),
    "utils.process_joint_prompt": (joint, accuracy, coverage, accuracy_by_reading),
}


def _read(spec: TaskSpec, extractor: str | None):
    """The answer reader of the task's lm-eval filter: the core's answer policy, or the translation reader."""
    from naf_bench.scoring.core import decide_answer
    from naf_bench.scoring.translation import answer_from_translation

    if spec.reader == "utils.translated_letters":
        return lambda text, row: answer_from_translation(text, row["condition"]).letter
    if extractor is None:
        return lambda text, row: decide_answer(text, row)[0]
    return lambda text, row: decide_answer(text, row, extractor)[0]


@scorer(metrics=[])
def naf_bench_scorer(task_name: str, extractor: str | None = None):
    """The letter of each response, read once (the task's reader), right or wrong against the row's gold; a
    traced task's score also carries the step checker's flags; a JOINT prompt's, its letter per reading."""
    spec = task_spec(task_name)
    if spec.results == "utils.process_joint_prompt":
        return _joint_prompt_score(extractor)
    read = _read(spec, extractor)

    async def score(state: TaskState, target: Target) -> Score:
        from naf_bench.scoring.core import check_row

        row = state.metadata
        text = state.output.completion
        answer = read(text, row)
        flags = check_row(text, row) if spec.results == "utils.process_traced" else None
        # a row without gold (condition none) is not graded: its value is the letter read, as its metrics count it
        value = (answer or "") if row.get("gold") is None else float(answer == row["gold"])
        return Score(value=value, answer=answer or "", explanation=text, metadata=flags)

    return score


def _joint_prompt_score(extractor: str | None):
    """A JOINT prompt's response: each reading's letter read from its line (as lm-eval's process_joint_prompt
    reads it), the value whether the program is solved, the letters in the metadata for the metrics."""
    from naf_bench.scoring.extract import DEFAULT_EXTRACTOR

    async def score(state: TaskState, target: Target) -> Score:
        from naf_bench.scoring.core import program_solved
        from naf_bench.scoring.joint_answers import joint_answers

        text = state.output.completion
        answers = joint_answers(text, extractor or DEFAULT_EXTRACTOR)
        golds = {row["condition"]: row["gold"] for row in state.metadata["rows"]}
        shown = " ".join(f"{condition}:{letter or '-'}" for condition, letter in answers.items())
        solved = float(program_solved(answers, golds) is True)
        return Score(value=solved, answer=shown, explanation=text, metadata={"answers": answers})

    return score


def _shown(row) -> dict:
    return {key: value for key, value in row.items() if key not in _SHOWN_IN_INPUT}


def _sample(spec: TaskSpec, document) -> Sample:
    """One row's sample, or (``spec.per_program``) one program's, whose metadata holds its rows."""
    if spec.per_program:
        metadata = {"program_id": document["program_id"], "rows": [_shown(row) for row in document["rows"]]}
        return Sample(input=prompt_text(spec, document), id=document["program_id"], metadata=metadata)
    return Sample(
        input=prompt_text(spec, document), target=document["gold"] or "", id=document["id"], metadata=_shown(document)
    )


def naf_bench_task(
    name: str,
    config: str | None = None,
    split: str | None = None,
    extractor: str | None = None,
    limit: int | None = None,
    dataset_path: str | None = None,
) -> Task:
    """The inspect Task of the lm-eval task ``name``: its documents (rows, or programs; of ``config`` and ``split``
    where given, the first ``limit``, from ``dataset_path`` where given), its prompt, greedy generation of up to its
    token budget."""
    from naf_bench.scoring.extract import EXTRACTORS, unalias_extractor

    spec = task_spec(name)
    extractor = None if extractor is None else unalias_extractor(extractor)
    if extractor is not None and extractor not in EXTRACTORS:
        from naf_bench.errors import ConfigError

        raise ConfigError(f"no extractor {extractor!r}; the extractors are {', '.join(EXTRACTORS)}")
    documents = task_documents(spec, config, split, dataset_path)
    if limit is not None:
        documents = documents.select(range(min(int(limit), len(documents))))
    samples = [_sample(spec, document) for document in documents]
    return Task(
        dataset=MemoryDataset(samples, name=f"naf-bench/{config or spec.config}"),
        solver=generate(),
        scorer=naf_bench_scorer(name, extractor),
        metrics=[make() for make in TASK_METRICS[spec.results]],
        config=GenerateConfig(
            temperature=spec.temperature, max_tokens=spec.max_tokens, stop_seqs=list(spec.stop) or None
        ),
    )


def _registered(name: str):
    def make(
        config: str | None = None,
        split: str | None = None,
        extractor: str | None = None,
        limit: int | None = None,
        dataset_path: str | None = None,
    ) -> Task:
        return naf_bench_task(name, config, split, extractor, limit, dataset_path)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"naf-bench's lm-eval task {name} (see naf_bench.integrations.inspect.naf_bench_task)."
    return task(name=name)(make)


globals().update({name: _registered(name) for name in task_specs()})  # naf_bench/<task> for `inspect eval`
