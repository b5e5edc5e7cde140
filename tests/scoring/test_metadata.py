"""naf_bench.scoring.metadata: the metadata schema's track rules worded for a submitter, bytes that are not JSON,
bidirectional controls, and the fields never published."""

import json

from naf_bench.scoring.metadata import parse_metadata, public_metadata, validate_metadata

STANDARD = {
    "model_name": "tiny",
    "track": "standard",
    "prompt_setting": "zero-shot",
    "reasoning_mode": "direct",
    "external_tools": False,
    "temperature": 0,
    "samples_per_item": 1,
}


def test_standard_metadata_is_valid_and_its_track_rules_are_named():
    assert validate_metadata(STANDARD) == []
    assert validate_metadata({**STANDARD, "temperature": 0.7, "samples_per_item": 3, "colour": "red"}) == [
        ("colour", "unknown field"),
        ("samples_per_item", "must be 1 on the standard track, got 3"),
        ("temperature", "must be 0 on the standard track, got 0.7"),
    ]


def test_the_enhanced_track_needs_an_http_method_url_and_dates_are_checked():
    enhanced = {**STANDARD, "track": "enhanced"}
    assert validate_metadata(enhanced) == [
        ("method_url", "required on the enhanced track (a link to the paper, code or model card describing the method)")
    ]
    assert validate_metadata({**enhanced, "method_url": "ftp://x", "evaluation_date": "2024-13-45"}) == [
        ("evaluation_date", 'must be a date YYYY-MM-DD, got "2024-13-45"'),
        ("method_url", 'must be an http(s) URL, got "ftp://x"'),
    ]


def test_a_bidirectional_control_is_refused_where_it_is():
    assert validate_metadata({**STANDARD, "model_version": "v\u202e1"}) == [
        ("model_version", "a bidirectional control character ('\\u202e')")
    ]


def test_bytes_that_are_not_a_json_document_are_refused_with_where():
    assert parse_metadata(b'{"model_name":') == (None, [("", "line 1: malformed JSON (Expecting value, column 15)")])
    assert parse_metadata(b"\xff{}") == (None, [("", "not UTF-8 (byte 1)")])
    other = {**STANDARD, "track": "other"}
    assert parse_metadata(b"\xef\xbb\xbf" + json.dumps(other).encode()) == (
        other,
        [("track", 'must be one of "standard", "enhanced", got "other"')],
    )


def test_public_metadata_drops_the_maintainers_fields():
    private = {"contact": "a@b.c", "endpoint": {"base_url": "http://h"}, "completion_tokens": {"total": 3}}
    assert public_metadata({**STANDARD, **private}) == STANDARD
