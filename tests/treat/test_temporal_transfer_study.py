"""temporal_transfer_study: App. H.13-H.14 in one call, its matrices equal to coverage computed from the raw table."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core import coverage as cv, spectrum
from blindspot.core.claim_value import ClaimValue
from blindspot.core.verdict import Verdict
from blindspot.data.suites import synthetic_suite
from blindspot.treat.temporal_transfer_study import QUARTERS, temporal_transfer_study


@pytest.fixture(scope="module")
def board():
    return synthetic_suite(n_models=80, n_benchmarks=10, seed=1)


@pytest.fixture(scope="module")
def study(board):
    # the synthetic board as its own dump: its row order stands in for the dates
    return temporal_transfer_study(board, board, r=5, r_dump=4, n_random=20, seed=0)


def test_each_entry_is_the_coverage_of_one_quarters_greedy_subset_on_another(study, board):
    X = board.values
    parts = study.alpha
    assert [len(p) for p in parts] == [20, 20, 20, 20]
    M = study.rm_alpha.M
    for i, j in [(0, 1), (2, 3), (3, 0)]:
        top = cv.greedy_select(spectrum.correlation(X[parts[i]]), r=5).order
        assert M[i, j] == pytest.approx(cv.coverage(spectrum.correlation(X[parts[j]]), top), abs=1e-12)
    assert list(study.parts_table().index) == QUARTERS
    assert study.parts_table()["first model"].iloc[0] == board.scores.index[0]


def test_halves_ratio_is_transferred_over_native(study):
    h = study.halves
    assert list(h.index) == [4, 5, 6, 7]
    assert np.allclose(h["ratio"], h["transferred"] / h["native"])
    assert "At $r$ = 5" in study.halves_text


def test_row_order_dates_agree_with_the_name_order_so_the_quarters_are_chronological(study):
    assert study.time_key == "row order" and study.agree.identical_parts
    assert study.agree.tau == pytest.approx(1.0)
    records = study.claims()
    chrono = records["TT.chronological"].verdict
    assert isinstance(chrono, Verdict) and chrono.holds and records["TT.chronological"].data is study.table
    assert list(records)[:4] == ["TT.offdiag_min", "TT.offdiag_max", "TT.retention_label", "TT.chronological"]
    off = study.rm_alpha.off_diagonal()
    assert records["TT.offdiag_min"] == ClaimValue(off.min(), study.table)
    assert "100% in the same quarter" == chrono.book
    assert set(study.ranges()) == {"by name (paper)", "by row order"}


def test_late_ranking_and_dump_are_computed(study):
    assert study.late.n_random == 20 and study.late.r == 5
    assert study.rm_dump is not None and study.dump_note == ""
    assert list(study.dump_table().columns)[-1] == "greedy top r"
    assert study.figure().axes


def test_a_small_board_is_not_split_and_says_why():
    small = temporal_transfer_study(synthetic_suite(n_models=10, n_benchmarks=8, seed=2), r=5)
    assert not small.can_split and "not computed on this leaderboard" in small.split_note
    assert small.claims() == {} and small.late is None and small.halves.empty
    assert small.statuses({}) == {"label": "not computed on this leaderboard", "chrono": "not checked (no dates)"}
    assert "No dates on this leaderboard" in small.quarters_text and small.dump_table() is None


def test_bad_subset_sizes_are_refused(board):
    with pytest.raises(ValueError, match="at least 1"):
        temporal_transfer_study(board, r=0)
