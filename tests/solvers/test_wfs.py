"""naf_bench.solvers.wfs: the well-founded model by component is the whole program's alternating fixpoint (the
values and the Γ count certificates carry) and the alternating fixpoint computed in SWI-Prolog."""

from hypothesis import given, settings
from hypothesis import strategies as st

from naf_bench import Literal, Program, Rule
from naf_bench.solvers.wfs import solve_wfs, solve_wfs_alternating
from naf_bench.solvers.wfs_tabling import solve_wfs_prolog_fixpoint
from naf_bench.syntax.sample import random_program


@st.composite
def layered_programs(draw):
    """Blocks of up to 6 atoms whose rules also read the blocks below: components wait on atoms that settle in
    late rounds, which is what the component replay skips over."""
    rules = []
    blocks = draw(st.integers(1, 5))
    for block in range(blocks):
        own = [f"b{block}_{j}" for j in range(draw(st.integers(1, 6)))]
        below = [f"b{b}_{j}" for b in range(block + 1, blocks) for j in range(3)]
        chain = [f"c{block}_{j}" for j in range(draw(st.integers(0, 4)))]  # a negation chain: late rounds
        for j, atom in enumerate(chain):
            rules.append(Rule(atom, (Literal(chain[j + 1], False),) if j + 1 < len(chain) else ()))
        for _ in range(draw(st.integers(0, 10))):
            body = draw(st.lists(st.tuples(st.sampled_from(own + below + chain), st.booleans()), max_size=3))
            rules.append(Rule(draw(st.sampled_from(own)), tuple(Literal(a, positive) for a, positive in body)))
    return Program(tuple(rules))


@settings(max_examples=400, deadline=None)
@given(st.one_of(layered_programs(), st.integers(0, 10**9).map(lambda seed: random_program(seed, 12, 20))))
def test_wfs_by_component_is_the_whole_program_alternation(program):
    assert solve_wfs(program) == solve_wfs_alternating(program)  # the values and the Γ count in the certificates


@settings(max_examples=60, deadline=None)
@given(st.one_of(layered_programs(), st.integers(0, 10**9).map(lambda seed: random_program(seed, 10, 16))))
def test_wfs_by_component_is_the_alternating_fixpoint_in_prolog(program):
    assert solve_wfs(program).values == solve_wfs_prolog_fixpoint(program)
