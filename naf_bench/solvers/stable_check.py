"""Independent stable-model check in Python via the Gelfond–Lifschitz reduct.

Every stable model M satisfies T ⊆ M ⊆ T ∪ U for the well-founded true (T) and undefined (U) atoms,
and is a supported model: an atom is in M iff one of its rules has a body true in M. So components of
the dependency graph are assigned bottom-up: an atom outside any recursive component is computed from
the atoms below it, the undefined atoms of a recursive component are guessed and kept only if every
atom of the component is then supported exactly when it is in M, and each complete candidate is kept
iff it equals the least model of its reduct. Used when the guess space is small.
"""

from __future__ import annotations

from itertools import compress

from naf_bench.solvers.wfs import Reducts, WFSResult
from naf_bench.syntax.ast import Numbered, Program

GUESS_LIMIT = 4096  # candidate assignments at most; larger programs skip this check


def enumerate_stable_models(program: Program, wfs: WFSResult, guess_limit: int = GUESS_LIMIT):
    """All stable models as frozensets, or None when the guess space exceeds ``guess_limit``.

    Works over the atoms' numbers (:attr:`~naf_bench.syntax.ast.Program.numbered`): a candidate is a bytearray
    with a byte per atom, named once it is found stable.
    """
    atoms, numbered = program.atoms, program.numbered
    values = [wfs.values[a] for a in atoms]
    undefined = bytearray([value == "u" for value in values])
    steps: list[tuple[list[int], bool]] = []  # (atoms, recursive) with undefined atoms, dependencies first
    order, bounds, recursive = numbered.components
    for c, cyclic in enumerate(recursive):
        if cyclic:
            guessed = [a for a in order[bounds[c] : bounds[c + 1]] if undefined[a]]
            if guessed:
                steps.append((guessed, True))
        elif undefined[order[bounds[c]]]:  # one atom; a run of such atoms is one step, computed in order
            if steps and not steps[-1][1]:
                steps[-1][0].append(order[bounds[c]])
            else:
                steps.append(([order[bounds[c]]], False))
    if 2 ** sum(len(guessed) for guessed, cyclic in steps if cyclic) > guess_limit:
        return None
    rules, bodies = numbered.rules, numbered.bodies
    reducts = Reducts(program)
    models = []

    # depth-first over the guesses with an explicit stack: no recursion on the number of components
    pending = [(0, bytearray([value == "T" for value in values]))]
    while pending:
        step, model = pending.pop()  # each pending model is owned by this branch and extended in place
        if step < len(steps) and not steps[step][1]:
            for atom in steps[step][0]:  # in M iff one of its rules has a body true in M
                for r in rules[atom]:
                    if all(model[b] if b >= 0 else not model[~b] for b in bodies[r]):
                        model[atom] = 1
                        break
            step += 1
        if step == len(steps):
            if reducts.gamma(model) == model:
                models.append(frozenset(compress(atoms, model)))
            continue
        for chosen in _supported_guesses(steps[step][0], numbered, model):
            extended = bytearray(model)
            for atom in chosen:
                extended[atom] = 1
            pending.append((step + 1, extended))
    return models


def _supported_guesses(atoms: list[int], numbered: Numbered, model: bytearray) -> list[list[int]]:
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
        for r in numbered.rules[atom]:
            pos_mask = neg_mask = 0
            for b in numbered.bodies[r]:
                if b >= 0:
                    if b in bit:
                        pos_mask |= bit[b]
                    elif not model[b]:
                        break
                elif ~b in bit:
                    neg_mask |= bit[~b]
                elif model[~b]:
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
