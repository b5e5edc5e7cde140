"""Stable-model reasoning with clingo: brave and cautious consequences, and a capped model count."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from naf_bench.errors import BudgetExceeded, SolverError
from naf_bench.syntax.ast import Program
from naf_bench.syntax.render import render_asp

MODEL_CAP = 1000  # stable models are counted exactly up to this many
CONFLICT_LIMIT = 100_000  # conflicts per clingo search (brave, cautious, count); about a second of search


@dataclass(frozen=True)
class StableResult:
    brave: frozenset[str]  # atoms true in some stable model
    cautious: frozenset[str] | None  # atoms true in every stable model; None when there is none
    n_models: int  # exact when <= model_cap, else model_cap + 1 ("more than the cap")
    model_cap: int
    choices: int
    conflicts: int

    @property
    def incoherent(self) -> bool:
        return self.n_models == 0

    def credulous(self, atom: str) -> str:
        return "T" if atom in self.brave else "F"

    def skeptical(self, atom: str) -> str:
        return "T" if self.cautious is None or atom in self.cautious else "F"


def clingo_version() -> str:
    return clingo_module().__version__


def clingo_module():
    try:
        import clingo
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SolverError("clingo is not installed: pip install clingo") from exc
    return clingo


def statistic(control, *path: str) -> int:
    """One value of the last solve's statistics.

    ``Control.statistics`` converts the whole statistics tree to Python (most of the solving time on
    small programs); clingo has no public accessor for one value, so this walks clingo's C API.
    """
    from clingo._internal import _c_call, _lib

    stats = _c_call("clingo_statistics_t*", _lib.clingo_control_statistics, control._rep)
    key = _c_call("uint64_t", _lib.clingo_statistics_root, stats)
    for name in path:
        key = _c_call("uint64_t", _lib.clingo_statistics_map_at, stats, key, name.encode())
    return int(_c_call("double", _lib.clingo_statistics_value_get, stats, key))


@lru_cache(maxsize=1 << 16)
def _symbol(atom: str):
    """clingo's symbol of an atom name; symbols are clingo-wide (interned), so one serves every control (making one
    costs a call into clingo, 1.4 µs: the generator's programs reuse few names)."""
    return clingo_module().Function(atom)


def _control(program: Program, symbols: list, options: list[str]):
    """A clingo control holding ``program``, given rule by rule through clingo's backend over the atoms' numbers
    (the program is ground: parsing and grounding its text cost more than the search); ``symbols[i]`` is atom
    i's clingo symbol, made once per program for the several controls a search makes.

    Equivalence preprocessing is off (``--eq=0``): on backend input clasp's can lose a stable model (a
    main-config program lost one of its two; clingo's issue #476 shows the same preprocessor bug on
    incremental input).
    """
    control = clingo_module().Control(["--warn=none", "--eq=0", *options])
    numbered = program.numbered
    with control.backend() as backend:
        number = [backend.add_atom(symbol) for symbol in symbols]
        for head, literals in zip(numbered.heads, numbered.bodies, strict=True):
            backend.add_rule([number[head]], [number[b] if b >= 0 else -number[~b] for b in literals])
    return control


def search_conflicts(program: Program) -> int:
    """Conflicts clingo needs to find one stable model or prove there is none (0: propagation decides), as
    clingo run on the program's text with its default preprocessing: what the cnf and control families select
    by (so it stays on the text path)."""
    control = clingo_module().Control(["--warn=none", "--models=1"])
    control.add("base", [], render_asp(program))
    control.ground([("base", [])])
    control.solve()
    return statistic(control, "solving", "solvers", "conflicts")


FEW_MODELS = 8  # up to this many models, brave and cautious consequences come from the models themselves


def solve_stable(program: Program, model_cap: int = MODEL_CAP, conflict_limit: int = CONFLICT_LIMIT) -> StableResult:
    """Credulous/skeptical consequences and the capped model count from clingo.

    One enumeration counts the models up to ``model_cap + 1`` (by clingo's statistics, no Python per model)
    and keeps the first :data:`FEW_MODELS`; when that was all of them, their union and intersection are the
    brave and cautious consequences. Else clingo's brave and cautious modes compute them; such a mode reports
    a model per step (up to one per atom), and materializing each costs a pass over all atoms, so each mode
    runs twice on fresh, identical (hence deterministic) controls: once to count its steps, once to read
    the last. Models are read as sets of symbol values (``Symbol._rep``, clingo's 64-bit symbol, a plain int),
    named once at the end: hashing and comparing ``Symbol`` objects calls into clingo each time. Each search
    stops after ``conflict_limit`` conflicts: :class:`BudgetExceeded`.
    """
    effort = [0, 0]
    symbols = [_symbol(atom) for atom in program.atoms]

    def search(mode: str, limit: int, on_model=None) -> int:
        control = _control(
            program, symbols, [f"--enum-mode={mode}", f"--models={limit}", f"--solve-limit={int(conflict_limit)}"]
        )
        result = control.solve(on_model=on_model)
        effort[0] += statistic(control, "solving", "solvers", "choices")
        effort[1] += statistic(control, "solving", "solvers", "conflicts")
        found = statistic(control, "summary", "models", "enumerated")
        if not result.exhausted and (limit == 0 or found < limit):
            raise BudgetExceeded("clingo_conflicts", conflict_limit, f"clingo was still searching ({found} models)")
        return found

    first: list = []

    def keep(model) -> None:
        if len(first) < FEW_MODELS:
            first.append([symbol._rep for symbol in model.symbols(shown=True)])

    n_models = search("auto", model_cap + 1, keep)
    if not n_models:
        return StableResult(frozenset(), None, 0, model_cap, *effort)
    if n_models <= min(FEW_MODELS, model_cap):  # all models seen
        brave, cautious = set(first[0]).union(*first[1:]), set(first[0]).intersection(*first[1:])
    else:
        consequences = []
        for mode in ("brave", "cautious"):
            steps, last = search(mode, 0), []

            def keep_last(model, steps=steps, last=last) -> None:  # (returning False would stop clingo)
                if model.number == steps:
                    last.append([symbol._rep for symbol in model.symbols(shown=True)])

            search(mode, 0, keep_last)
            if len(last) != 1:
                raise SolverError(f"clingo's {mode} consequences took a different path on an identical control")
            consequences.append(last[0])
        brave, cautious = consequences
    names = {symbol._rep: atom for symbol, atom in zip(symbols, program.atoms, strict=True)}
    return StableResult(
        frozenset([names[s] for s in brave]), frozenset([names[s] for s in cautious]), n_models, model_cap, *effort
    )
