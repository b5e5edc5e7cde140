"""One error hierarchy for the whole package."""

from __future__ import annotations


class NafBenchError(Exception):
    """Base class of every error naf-bench raises on purpose."""


class ParseError(NafBenchError, ValueError):
    """Program text outside the ground normal-program language, with its position."""

    def __init__(self, reason: str, line: int, column: int, source_line: str = ""):
        self.reason = reason
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(f"line {line}, column {column}: {reason}")


class SolverError(NafBenchError, RuntimeError):
    """An engine is missing, crashed, or answered something it should not."""


class CertificationError(NafBenchError):
    """Two engines of the same semantics, or two semantics' invariants, disagree."""


class ConfigError(NafBenchError, ValueError):
    """A generation or dataset configuration that cannot be built."""


class DataError(NafBenchError, ValueError):
    """A data file (one of the authors' sets, a run, gold rows) that cannot be read as promised, with file and line."""

    def __init__(self, path, reason: str, line: int | None = None):
        self.path = str(path)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.path}{'' if line is None else f':{line}'}: {reason}")


class BudgetExceeded(CertificationError):
    """Certification stopped at a bound on solver work (``certify(..., budget=...)``): no label either way."""

    def __init__(self, budget: str, limit: int, detail: str):
        self.budget = budget
        self.limit = limit
        super().__init__(f"budget {budget}={limit:,} exceeded: {detail}")


class WorkerError(NafBenchError, RuntimeError):
    """A worker process of a parallel generation could not start or died (killed, out of memory…), with the unit
    it held, its exit status and its last output; the whole call fails at once."""
