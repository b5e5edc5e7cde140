"""The one table of a run's reported numbers: each is one :class:`Metric` of :data:`METRICS` (its name, how it is
computed from :class:`~naf_bench.scoring.core.Scores`, its titles, and the views that show it), and every view reads
it: the run record (``RECORD``: :class:`~naf_bench.scoring.evaluation.RunRecord`), the label metric (``LABEL``:
:class:`~naf_bench.scoring.labels.LabelScores`, the evaluate module's ``label`` config), a board row (``BOARD``), the
site's table (``SITE``) and the CLI's records table (``CLI``). Adding a number is a method of ``Scores`` and an entry
here; ``tests/scoring/test_metrics.py`` names a view that shows a number the table lacks or misses one it should show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from naf_bench.scoring.core import Scores

RECORD, LABEL, BOARD, SITE, CLI = "run record", "label metric", "board", "site", "CLI"
VIEWS = (RECORD, LABEL, BOARD, SITE, CLI)


@dataclass(frozen=True)
class Metric:
    """One reported number of a run: ``value`` computes it from the run's scores (None where undefined, never 0);
    ``title`` heads its column on the site (with " %"), ``short`` in the CLI's records table; ``keys`` names it
    where a view calls it otherwise (the label metric's ``strict_accuracy``)."""

    name: str
    value: Callable[[Scores], float | None]
    title: str
    short: str
    views: frozenset[str]
    keys: dict[str, str] = field(default_factory=dict)

    def key(self, view: str) -> str:
        """Its name in ``view``."""
        return self.keys.get(view, self.name)


ALL = frozenset(VIEWS)
# fmt: off
METRICS: dict[str, Metric] = {metric.name: metric for metric in (
    Metric("joint", lambda s: s.joint(), "JOINT", "JOINT", ALL),
    Metric("per_prompt_accuracy", lambda s: s.cell().strict_accuracy, "Per-prompt", "acc", ALL,
           keys={LABEL: "strict_accuracy"}),
    Metric("accuracy", lambda s: s.cell().accuracy, "Accuracy (parsed)", "parsed", frozenset({RECORD, LABEL, BOARD})),
    Metric("coverage", lambda s: s.cell().coverage, "Coverage", "cover", ALL),
    Metric("format_valid_rate", lambda s: s.format_valid_rate, "Format-valid", "valid",
           frozenset({RECORD, BOARD, SITE})),
    Metric("flip_rate", lambda s: s.flip_rate()[0], "Flip rate", "flips", frozenset({LABEL})),
    Metric("default_correspondence", lambda s: s.default_correspondence, "Default correspondence", "default",
           frozenset({LABEL})),
)}
# fmt: on


def shown_in(view: str) -> list[Metric]:
    """The metrics ``view`` shows, in the table's order."""
    return [metric for metric in METRICS.values() if view in metric.views]


def values(scores: Scores, view: str) -> dict[str, float | None]:
    """``{its name in view: value}`` of every metric ``view`` shows, computed from ``scores``."""
    return {metric.key(view): metric.value(scores) for metric in shown_in(view)}
