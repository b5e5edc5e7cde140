"""Syntax of ground normal programs: AST, strict parser, renderers, structural analysis."""

from naf_bench.syntax.ast import Literal, Program, Rule
from naf_bench.syntax.parse import parse_atom, parse_header, parse_program
from naf_bench.syntax.render import render_asp, render_prolog
from naf_bench.syntax.structure import canonical_key, dependencies, relevant_atoms

__all__ = [
    "Literal",
    "Program",
    "Rule",
    "canonical_key",
    "dependencies",
    "parse_atom",
    "parse_header",
    "parse_program",
    "relevant_atoms",
    "render_asp",
    "render_prolog",
]
