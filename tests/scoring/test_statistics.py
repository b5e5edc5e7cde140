"""naf_bench.scoring.statistics: z-scores, the standardized OLS recovering known coefficients, bootstrap intervals
(None when undefined), cluster resamples drawn as random.choices draws them, and the Mann-Whitney U test."""

import random

import pytest

from naf_bench.scoring.statistics import (
    bootstrap_interval,
    cluster_ci,
    cluster_resamples,
    mann_whitney,
    percentile_interval,
    standardized_ols,
    zscore,
)


def test_zscore_uses_the_population_sd():
    assert zscore([1, 2, 3]).tolist() == pytest.approx([-(1.5**0.5), 0.0, 1.5**0.5])


def test_the_ols_recovers_an_exact_linear_outcome():
    x, levels = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], ["a", "b", "a", "b", "a", "b"]
    y = [1 + 2 * z + 3 * (level == "b") for z, level in zip(zscore(x), levels, strict=True)]
    fit = standardized_ols(y, {"x": x}, levels, base_level="a")
    assert list(fit) == ["intercept", "z(x)", "bin=b"]
    assert list(fit.values()) == pytest.approx([1.0, 2.0, 3.0])
    assert standardized_ols(y[:2], {"x": x[:2]}, levels[:2], base_level="a") is None  # 2 rows, 3 coefficients


def test_bootstrap_intervals_are_none_where_undefined():
    assert bootstrap_interval([2.0, 2.0, 2.0], lambda v: sum(v) / len(v), n_bootstrap=20) == [2.0, 2.0]
    assert bootstrap_interval([], len) is None
    assert bootstrap_interval([1, 2], lambda v: None, n_bootstrap=20) is None
    # whole clusters: cluster "a" is always 0 and 1 together, so every resample's mean lies in [0.5, 1]
    low, high = bootstrap_interval(
        [("a", 0), ("a", 1), ("b", 1)], lambda v: sum(x for _, x in v) / len(v), 200, cluster_of=lambda item: item[0]
    )
    assert 0.5 <= low <= high <= 1.0


def test_cluster_resamples_are_random_choices_draws():
    expected = random.Random(7)
    draws = [row for block in cluster_resamples(5, 4, seed=7) for row in block.tolist()]
    assert draws == [expected.choices(range(5), k=5) for _ in range(4)]


def test_percentile_interval_and_cluster_ci_take_the_lower_ranks():
    assert percentile_interval(list(range(41))) == (1, 39)
    items = [("a", 1), ("a", 0), ("b", 1)]
    assert cluster_ci(items, lambda i: i[0], lambda v: sum(x for _, x in v) / len(v), n_bootstrap=50) == [0.5, 1.0]
    assert cluster_ci([], lambda i: i, len) is None


def test_mann_whitney_of_separated_samples():
    assert mann_whitney([1, 2, 3], [4, 5, 6]) == {"u": 0.0, "p_value": 0.1, "n_control": 3, "n_divergent": 3}
    assert mann_whitney([], [1]) is None
