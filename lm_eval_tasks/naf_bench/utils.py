"""lm-eval glue for naf-bench: documents from our generator, scoring from naf_bench.scoring."""

import math
from copy import deepcopy

from lm_eval.api.instance import Instance
from lm_eval.api.task import ConfigurableTask

from naf_bench import parse_program
from naf_bench.data.dataset import program_documents, task_dataset
from naf_bench.readings import answer_letters, joint_conditions, named_conditions
from naf_bench.scoring import lm
from naf_bench.scoring.core import check_row, constant_hits, program_solved
from naf_bench.scoring.core import flip_rate as core_flip_rate
from naf_bench.scoring.extract import extract_answer
from naf_bench.scoring.formatting import nan_if_undefined
from naf_bench.scoring.joint_answers import joint_answers
from naf_bench.scoring.translation import answer_from_translation
from naf_bench.training.rewards import EXTRACTOR as REWARD_EXTRACTOR
from naf_bench.verbalize.joint_prompt import render_joint_prompt
from naf_bench.verbalize.mitigation import render_translation_prompt, render_verify_prompt
from naf_bench.verbalize.traced import render_row_prompt

UNANSWERED = "[invalid]"  # what lm-eval's regex filter leaves when nothing matches


def load(config="main", conditions=None, by_program=False, columns=None, dataset_path=None):
    """The config's rows of ``conditions`` (by default every named reading's) with only ``columns`` when given, or
    one document per program; from the dataset repository ``dataset_path`` or ``NAF_BENCH_DATASET`` names
    (``ORG/naf-bench``), else generated here."""
    import datasets

    dataset = task_dataset(config, conditions or named_conditions(), dataset_path)
    if columns:
        dataset = dataset.select_columns(columns)
    if by_program:
        return datasets.DatasetDict({split: program_documents(part) for split, part in dataset.items()})
    return dataset


class NafBenchTask(ConfigurableTask):
    """Documents come from naf_bench.load_dataset: the task's ``dataset_name`` is the config, ``dataset_kwargs``
    pick conditions and columns, and ``metadata`` (or ``--metadata``) may name a ``dataset_path``."""

    def __init__(self, config):  # lm-eval passes the yaml's `class` key on; TaskConfig has no such field
        super().__init__(config={key: value for key, value in config.items() if key != "class"})

    def download(self, dataset_kwargs=None, **kwargs):  # dataset_name: the config; dataset_kwargs: load's arguments
        dataset_path = self.config.metadata.get("dataset_path")
        self.dataset = load(self.config.dataset_name, dataset_path=dataset_path, **(dataset_kwargs or {}))


class ProgramTask(NafBenchTask):
    """One document per program and one generation per row of it: JOINT needs every reading of a program."""

    def doc_to_text(self, doc, doc_to_text=None):
        if "rows" in doc:
            return [self.doc_to_text(row, doc_to_text) for row in doc["rows"]]
        return super().doc_to_text(doc, doc_to_text)

    def fewshot_context(self, doc, num_fewshot, **kwargs):
        return [super(ProgramTask, self).fewshot_context(row, num_fewshot, **kwargs) for row in doc["rows"]]

    def construct_requests(self, doc, ctx, metadata, **_):
        return [
            Instance("generate_until", doc, (text, deepcopy(self.config.generation_kwargs)), idx, metadata)
            for idx, text in enumerate(ctx)
        ]


def strict_letters(resps, docs):
    return [[extract_answer(text, "strict") or UNANSWERED for text in texts] for texts in resps]


def flexible_letters(resps, docs):
    return [[extract_answer(text, "flexible") or UNANSWERED for text in texts] for texts in resps]


def translated_letters(resps, docs):  # translate-then-solve: our strict parser and certifier answer
    return [
        [answer_from_translation(text, doc["condition"]).letter or UNANSWERED for text in texts]
        for texts, doc in zip(resps, docs, strict=True)
    ]


def _answer(filtered):
    return filtered if filtered in answer_letters() else None


def process_results(doc, results):
    answer = _answer(results[0])
    return {"acc": answer == doc["gold"], "coverage": answer is not None} | constant_hits(doc["gold"])


def process_default(doc, results):  # condition none: no gold; which reading does the model default to?
    answer = _answer(results[0])
    return {"coverage": answer is not None} | {f"answer_{x}": answer == x for x in answer_letters()}


def process_program(doc, results):
    answers = [_answer(result) for result in results]
    correct = [answer == row["gold"] for answer, row in zip(answers, doc["rows"], strict=True)]
    by_condition = {row["condition"]: answer for answer, row in zip(answers, doc["rows"], strict=True)}
    return {
        "joint": program_solved(by_condition, {row["condition"]: row["gold"] for row in doc["rows"]}) is True,
        "acc": sum(correct) / len(correct),
        "coverage": sum(answer is not None for answer in answers) / len(answers),
    } | {f"acc_{row['condition']}": right for row, right in zip(doc["rows"], correct, strict=True)}


def joint_prompt(doc):  # every reading of one program at once, as the training stream's JOINT items ask
    row = doc["rows"][0]
    return render_joint_prompt(parse_program(row["program"]), row["query"], row["language"], row["framing"])


