"""naf-bench scores as a Hugging Face `evaluate` module: labels, proofs and ModelLog consistency.

A thin shell over ``naf_bench.scoring`` (the lm-eval tasks call the same code).
"""

import datasets
import evaluate

from naf_bench.scoring.consistency import compute_consistency
from naf_bench.scoring.extract import DEFAULT_EXTRACTOR
from naf_bench.scoring.labels import compute_label_metrics
from naf_bench.scoring.traces import compute_proof_metrics

_CITATION = """\
@misc{nafbench2026, title={Not What You Meant: Can LLMs Follow a Specified Negation Semantics?}, year={2026},
  eprint={2609.27517}, archivePrefix={arXiv}}
@misc{modellog2026, title={From Token Probabilities to Semantic Constraints: Towards Declarative Probabilistic
  Evaluation of Language Models}, year={2026}, eprint={2609.13520}, archivePrefix={arXiv}}
"""

_DESCRIPTION = """\
Scores for NAF-Bench, a benchmark of whether a language model follows a specified semantics of negation.
Config `label`: answer accuracy, strict accuracy, coverage, per-condition and per-bin accuracy, JOINT,
flip rate, default correspondence, majority and constant baselines, program-clustered bootstrap intervals.
Config `proof`: trace audit, step checker (parsed/valid/linear/connects), proof accuracy and the
right-for-the-wrong-reason rate. Config `consistency`: ModelLog's WMC, WMC0, rho, CAcc and informativeness
of logical constraints over a model's prediction probabilities.
"""

_KWARGS_DESCRIPTION = """
Every argument is a column, one entry per row, given to add_batch batch by batch or to compute at once, except
the options, which compute takes. A column not given (or None) is absent: the scores that need it are not
computed; so is a column of None only (e.g. [None] * n).
Args (config `label`):
    predictions (list of str): model outputs, or bare letters, read by the extractor (below).
    references (list of str or None): gold letters A/B/C; None for condition `none` (never scored).
    conditions (list of str, optional): each row's condition (per-condition accuracy, JOINT).
    program_ids (list of str, optional): each row's program (JOINT, default correspondence, clustered intervals).
    variants (list of str, optional): each row's rule order or framing (flip rate instead of JOINT).
    bins (list of str, optional): each row's divergence bin or family (per-bin accuracy).
    extractor ("strict", "flexible" or "authors"; option): how answers are read (naf_bench.scoring.extract;
        default "flexible", its DEFAULT_EXTRACTOR: the last 'ANSWER: X' first, then boxed answers, option
        lines and answer words; "strict" reads the instructed 'ANSWER: X' only).
    n_bootstrap (int, option): program resamples for the 95% intervals (1000).
    seed (int, option): the resampling seed (0).
Args (config `proof`):
    predictions (list of str): reasoning traces.
    certificates (list of str): each row's `certificate` (JSON); a row published without gold has none and
        cannot be scored (its trace is audited against the certificate).
    conditions (list of str): each row's named condition.
    framings, languages (list of str, optional): each row's framing and language; None tries every rendering.
    prompts (list of str, optional): each row's prompt, whose rules a step may quote instead of citing a number.
    extractor (option): how the answer is read, as for `label`.
Args (config `consistency`):
    formulas (list of str): constraints such as "(a & b) -> c" or "atleast(1, a, b)".
    probabilities (list of dict): event -> probability (or -> {"p": p, "nucleus_entropy": C, ...}).
    calibration ("none", "nucleus_entropy", "entropy", "log_nucleus_size"; option): C in sigma(logit(p) + C).
Returns: a dict of scores (see the metric card).
Examples:
    >>> import naf_bench.scoring
    >>> label = naf_bench.scoring.load_metric("label")  # evaluate.load of this folder, from any directory
    >>> predictions = ["Reasoning...\\nANSWER: A", "no answer", "C"]
    >>> scores = label.compute(predictions=predictions, references=["A", "B", "C"])
    >>> scores["accuracy"], scores["strict_accuracy"], scores["coverage"], scores["n_unparsed"]
    (1.0, 0.6666666666666666, 0.6666666666666666, 1)
    >>> rows = dict(conditions=["none", "wfs"], program_ids=["p", "p"])
    >>> scores = label.compute(predictions=["C", "C"], references=[None, "C"], extractor="flexible", **rows)
    >>> scores["accuracy"], scores["n_scored"], scores["extractor"], scores["default_correspondence"]
    (1.0, 1, 'flexible', None)
    >>> for outputs, gold in ((["ANSWER: A", "ANSWER: B"], ["A", "A"]), (["ANSWER: C"], ["C"])):
    ...     label.add_batch(predictions=outputs, references=gold)
    >>> label.compute()["strict_accuracy"]
    0.6666666666666666
    >>> consistency = naf_bench.scoring.load_metric("consistency")
    >>> probabilities = [{"a": 0.9, "b": 0.8}, {"a": 0.9, "b": 0.1}]
    >>> scores = consistency.compute(formulas=["a -> b", "a ^ b"], probabilities=probabilities)
    >>> [round(x, 4) for x in scores["rho"]], scores["cacc"]
    ([0.28, 0.64], [1.0, 1.0])
"""

