"""Registry-wide contract: every config's rows validate against the one schema and their traces parse."""

import datasets
import pytest

from naf_bench.certify import Certificate
from naf_bench.data.rows import build_rows
from naf_bench.data.schema import features
from naf_bench.generate.config import CONFIGS, get_config
from naf_bench.scoring.audit import audit
from naf_bench.scoring.core import check_row
from naf_bench.scoring.steps import FLAGS
from naf_bench.verbalize.trace import grammar, parse_trace, trace_values

SMALL = {"programs_per_cell": 1}


def small_config(name):
    config = CONFIGS[name]
    if config.families:
        return config
    if config.programs_per_bin:
        return get_config(name, programs_per_bin=tuple(3 for _ in config.bins))
    return get_config(name, **SMALL)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_config_validates_and_its_gold_traces_pass_the_step_checker(name):
    rows = build_rows(small_config(name))
    schema = features()
    for split_rows in rows.values():
        assert split_rows, name
        datasets.Dataset.from_list(split_rows, features=schema)  # raises on any schema mismatch
        for row in split_rows:
            numbered = "\n1. " in row["prompt"].split("\n\n")[1]  # the rules block
            assert numbered == CONFIGS[name].traced, row["id"]  # only prompts that ask for a trace number rules
            if row["condition"] == "none":
                assert row["gold"] is None and row["gold_trace"] == ""
                continue
            trace = parse_trace(row["gold_trace"], grammar(row["framing"], row["language"], row["query"]))
            assert trace.answer == row["gold"]
            assert trace_values(trace)["q"] == row["labels"]["wfs"]
            assert check_row(row["gold_trace"], row) == dict.fromkeys(FLAGS, True), row["id"]
            if (row["framing"], row["language"]) == ("abstract", "en"):  # the audit reads the abstract wording
                found = audit(row["gold_trace"], Certificate.from_json(row["certificate"]), row["condition"])
                assert (found["class"], found["earned"]) == ("sound", True), (row["id"], found["reason"])
