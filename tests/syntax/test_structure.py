from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from naf_bench import Literal, Program, Rule, canonical_key, parse_program

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


def brute_force_key(program, query):
    """The least encoding over every renaming of the non-query atoms (exact by definition; small programs only)."""
    atoms = sorted(set(program.atoms) - {query})
    best = None
    for names in permutations(range(len(atoms))):
        rename = {**dict(zip(atoms, names, strict=True)), query: -1}
        code = sorted(
            (rename[r.head], tuple(sorted(rename[a] for a in p)), tuple(sorted(rename[a] for a in n)))
            for r, (p, n) in zip(program.rules, program.bodies, strict=True)
        )
        best = code if best is None or code < best else best
    return best


def test_renamed_reordered_and_shuffled_bodies_are_one_program():
    key = canonical_key(parse_program("q :- a, not b, a. a :- not c. b :- c, not a. c."), "q")
    twins = [
        "q :- x, not y, x. x :- not z. y :- z, not x. z.",  # renamed
        "z. y :- not x, z. q :- not y, x, x. x :- not z.",  # rules and body literals reordered, renamed
        "c. b :- not a, c. a :- not c. q :- a, a, not b.",
    ]
    assert [canonical_key(parse_program(text), "q") for text in twins] == [key] * 3


def test_near_twins_are_told_apart():
    pairs = [
        ("q :- a. a :- b. b.", "q :- a. a :- not b. b."),  # one literal's sign
        ("q :- a, a.", "q :- a."),  # a repeated body literal counts
        ("q :- a, a, b. a.", "q :- a, b, b. a."),  # the repeated literal is the defined one, or not
        ("q :- a, b.", "q :- a. q :- b."),  # one rule with two literals, two rules with one
        ("q :- a. a :- a.", "q :- a. a :- q."),  # the cycle through the query or beside it
        ("q :- not a. a :- not q.", "a :- not b. b :- not a. q :- a."),
        ("q :- a, not b. b :- a.", "q :- b, not a. b :- a."),  # which body atom is defined by the other
        # colour refinement alone cannot tell these apart: two odd 3-cycles against one 6-cycle, each read by q
        ("q :- a, d. a :- not b. b :- not c. c :- not a. d :- not e. e :- not f. f :- not d.",
         "q :- a, d. a :- not b. b :- not c. c :- not d. d :- not e. e :- not f. f :- not a."),
    ]  # fmt: skip
    for first, second in pairs:
        programs = parse_program(first), parse_program(second)
        assert brute_force_key(programs[0], "q") != brute_force_key(programs[1], "q"), (first, second)
        assert canonical_key(programs[0], "q") != canonical_key(programs[1], "q"), (first, second)


def test_the_query_need_not_occur():
    assert canonical_key(parse_program("a."), "q") != canonical_key(parse_program("a."))
    assert canonical_key(parse_program("a."), "q") == canonical_key(parse_program("b."), "q")
    assert canonical_key(parse_program("a."), "q") != canonical_key(parse_program("q."), "q")


def test_the_key_is_the_released_one():
    # the key's hash partitions training from evaluation programs: a labelling library that relabelled would
    # change every bin config's rows (a new dataset version), so the exact value is pinned
    assert canonical_key(parse_program(FIGURE1), "a") == "a1a781f3a04dc0a27b639f4f551a2afc"


ATOMS = ["q", "a", "b", "c"]
small_programs = st.lists(
    st.builds(
        Rule,
        st.sampled_from(ATOMS),
        st.lists(st.builds(Literal, st.sampled_from(ATOMS), st.booleans()), max_size=2).map(tuple),
    ),
    max_size=3,
).map(lambda rules: Program(tuple(rules)))


def renamed_then_perhaps_changed(program, data):
    """The program renamed and reordered (so equivalent), and then perhaps one literal's sign flipped."""
    rename = dict(zip(ATOMS[1:], data.draw(st.permutations(ATOMS[1:])), strict=True)) | {"q": "q"}
    rules = [
        Rule(rename[r.head], tuple(Literal(rename[lit.atom], lit.positive) for lit in r.body)) for r in program.rules
    ]
    rules = data.draw(st.permutations(rules))
    with_body = [i for i, rule in enumerate(rules) if rule.body]
    if with_body and data.draw(st.booleans()):
        i = data.draw(st.sampled_from(with_body))
        first, *rest = rules[i].body
        rules[i] = Rule(rules[i].head, (Literal(first.atom, not first.positive), *rest))
    return Program(tuple(rules))


@settings(max_examples=300, deadline=None)
@given(small_programs, small_programs, st.data())
def test_equal_exactly_when_some_renaming_maps_one_onto_the_other(first, other, data):
    for second in (other, renamed_then_perhaps_changed(first, data)):
        same = brute_force_key(first, "q") == brute_force_key(second, "q")
        assert (canonical_key(first, "q") == canonical_key(second, "q")) == same
