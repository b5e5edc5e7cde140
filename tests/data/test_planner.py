"""naf_bench.data.planner: the estimated cost of a config's units, and processes only where they save more than
starting them takes."""

import pytest

from naf_bench.data.planner import (
    PARALLEL_MIN_SAVING,
    cost_terms,
    gate,
    min_saving_now,
    processes,
    run_units,
    saving,
    unit_seconds,
)
from naf_bench.errors import ConfigError
from naf_bench.generate.config import get_config


def test_saving_puts_each_unit_on_the_least_loaded_process():
    # largest first: 5 | 3, then 2 on the 3 (5 | 5), then 2 on either (7 | 5): one process would take 12 s, two take 7
    assert saving([2.0, 5.0, 2.0, 3.0], 2) == 5.0
    assert saving([4.0], 8) == 0.0


def test_processes_pay_only_for_each_round_of_start_ups():
    # four workers on two cores start in two rounds: 2 x 3 s asked, 5 s saved
    assert gate([5.0, 3.0, 2.0, 2.0], 8, min_saving=3.0, cores=2) == (4, 5.0, 6.0)
    assert processes([5.0, 3.0, 2.0, 2.0], 8, min_saving=3.0, cores=2) == 1
    assert processes([5.0, 3.0, 2.0, 2.0], 8, min_saving=2.0, cores=2) == 4
    assert processes([5.0, 3.0], None, min_saving=0.0, cores=2) == 1


def test_the_minimum_saving_is_read_from_the_environment(monkeypatch):
    monkeypatch.delenv("NAF_BENCH_PARALLEL_MIN_SAVING", raising=False)
    assert min_saving_now() == PARALLEL_MIN_SAVING
    monkeypatch.setenv("NAF_BENCH_PARALLEL_MIN_SAVING", "0.5")
    assert min_saving_now() == 0.5
    for text in ("-1", "nan", "soon"):
        monkeypatch.setenv("NAF_BENCH_PARALLEL_MIN_SAVING", text)
        with pytest.raises(ConfigError, match=f"NAF_BENCH_PARALLEL_MIN_SAVING='{text}': expected seconds >= 0"):
            min_saving_now()


def test_a_main_unit_costs_its_programs_times_the_fitted_weights():
    config = get_config("main")
    control = config.units()[0]  # 30 programs of 27 rules, 5 rows each, one rule order
    assert cost_terms(config, control) == (1.0, 27.0, 135.0, 0.0)
    assert unit_seconds(config, control) == pytest.approx(30 * (1.3e-3 + 8.4e-5 * 27 + 1.9e-5 * 135))


def test_units_that_do_not_pay_for_processes_run_here_with_a_warning():
    config = get_config("main")
    with pytest.warns(UserWarning, match=r"num_proc=2: 'main' is generated in one process \(2 units"):
        done = run_units(lambda c, position, tag: (c.name, position, tag), config, [1, 3], ("x",), 2, 1e9)
    assert done == {1: ("main", 1, "x"), 3: ("main", 3, "x")}
