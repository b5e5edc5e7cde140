"""Scoring: answer extraction, label metrics, trace audit and step checker, ModelLog consistency.

The evaluate module (``modellog_metric/``) and the lm-eval tasks are thin shells over this package.
"""
