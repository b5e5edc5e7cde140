"""Deprecated: the old import path of :mod:`naf_bench.data.authors` (the authors' published files), kept for the
users who import it; ``import_reference`` is :func:`naf_bench.data.authors.import_authors`."""

import warnings

from naf_bench.data.authors import SUBSETS, ImportReport, Subset, import_authors

import_reference = import_authors
__all__ = ["SUBSETS", "ImportReport", "Subset", "import_authors", "import_reference"]

warnings.warn(
    "naf_bench.data.reference is naf_bench.data.authors (import_reference is import_authors)",
    DeprecationWarning,
    stacklevel=2,
)
