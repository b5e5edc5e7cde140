"""Independent stable-model check in Python via the Gelfond–Lifschitz reduct.

Every stable model M satisfies T ⊆ M ⊆ T ∪ U for the well-founded true (T) and undefined (U) atoms,
and is a supported model: an atom is in M iff one of its rules has a body true in M. So components of
the dependency graph are assigned bottom-up: an atom outside any recursive component is computed from
the atoms below it, the undefined atoms of a recursive component are guessed and kept only if every
atom of the component is then supported exactly when it is in M, and each complete candidate is kept
iff it equals the least model of its reduct. Used when the guess space is small.
"""

from __future__ import annotations

from itertools import product

from naf_bench.solvers.wfs import WFSResult, _Reducts
from naf_bench.syntax.analysis import dependencies, is_recursive, strongly_connected_components
from naf_bench.syntax.ast import Program

GUESS_LIMIT = 4096  # candidate assignments at most; larger programs skip this check


def enumerate_stable_models(program: Program, wfs: WFSResult, guess_limit: int = GUESS_LIMIT):
    """All stable models as frozensets, or None when the guess space exceeds ``guess_limit``."""
    deps = dependencies(program)
    undefined = {a for a, v in wfs.values.items() if v == "u"}
    steps = []  # (atoms, recursive) per component with undefined atoms, dependencies first
    for component in strongly_connected_components(deps):
        atoms = [a for a in component if a in undefined]
        if atoms:
            steps.append((atoms, is_recursive(component, deps)))
    if 2 ** sum(len(atoms) for atoms, recursive in steps if recursive) > guess_limit:
        return None
    rules = program.rules_by_head
    reducts = _Reducts(program)
    models = []

    def supported(atom: str, model: set[str]) -> bool:
        return any(all((lit.atom in model) == lit.positive for lit in rule.body) for rule in rules[atom])

    # depth-first over the guesses with an explicit stack: no recursion on the number of components
    pending = [(0, {a for a, v in wfs.values.items() if v == "T"})]
    while pending:
        step, model = pending.pop()  # each pending model is owned by this branch and extended in place
        while step < len(steps) and not steps[step][1]:
            model.update([a for a in steps[step][0] if supported(a, model)])
            step += 1
        if step == len(steps):
            if reducts.gamma(model) == model:
                models.append(frozenset(model))
            continue
        atoms = steps[step][0]
        for choice in product((False, True), repeat=len(atoms)):
            candidate = model | {a for a, chosen in zip(atoms, choice, strict=True) if chosen}
            if all((a in candidate) == supported(a, candidate) for a in atoms):
                pending.append((step + 1, candidate))
    return models
