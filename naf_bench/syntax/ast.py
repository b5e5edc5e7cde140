"""Immutable AST of ground normal logic programs.

Rule order and body-literal order are kept exactly as written: SLDNF depends on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from naf_bench.syntax.graph import numbered_components


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
    def numbered(self) -> Numbered:
        """The program over numbers (see :class:`Numbered`); computed once per program, and ``atoms`` with it when
        they were not read before (one walk over the rules, not two, on a program the engines read). Read-only."""
        numbered = Numbered.of(self.rules)
        self.__dict__.setdefault("atoms", tuple(numbered.index))
        return numbered

    def __len__(self) -> int:
        return len(self.rules)


@dataclass(frozen=True, eq=False)
class Numbered:
    """A program over numbers, what the engines walk: atom ``i`` is ``Program.atoms[i]``, rule ``r`` is
    ``Program.rules[r]``, and a body literal is its atom's number, or that number's complement ``~i`` (below
    zero) when negated. Tables are lists indexed by number, made in one pass: on 10⁵ rules a walk over the Rule
    objects and dicts keyed by name cost per rule three times what it cost on 10³ (parsing scatters those objects
    beyond the processor's caches), a walk over these little more.
    """

    index: dict[str, int]  # atom -> its number
    heads: list[int]  # rule -> its head
    bodies: list[tuple[int, ...]]  # rule -> its body literals, in source order
    rules: list[list[int]]  # atom -> its rules, in source order
    dependencies: list[list[int]]  # atom -> the atoms its rules' bodies mention, in order (repeats kept)
    components: tuple[list[int], list[int], bytearray]  # (order, bounds, recursive): see numbered_components

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> Numbered:
        """Numbers the atoms in order of first occurrence (``Program.atoms``' order) in the one walk over the rules
        that reads their bodies: each rule's head is numbered (the ``if`` clause) before its body's atoms."""
        index: dict[str, int] = {}
        number, heads = index.setdefault, []
        bodies = [
            tuple([number(lit.atom, len(index)) if lit.positive else ~number(lit.atom, len(index)) for lit in body])
            if (body := rule.body)
            else ()
            for rule in rules
            if not heads.append(number(rule.head, len(index)))
        ]
        by_head: list[list[int]] = [[] for _ in index]
        for r, head in enumerate(heads):
            by_head[head].append(r)
        dependencies: list[list[int]] = [[] for _ in index]
        for head, body in zip(heads, bodies, strict=True):
            if body:
                dependencies[head] += [b if b >= 0 else ~b for b in body]
        return cls(index, heads, bodies, by_head, dependencies, numbered_components(dependencies))

    def relevant(self, *atoms: int) -> bytearray:
        """Whether each atom is one of ``atoms`` or one they depend on."""
        dependencies = self.dependencies
        relevant = bytearray(len(self.index))
        for atom in atoms:
            relevant[atom] = 1
        stack = list(atoms)
        while stack:
            for b in dependencies[stack.pop()]:
                if not relevant[b]:
                    relevant[b] = 1
                    stack.append(b)
        return relevant