# large_string where an entry may be None: evaluate requires a `string` column's first entry to be a str
_OPTIONAL = datasets.Value("large_string")
FEATURES = {
    "label": {
        "predictions": _OPTIONAL,
        "references": _OPTIONAL,
        "conditions": _OPTIONAL,
        "program_ids": _OPTIONAL,
        "variants": _OPTIONAL,
        "bins": _OPTIONAL,
    },
    "proof": {
        "predictions": _OPTIONAL,
        "certificates": _OPTIONAL,
        "conditions": datasets.Value("string"),
        "framings": _OPTIONAL,
        "languages": _OPTIONAL,
        "prompts": _OPTIONAL,
    },
    "consistency": {"formulas": datasets.Value("string"), "probabilities": datasets.Json()},
}
# the columns a caller may leave out (the rest are required)
OPTIONAL_COLUMNS = {
    "label": ("conditions", "program_ids", "variants", "bins"),
    "proof": ("framings", "languages", "prompts"),
    "consistency": (),
}


# the columns of text (or None) per config: anything else is refused before it is stringified
TEXT_COLUMNS = {
    "label": ("predictions", "references", "conditions", "program_ids", "variants", "bins"),
    "proof": ("predictions", "certificates", "conditions", "framings", "languages", "prompts"),
    "consistency": ("formulas",),
}
_ROWS_HINT = (
    "for rows of the dataset, **naf_bench.scoring.label_columns(rows) gives references, conditions and program_ids"
)


def _refuse_non_text(config: str, arguments: dict) -> None:
    """A ValueError in one line where a text column holds something else (a Dataset, rows, dicts, numbers),
    saying what to pass: ``evaluate`` would store each entry's ``str()`` and score it silently."""
    for name in TEXT_COLUMNS[config]:
        column = arguments.get(name)
        if column is None:
            continue
        what = {"predictions": "the model's output texts", "references": "the gold letters (A, B, C)"}.get(
            name, f"one string per row for {name}"
        )
        hint = f"; {_ROWS_HINT}" if config == "label" and name != "predictions" else ""
        if isinstance(column, str | dict | datasets.Dataset):
            kind = "a Dataset" if isinstance(column, datasets.Dataset) else f"a {type(column).__name__}"
            raise ValueError(f"naf_bench {config!r}: {name} is {kind}; pass a list of {what} (or None){hint}")
        for index, value in enumerate(column):
            if value is not None and not isinstance(value, str):
                shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
                raise ValueError(
                    f"naf_bench {config!r}: {name}[{index}] is a {type(value).__name__} ({shown}), not "
                    f"text; pass a list of {what} (or None){hint}"
                )


def _given(column):
    """A column, or None when no row has a value."""
    return None if all(value is None for value in column) else list(column)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NafBench(evaluate.Metric):  # evaluate names the module after the class: naf_bench
    def _info(self):
        if self.config_name not in FEATURES:
            raise KeyError(f"config_name must be one of {tuple(FEATURES)}, got {self.config_name!r}")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(FEATURES[self.config_name]),
            homepage="https://github.com/14H034160212/NAFBench",
        )

    # evaluate 0.4 requires every column of the Features in each call: the optional ones not given are filled
    def compute(self, *, predictions=None, references=None, **kwargs):
        """The scores of the rows given here and added before (evaluate appends the inputs' description)."""
        return super().compute(**self._with_absent_columns(predictions=predictions, references=references, **kwargs))

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of rows (evaluate appends the inputs' description)."""
        super().add_batch(**self._with_absent_columns(predictions=predictions, references=references, **kwargs))

    def _with_absent_columns(self, **arguments) -> dict:
        """The arguments with each optional column not given (or None) as a column of None; unchanged when no
        column is given (compute over the batches added)."""
        _refuse_non_text(self.config_name, arguments)
        given = [name for name in FEATURES[self.config_name] if arguments.get(name) is not None]
        if not given:
            return arguments
        if missing := [
            name
            for name in FEATURES[self.config_name]
            if name not in given and name not in OPTIONAL_COLUMNS[self.config_name]
        ]:
            raise ValueError(
                f"naf_bench {self.config_name!r}: {missing} must be given (optional: "
                f"{list(OPTIONAL_COLUMNS[self.config_name])})"
            )
        n = len(arguments[given[0]])
        return {**arguments, **{name: [None] * n for name in OPTIONAL_COLUMNS[self.config_name] if name not in given}}

    def _compute(
        self,
        predictions=None,
        references=None,
        conditions=None,
        program_ids=None,
        variants=None,
        bins=None,
        certificates=None,
        framings=None,
        languages=None,
        prompts=None,
        formulas=None,
        probabilities=None,
        extractor=DEFAULT_EXTRACTOR,
        n_bootstrap=1000,
        seed=0,
        calibration="none",
    ):
        """The scores of the module's config over every row added (see _KWARGS_DESCRIPTION)."""
        if self.config_name == "label":
            columns = {
                name: _given(column)
                for name, column in (
                    ("conditions", conditions),
                    ("program_ids", program_ids),
                    ("variants", variants),
                    ("bins", bins),
                )
            }
            return compute_label_metrics(
                predictions, references, **columns, extractor=extractor, n_bootstrap=n_bootstrap, seed=seed
            )
        if self.config_name == "proof":
            keys = ("certificate", "condition", "framing", "language", "prompt")
            columns = (certificates, conditions, framings, languages, prompts)
            references = [dict(zip(keys, values, strict=True)) for values in zip(*columns, strict=True)]
            return compute_proof_metrics(predictions, references, extractor=extractor)
        return compute_consistency(formulas, probabilities, calibration=calibration)
