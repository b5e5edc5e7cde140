"""Immutable AST of ground normal logic programs.

Rule order and body-literal order are kept exactly as written: SLDNF depends on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from naf_bench.syntax.graph import is_recursive, strongly_connected_components


@dataclass(frozen=True, slots=True)
class Literal:
    """An atom, or its default negation ``not atom``."""

    atom: str
    positive: bool = True

    def __reduce__(self):  # pickled by value: the slotted dataclass's __setstate__ calls fields() each time
        return Literal, (self.atom, self.positive)


@dataclass(frozen=True, slots=True)
class Rule:
    """``head :- body.``; a fact has an empty body."""

    head: str
    body: tuple[Literal, ...] = ()

    def __reduce__(self):  # as Literal's: a program's rules are most of what a chunk's instances pickle
        return Rule, (self.head, self.body)

    @property
    def is_fact(self) -> bool:
        return not self.body

    @property
    def positive_body(self) -> tuple[str, ...]:
        return tuple([lit.atom for lit in self.body if lit.positive])  # a list is built faster than a generator

    @property
    def negative_body(self) -> tuple[str, ...]:
        return tuple([lit.atom for lit in self.body if not lit.positive])


@dataclass(frozen=True)
class Program:
    """A finite sequence of rules, in source order (duplicates kept: SLDNF counts them)."""

    rules: tuple[Rule, ...]

    def __reduce__(self):  # its rules alone: the cached indices below are made again where they are read
        return Program, (self.rules,)

    @cached_property
    def atoms(self) -> tuple[str, ...]:
        """Every atom, in order of first occurrence."""
        seen: dict[str, None] = {}
        for rule in self.rules:  # a key set again keeps its first place
            seen[rule.head] = None
            for lit in rule.body:
                seen[lit.atom] = None
        return tuple(seen)

    @cached_property
    def rules_by_head(self) -> dict[str, tuple[Rule, ...]]:
        """The rules of each atom, in source order; atoms without rules map to ``()``."""
        table: dict[str, list[Rule]] = {atom: [] for atom in self.atoms}
        for rule in self.rules:
            table[rule.head].append(rule)
        return {atom: tuple(rules) for atom, rules in table.items()}

    @cached_property
    def dependencies(self) -> dict[str, tuple[str, ...]]:
        """Atoms each atom's rules mention in their bodies (positively or negatively), deduplicated, in
        order; computed once per program (every engine's analysis starts here). Read-only."""
        deps: dict[str, dict[str, None]] = {atom: {} for atom in self.atoms}
        for rule in self.rules:  # as in ``atoms``, a key set again keeps its first place
            if rule.body:
                mentioned = deps[rule.head]
                for lit in rule.body:
                    mentioned[lit.atom] = None
        return {atom: tuple(d) for atom, d in deps.items()}

    @cached_property
    def bodies(self) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
        """Each rule's ``(positive_body, negative_body)``, aligned with ``rules``: the engines read them many
        times per program, and a slotted Rule cannot cache them itself. Read-only."""
        bodies = []
        for rule in self.rules:
            if not rule.body:  # a fact: a third of the rules of a typical program
                bodies.append(((), ()))
                continue
            positive: list[str] = []
            negative: list[str] = []
            for lit in rule.body:
                (positive if lit.positive else negative).append(lit.atom)
            bodies.append((tuple(positive), tuple(negative)))
        return tuple(bodies)

    @cached_property
    def components(self) -> tuple[tuple[tuple[str, ...], bool], ...]:
        """Strongly connected components of ``dependencies``, dependencies first, each with whether it is
        recursive; computed once per program (the stable-model check and the exact SLDNF procedure share it)."""
        deps = self.dependencies
        return tuple((component, is_recursive(component, deps)) for component in strongly_connected_components(deps))

    def __len__(self) -> int:
        return len(self.rules)