def process_joint_prompt(doc, results):  # one response, one line per reading, read as the JOINT reward reads it
    answers = joint_answers(results[0], REWARD_EXTRACTOR)
    golds = {row["condition"]: row["gold"] for row in doc["rows"] if row["condition"] in joint_conditions()}
    correct = {condition: answers.get(condition) == gold for condition, gold in golds.items()}
    return {
        "joint": program_solved(answers, golds) is True,
        "acc": sum(correct.values()) / len(correct),
        "coverage": sum(answers.get(condition) is not None for condition in golds) / len(golds),
    } | {f"acc_{condition}": right for condition, right in correct.items()}


def process_variants(doc, results):  # rule orders or framings of one (program, condition)
    answer = _answer(results[0])
    return {"acc": answer == doc["gold"], "coverage": answer is not None} | {
        "flip_rate": (doc["program_id"], doc["condition"], answer)
    }


def flip_rate(items):
    return nan_if_undefined(core_flip_rate(items)[0])


def process_sweep(doc, results):
    right = _answer(results[0]) == doc["gold"]
    return {"acc": right, "coverage": _answer(results[0]) is not None} | {
        f"acc_{axis}_{value}": right if doc[axis] == value else math.nan
        for axis, values in SWEEP_AXES.items()
        for value in values
    }


SWEEP_AXES = {"depth": (2, 8, 16), "width": (0, 4, 8)}


def translation_prompt(doc):
    program = parse_program(doc["program"])
    system, user = render_translation_prompt(program, doc["query"], doc["framing"], doc["language"])
    return f"{system}\n\n{user}"


def verify_prompt(doc):
    program = parse_program(doc["program"])
    return render_verify_prompt(program, doc["query"], doc["condition"], doc["framing"], doc["language"])


def traced_prompt(doc):  # numbered rules, a request for a trace and one worked example, in the row's words
    return render_row_prompt(doc)


def process_traced(doc, results):  # the raw response: its label and the core's step checker on its trace
    flags = check_row(results[0], doc)
    right = extract_answer(results[0]) == doc["gold"]  # the default extractor, as every score's headline
    proved = all(flags.values())
    return {"acc": right, "proof_accuracy": proved, "rfwr": right and not proved} | flags


def choices(doc):  # the readings table's gold letters
    return list(answer_letters())


def choice_index(doc):
    return answer_letters().index(doc["gold"])


def letter_prompt(doc):  # multiple choice: no reasoning asked for; the letter follows "ANSWER:"
    return doc["prompt"].rsplit("\n\n", 1)[0] + "\n\n" + lm.LETTER_INSTRUCTION


def _letters(families):
    metrics = [f"{key}_{family}{suffix}" for family in families for key in ("rho", "cacc") for suffix in ("", "_std")]

    def process(doc, results):
        loglikelihoods = [loglikelihood for loglikelihood, _ in results]
        right = answer_letters()[max(range(len(answer_letters())), key=loglikelihoods.__getitem__)] == doc["gold"]
        item = {key: doc[key] for key in ("id", "program_id", "condition", "gold")} | {"loglikelihoods": loglikelihoods}
        # one-letter choices have one length, so lm-eval's length-normalised acc_norm picks the same letter
        return {"acc": right, "acc_norm": right} | dict.fromkeys(metrics, item)

    return process


process_letters = _letters(("one_letter", "inclusion", "certified"))  # a config without variants
process_letter_variants = _letters(("one_letter", "invariance", "inclusion", "certified"))


def _consistency(family, key, statistic):
    def aggregate(items):
        return nan_if_undefined(lm.consistency_over_top_p(items, family)[key][statistic])

    return aggregate


CONSISTENCY = {
    f"{key}_{family}{suffix}": _consistency(family, key, statistic)
    for family in ("one_letter", "invariance", "inclusion", "certified")
    for key in ("rho", "cacc")
    for suffix, statistic in (("", "mean"), ("_std", "std"))
}
rho_one_letter, rho_one_letter_std = CONSISTENCY["rho_one_letter"], CONSISTENCY["rho_one_letter_std"]
cacc_one_letter, cacc_one_letter_std = CONSISTENCY["cacc_one_letter"], CONSISTENCY["cacc_one_letter_std"]
rho_invariance, rho_invariance_std = CONSISTENCY["rho_invariance"], CONSISTENCY["rho_invariance_std"]
cacc_invariance, cacc_invariance_std = CONSISTENCY["cacc_invariance"], CONSISTENCY["cacc_invariance_std"]
rho_inclusion, rho_inclusion_std = CONSISTENCY["rho_inclusion"], CONSISTENCY["rho_inclusion_std"]
cacc_inclusion, cacc_inclusion_std = CONSISTENCY["cacc_inclusion"], CONSISTENCY["cacc_inclusion_std"]
rho_certified, rho_certified_std = CONSISTENCY["rho_certified"], CONSISTENCY["rho_certified_std"]
cacc_certified, cacc_certified_std = CONSISTENCY["cacc_certified"], CONSISTENCY["cacc_certified_std"]
