"""The readings of default negation, in one table at the bottom floor that every floor above reads.

A reading is a label in the certificate (computed by its engines in :mod:`naf_bench.certify`), a prompt
condition that names it (its instruction text, keyed by the condition, lives in
:mod:`naf_bench.verbalize.templates`), and the gold letter each label earns. Adding a semantics is an engine,
one :class:`Reading` here, and its instruction text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from naf_bench.errors import ConfigError


@dataclass(frozen=True)
class Reading:
    name: str  # the key of its label in Certificate.labels (and of the signature's part)
    title: str  # how the CLI names it
    condition: str  # the prompt condition naming it; also its instruction's key in the templates
    letters: dict[str, str]  # label -> gold letter; its keys are the label alphabet
    position: int  # place among the named conditions in prompts and reports (C1-C4 of seed 000)
    joint: bool  # JOINT counts a program only if this reading's answer is correct too
    effort: tuple[str, ...]  # Certificate.effort keys its engine reports
    quantifier: str | None = None  # "some" / "every" stable model: an entailment reading; None: a global one
    # (label, other reading, other label): this label implies that one, for every program
    implies: tuple[tuple[str, str, str], ...] = field(default=())

    @property
    def alphabet(self) -> tuple[str, ...]:
        return tuple(self.letters)


_BINARY = {"T": "A", "F": "B"}
_CLINGO_EFFORT = ("clingo_choices", "clingo_conflicts")

# In certificate order: the signature is these labels concatenated (the reference implementation's order).
READINGS = (
    Reading("cred", "credulous", "cred", _BINARY, 2, True, _CLINGO_EFFORT, quantifier="some"),
    Reading("skept", "skeptical", "skept", _BINARY, 3, True, _CLINGO_EFFORT, quantifier="every"),
    Reading(
        "wfs",
        "wfs",
        "wfs",
        {**_BINARY, "u": "C"},
        4,
        True,
        ("wfs_iterations",),
        implies=(("T", "skept", "T"), ("F", "cred", "F")),
    ),
    Reading(
        "sldnf",
        "sldnf",
        "closed_world",
        {**_BINARY, "loop": "C"},
        1,
        True,
        ("prolog_inferences", "sldnf_fixpoint_rounds"),
        implies=(("T", "wfs", "T"), ("F", "wfs", "F")),  # SLDNF is sound for the WFS
    ),
)
BASELINE = "sldnf"  # a program's distance counts the readings whose gold letter differs from Prolog's

SEMANTICS = tuple(reading.name for reading in READINGS)
LABEL_KEYS = SEMANTICS
EFFORT_KEYS = tuple(dict.fromkeys(key for reading in READINGS for key in reading.effort))
READING_OF = {reading.name: reading for reading in READINGS}
NO_SEMANTICS = "none"  # condition C0: the prompt names no semantics and has no gold letter
NAMED_CONDITIONS = tuple(reading.condition for reading in sorted(READINGS, key=lambda reading: reading.position))
CONDITIONS = (NO_SEMANTICS, *NAMED_CONDITIONS)
SEMANTICS_OF = {reading.condition: reading.name for reading in READINGS}
CONDITION_OF = {reading.name: reading.condition for reading in READINGS}
JOINT_CONDITIONS = tuple(c for c in NAMED_CONDITIONS if READING_OF[SEMANTICS_OF[c]].joint)
QUANTIFIER_OF = {reading.condition: reading.quantifier for reading in READINGS if reading.quantifier}


def gold_letter(condition: str, labels: dict[str, str]) -> str | None:
    """A/B/C for a named condition (its reading's label through the reading's letters); None for ``none``."""
    if condition == NO_SEMANTICS:
        return None
    if condition not in SEMANTICS_OF:
        raise ConfigError(f"unknown condition {condition!r}; expected one of {CONDITIONS}")
    reading = READING_OF[SEMANTICS_OF[condition]]
    return reading.letters[labels[reading.name]]
