"""NAF-Bench constraint families over a model's answer-letter probabilities, for ModelLog scoring.

From the rows of one program (dataset rows: ``condition``, ``gold``, ``order_id``, ``framing``) and the
model's probabilities of the letters A/B/C for each row, formulas over events ``r{k}_{L}`` (row k answers L):

- ``one_letter``: exactly one letter per prompt;
- ``alphabet``: the answer is a letter of the named reading's alphabet (``Reading.letters``): credulous and
  skeptical answers are two-valued, so C is never right under them;
- ``invariance``: the same answer across rule orders and framings of one (program, condition);
- ``inclusion``: inclusions that hold for every program — WFS-true ⇒ skeptical-true, WFS-false ⇒
  credulous-false, Prolog success ⇒ WFS-true, Prolog finite failure ⇒ WFS-false;
- ``certified``: the certified answer itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from naf_bench.readings import NO_SEMANTICS, READINGS, answer_letters

CONSTRAINT_FAMILIES = ("one_letter", "alphabet", "invariance", "inclusion", "certified")


def inclusions() -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """(condition, letter) implies (condition, letter), for every program: the readings' implications, as letters."""
    return [
        ((reading.name, reading.letters[label]), (other, READINGS[other].letters[other_label]))
        for reading in READINGS
        for label, other, other_label in reading.implies
    ]


def constraint_formulas(rows: Sequence[Mapping]) -> list[tuple[str, str]]:
    """(family, formula) pairs for the rows of one program; event ``r{k}_{L}`` is row k answering L."""
    formulas = []
    for k, row in enumerate(rows):
        events = [f"r{k}_{letter}" for letter in answer_letters()]
        formulas.append(("one_letter", f"atleast(1, {', '.join(events)}) & ~atleast(2, {', '.join(events)})"))
        if row["condition"] in READINGS:
            alphabet = READINGS[row["condition"]].letters.values()
            if excluded := [f"~r{k}_{letter}" for letter in answer_letters() if letter not in alphabet]:
                formulas.append(("alphabet", " & ".join(excluded)))
        if row.get("gold"):
            formulas.append(("certified", f"r{k}_{row['gold']}"))
    groups: dict[str, list[int]] = {}
    for k, row in enumerate(rows):
        if row["condition"] != NO_SEMANTICS:
            groups.setdefault(row["condition"], []).append(k)
    for members in groups.values():
        for first, other in itertools.pairwise(members):
            formulas.append(("invariance", " & ".join(f"(r{first}_{x} <-> r{other}_{x})" for x in answer_letters())))
    for (condition, letter), (implied, implied_letter) in inclusions():
        for k in groups.get(condition, [])[:1]:
            for j in groups.get(implied, [])[:1]:
                formulas.append(("inclusion", f"r{k}_{letter} -> r{j}_{implied_letter}"))
    return formulas


def row_events(letter_probabilities: Sequence[Mapping]) -> dict:
    """Event probabilities ``r{k}_{L}`` from per-row letter probabilities (as ``letter_probabilities`` gives)."""
    return {
        f"r{k}_{letter}": value[letter] for k, value in enumerate(letter_probabilities) for letter in answer_letters()
    }


def constraints_of_samples(samples: Sequence[tuple[Mapping, Mapping]]) -> list[tuple[str, str, dict]]:
    """(family, formula, event probabilities) for (row, letter probabilities) pairs, grouped by program."""
    by_program: dict[str, list] = {}
    for row, letters in samples:
        by_program.setdefault(row["program_id"], []).append((row, letters))
    out = []
    for pairs in by_program.values():
        events = row_events([letters for _, letters in pairs])
        out.extend((family, formula, events) for family, formula in constraint_formulas([row for row, _ in pairs]))
    return out
