"""Independent stable-model check in Python via the Gelfond–Lifschitz reduct.

Every stable model M satisfies T ⊆ M ⊆ T ∪ U for the well-founded true (T) and undefined (U) atoms,
and an atom outside any recursive component is in M iff one of its rules has a body true in M. So
only the undefined atoms of recursive components are guessed (components bottom-up), and each
candidate is kept iff it equals the least model of its reduct. Used when the guess space is small.
"""

from __future__ import annotations

from naf_bench.solvers.wfs import WFSResult, _Reducts
from naf_bench.syntax.analysis import dependencies, strongly_connected_components
from naf_bench.syntax.ast import Program

GUESS_LIMIT = 4096  # candidate assignments at most; larger programs skip this check


def enumerate_stable_models(program: Program, wfs: WFSResult, guess_limit: int = GUESS_LIMIT):
    """All stable models as frozensets, or None when the guess space exceeds ``guess_limit``."""
    deps = dependencies(program)
    components = strongly_connected_components(deps)
    undefined = {a for a, v in wfs.values.items() if v == "u"}
    recursive = set()
    for component in components:
        if len(component) > 1 or component[0] in deps[component[0]]:
            recursive.update(component)
    guessed = undefined & recursive
    if 2 ** len(guessed) > guess_limit:
        return None
    order = [a for component in components for a in component if a in undefined]
    rules = program.rules_by_head
    true = frozenset(a for a, v in wfs.values.items() if v == "T")
    reducts = _Reducts(program)
    models = []

    def extend(position: int, model: set[str]) -> None:
        while position < len(order) and order[position] not in guessed:
            atom = order[position]
            if any(_body_true(rule, model) for rule in rules[atom]):
                model = model | {atom}
            position += 1
        if position == len(order):
            if reducts.gamma(model) == model:
                models.append(frozenset(model))
            return
        extend(position + 1, model)
        extend(position + 1, model | {order[position]})

    extend(0, set(true))
    return models


def _body_true(rule, model: set[str]) -> bool:
    return all((lit.atom in model) == lit.positive for lit in rule.body)
