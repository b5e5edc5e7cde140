"""SLDNF by SWI-Prolog through pyswip: Prolog's computation rule on the program as written.

Non-termination is an exhausted *inference* limit, never a wall-clock limit, so labels are
reproducible. Programs reach Prolog only as terms rendered from the AST, atoms prefixed so none can
name a built-in.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from naf_bench.errors import SolverError
from naf_bench.solvers.swipl import INSTALL_HINT, PROLOG_DIR, SWIPL_LOCK
from naf_bench.syntax.analysis import relevant_atoms
from naf_bench.syntax.ast import Literal, Program, Rule
from naf_bench.syntax.render import PROLOG_PREFIX, render_prolog_clause

INFERENCE_LIMIT = 10_000
_LABELS = {"true": "T", "false": "F", "loop": "loop"}
_engine_state = None  # (libswipl through pyswip, the naf_sldnf module), loaded on first use


@dataclass(frozen=True)
class PrologResult:
    label: str  # "T" | "F" | "loop"
    inferences: int


def _engine():
    global _engine_state
    if _engine_state is None:
        try:
            from pyswip import Prolog
            from pyswip.core import _lib
        except ImportError as exc:
            raise SolverError(f"pyswip is not installed (pip install pyswip); also {INSTALL_HINT}") from exc
        except Exception as exc:  # pyswip raises bare errors when libswipl is missing
            raise SolverError(f"pyswip could not load SWI-Prolog ({exc}): {INSTALL_HINT}") from exc
        prolog = Prolog()
        prolog.consult(str(PROLOG_DIR / "sldnf.pl"))
        _lib.PL_get_int64.argtypes = [ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64)]
        _lib.PL_get_int64.restype = ctypes.c_int
        _engine_state = (_lib, _lib.PL_new_module(_lib.PL_new_atom(b"naf_sldnf")))
        # warm-up: first-call work (autoloading) must not count towards the first program's inferences
        _run(sldnf_goal(Program((Rule("a", (Literal("b", positive=False),)),)), "a", 100))
    return _engine_state


def _run(goal: str) -> tuple[str, int]:
    """Call ``naf_sldnf_run/6`` (given as text) through SWI-Prolog's C interface and read back its result and
    inference count: one term read, one call (pyswip's ``query`` also reads variable names and converts
    every binding to Python, most of the time on small programs)."""
    lib, module = _engine()
    if lib.PL_thread_self() == -1 and lib.PL_thread_attach_engine(None) == -1:
        raise SolverError("SWI-Prolog could not attach an engine to this thread")
    frame = lib.PL_open_foreign_frame()
    try:
        term, arg = lib.PL_new_term_ref(), lib.PL_new_term_ref()
        result, inferences = ctypes.c_char_p(), ctypes.c_int64()
        if not (
            lib.PL_chars_to_term(goal.encode(), term)
            and lib.PL_call(term, module)
            and lib.PL_get_arg(5, term, arg)
            and lib.PL_get_atom_chars(arg, ctypes.byref(result))
            and lib.PL_get_arg(6, term, arg)
            and lib.PL_get_int64(arg, ctypes.byref(inferences))
        ):
            lib.PL_clear_exception()
            raise SolverError(f"SWI-Prolog gave no SLDNF answer to {goal[:80]}...")
        return result.value.decode(), inferences.value
    finally:
        lib.PL_discard_foreign_frame(frame)


def sldnf_goal(program: Program, query: str, inference_limit: int) -> str:
    """The ``naf_sldnf_run/6`` goal for ``?- query.``: the clauses of the atoms the query depends on, as terms,
    and the atoms they define."""
    relevant = set(relevant_atoms(program, query))
    rules = [rule for rule in program.rules if rule.head in relevant]
    clauses = ",".join(f"({render_prolog_clause(rule)})" for rule in rules)
    atoms = ",".join(dict.fromkeys(PROLOG_PREFIX + rule.head for rule in rules))
    return f"naf_sldnf_run([{clauses}],[{atoms}],{PROLOG_PREFIX}{query},{int(inference_limit)},Result,Inferences)"


def solve_sldnf(program: Program, query: str, inference_limit: int = INFERENCE_LIMIT) -> PrologResult:
    """``?- query.`` in SWI-Prolog: T (succeeds), F (finitely fails) or loop (limit exhausted)."""
    goal = sldnf_goal(program, query, inference_limit)
    with SWIPL_LOCK:
        result, inferences = _run(goal)
    return PrologResult(_LABELS[result], inferences)
