"""Typed score records: fields a run's inputs may not give are NOT_SCORED and left out of ``to_dict()``."""

from __future__ import annotations

from dataclasses import fields


class NotScored:
    """A score the inputs do not give (no program ids; JOINT with variants, flip rate without; no distances)."""

    def __repr__(self) -> str:
        return "NOT_SCORED"


NOT_SCORED = NotScored()


class Record:
    """Base of the frozen score dataclasses: ``to_dict()`` is the JSON shape the CLI, reports and metric give
    (fields whose metadata says ``output: False`` are kept for views, not written)."""

    def to_dict(self) -> dict:
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.metadata.get("output", True) and getattr(self, f.name) is not NOT_SCORED
        }
