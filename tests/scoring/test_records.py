"""naf_bench.scoring.records: a score record's dict leaves out what was not scored and what is kept only for views."""

from dataclasses import dataclass, field

from naf_bench.scoring.records import NOT_SCORED, Record


@dataclass(frozen=True)
class Tally(Record):
    accuracy: float
    joint: object = NOT_SCORED
    rows: list = field(default_factory=list, metadata={"output": False})


def test_to_dict_leaves_out_fields_not_scored_and_those_for_views_only():
    assert Tally(0.5, rows=[1, 2]).to_dict() == {"accuracy": 0.5}
    assert Tally(0.5, joint=None).to_dict() == {"accuracy": 0.5, "joint": None}


def test_not_scored_reads_as_its_name():
    assert repr(NOT_SCORED) == "NOT_SCORED"
