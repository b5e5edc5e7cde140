"""Statistics over plain numbers that the analyses share: the standardized OLS of correctness, percentile
bootstrap intervals (items or whole clusters resampled) and the Mann–Whitney U test. No reading of files
and no rendering here; undefined values are None, never 0.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence


def zscore(values):
    """``(x - mean) / (sd + 1e-9)`` with the population sd, as the authors' ``analyze_v3.py`` standardizes."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    return (x - x.mean()) / (x.std() + 1e-9)


def standardized_ols(
    outcome: Sequence[float], continuous: dict[str, Sequence[float]], levels: Sequence[str], base_level: str
) -> dict[str, float] | None:
    """Least squares (``numpy.linalg.lstsq``) of ``outcome`` on an intercept, the z-scores of each continuous
    column (named ``z(<name>)``) and a dummy per level other than ``base_level`` (the level the dummies are
    measured from; named ``bin=<level>``; the ``levels`` sequence gives each row's level). None for fewer rows
    than coefficients."""
    import numpy as np

    y = np.asarray(outcome, dtype=float)
    dummies = sorted({level for level in levels if level != base_level})
    names = ["intercept", *(f"z({name})" for name in continuous), *(f"bin={level}" for level in dummies)]
    if len(y) < len(names):
        return None
    columns = [np.ones(len(y)), *(zscore(values) for values in continuous.values())]
    columns += [np.array([float(level == d) for level in levels]) for d in dummies]
    beta, *_ = np.linalg.lstsq(np.column_stack(columns), y, rcond=None)
    return dict(zip(names, (float(b) for b in beta), strict=True))


def bootstrap_interval(
    items: Sequence,
    statistic: Callable[[list], float | None],
    n_bootstrap: int = 1000,
    seed: int = 0,
    cluster_of: Callable | None = None,
) -> list[float] | None:
    """95 % percentile interval of ``statistic`` over ``n_bootstrap`` resamples (``numpy.random.default_rng(seed)``)
    of the items with replacement, or of whole clusters when ``cluster_of`` is given; None when undefined."""
    import numpy as np

    if cluster_of is None:
        groups = [[item] for item in items]
    else:
        by_cluster = defaultdict(list)
        for item in items:
            by_cluster[cluster_of(item)].append(item)
        groups = [by_cluster[key] for key in sorted(by_cluster, key=str)]
    if not groups or n_bootstrap < 1:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_bootstrap):
        picks = rng.integers(0, len(groups), len(groups))
        value = statistic([item for k in picks for item in groups[k]])
        if value is not None and math.isfinite(value):
            values.append(value)
    if not values:
        return None
    low, high = np.percentile(values, [2.5, 97.5])
    return [float(low), float(high)]


def mann_whitney(control: Sequence[float], divergent: Sequence[float]) -> dict | None:
    """Two-sided Mann–Whitney U (``scipy.stats.mannwhitneyu``) of control against divergent values."""
    from scipy.stats import mannwhitneyu

    if not control or not divergent:
        return None
    result = mannwhitneyu(list(control), list(divergent), alternative="two-sided")
    p = float(result.pvalue)
    return {
        "u": float(result.statistic),
        "p_value": p if math.isfinite(p) else None,
        "n_control": len(control),
        "n_divergent": len(divergent),
    }


def cluster_resamples(n: int, n_bootstrap: int, seed: int = 0):
    """The cluster indexes of ``n_bootstrap`` resamples of ``n`` clusters with replacement, in blocks (arrays of
    resamples x ``n``): resample ``b`` draws what ``random.Random(seed).choices(range(n), k=n)`` draws on its
    ``b``-th call, read from the same Mersenne Twister stream by numpy (16 MB of draws at a time)."""
    import random

    import numpy as np

    generator = np.random.RandomState()
    state = random.Random(seed).getstate()[1]  # 624 words and a position: random.Random's very stream
    generator.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1]))
    block = max(1, 2**21 // n)
    for start in range(0, n_bootstrap, block):  # choices(): population[floor(random() * n)], k at a time
        yield np.floor(generator.random_sample((min(block, n_bootstrap - start), n)) * n).astype(np.intp)


def percentile_interval(values: Sequence[float]) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of ``values`` as the nearest lower ranks (no interpolation)."""
    ordered = sorted(values)
    return ordered[int(0.025 * (len(ordered) - 1))], ordered[int(0.975 * (len(ordered) - 1))]


def cluster_ci(items: Sequence, cluster_of: Callable, statistic: Callable, n_bootstrap: int = 1000, seed: int = 0):
    """95 % percentile interval of ``statistic`` over resamples of whole clusters (sorted; the draws of
    :func:`cluster_resamples`); resamples where it is None are left out, and the interval is None when all are."""
    clusters = defaultdict(list)
    for item in items:
        clusters[cluster_of(item)].append(item)
    keys = sorted(clusters)
    if not keys or n_bootstrap < 1:
        return None
    values = []
    for draws in cluster_resamples(len(keys), n_bootstrap, seed):
        for picks in draws.tolist():
            value = statistic([item for k in picks for item in clusters[keys[k]]])
            if value is not None:
                values.append(value)
    return list(percentile_interval(values)) if values else None
