"""half_split_study: App. H.21 and G.2 on a frontier in one call, equal to the halfsplit calls it wraps."""

from __future__ import annotations

import math

import pytest

from blindspot.core import conventions, halfsplit as hs
from blindspot.data.suites import synthetic_suite
from blindspot.prognose.half_split_study import half_split_study


def test_the_study_equals_its_parts():
    board = synthetic_suite(n_models=40, n_benchmarks=6, seed=3)
    study = half_split_study(board, n_trials=40, seed=0)
    front = conventions.frontier(board)
    direct = hs.half_split(front, n_trials=40, seed=0)
    q = study.quantities()
    assert q["top1"] == direct.top1_swap_rate and q["top5_sd"] == direct.sd_top5_changes
    assert (q["n_vis"], q["n_hold"]) == (3, 3) and study.n_splits == math.comb(6, 3)
    assert study.every is not None and study.every.n_trials == math.comb(6, 3) and study.enumerate_note == ""
    assert list(study.calibration.index) == [3, 4, 5] and study.calibration_note == ""
    assert q["gap_max"] == pytest.approx(study.large_gaps().max())
    assert list(study.rates().columns) == ["40 random splits", "all 20 splits"]


def test_a_small_frontier_is_refused_in_one_line():
    with pytest.raises(ValueError, match="needs at least 5"):
        half_split_study(synthetic_suite(n_models=6, n_benchmarks=4, seed=1), n_trials=5)


def test_three_benchmarks_skip_the_sweep_which_needs_four():
    study = half_split_study(synthetic_suite(n_models=30, n_benchmarks=3, seed=2), n_trials=10)
    assert study.calibration is None and "at least 4 benchmarks" in study.calibration_note
    assert math.isnan(study.quantities()["pred_lo"]) and study.large_gaps().empty
