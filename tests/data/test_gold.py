"""naf_bench.data.gold: which gold a submission's ids are scored on, and what to tell a submitter whose ids are
another set's."""

import json

import pytest

from naf_bench.data.gold import gold_for, gold_rows, whose
from naf_bench.errors import ConfigError
from naf_bench.scoring.intake import Gold

ROWS = [
    {"id": "nb-main-odd-i0-cred::cred", "program_id": "nb-main-odd-i0", "family": "odd", "condition": "cred",
     "gold": "B"},
    {"id": "nb-main-odd-i0-none::none", "program_id": "nb-main-odd-i0", "family": "odd", "condition": "none",
     "gold": None},
]  # fmt: skip


@pytest.fixture
def gold_file(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def test_a_gold_file_gives_its_rows_whatever_config_is_named(gold_file):
    assert gold_rows("hard", gold=gold_file) == ROWS
    found = gold_for(["anything"], gold=gold_file)
    assert (found.rows, found.name) == (ROWS, str(gold_file))


def test_a_gold_file_and_a_config_together_are_refused(gold_file):
    with pytest.raises(ConfigError, match="give --gold FILE or --config/--split, not both"):
        gold_for(["nb-main-odd-i0-cred::cred"], config="main", gold=gold_file)


def test_ids_of_no_config_are_refused_with_two_of_them_shown():
    with pytest.raises(ConfigError, match=r"name no naf-bench config \(ids such as 'a-1', 'b-2'\)"):
        gold_for(["c-3", "b-2", "a-1"])


def test_whose_names_the_config_the_ids_belong_to():
    ids = ["nb-main-odd-i0-cred::cred", "nb-main-odd-i1-cred::cred"]
    assert whose(ids, Gold(ROWS, "mine.jsonl")) == "they are main/test's ids: score them with --config main"
    assert whose(ids, Gold(ROWS, "main/test")) == (
        "they carry main's id prefix but are not its rows (other settings?): give their gold, --gold FILE"
    )
    assert whose(["x-1", "nb-main-a"], Gold(ROWS, "mine.jsonl")) == (
        "those not in it name no naf-bench config (ids such as 'nb-main-a', 'x-1'): give their gold with --gold FILE"
    )
