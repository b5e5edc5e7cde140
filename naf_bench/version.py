"""naf-bench's version, in the one module that imports nothing: setup.cfg reads it, and the CLI, the dataset
card and every run record it."""

__version__ = "0.1.0"
