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
