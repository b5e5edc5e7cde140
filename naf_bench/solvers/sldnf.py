"""SLDNF by SWI-Prolog through pyswip: Prolog's computation rule on the program as written.

Non-termination is an exhausted *inference* limit, never a wall-clock limit, so labels are
reproducible. Programs reach Prolog only as terms rendered from the AST, atoms prefixed so none can
name a built-in.
"""

from __future__ import annotations

from dataclasses import dataclass

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import INSTALL_HINT, PROLOG_DIR
from naf_bench.syntax.analysis import relevant_atoms
from naf_bench.syntax.ast import Program

INFERENCE_LIMIT = 10_000
_PREFIX = "n_"
_LABELS = {"true": "T", "false": "F", "loop": "loop"}
_prolog = None


@dataclass(frozen=True)
class PrologResult:
    label: str  # "T" | "F" | "loop"
    inferences: int


def _engine():
    global _prolog
    if _prolog is None:
        try:
            from pyswip import Prolog
        except ImportError as exc:
            raise SolverError(f"pyswip is not installed (pip install pyswip); also {INSTALL_HINT}") from exc
        except Exception as exc:  # pyswip raises bare errors when libswipl is missing
            raise SolverError(f"pyswip could not load SWI-Prolog ({exc}): {INSTALL_HINT}") from exc
        prolog = Prolog()
        prolog.consult(str(PROLOG_DIR / "sldnf.pl"))
        # warm-up: first-call work (autoloading) must not count towards the first program's inferences
        list(prolog.query("naf_sldnf:naf_sldnf_run([(n_a :- \\+ n_b)],[n_a,n_b],n_a,100,_,_)", maxresult=1))
        _prolog = prolog
    return _prolog


def _clause(rule) -> str:
    if rule.is_fact:
        return _PREFIX + rule.head
    body = ",".join(_PREFIX + lit.atom if lit.positive else f"\\+ {_PREFIX}{lit.atom}" for lit in rule.body)
    return f"({_PREFIX}{rule.head} :- {body})"


def solve_sldnf(program: Program, query: str, inference_limit: int = INFERENCE_LIMIT) -> PrologResult:
    """``?- query.`` in SWI-Prolog: T (succeeds), F (finitely fails) or loop (limit exhausted)."""
    relevant = set(relevant_atoms(program, query))
    clauses = ",".join(_clause(rule) for rule in program.rules if rule.head in relevant)
    atoms = ",".join(_PREFIX + a for a in sorted(relevant))
    goal = f"naf_sldnf:naf_sldnf_run([{clauses}],[{atoms}],{_PREFIX}{query},{int(inference_limit)},Result,Inferences)"
    answers = list(_engine().query(goal, maxresult=1))
    if len(answers) != 1:
        raise SolverError(f"SWI-Prolog gave no SLDNF answer for query {query!r}")
    answer = answers[0]
    return PrologResult(_LABELS[str(answer["Result"])], int(answer["Inferences"]))
