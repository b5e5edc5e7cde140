"""Submission metadata: ``<name>.metadata.json`` beside ``<name>.jsonl``, checked against the package's JSON
Schema (``metadata.schema.json``) with the ``jsonschema`` library.

The schema takes the authors' leaderboard's field names, so their metadata files validate as they are, and
adds the track rules: the standard track needs temperature 0, one sample per item and no external tools; the
enhanced track needs a method URL. ``contact`` and what ``naf-bench run`` records of an endpoint run
(``endpoint``, ``generation_settings``, ``completion_tokens``) are for the maintainer: :func:`public_metadata`
drops them, and nothing published reads the metadata any other way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

SCHEMA_PATH = Path(__file__).with_name("metadata.schema.json")
TRACKS = ("standard", "enhanced")
PRIVATE_FIELDS = ("contact", "endpoint", "generation_settings", "completion_tokens")
# allOf branches of the schema: the track each one's rules belong to
_TRACK_RULES = {0: "standard", 1: "enhanced"}


@cache
def schema() -> dict:
    """The metadata JSON Schema (draft 2020-12) shipped with the package."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _problem(error) -> list[tuple[str, str]]:
    """(field, reason) pairs of one jsonschema error, worded for a submitter."""
    path = [str(part) for part in error.absolute_path]
    field = ".".join(path) or "(metadata)"
    schema_path = list(error.absolute_schema_path)
    track = _TRACK_RULES.get(schema_path[1]) if schema_path[:1] == ["allOf"] and len(schema_path) > 1 else None
    keyword = error.validator
    if keyword == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        reason = f"required on the {track} track" if track else "required"
        if track == "enhanced":
            reason += " (a link to the paper, code or model card describing the method)"
        return [(name, reason) for name in missing]
    if keyword == "additionalProperties":
        known = error.schema.get("properties", {})
        return [(name, "unknown field") for name in error.instance if name not in known]
    if keyword == "const" and track:
        return [(field, f"must be {_short(error.validator_value)} on the {track} track, got {_short(error.instance)}")]
    if keyword == "enum":
        return [
            (field, f"must be one of {', '.join(map(_short, error.validator_value))}, got {_short(error.instance)}")
        ]
    if keyword == "type":
        expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return [(field, f"must be {' or '.join(expected)}, got {_short(error.instance)}")]
    if keyword == "pattern" and field == "method_url":
        return [(field, f"must be an http(s) URL, got {_short(error.instance)}")]
    if keyword in ("pattern", "format") and field == "evaluation_date":
        return [(field, f"must be a date YYYY-MM-DD, got {_short(error.instance)}")]
    return [(field, f"{keyword} {_short(error.validator_value)} not met by {_short(error.instance)}")]


# bidirectional controls (ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI): they reorder what a page shows
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def validate_metadata(metadata) -> list[tuple[str, str]]:
    """Every (field, reason) the schema refuses in ``metadata``, and every string in it with a bidirectional
    control character, in field order; an empty list when it is valid."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)
    problems = [problem for error in validator.iter_errors(metadata) for problem in _problem(error)]
    problems += _bidi_problems(metadata, "")
    return sorted(dict.fromkeys(problems), key=lambda problem: problem[0])


def _bidi_problems(value, field: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        bad = next((char for char in value if char in BIDI_CONTROLS), None)
        return [] if bad is None else [(field or "(metadata)", f"a bidirectional control character ({bad!a})")]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _bidi_problems(item, f"{field}.{key}" if field else key)]
    if isinstance(value, list):
        return [p for index, item in enumerate(value) for p in _bidi_problems(item, f"{field}.{index}")]
    return []


def parse_metadata(data: bytes) -> tuple[dict | None, list[tuple[str, str]]]:
    """The metadata in ``data`` (a file's bytes) and every (field, reason) refused in it: the schema's, or one
    with the field ``""`` when the bytes are not a JSON document (UTF-8, malformed, nested too deeply)."""
    try:
        metadata = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return None, [("", f"not UTF-8 (byte {exc.start + 1})")]
    except json.JSONDecodeError as exc:
        return None, [("", f"line {exc.lineno}: malformed JSON ({exc.msg}, column {exc.colno})")]
    except RecursionError:
        return None, [("", "JSON nested too deeply")]
    return metadata, validate_metadata(metadata)


def public_metadata(metadata: Mapping) -> dict:
    """The metadata as it may be published: without the maintainer-only fields (contact, endpoint, ...)."""
    return {key: value for key, value in metadata.items() if key not in PRIVATE_FIELDS}
