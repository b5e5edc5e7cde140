"""The certificate of a program–query pair under every reading of default negation in the readings table.

Every semantics is computed by two independent engines on every call, and the semantics are checked
against each other's invariants; any disagreement raises :class:`CertificationError`.

=========  =======================================  =========================================
reading    engine                                   independent check
=========  =======================================  =========================================
cred/skept clingo brave / cautious consequences     WFS invariants; Gelfond–Lifschitz
                                                    enumeration in Python (small programs)
wfs        alternating fixpoint in Python, by       SWI-Prolog tabling (``tnot``); atoms it
           component (dependencies first)           leaves undefined (no answer completion on
                                                    some positive loops): the alternating
                                                    fixpoint written in Prolog
sldnf      SWI-Prolog, inference limit (raised     exact decision procedure in Python
           while it disagrees)
=========  =======================================  =========================================

Both SWI-Prolog engines run in one ``swipl`` worker process (:mod:`naf_bench.solvers.swipl_worker`): they get
the program in one write at the start and answer while the Python engines and clingo run.

Work is bounded by a :class:`Budget` in solver units (clingo conflicts, Prolog inferences), never by a
wall clock, so a refusal (:class:`~naf_bench.errors.BudgetExceeded`, naming the budget) is reproducible.
"loop" means an infinite SLDNF tree, which the exact procedure decides; when Prolog runs out of
inferences on a finite tree, its limit is raised (tenfold, up to the budget) before that counts as a
disagreement. The other engines are polynomial, except the Gelfond–Lifschitz enumeration, which only
runs when its guess space is small.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from naf_bench.errors import BudgetExceeded, CertificationError
from naf_bench.readings import READINGS, label_keys
from naf_bench.solvers.collector import collection_paused
from naf_bench.solvers.sldnf import PrologResult, sldnf_request, solve_sldnf_again
from naf_bench.solvers.sldnf_exact import SLDNFResult, solve_sldnf_exact
from naf_bench.solvers.stable import CONFLICT_LIMIT, MODEL_CAP, StableResult, clingo_version, solve_stable
from naf_bench.solvers.stable_check import enumerate_stable_models
from naf_bench.solvers.swipl import SWIPL_LOCK
from naf_bench.solvers.swipl_worker import submit, swipl_version
from naf_bench.solvers.wfs import WFSResult, solve_wfs
from naf_bench.solvers.wfs_tabling import solve_wfs_prolog_fixpoint, wfs_request
from naf_bench.syntax.ast import Program
from naf_bench.syntax.parse import parse_atom, parse_program
from naf_bench.syntax.render import render_asp
from naf_bench.syntax.structure import depended_on


@dataclass(frozen=True)
class Budget:
    """Bounds on one certification's search, in solver work, so that every call ends.

    ``clingo_conflicts``: per clingo search (brave, cautious and the capped count are three searches);
    the default is about a second each. ``prolog_inferences``: the highest inference limit SWI-Prolog's
    SLDNF run is raised to when the exact procedure finds a finite tree it did not finish.
    """

    clingo_conflicts: int = CONFLICT_LIMIT
    prolog_inferences: int = 10_000_000


DEFAULT_BUDGET = Budget()
# SWI-Prolog's first inference limit. A finite tree it does not finish within it gets a tenfold limit (the exact
# procedure says which trees are finite), so this limit decides no label, only how many inferences confirm a
# loop: three quarters of the main programs loop under SLDNF, and confirming each with 10,000 inferences took
# 0.3 ms of a 2.3 ms certification.
FIRST_INFERENCE_LIMIT = 1_000


@dataclass(frozen=True)
class Certificate:
    """Certified labels of ``query`` in ``program``; JSON round-trippable (``to_json``/``from_json``)."""

    program: str  # ASP text, one rule per line, source order
    query: str
    labels: dict[str, str]  # cred/skept: T|F, wfs: T|F|u, sldnf: T|F|loop
    n_stable_models: int  # exact when <= model_cap, else model_cap + 1
    model_cap: int
    incoherent: bool  # no stable model: credulous F, skeptical T (vacuously)
    wfs_values: dict[str, str]  # well-founded value of every atom
    effort: dict[str, int]
    engines: dict[str, str]
    checks: tuple[str, ...] = field(default=())

    @property
    def signature(self) -> str:
        """The labels in the readings table's order: cred + skept + wfs + sldnf, e.g. ``FTuloop`` (the authors'
        certifier's alphabet); a certificate made before a reading was added lacks its part."""
        return "".join(self.labels[key] for key in label_keys() if key in self.labels)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["checks"] = list(self.checks)
        data["signature"] = self.signature
        return data

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> Certificate:
        data = dict(data)
        signature = data.pop("signature", None)
        data["checks"] = tuple(data.get("checks", ()))
        certificate = cls(**data)
        if signature is not None and signature != certificate.signature:
            raise ValueError(f"signature {signature!r} does not match labels {certificate.labels}")
        return certificate

    @classmethod
    def from_json(cls, text: str) -> Certificate:
        return cls.from_dict(json.loads(text))


