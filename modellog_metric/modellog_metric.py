"""naf-bench scores as a Hugging Face `evaluate` module: labels, proofs and ModelLog consistency.

A thin shell over ``naf_bench.scoring`` (the lm-eval tasks call the same code).
"""

import json

import datasets
import evaluate

from naf_bench.scoring.consistency import compute_consistency
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
Args (config `label`):
    predictions (list of str): model outputs, or bare letters; the answer is the last 'ANSWER: X'.
    references (list of str or None): gold letters A/B/C; None for condition `none` (never scored).
    conditions, program_ids, variants, bins (lists, optional): enable per-condition/per-bin accuracy,
        JOINT, flip rate and default correspondence.
    extractor ("strict", "flexible" or "reference"): how answers are read (see naf_bench.scoring.extract).
Args (config `proof`):
    predictions (list of str): reasoning traces.
    references (list of dict): each with the row's `certificate` (JSON) and `condition`.
Args (config `consistency`):
    formulas (list of str): constraints such as "(a & b) -> c" or "atleast(1, a, b)".
    probabilities (list of dict): event -> probability (or -> {"p": p, "nucleus_entropy": C, ...}).
    calibration ("none", "nucleus_entropy", "entropy", "log_nucleus_size").
Returns: a dict of scores (see the metric card).
Examples:
    >>> import evaluate
    >>> label = evaluate.load("modellog_metric", "label")
    >>> scores = label.compute(predictions=["Reasoning...\\nANSWER: A", "no answer", "C"], references=["A", "B", "C"])
    >>> scores["accuracy"], scores["strict_accuracy"], scores["coverage"], scores["n_unparsed"]
    (1.0, 0.6666666666666666, 0.6666666666666666, 1)
    >>> scores = label.compute(predictions=["ANSWER: C", "ANSWER: C"], references=[None, "C"], extractor="flexible")
    >>> scores["accuracy"], scores["n_scored"], scores["extractor"]
    (1.0, 1, 'flexible')
    >>> consistency = evaluate.load("modellog_metric", "consistency")
    >>> probabilities = [{"a": 0.9, "b": 0.8}, {"a": 0.9, "b": 0.1}]
    >>> scores = consistency.compute(formulas=["a -> b", "a ^ b"], probabilities=probabilities)
    >>> [round(x, 4) for x in scores["rho"]], scores["cacc"]
    ([0.28, 0.64], [1.0, 1.0])
"""

CONFIGS = ("label", "proof", "consistency")
NO_REFERENCE = ""  # how a None reference (condition `none`, never scored) is stored by evaluate


def _stored(references):
    """References as evaluate can type them: a None anywhere (even first) is stored as NO_REFERENCE."""
    return None if references is None else [NO_REFERENCE if r is None else r for r in references]


# Per-row columns of the label config that add_batch also takes (they are compute() arguments, not features).
ROW_COLUMNS = ("conditions", "program_ids", "variants", "bins")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NafBench(evaluate.Metric):  # evaluate names the module after the class: naf_bench
    def _info(self):
        if self.config_name not in CONFIGS:
            raise KeyError(f"config_name must be one of {CONFIGS}, got {self.config_name!r}")
        features = {
            "label": {"predictions": datasets.Value("string"), "references": datasets.Value("string")},
            "proof": {
                "predictions": datasets.Value("string"),
                "references": {"certificate": datasets.Value("string"), "condition": datasets.Value("string")},
            },
            "consistency": {"formulas": datasets.Value("string"), "probabilities": datasets.Value("string")},
        }[self.config_name]
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(features),
            homepage="https://github.com/14H034160212/NAFBench",
        )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._row_columns: dict[str, list] = {}
        self._rows_added = 0

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch; with config `label`, also its per-row conditions, program_ids, variants and bins, as a
        training loop gives them batch by batch (compute() then scores all batches together)."""
        columns = {name: kwargs.pop(name) for name in ROW_COLUMNS if kwargs.get(name) is not None}
        if columns:
            if self.config_name != "label":
                raise ValueError(f"{sorted(columns)} are label-config columns; this is config {self.config_name!r}")
            for name, values in columns.items():
                if len(values) != len(predictions):
                    raise ValueError(f"{name} has {len(values)} entries but the batch has {len(predictions)}")
                if len(self._row_columns.get(name, ())) != self._rows_added:
                    raise ValueError(f"{name} must be given with every batch or with none")
                self._row_columns.setdefault(name, []).extend(values)
        elif self._row_columns and predictions is not None:
            raise ValueError(f"{sorted(self._row_columns)} must be given with every batch or with none")
        if predictions is not None:
            self._rows_added += len(predictions)
        if self.config_name == "label":
            references = _stored(references)
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute the scores of the metric's config (probabilities and certificates are serialised here)."""
        columns, self._row_columns, self._rows_added = self._row_columns, {}, 0
        if both := sorted(name for name in columns if kwargs.get(name) is not None):
            raise ValueError(f"{both} were given to add_batch already; give them once")
        kwargs.update(columns)
        if self.config_name == "consistency" and kwargs.get("probabilities") is not None:
            kwargs["probabilities"] = [json.dumps(p) for p in kwargs["probabilities"]]
        if self.config_name == "label":
            references = _stored(references)
        if self.config_name == "proof" and references is not None:
            references = [
                {"certificate": r["certificate"], "condition": r["condition"]}
                if isinstance(r["certificate"], str)
                else {"certificate": r["certificate"].to_json(), "condition": r["condition"]}
                for r in references
            ]
        try:
            return super().compute(predictions=predictions, references=references, **kwargs)
        finally:
            self._row_columns, self._rows_added = {}, 0

    def _compute(self, predictions=None, references=None, formulas=None, probabilities=None, **kwargs):
        if self.config_name == "label":
            references = [None if r == NO_REFERENCE else r for r in references]
            return compute_label_metrics(predictions, references, **kwargs)
        if self.config_name == "proof":
            return compute_proof_metrics(predictions, references, **kwargs)
        return compute_consistency(formulas, [json.loads(p) for p in probabilities], **kwargs)
