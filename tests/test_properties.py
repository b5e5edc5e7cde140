"""Property tests on random small programs: engines agree, WFS bounds stable models, order invariance."""

from hypothesis import given, settings
from hypothesis import strategies as st

from naf_bench import Literal, Program, Rule, canonical_key, certify, parse_program, render_asp
from naf_bench.solvers.stable import solve_stable
from naf_bench.solvers.wfs import solve_wfs

ATOMS = ["q", "a", "b", "c", "d"]
literals = st.builds(Literal, st.sampled_from(ATOMS), st.booleans())
rules = st.builds(Rule, st.sampled_from(ATOMS), st.lists(literals, max_size=3).map(tuple))
programs = st.lists(rules, max_size=8).map(lambda rs: Program(tuple(rs)))
SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(programs)
def test_engines_agree(program):
    certificate = certify(program, "q")  # raises CertificationError on any disagreement
    assert certificate.signature[:2] in {"TT", "TF", "FT", "FF"}


@SETTINGS
@given(programs)
def test_wfs_bounds_every_stable_model(program):
    wfs = solve_wfs(program)
    stable = solve_stable(program)
    if stable.cautious is None:
        return
    assert {a for a, v in wfs.values.items() if v == "T"} <= stable.cautious
    assert not {a for a, v in wfs.values.items() if v == "F"} & stable.brave
    assert stable.cautious <= stable.brave


@SETTINGS
@given(programs)
def test_parse_render_identity(program):
    assert parse_program(render_asp(program)) == program


@SETTINGS
@given(programs, st.randoms(use_true_random=False))
def test_rule_order_keeps_wfs_and_stable(program, rng):
    rules = list(program.rules)
    rng.shuffle(rules)
    permuted = Program(tuple(rules))
    assert solve_wfs(permuted).values == solve_wfs(program).values
    before, after = solve_stable(program), solve_stable(permuted)
    assert (after.brave, after.cautious, after.n_models) == (before.brave, before.cautious, before.n_models)


@SETTINGS
@given(programs, st.randoms(use_true_random=False))
def test_canonical_key_ignores_names_and_order(program, rng):
    names = [f"x{i}" for i in range(len(ATOMS))]
    rng.shuffle(names)
    rename = dict(zip(ATOMS, names, strict=True))
    rules = [
        Rule(rename[r.head], tuple(Literal(rename[lit.atom], lit.positive) for lit in r.body)) for r in program.rules
    ]
    rng.shuffle(rules)
    assert canonical_key(Program(tuple(rules)), rename["q"]) == canonical_key(program, "q")
