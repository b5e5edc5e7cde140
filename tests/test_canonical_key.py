from naf_bench import canonical_key, parse_program

FIGURE1 = "a :- b. b :- not c. c :- not d. d :- not b."


def test_invariant_under_renaming_and_reordering():
    key = canonical_key(parse_program(FIGURE1), "a")
    renamed = "k :- m. m :- not n. n :- not o. o :- not m."
    reordered = "d :- not b. a :- b. c :- not d. b :- not c."
    assert canonical_key(parse_program(renamed), "k") == key
    assert canonical_key(parse_program(reordered), "a") == key


def test_distinguishes_structure_and_query():
    key = canonical_key(parse_program(FIGURE1), "a")
    assert canonical_key(parse_program(FIGURE1), "b") != key
    assert canonical_key(parse_program("a :- b. b :- not c. c :- not b."), "a") != key
    assert canonical_key(parse_program(FIGURE1 + " d."), "a") != key
    assert canonical_key(parse_program(FIGURE1)) != key


def test_duplicate_rules_count():
    assert canonical_key(parse_program("a. a.")) != canonical_key(parse_program("a."))


def test_symmetric_programs_are_fast_and_exact():
    facts = " ".join(f"f{i}." for i in range(12))
    body = ", ".join(f"f{i}" for i in range(12))
    shuffled = " ".join(f"g{i}." for i in reversed(range(12)))
    shuffled_body = ", ".join(f"g{i}" for i in range(12))
    assert canonical_key(parse_program(f"{facts} a :- {body}.")) == canonical_key(
        parse_program(f"a :- {shuffled_body}. {shuffled}")
    )
