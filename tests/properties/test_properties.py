"""Property tests on random small programs: engines agree, WFS bounds stable models, order invariance."""

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from naf_bench import Literal, Program, Rule, canonical_key, certify, parse_program, render_asp
from naf_bench.solvers.sldnf_exact import solve_sldnf_exact
from naf_bench.solvers.stable import solve_stable
from naf_bench.solvers.stable_check import enumerate_stable_models
from naf_bench.solvers.wfs import solve_wfs
from naf_bench.syntax.graph import is_recursive, strongly_connected_components
from naf_bench.syntax.structure import dependencies

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


def _least_model_of_reduct(program: Program, model: set[str]) -> set[str]:
    """Gelfond–Lifschitz by the definition: naive iteration on the reduct."""
    derived: set[str] = set()
    while True:
        new = {r.head for r in program.rules if set(r.positive_body) <= derived and not set(r.negative_body) & model}
        if new <= derived:
            return derived
        derived |= new


@SETTINGS
@given(programs)
def test_stable_check_finds_exactly_the_stable_models(program):
    atoms = program.atoms
    subsets = (set(c) for n in range(len(atoms) + 1) for c in combinations(atoms, n))
    expected = {frozenset(m) for m in subsets if _least_model_of_reduct(program, m) == m}
    models = enumerate_stable_models(program, solve_wfs(program))
    assert len(models) == len(expected) and set(models) == expected


@SETTINGS
@given(programs)
def test_cached_bodies_and_components_match_their_definitions(program):
    assert program.bodies == tuple((r.positive_body, r.negative_body) for r in program.rules)
    atoms = Program(program.rules).atoms  # by its own walk (no numbering made first)
    numbered = program.numbered  # whose walk also gives the atoms of a program not asked for them before
    assert list(numbered.index) == list(atoms) and list(numbered.index.values()) == list(range(len(atoms)))
    fresh = Program(program.rules)
    assert fresh.numbered.index == numbered.index and "atoms" in vars(fresh) and fresh.atoms == atoms
    decoded = [
        Rule(atoms[head], tuple(Literal(atoms[b], True) if b >= 0 else Literal(atoms[~b], False) for b in body))
        for head, body in zip(numbered.heads, numbered.bodies, strict=True)
    ]
    assert tuple(decoded) == program.rules
    assert [tuple(program.rules[r] for r in own) for own in numbered.rules] == list(program.rules_by_head.values())
    deps = dependencies(program)
    components = strongly_connected_components(deps)
    order, bounds, recursive = numbered.components
    named = [
        (tuple(atoms[a] for a in order[bounds[c] : bounds[c + 1]]), bool(recursive[c])) for c in range(len(recursive))
    ]
    assert named == [(c, is_recursive(c, deps)) for c in components]
    reach = {a: set(deps[a]) for a in deps}  # transitive closure (Warshall)
    for k in deps:
        for a in deps:
            if k in reach[a]:
                reach[a] |= reach[k]
    position = {a: i for i, c in enumerate(components) for a in c}
    assert sorted(position) == sorted(program.atoms)
    for a in deps:
        for b in deps:
            same = a == b or (b in reach[a] and a in reach[b])
            assert (position[a] == position[b]) == same
            assert b not in reach[a] or position[b] <= position[a]  # dependencies first


def test_sldnf_exact_on_an_atom_the_program_never_mentions():
    result = solve_sldnf_exact(parse_program("a :- not b."), "z")
    assert (result.label, result.iterations, result.successes) == ("F", 0, 0)
