"""lm-eval glue for naf-bench: documents from our generator, scoring from naf_bench.scoring."""

from collections import Counter

from naf_bench.dataset import task_dataset
from naf_bench.scoring.consistency import compute_consistency
from naf_bench.scoring.constraints import FAMILIES, constraints_of_samples
from naf_bench.scoring.extract import extract_answer
from naf_bench.scoring.labels import flip_rate_from_items, joint_from_items
from naf_bench.verbalize.mitigation import answer_from_translation, render_translation_prompt, render_verify_prompt


def load(config="main", conditions=None, dataset_path=None, **_):  # lm-eval also passes model args and version
    return task_dataset(config, conditions, dataset_path)  # NAF_BENCH_DATASET=ORG/naf-bench reads the Hub repo


def process_results(doc, results):
    return _scores(doc, extract_answer(results[0])) | _baselines(doc)


def process_default(doc, results):  # condition none: no gold; which reading does the model default to?
    answer = extract_answer(results[0])
    return {"coverage": answer is not None} | {f"answer_{x}": answer == x for x in "ABC"}


def process_translation(doc, results):  # an unparseable program is an unanswered item
    return _scores(doc, answer_from_translation(results[0], doc["condition"]).letter) | _baselines(doc)


def process_joint(doc, results):
    answer = extract_answer(results[0])
    return _scores(doc, answer) | {"joint": (doc["program_id"], doc["condition"], answer, doc["gold"])}


def process_order(doc, results):
    answer = extract_answer(results[0])
    return _scores(doc, answer) | {"flip_rate": (doc["program_id"], doc["condition"], answer)}


def _scores(doc, answer):
    return {"accuracy": (answer, doc["gold"]), "strict_accuracy": answer == doc["gold"], "coverage": answer is not None}


def _baselines(doc):
    return {f"constant_{x}": doc["gold"] == x for x in "ABC"} | {"majority": doc["gold"]}


def accuracy(items):
    parsed = [(a, g) for a, g in items if a is not None]
    return sum(a == g for a, g in parsed) / len(parsed) if parsed else 0.0


def joint(items):
    return joint_from_items(items) or 0.0


def flip_rate(items):
    return flip_rate_from_items(items)[0] or 0.0


def majority(items):
    return Counter(items).most_common(1)[0][1] / len(items) if items else 0.0


def translation_prompt(doc):
    system, user = render_translation_prompt(_program(doc), doc["query"], doc["framing"])
    return f"{system}\n\n{user}"


def verify_prompt(doc):
    return render_verify_prompt(_program(doc), doc["query"], doc["condition"], doc["framing"])


def _program(doc):
    from naf_bench import parse_program

    return parse_program(doc["program"])


def process_letters(doc, results):  # multiple choice: loglikelihoods of " A", " B", " C"
    import math

    letters = {x: {"p": math.exp(ll)} for x, (ll, _) in zip("ABC", results, strict=True)}
    return {f"rho_{f}": (doc, letters) for f in FAMILIES} | {f"cacc_{f}": (doc, letters) for f in FAMILIES}


def _consistency(items, family, key):
    chosen = [(formula, events) for name, formula, events in constraints_of_samples(items) if name == family]
    return compute_consistency(*zip(*chosen, strict=True))[f"mean_{key}"] if chosen else 0.0


def _aggregation(family, key):
    def aggregate(items):
        return _consistency(items, family, key)

    return aggregate


rho_one_letter, cacc_one_letter = _aggregation("one_letter", "rho"), _aggregation("one_letter", "cacc")
rho_invariance, cacc_invariance = _aggregation("invariance", "rho"), _aggregation("invariance", "cacc")
rho_inclusion, cacc_inclusion = _aggregation("inclusion", "rho"), _aggregation("inclusion", "cacc")
rho_certified, cacc_certified = _aggregation("certified", "rho"), _aggregation("certified", "cacc")
