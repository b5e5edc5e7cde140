"""naf_bench.scoring.constraints: the ModelLog formulas over one program's rows (one letter, alphabet, certified,
invariance, inclusion) and their events' probabilities."""

from naf_bench.scoring.constraints import constraint_formulas, constraints_of_samples, inclusions, row_events

ONE_LETTER = "atleast(1, r{k}_A, r{k}_B, r{k}_C) & ~atleast(2, r{k}_A, r{k}_B, r{k}_C)"


def test_inclusions_are_the_readings_implications_as_letters():
    assert inclusions() == [
        (("wfs", "A"), ("skept", "A")),
        (("wfs", "B"), ("cred", "B")),
        (("closed_world", "A"), ("wfs", "A")),
        (("closed_world", "B"), ("wfs", "B")),
    ]


def test_one_programs_rows_give_every_family_of_formula():
    rows = [
        {"condition": "cred", "gold": "B"},
        {"condition": "wfs", "gold": "A"},
        {"condition": "cred", "gold": "B"},  # a second rule order of the first row
        {"condition": "none", "gold": None},
    ]
    assert constraint_formulas(rows) == [
        ("one_letter", ONE_LETTER.format(k=0)),
        ("alphabet", "~r0_C"),  # credulous answers are two-valued
        ("certified", "r0_B"),
        ("one_letter", ONE_LETTER.format(k=1)),
        ("certified", "r1_A"),
        ("one_letter", ONE_LETTER.format(k=2)),
        ("alphabet", "~r2_C"),
        ("certified", "r2_B"),
        ("one_letter", ONE_LETTER.format(k=3)),
        ("invariance", "(r0_A <-> r2_A) & (r0_B <-> r2_B) & (r0_C <-> r2_C)"),
        ("inclusion", "r1_B -> r0_B"),  # WFS-false implies credulous-false
    ]


def test_samples_are_numbered_within_their_own_program():
    none = ({"program_id": "p", "condition": "none", "gold": None}, {"A": 0.5, "B": 0.3, "C": 0.2})
    skept = ({"program_id": "q", "condition": "skept", "gold": "A"}, {"A": 0.9, "B": 0.1, "C": 0.0})
    q_events = {"r0_A": 0.9, "r0_B": 0.1, "r0_C": 0.0}
    assert row_events([none[1]]) == {"r0_A": 0.5, "r0_B": 0.3, "r0_C": 0.2}
    assert constraints_of_samples([none, skept]) == [
        ("one_letter", ONE_LETTER.format(k=0), row_events([none[1]])),
        ("one_letter", ONE_LETTER.format(k=0), q_events),
        ("alphabet", "~r0_C", q_events),
        ("certified", "r0_A", q_events),
    ]
