"""naf_bench.scoring.formatting: a share as a one-decimal percentage, undefined aggregates as NaN, a markdown
table's header."""

import math

from naf_bench.scoring.formatting import nan_if_undefined, percent, table_header


def test_a_share_is_written_as_a_percentage_with_one_decimal():
    assert percent(0.8167) == "81.7"
    assert percent(1.0) == "100.0"
    assert percent(0.0) == "0.0"


def test_a_missing_share_is_written_as_the_views_marker():
    assert percent(None) == "n/a"
    assert percent(math.nan, missing="—") == "—"


def test_an_undefined_aggregate_is_nan_never_zero():
    assert math.isnan(nan_if_undefined(None))
    assert nan_if_undefined(0.0) == 0.0


def test_a_table_header_has_one_separator_cell_per_column():
    assert table_header(["model", "CAcc"]) == ["| model | CAcc |", "|---|---|"]
