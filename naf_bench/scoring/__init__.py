"""Scoring: the one intake of submissions and gold files (with submission metadata and its schema), the scoring
core, answer extraction, label metrics, trace audit and step checker, ModelLog consistency.

The evaluate module (``modellog_metric/``) and the lm-eval tasks are thin shells over this package.
"""


def load_metric(config: str = "label", **kwargs):
    """``evaluate.load`` of the installed ``modellog_metric`` module, whatever the working directory; the module
    is found by path, not imported: it is a shell over this package, never the other way round.

    >>> label = load_metric("label")  # from any working directory
    >>> label.compute(predictions=["ANSWER: B", "ANSWER: A"], references=["B", "C"])["strict_accuracy"]
    0.5
    """
    from importlib.util import find_spec

    import evaluate

    folder = find_spec("modellog_metric").submodule_search_locations[0]  # installed beside naf_bench
    return evaluate.load(folder, config, **kwargs)


def label_columns(rows) -> dict:
    """The ``label`` config's row columns of dataset rows: gold, condition and program of each (no variants or
    bins: JOINT and per-condition scores, not flip rates). ``rows``: a list of rows, or columns by name (a
    ``datasets.Dataset``, or the dict a slice of one gives).

    >>> rows = [{"gold": "A", "condition": "wfs", "program_id": "p"}, {"gold": None, "condition": "none",
    ...          "program_id": "p"}]
    >>> label_columns(rows) == label_columns({key: [row[key] for row in rows] for key in rows[0]})
    True
    >>> label_columns(rows)["conditions"]
    ['wfs', 'none']
    """
    names = {"references": "gold", "conditions": "condition", "program_ids": "program_id"}
    if isinstance(rows, list | tuple):
        return {name: [row[key] for row in rows] for name, key in names.items()}
    return {name: list(rows[key]) for name, key in names.items()}
