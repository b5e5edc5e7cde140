"""Scoring: answer extraction, label metrics, trace audit and step checker, ModelLog consistency.

The evaluate module (``modellog_metric/``) and the lm-eval tasks are thin shells over this package.
"""


def load_metric(config: str = "label", **kwargs):
    """``evaluate.load`` of the installed ``modellog_metric`` module, whatever the working directory."""
    from pathlib import Path

    import evaluate

    import modellog_metric

    return evaluate.load(str(Path(modellog_metric.__file__).parent), config, **kwargs)
