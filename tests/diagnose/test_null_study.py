"""blindspot.diagnose.null_study: a leaderboard against its one-factor twin, and range restriction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core.conventions import frontier
from blindspot.core.spectrum import d_eff
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import null_model, null_study as ns


def _table(X: np.ndarray, name: str = "t") -> ScoreTable:
    models = [f"m{i}" for i in range(X.shape[0])]
    return ScoreTable(
        pd.DataFrame(X, index=models, columns=[f"b{j}" for j in range(X.shape[1])]),
        pd.DataFrame(index=models),
        name,
        "test",
    )


@pytest.fixture(scope="module")
def one_factor():
    X = null_model.one_factor_scores(200, 8, 0.8, 0.6, np.random.default_rng(0))
    board = _table(X, "planted")
    return board, ns.null_calibration(board, reps=6, n_trials=30, horn_perm=10, seed=0)


def test_a_one_factor_board_is_fitted_back_and_its_real_statistics_are_its_own(one_factor):
    board, cal = one_factor
    a, s = null_model.one_factor_fit(board)
    assert cal.feasible and cal.note == "" and (cal.loading, cal.noise) == (a, s)
    assert cal.real["d_eff full"] == pytest.approx(d_eff(board.values))
    assert cal.real["d_eff frontier"] == pytest.approx(d_eff(frontier(board).values))
    assert all(len(v) == 6 for v in cal.null.values()) and list(cal.table().index) == list(ns.STATISTICS)
    q = cal.quantities()
    assert q["board"] == "planted" and q["reps"] == 6 and q["loading"] == f"{a:.2f}"
    assert q["real_d_eff_frontier"] == f"{cal.real['d_eff frontier']:.2f}"


def test_the_verdict_follows_the_band_of_the_null(one_factor):
    _, cal = one_factor
    v = cal.verdict()
    lo, hi = cal.comparison.band("d_eff frontier")
    real = cal.real["d_eff frontier"]
    assert v.holds == (not lo <= real <= hi)
    assert f"{np.mean(cal.null['d_eff frontier']):.2f}" in v.evidence


def test_a_board_too_small_or_uncorrelated_says_why_and_computes_nothing():
    rng = np.random.default_rng(1)
    cal = ns.null_calibration(_table(rng.normal(size=(8, 4))), reps=3)
    assert not cal.feasible and "8 models" in cal.note and cal.table() is None and cal.verdict() is None
    q = cal.quantities()
    assert q["reps"] == 3 and q["loading"] == "not computed" and q["deff_verdict"] == "(not computed)"
    rr = ns.range_restriction(cal.board, cal, n_sim=100)
    assert rr.table() is None and rr.quantities()["theory_q5"] == "not computed"
    with pytest.raises(ValueError, match="does not apply"):
        rr.closed_form(0.5)


def test_range_restriction_follows_the_closed_form(one_factor):
    board, cal = one_factor
    rr = ns.range_restriction(board, cal, n_sim=20000, seed=0)
    t = rr.table()
    closed = null_model.one_factor_deff(np.asarray(t.index, float), board.n_benchmarks, cal.loading, cal.noise)
    assert t["one-factor closed form"].to_numpy() == pytest.approx(closed)
    assert np.abs(t["one-factor simulation"] - t["one-factor closed form"]).loc[:0.5].max() < 0.15
    assert rr.quantities()["theory_q9"] == f"{null_model.one_factor_deff(0.9, 8, cal.loading, cal.noise):.2f}"