@dataclass(frozen=True)
class Solved:
    """Every engine's result on one program, computed once: what each reading's engine reads its label from."""

    wfs: WFSResult
    stable: StableResult
    prolog: PrologResult
    sldnf_exact: SLDNFResult


def _labels(solved: Solved, query: str) -> tuple[dict[str, str], dict[str, int], list[str]]:
    """Each reading's label and effort from its engine, and the checks of the table's implications."""
    labels, effort = {}, {}
    for reading in READINGS:
        label, counters = READINGS.engine(reading.name)(solved, query)
        if label not in reading.letters or set(counters) != set(reading.effort):
            raise CertificationError(
                f"{reading.name}'s engine gave label {label!r} and effort {sorted(counters)}; expected one of "
                f"{reading.alphabet} and {sorted(reading.effort)}"
            )
        labels[reading.label_key] = label
        effort.update(counters)
    checks = []
    for reading in READINGS:
        for label, other, other_label in reading.implies:
            if reading.label(labels) == label and READINGS[other].label(labels) != other_label:
                raise CertificationError(
                    f"{reading.name} says {label} but {other} says {READINGS[other].label(labels)} on query {query!r}"
                )
        if reading.implies_check:
            checks.append(reading.implies_check)
    return labels, effort, checks


def _disagree(semantics: str, first: tuple[str, object], second: tuple[str, object], query: str):
    return CertificationError(
        f"{semantics} engines disagree on query {query!r}: {first[0]} says {first[1]}, {second[0]} says {second[1]}"
    )


def _check_wfs(program: Program, values: dict[str, str], tabled: dict[str, str]) -> str:
    """SWI-Prolog tabling must agree; where it does not (SWI-Prolog 9.0 tabling leaves some atoms undefined
    and, depending on rule order, can even report a true atom the WFS makes false), the alternating fixpoint
    written in Prolog decides, on the rules of those atoms and of the atoms they depend on (the well-founded
    model of an atom is that of the rules it depends on: a large program's fixpoint was a second of the 10⁵-rule
    random program's three), and the check records what tabling said."""
    if tabled == values:
        return "wfs:alternating-fixpoint=swi-tabling"
    differing = sorted(a for a in values if tabled[a] != values[a])
    if all(tabled[a] == "u" for a in differing):
        said = f"tabling left {' '.join(differing)} undefined"
    else:
        said = "tabling said " + " ".join(f"{a}={tabled[a]}" for a in differing)
    below = depended_on(program, differing)
    fixpoint = solve_wfs_prolog_fixpoint(below)
    if all(fixpoint[a] == values[a] for a in below.atoms):
        return f"wfs:alternating-fixpoint=swi-prolog-fixpoint ({said})"
    differing = sorted(a for a in below.atoms if fixpoint[a] != values[a])
    raise CertificationError(
        f"wfs engines disagree on {differing}: alternating fixpoint says {[values[a] for a in differing]}, "
        f"SWI-Prolog fixpoint ({said}) says {[fixpoint[a] for a in differing]}"
    )


def _check_sldnf(
    program: Program, query: str, prolog: PrologResult, exact: SLDNFResult, inference_limit: int, budget: Budget
) -> tuple[PrologResult, str]:
    """SWI-Prolog and the exact procedure, agreeing; Prolog's limit raised while only it says loop."""
    limit = inference_limit
    while prolog.label == "loop" and exact.label != "loop":
        if limit >= budget.prolog_inferences:
            raise BudgetExceeded(
                "prolog_inferences",
                budget.prolog_inferences,
                f"SWI-Prolog did not finish query {query!r} (the exact procedure: {exact.label}, a finite tree)",
            )
        limit = min(limit * 10, budget.prolog_inferences)
        prolog = solve_sldnf_again(program, query, limit, prolog)
    if prolog.label != exact.label:
        raise _disagree("sldnf", ("SWI-Prolog", prolog.label), ("exact procedure", exact.label), query)
    raised = f" (inference limit raised to {limit})" if limit != inference_limit else ""
    return prolog, f"sldnf:swi-prolog=exact-reference{raised}"  # the check's name, as certificates have it


