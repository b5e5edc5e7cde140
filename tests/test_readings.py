"""The readings table: every floor above reads it, so its entries must be complete and consistent."""

from dataclasses import replace

import pytest

from naf_bench.errors import ConfigError
from naf_bench.readings import (
    NO_SEMANTICS,
    READINGS,
    all_conditions,
    answer_letters,
    effort_keys,
    gold_letter,
    joint_conditions,
    label_keys,
    letter_of,
    named_conditions,
)
from naf_bench.verbalize.templates import LANGUAGES, listed_letters, option_lines


def test_every_reading_has_an_instruction_and_verdicts_in_every_language():
    for reading in READINGS:
        assert set(reading.instructions) == set(reading.verdicts) == set(LANGUAGES), reading.name
        for sentences in reading.verdicts.values():
            assert set(reading.alphabet) <= set(sentences) <= {*reading.alphabet, "no_models"}, reading.name


def test_the_table_refuses_a_reading_it_has():
    with pytest.raises(ConfigError, match="already in the table"):
        READINGS.register(READINGS["wfs"], READINGS.engine("wfs"))
    with pytest.raises(ConfigError, match="no reading"):
        READINGS.unregister("brave")


def test_inclusions_name_known_readings_and_labels():
    for reading in READINGS:
        for label, other, other_label in reading.implies:
            assert label in reading.alphabet
            assert other_label in READINGS[other].alphabet


def test_table_orders_are_the_published_ones():
    assert label_keys() == ("cred", "skept", "wfs", "sldnf")
    assert READINGS.names == ("cred", "skept", "wfs", "closed_world")  # the one key: the condition
    assert all_conditions() == (NO_SEMANTICS, "closed_world", "cred", "skept", "wfs")
    assert joint_conditions() == ("closed_world", "cred", "skept", "wfs")
    assert effort_keys()[0] == "clingo_choices" and len(effort_keys()) == len(set(effort_keys())) == 5


def test_gold_letter_reads_each_readings_alphabet():
    labels = {"cred": "T", "skept": "F", "wfs": "u", "sldnf": "loop"}
    assert [gold_letter(c, labels) for c in all_conditions()] == [None, "C", "A", "B", "C"]
    with pytest.raises(ConfigError, match="unknown condition"):
        gold_letter("brave", labels)
    with pytest.raises(ConfigError, match="unknown condition"):
        gold_letter("sldnf", labels)  # a label key is no condition
    assert READINGS["closed_world"].label(labels) == "loop" and "sldnf" not in READINGS


def test_letters_are_the_tables_and_a_label_has_one_letter():
    assert answer_letters() == ("A", "B", "C") and dict(letter_of()) == {"T": "A", "F": "B", "u": "C", "loop": "C"}
    assert option_lines("en") == ["  A. Definitely yes", "  B. Definitely no", "  C. Cannot be determined"]
    assert listed_letters("en") == "A, B, or C" and listed_letters("zh") == "A、B 或 C"
    wfs = READINGS["wfs"]
    for letters, why in (
        ({"T": "A", "F": "C"}, "label 'F' as letter 'C'"),
        ({"T": "a", "F": "B"}, "label 'T' as letter 'a'"),
    ):
        with pytest.raises(ConfigError, match=f"wfs3: {why}"):
            READINGS.register(
                replace(wfs, name="wfs3", label_key="wfs3", position=9, letters=letters, implies=()), None
            )
    assert "wfs3" not in READINGS.names


def test_the_views_are_functions_and_the_live_view_the_docs_cite_has_no_hash():
    from naf_bench.readings import CONDITIONS

    assert CONDITIONS == all_conditions() == ("none", *named_conditions())
    with pytest.raises(TypeError):  # what it holds changes when a reading registers: no hash could stay true
        hash(CONDITIONS)
    with pytest.raises(TypeError):  # the table's letters are read, never written through a view
        letter_of()["x"] = "D"
