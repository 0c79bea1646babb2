"""The paper's general statements judged across leaderboards by the calibrated rule (blindspot.diagnose.survey_statements)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from blindspot.core.verdict import STATISTICAL
from blindspot.diagnose.survey_statements import (
    ABOVE,
    BELOW,
    CANNOT_REACH,
    DOES_NOT,
    EXCEEDS,
    INSIDE,
    UNRESOLVED,
    Estimate,
    band_status,
    deff_growth,
    deff_in_band,
    frontier_exceeds_population,
    gap_status,
)


def E(v, lo, hi, widened=""):
    return Estimate(v, lo, hi, widened)


@pytest.mark.parametrize(
    ("est", "k", "status"),
    [
        (E(4.0, 3.5, 4.5), 12, INSIDE),
        (E(3.0, 3.0, 5.0), 12, INSIDE),  # the band is inclusive
        (E(2.5, 2.4, 2.6), 12, BELOW),
        (E(6.0, 5.5, 6.5), 12, ABOVE),
        (E(3.1, 2.8, 3.4), 12, UNRESOLVED),  # straddles 3
        (E(4.9, 4.6, 5.2), 12, UNRESOLVED),  # straddles 5
        (E(1.4, 1.2, 1.6), 3, CANNOT_REACH),  # d_eff <= k = 3
        (E(2.9, 2.8, 2.95), 2, CANNOT_REACH),
    ],
)
def test_band_status_per_leaderboard(est, k, status):
    assert band_status(est, k) == status


def test_gap_status_an_interval_that_includes_zero_is_not_a_miss():
    assert gap_status(E(0.5, 0.1, 0.9)) == EXCEEDS
    assert gap_status(E(-0.21, -0.34, 0.006)) == UNRESOLVED
    assert gap_status(E(-0.21, -0.34, -0.05)) == DOES_NOT


def test_band_holds_fails_or_is_not_resolved_by_the_rule():
    k = dict.fromkeys("abcd", 12)
    inside = {"a": E(4, 3.5, 4.5), "b": E(3.5, 3.2, 3.9), "c": E(4.6, 4.1, 4.9)}
    v = deff_in_band(inside, k)
    assert v.holds is True and v.verdict.basis == STATISTICAL
    # the deciding test is the leaderboard nearest the band's edge: c (0.1 from 5)
    assert "deciding leaderboard c" in v.verdict.test.name and v.verdict.test.interval == (4.1, 4.9)
    v = deff_in_band({**inside, "d": E(3.1, 2.8, 3.4)}, k)
    assert v.holds is None and "deciding leaderboard d" in v.verdict.test.name
    v = deff_in_band({**inside, "d": E(2.5, 2.4, 2.6)}, k)
    assert v.holds is False and v.counts() == {INSIDE: 3, BELOW: 1}
    assert "3 inside, 1 below, 0 above, 0 not resolved (straddle an end), of 4" in v.evidence
    assert "below: d 2.50 [2.40, 2.60]" in v.evidence


def test_band_leaves_out_and_names_a_leaderboard_that_cannot_reach_three():
    v = deff_in_band({"a": E(4, 3.5, 4.5), "lcb": E(1.35, 1.1, 1.6), "gone": None}, {"a": 12, "lcb": 3, "gone": 6})
    assert v.holds is True
    assert v.per_board.loc["lcb", "status"] == CANNOT_REACH and v.per_board.loc["gone", "status"] == "not computed"
    assert "too few benchmarks to reach 3 (d_eff <= k): lcb (k = 3, d_eff 1.35)" in v.evidence
    assert v.evidence.endswith("not computed on gone")


def test_leave_one_out_counts_and_names_the_flip():
    k = dict.fromkeys("abcd", 12)
    d = {"a": E(4, 3.5, 4.5), "b": E(3.5, 3.2, 3.9), "c": E(4.6, 4.1, 4.9), "d": E(2.5, 2.4, 2.6)}
    v = deff_in_band(d, k)
    rob = v.verdict.robustness
    assert v.holds is False and v.leave_one_out == {"a": False, "b": False, "c": False, "d": True}
    assert (rob.held, rob.total) == (1, 5) and rob.flips == ("without d (holds)",)


def test_statements_are_judged_without_the_flagged_rows():
    k = dict.fromkeys("abc", 12)
    d = {"a": E(4, 3.5, 4.5), "b": E(3.5, 3.2, 3.9), "filled": E(2.5, 2.4, 2.6)}
    v = deff_in_band(d, {**k, "filled": 40}, flagged=["filled"])
    assert v.holds is False and v.without_flagged is True and v.flagged == ("filled",)
    assert "without the rows flagged for their fill (filled) it holds (different)" in v.evidence
    assert v.verdict.robustness.total == 1 + 3 + 1


def test_frontier_statement_by_the_rule():
    gaps = {"a": E(0.9, 0.5, 1.3), "b": E(0.2, 0.05, 0.4), "c": None}
    v = frontier_exceeds_population(gaps)
    assert v.holds is True and "deciding leaderboard b" in v.verdict.test.name
    v = frontier_exceeds_population({**gaps, "lcb": E(-0.21, -0.34, 0.006)})
    assert v.holds is None  # an interval that includes 0: not resolved, not a miss
    assert "not resolved: lcb -0.21 [-0.34, 0.01]" in v.evidence and v.evidence.count("not computed on c") == 1
    v = frontier_exceeds_population({**gaps, "lcb": E(-0.21, -0.34, -0.05)})
    assert v.holds is False and v.verdict.robustness.flips == ("without lcb (holds)",)
    with pytest.raises(ValueError, match="no leaderboard"):
        frontier_exceeds_population({"a": None})


@pytest.mark.parametrize("b", [0.0, 0.3, 0.5])
def test_growth_recovers_an_exact_power_law(b):
    """d_eff = 1.2 k^b exactly: the fitted slope is b, with a zero-width interval below 1: it holds."""
    ks = {f"s{i}": k for i, k in enumerate([3, 6, 7, 12, 27, 49])}
    d = {n: min(1.2 * k**b, float(k)) for n, k in ks.items()}
    v = deff_growth(ks, d)
    assert v.verdict.test.estimate == pytest.approx(b, abs=1e-9)
    assert v.verdict.test.interval[1] == pytest.approx(b, abs=1e-6) and v.holds is True
    assert v.verdict.book == pytest.approx(b, abs=1e-9)


def test_growth_fails_when_d_eff_is_k():
    ks = {"a": 3, "b": 6, "c": 12, "d": 30}
    v = deff_growth(ks, {n: float(k) for n, k in ks.items()})
    assert v.verdict.test.estimate == pytest.approx(1.0) and v.holds is False


def test_growth_interval_is_the_t_interval_of_the_slope():
    """Against an independent least-squares fit with numpy: the slope and its t-interval."""
    rng = np.random.default_rng(0)
    k = np.array([3, 5, 6, 6, 9, 12, 16, 27, 49], dtype=float)
    d = np.minimum(k, 1.5 * k**0.4 * np.exp(rng.normal(0, 0.15, k.size)))
    names = [f"x{i}" for i in range(k.size)]
    v = deff_growth(dict(zip(names, k)), dict(zip(names, d)))
    X = np.column_stack([np.ones_like(k), np.log(k)])
    coef, res, *_ = np.linalg.lstsq(X, np.log(d), rcond=None)
    se = np.sqrt(res[0] / (k.size - 2) * np.linalg.inv(X.T @ X)[1, 1])
    t = stats.t.ppf(0.975, k.size - 2)
    assert v.verdict.test.estimate == pytest.approx(coef[1])
    assert v.verdict.test.interval == pytest.approx((coef[1] - t * se, coef[1] + t * se))
    # leave-one-out slopes are those of the fits without each leaderboard
    keep = np.arange(k.size) != 4
    b4 = stats.linregress(np.log(k[keep]), np.log(d[keep])).slope
    assert v.per_board.loc["x4", "loo_slope"] == pytest.approx(b4)


def test_growth_not_resolved_when_the_interval_straddles_one():
    k = {"a": 3, "b": 6, "c": 12}
    v = deff_growth(k, {"a": 1.0, "b": 6.0, "c": 4.0})  # a noisy slope with a wide interval
    lo, hi = v.verdict.test.interval
    assert lo < 1 < hi and v.holds is None


def test_growth_refuses_what_it_cannot_fit():
    with pytest.raises(ValueError, match="at least 3 leaderboards"):
        deff_growth({"a": 3, "b": 6}, {"a": 2.0, "b": 3.0})
    with pytest.raises(ValueError, match="at least 2 different"):
        deff_growth({"a": 6, "b": 6, "c": 6}, {"a": 2.0, "b": 3.0, "c": 2.5})
    with pytest.raises(ValueError, match=r"\[1, k\]"):
        deff_growth({"a": 3, "b": 6, "c": 9}, {"a": 4.0, "b": 3.0, "c": 2.5})
    with pytest.raises(ValueError, match="no number of benchmarks"):
        deff_growth({"a": 3}, {"a": 2.0, "b": 3.0, "c": 2.5})
    v = deff_growth({"a": 3, "b": 6, "c": 9, "d": 4}, {"a": 2.0, "b": 3.0, "c": 2.5, "d": None})
    assert "not computed on d" in v.evidence


def test_an_estimate_refuses_what_is_not_an_interval():
    with pytest.raises(ValueError, match="lo <= hi"):
        Estimate(1.0, 2.0, 1.5)
    with pytest.raises(ValueError, match="finite"):
        Estimate(float("nan"), 1.0, 2.0)
    assert E(4.74, 3.02, 4.74, "widened").test("t").widened == "widened"
