"""Independent stable-model check in Python via the Gelfond–Lifschitz reduct.

Every stable model M satisfies T ⊆ M ⊆ T ∪ U for the well-founded true (T) and undefined (U) atoms,
and is a supported model: an atom is in M iff one of its rules has a body true in M. So components of
the dependency graph are assigned bottom-up: an atom outside any recursive component is computed from
the atoms below it, the undefined atoms of a recursive component are guessed and kept only if every
atom of the component is then supported exactly when it is in M, and each complete candidate is kept
iff it equals the least model of its reduct. Used when the guess space is small.
"""

from __future__ import annotations

from naf_bench.solvers.wfs import Reducts, WFSResult
from naf_bench.syntax.ast import Program

GUESS_LIMIT = 4096  # candidate assignments at most; larger programs skip this check


def enumerate_stable_models(program: Program, wfs: WFSResult, guess_limit: int = GUESS_LIMIT):
    """All stable models as frozensets, or None when the guess space exceeds ``guess_limit``."""
    undefined = {a for a, v in wfs.values.items() if v == "u"}
    steps: list[tuple[list[str], bool]] = []  # (atoms, recursive) with undefined atoms, dependencies first
    for component, recursive in program.components:
        if recursive:
            atoms = [a for a in component if a in undefined]
            if atoms:
                steps.append((atoms, True))
        elif component[0] in undefined:  # one atom; a run of such atoms is one step, computed in order
            if steps and not steps[-1][1]:
                steps[-1][0].append(component[0])
            else:
                steps.append(([component[0]], False))
    if 2 ** sum(len(atoms) for atoms, recursive in steps if recursive) > guess_limit:
        return None
    bodies: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {a: [] for a in undefined}
    for rule, body in zip(program.rules, program.bodies, strict=True):
        if rule.head in bodies:
            bodies[rule.head].append(body)
    reducts = Reducts(program)
    models = []

    # depth-first over the guesses with an explicit stack: no recursion on the number of components
    pending = [(0, {a for a, v in wfs.values.items() if v == "T"})]
    while pending:
        step, model = pending.pop()  # each pending model is owned by this branch and extended in place
        if step < len(steps) and not steps[step][1]:
            for atom in steps[step][0]:  # in M iff one of its rules has a body true in M
                for pos, neg in bodies[atom]:
                    if model.issuperset(pos) and model.isdisjoint(neg):
                        model.add(atom)
                        break
            step += 1
        if step == len(steps):
            if reducts.gamma(model) == model:
                models.append(frozenset(model))
            continue
        for chosen in _supported_guesses(steps[step][0], bodies, model):
            pending.append((step + 1, model.union(chosen)))
    return models


def _supported_guesses(atoms: list[str], bodies: dict, model: set[str]) -> list[list[str]]:
    """The atoms guessed true, for each guess on the undefined ``atoms`` of one recursive component under
    which each of them is supported exactly when guessed true, in the order of ``product((False, True),
    repeat=len(atoms))``; ``model`` decides every other atom their rules mention (the component's WFS-true
    atoms, the components below). A guess is a bit mask, the first atom the highest bit, and each rule is
    reduced once to masks of its literals on ``atoms``: a guess is checked with integer operations alone."""
    n = len(atoms)
    bit = {atom: 1 << (n - 1 - j) for j, atom in enumerate(atoms)}
    reduced = []  # (the atom's bit, (positive mask, negative mask) of each rule whose other literals hold)
    for atom in atoms:
        masks = []
        for pos, neg in bodies[atom]:
            pos_mask = neg_mask = 0
            for a in pos:
                if a in bit:
                    pos_mask |= bit[a]
                elif a not in model:
                    break
            else:
                for a in neg:
                    if a in bit:
                        neg_mask |= bit[a]
                    elif a in model:
                        break
                else:
                    masks.append((pos_mask, neg_mask))
        reduced.append((bit[atom], masks))
    found = []
    for guess in range(1 << n):
        supported = 0
        for own, masks in reduced:
            for pos, neg in masks:
                if guess & pos == pos and not guess & neg:
                    supported |= own
                    break
        if supported == guess:
            found.append([atom for atom in atoms if guess & bit[atom]])
    return found
