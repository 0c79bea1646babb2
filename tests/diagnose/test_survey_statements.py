"""The paper's general statements judged across leaderboards (blindspot.diagnose.survey_statements)."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.diagnose.survey_statements import (
    deff_growth,
    deff_in_band,
    frontier_exceeds_population,
    growth_words,
)


def test_band_counts_and_names_the_exceptions():
    v = deff_in_band({"a": 3.0, "b": 4.2, "c": 5.0, "d": 2.5, "e": 6.1, "f": None, "g": float("nan")})
    assert not v.holds
    assert set(v.inside) == {"a", "b", "c"} and v.below == {"d": 2.5} and v.above == {"e": 6.1}
    assert v.missing == ["f", "g"] and v.n == 5
    assert v.evidence == (
        "3 of 5 leaderboards have d_eff in [3, 5]; below 3: d (2.50); above 5: e (6.10); not computed on f, g"
    )


def test_band_holds_only_when_every_value_is_inside():
    assert deff_in_band({"a": 3.5, "b": 4.9}).holds
    assert not deff_in_band({"a": None}).holds  # nothing to judge on
    with pytest.raises(ValueError, match="lo <= hi"):
        deff_in_band({"a": 3.0}, lo=5, hi=3)
    with pytest.raises(ValueError, match="not a finite number"):
        deff_in_band({"a": float("inf")})


@pytest.mark.parametrize("b", [0.0, 0.3, 0.5])
def test_growth_recovers_an_exact_power_law(b):
    """d_eff = 1.2 k^b exactly: the fitted slope is b, with a zero-width interval, and b < 1 holds."""
    ks = {f"s{i}": k for i, k in enumerate([3, 6, 7, 12, 27, 49])}
    d = {n: 1.2 * k**b if 1.2 * k**b <= k else float(k) for n, k in ks.items()}
    v = deff_growth(ks, d)
    assert v.slope == pytest.approx(b, abs=1e-9)
    assert v.slope_hi == pytest.approx(b, abs=1e-6) and v.holds
    assert v.n == 6 and v.n_k == 6


def test_growth_fails_when_d_eff_is_k():
    ks = {"a": 3, "b": 6, "c": 12, "d": 30}
    v = deff_growth(ks, {n: float(k) for n, k in ks.items()})
    assert v.slope == pytest.approx(1.0) and not v.holds
    assert v.ratio_smallest_k == pytest.approx(1.0) and v.ratio_largest_k == pytest.approx(1.0)


def test_growth_interval_is_the_t_interval_of_the_slope():
    """Against an independent least-squares fit with numpy: the slope and its t-interval."""
    from scipy import stats

    rng = np.random.default_rng(0)
    k = np.array([3, 5, 6, 6, 9, 12, 16, 27, 49], dtype=float)
    d = np.minimum(k, 1.5 * k**0.4 * np.exp(rng.normal(0, 0.15, k.size)))
    names = [f"x{i}" for i in range(k.size)]
    v = deff_growth(dict(zip(names, k)), dict(zip(names, d)))
    X = np.column_stack([np.ones_like(k), np.log(k)])
    coef, res, *_ = np.linalg.lstsq(X, np.log(d), rcond=None)
    s2 = res[0] / (k.size - 2)
    se = np.sqrt(s2 * np.linalg.inv(X.T @ X)[1, 1])
    t = stats.t.ppf(0.975, k.size - 2)
    assert v.slope == pytest.approx(coef[1]) and v.intercept == pytest.approx(coef[0])
    assert (v.slope_lo, v.slope_hi) == pytest.approx((coef[1] - t * se, coef[1] + t * se))


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
    assert v.missing == ["d"] and "not computed on d" in v.evidence


def test_growth_in_words_and_a_dash_where_not_fitted():
    ks = {"a": 3, "b": 6, "c": 12, "d": 30}
    v = deff_growth(ks, {n: float(k) ** 0.5 for n, k in ks.items()})  # d_eff = k^0.5 exactly
    w = growth_words(v)
    assert w["growth_slope"] == "0.5" and w["tenfold"] == "3.16" and w["growth_evidence"] == v.evidence
    assert w["growth_interval"] == "0.5 to 0.5"
    none = growth_words(None, "fewer than three leaderboards")
    assert none["growth_evidence"] == "not fitted: fewer than three leaderboards"
    assert none["growth_slope"].startswith("—") and none["growth_interval"] == "—" and none["tenfold"].startswith("—")


def test_frontier_statement():
    v = frontier_exceeds_population({"a": 2.0, "b": 1.8, "c": 3.0, "d": None}, {"a": 2.9, "b": 1.7, "c": 3.0, "d": 4.0})
    assert not v.holds
    assert v.exceeds == pytest.approx({"a": 0.9}) and set(v.does_not) == {"b", "c"} and v.missing == ["d"]
    assert v.evidence.startswith("the frontier's d_eff is above the population's on 1 of 3 leaderboards; not on b")
    assert frontier_exceeds_population({"a": 2.0}, {"a": 2.1}).holds
    assert not frontier_exceeds_population({"a": None}, {"a": 2.1}).holds
