import math
import random

import pytest

from naf_bench.leaderboard.ladder import MIN_GAIN, ladder_accepts, shown_positions, wilson_interval


def _pair(ups: int, downs: int, same: int = 10):
    """A shown and a new submission on the same programs: ``ups`` newly solved, ``downs`` newly lost."""
    programs = [f"p{i}" for i in range(ups + downs + same)]
    shown = {p: i >= ups for i, p in enumerate(programs)}  # the ups are unsolved in the shown one
    new = {p: i < ups or i >= ups + downs for i, p in enumerate(programs)}  # the downs lose what shown had
    return new, shown


@pytest.mark.parametrize(
    ("ups", "downs", "accepted"),
    [(1, 0, False), (2, 0, True), (0, 0, False), (0, 2, False), (3, 1, False), (4, 1, True), (5, 3, False),
     (7, 3, True)],
)  # fmt: skip
def test_the_parameter_free_rule_in_whole_numbers(ups, downs, accepted):
    # S = ups - downs, sum(d^2) = ups + downs: replaced iff S > 0 and S^2 > ups + downs
    new, shown = _pair(ups, downs)
    assert ladder_accepts(new, shown, min_gain=1) is accepted


@pytest.mark.parametrize(
    ("ups", "downs", "accepted"),
    [(2, 0, False), (3, 0, False), (4, 0, True), (4, 1, False), (5, 1, True), (7, 3, True), (8, 5, False),
     (10, 6, False), (12, 6, True)],
)  # fmt: skip
def test_the_default_rule_also_needs_a_gain_of_four_programs(ups, downs, accepted):
    # S >= 4 and S^2 > ups + downs: two or three guessed programs added to the shown answers never move the board
    new, shown = _pair(ups, downs)
    assert MIN_GAIN == 4 and ladder_accepts(new, shown) is accepted


def test_the_rule_is_the_mean_above_its_standard_error():
    rng = random.Random(7)
    for _ in range(2000):
        n = rng.randint(2, 40)
        d = [rng.choice((-1, 0, 0, 1)) for _ in range(n)]
        shown = {f"p{i}": x < 0 for i, x in enumerate(d)}
        new = {f"p{i}": x > 0 or (x == 0 and rng.random() < 0.5) for i, x in enumerate(d)}
        for i, x in enumerate(d):
            if x == 0:
                shown[f"p{i}"] = new[f"p{i}"]
        mean = sum(d) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
        if abs(mean - sd / math.sqrt(n)) < 1e-12:
            continue  # on the boundary floating point cannot decide; the integers do (tested above)
        assert ladder_accepts(new, shown, min_gain=1) is (mean > sd / math.sqrt(n)), d


def test_first_submission_is_shown_and_single_flips_never_move_the_board():
    base = {f"p{i}": i % 2 == 0 for i in range(20)}
    flips = []
    for i in range(20):
        flipped = dict(base)
        flipped[f"p{i}"] = not flipped[f"p{i}"]
        flips.append(flipped)
    assert shown_positions([base, *flips]) == [True] + [False] * 20
    better = {p: True for p in base}
    assert shown_positions([base, better, base]) == [True, True, False]


def test_programs_must_match():
    with pytest.raises(ValueError, match="same programs"):
        ladder_accepts({"a": True}, {"b": True})


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for solved, n in [(0, 10), (5, 10), (10, 10), (13, 77), (76, 77)]:
        low, high = proportion_confint(solved, n, alpha=0.05, method="wilson")
        ours = wilson_interval(solved, n)
        assert ours == pytest.approx((low, high), abs=1e-12)
    assert wilson_interval(0, 0) is None
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.27753279986288923), abs=1e-12)


def test_shown_positions_stop_after_the_releases_it_allows():
    gains = [{f"p{i}": i < k for i in range(24)} for k in (0, 4, 8, 12, 16, 20)]
    assert shown_positions(gains) == [True, True, True, True, False, False]  # RELEASES = 4, the first included
    assert shown_positions(gains, releases=2) == [True, True, False, False, False, False]
    assert shown_positions(gains, releases=100) == [True] * 6
