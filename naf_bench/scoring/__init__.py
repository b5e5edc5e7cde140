"""Scoring: answer extraction, label metrics, trace audit and step checker, ModelLog consistency.

The evaluate module (``modellog_metric/``) and the lm-eval tasks are thin shells over this package.
"""


def load_metric(config: str = "label", **kwargs):
    """``evaluate.load`` of the installed ``modellog_metric`` module, whatever the working directory; the module
    is found by path, not imported: it is a shell over this package, never the other way round."""
    from importlib.util import find_spec

    import evaluate

    folder = find_spec("modellog_metric").submodule_search_locations[0]  # installed beside naf_bench
    return evaluate.load(folder, config, **kwargs)


def label_columns(rows) -> dict:
    """The ``label`` config's row columns of dataset rows: gold, condition and program of each (no variants or
    bins: JOINT and per-condition scores, not flip rates)."""
    return {
        "references": [row["gold"] for row in rows],
        "conditions": [row["condition"] for row in rows],
        "program_ids": [row["program_id"] for row in rows],
        "variants": [None] * len(rows),
        "bins": [None] * len(rows),
    }
