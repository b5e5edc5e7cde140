"""Registry-wide contract: every config's rows validate against the one schema and their traces parse."""

import datasets
import pytest

from naf_bench.dataset import build_rows, features
from naf_bench.generate.config import CONFIGS, get_config
from naf_bench.verbalize.trace import parse_trace, trace_values

SMALL = {"programs_per_cell": 1}


def small_config(name):
    config = CONFIGS[name]
    if config.families:
        return config
    if config.programs_per_bin:
        return get_config(name, programs_per_bin=tuple(3 for _ in config.bins))
    return get_config(name, **SMALL)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_config_validates_and_its_traces_parse(name):
    rows = build_rows(small_config(name))
    schema = features()
    for split_rows in rows.values():
        assert split_rows, name
        datasets.Dataset.from_list(split_rows, features=schema)  # raises on any schema mismatch
        for row in split_rows:
            if row["condition"] == "none":
                assert row["gold"] is None and row["gold_trace"] == ""
                continue
            trace = parse_trace(row["gold_trace"])
            assert trace.answer == row["gold"]
            assert trace_values(trace)["q"] == row["labels"]["wfs"]
