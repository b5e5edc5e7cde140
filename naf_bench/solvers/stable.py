"""Stable-model reasoning with clingo: brave and cautious consequences, and a capped model count."""

from __future__ import annotations

from dataclasses import dataclass

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
    return _clingo().__version__


def _clingo():
    try:
        import clingo
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SolverError("clingo is not installed: pip install clingo") from exc
    return clingo


def _statistic(control, *path: str) -> int:
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


def search_conflicts(program: Program) -> int:
    """Conflicts clingo needs to find one stable model or prove there is none (0: propagation decides)."""
    control = _clingo().Control(["--warn=none", "--models=1"])
    control.add("base", [], render_asp(program))
    control.ground([("base", [])])
    control.solve()
    return _statistic(control, "solving", "solvers", "conflicts")


def solve_stable(program: Program, model_cap: int = MODEL_CAP, conflict_limit: int = CONFLICT_LIMIT) -> StableResult:
    """Credulous/skeptical consequences from clingo's brave/cautious modes (no full enumeration).

    Each of the three searches stops after ``conflict_limit`` conflicts: :class:`BudgetExceeded`.
    Models are counted by clingo's statistics; only the last brave and cautious model become names.
    """
    clingo = _clingo()
    control = clingo.Control(["--warn=none"])
    control.add("base", [], render_asp(program))
    control.ground([("base", [])])
    control.configuration.solve.solve_limit = str(int(conflict_limit))
    effort = [0, 0]

    def search(mode: str, models: int) -> tuple[int, list | None]:
        """(models found, the last model's shown symbols)."""
        control.configuration.solve.enum_mode = mode
        control.configuration.solve.models = str(models)
        last: list = [None]

        def keep(model) -> None:
            last[0] = model.symbols(shown=True)

        result = control.solve(on_model=None if mode == "auto" else keep)
        effort[0] += _statistic(control, "solving", "solvers", "choices")
        effort[1] += _statistic(control, "solving", "solvers", "conflicts")
        found = _statistic(control, "summary", "models", "enumerated")
        if not result.exhausted and (models == 0 or found < models):
            raise BudgetExceeded(
                "clingo_conflicts", conflict_limit, f"clingo's {mode} search was still running ({found} models)"
            )
        return found, last[0]

    found, brave = search("brave", 0)
    if not found:
        return StableResult(frozenset(), None, 0, model_cap, *effort)
    cautious = search("cautious", 0)[1]
    n_models = search("auto", model_cap + 1)[0]
    return StableResult(
        frozenset(s.name for s in brave), frozenset(s.name for s in cautious), n_models, model_cap, *effort
    )
