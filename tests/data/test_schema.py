"""naf_bench.data.schema: the one row schema, its labels and effort built from the readings table, and a row of
the builder that it types exactly."""

import datasets

from naf_bench.data.rows import build_rows
from naf_bench.data.schema import FIELD_DOCS, FIELDS, features
from naf_bench.generate.config import get_config


def test_labels_and_effort_have_one_field_per_reading_and_counter():
    schema = features()
    assert schema["labels"] == {key: datasets.Value("string") for key in ("cred", "skept", "wfs", "sldnf")}
    assert list(schema["effort"]) == [
        "clingo_choices",
        "clingo_conflicts",
        "wfs_iterations",
        "prolog_inferences",
        "sldnf_fixpoint_rounds",
    ]
    assert {kind.dtype for kind in schema["effort"].values()} == {"int64"}


def test_each_field_has_its_type_and_its_doc():
    schema = features()
    assert list(schema) == [name for name, _, _ in FIELDS] == list(FIELD_DOCS)
    assert (schema["distance"].dtype, schema["seed"].dtype, schema["gold"].dtype) == ("int32", "int64", "string")
    assert schema["messages"] == datasets.List({"role": datasets.Value("string"), "content": datasets.Value("string")})
    assert FIELD_DOCS["signature"] == "cred+skept+wfs+sldnf, e.g. FTuloop"


def test_a_built_row_has_exactly_the_schema_fields_and_encodes_unchanged():
    row = build_rows(get_config("main", bins=("odd",), programs_per_cell=1))["test"][2]
    schema = features()
    assert set(row) == set(schema)
    assert schema.encode_example(row) == row