def _check_stable(stable: StableResult, wfs: dict[str, str], models, query: str) -> list[str]:
    """WFS bounds every stable model; the Python enumeration (when small enough) matches clingo."""
    true = {a for a, v in wfs.items() if v == "T"}
    false = {a for a, v in wfs.items() if v == "F"}
    if stable.cautious is not None and not (true <= stable.cautious and not false & stable.brave):
        raise CertificationError(
            f"stable models violate WFS bounds: WFS-true {sorted(true - stable.cautious)} missing from a model, "
            f"WFS-false {sorted(false & stable.brave)} in a model"
        )
    if models is None:
        return ["stable:wfs-bounds"]
    brave = frozenset().union(*models)
    cautious = frozenset.intersection(*models) if models else None
    counted = min(len(models), stable.model_cap + 1)
    if (counted, brave, cautious) != (stable.n_models, stable.brave, stable.cautious):
        raise _disagree(
            "stable",
            ("clingo", (stable.n_models, sorted(stable.brave), stable.cautious and sorted(stable.cautious))),
            ("Gelfond-Lifschitz enumeration", (counted, sorted(brave), cautious and sorted(cautious))),
            query,
        )
    return ["stable:wfs-bounds", "stable:clingo=gelfond-lifschitz"]


def certify(
    program: Program | str,
    query: str = "q",
    *,
    inference_limit: int = FIRST_INFERENCE_LIMIT,
    model_cap: int = MODEL_CAP,
    budget: Budget = DEFAULT_BUDGET,
    progress: Callable[[str], None] | None = None,
) -> Certificate:
    """Certify ``query`` under credulous/skeptical stable, well-founded and SLDNF semantics.

    Raises :class:`CertificationError` when engines disagree, its subclass
    :class:`~naf_bench.errors.BudgetExceeded` when ``budget`` runs out. Thread-safe (one call at a time).
    ``progress``, when given, is called with the name of each stage as it starts (what a console shows on a
    large program).
    """
    with collection_paused():  # a large program's objects live until the end: see naf_bench.solvers.collector
        if isinstance(program, str):
            program = parse_program(program)
        query = parse_atom(query)
        with SWIPL_LOCK:
            return _certify(program, query, inference_limit, model_cap, budget, progress or _quiet)


def _quiet(stage: str) -> None:
    """No progress shown."""


def _certify(
    program: Program, query: str, inference_limit: int, model_cap: int, budget: Budget, progress: Callable
) -> Certificate:
    """The body of :func:`certify`, under the SWI-Prolog lock."""
    # SWI-Prolog tables and runs SLDNF while the other engines run
    progress("sending the program to SWI-Prolog (tabling, SLDNF)")
    collect_tabled, collect_prolog = submit(wfs_request(program), sldnf_request(program, query, inference_limit))
    try:
        progress("well-founded model (alternating fixpoint by component)")
        wfs = solve_wfs(program)
        progress("stable models (clingo)")
        stable = solve_stable(program, model_cap, budget.clingo_conflicts)
        progress("stable models (Gelfond-Lifschitz check)")
        models = enumerate_stable_models(program, wfs)
        progress("SLDNF (exact procedure)")
        exact = solve_sldnf_exact(program, query)
        progress("waiting for SWI-Prolog (tabling, SLDNF)")
    finally:
        tabled, prolog = collect_tabled(), collect_prolog()

    progress("cross-checks")
    checks = [_check_wfs(program, wfs.values, tabled), *_check_stable(stable, wfs.values, models, query)]
    prolog, sldnf_check = _check_sldnf(program, query, prolog, exact, inference_limit, budget)
    checks.append(sldnf_check)
    labels, effort, implied = _labels(Solved(wfs, stable, prolog, exact), query)
    checks += implied

    version = swipl_version()
    return Certificate(
        program=render_asp(program),
        query=query,
        labels=labels,
        n_stable_models=stable.n_models,
        model_cap=model_cap,
        incoherent=stable.incoherent,
        wfs_values=dict(wfs.values),
        effort=effort,
        engines={
            "stable": f"clingo {clingo_version()}",
            "wfs": "naf_bench alternating fixpoint",
            "wfs_check": f"SWI-Prolog {version} tabling (alternating fixpoint in Prolog where tabling disagrees)",
            "sldnf": f"SWI-Prolog {version}, inference limit {inference_limit} (raised up to "
            f"{budget.prolog_inferences} on a finite tree)",
            "sldnf_check": "naf_bench exact SLDNF fixpoint",
        },
        checks=tuple(checks),
    )
