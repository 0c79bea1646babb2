"""blindspot.core.verdict: one verdict shape, and the calibrated rule that turns a test into a verdict."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from blindspot.core.verdict import (
    EXACT,
    STATISTICAL,
    Robustness,
    StatTest,
    Verdict,
    detectable_effect,
    judge,
)

Z = NormalDist().inv_cdf(0.975)


def test_detectable_effect_is_the_wald_minimum_detectable_effect():
    """(z_.975 + z_.8) se, with se read from the interval's half-width."""
    se = 0.7
    mde = detectable_effect((1.0 - Z * se, 1.0 + Z * se))
    assert mde == pytest.approx((Z + NormalDist().inv_cdf(0.8)) * se, rel=1e-12)
    assert detectable_effect((0.0, 0.0)) == 0.0
    with pytest.raises(ValueError, match="lo <= hi"):
        detectable_effect((1.0, 0.0))


def _wald(estimate: float, se: float) -> StatTest:
    return StatTest("Wald interval", estimate, (estimate - Z * se, estimate + Z * se))


def test_the_rule_has_the_level_and_the_power_it_promises():
    """Simulated: a claim '> 0' that is exactly at its boundary (theta = 0) is *supported* in about 2.5% of
    samples (the interval's one-sided error) and *failed* in about 2.5%; a quantity one detectable effect
    below the boundary fails in about 80% of samples (the power the detectable effect is defined by)."""
    rng = np.random.default_rng(0)
    se, n = 1.0, 20_000
    at_boundary = [judge(_wald(x, se), ">", 0.0) for x in rng.normal(0.0, se, n)]
    assert abs(at_boundary.count(True) / n - 0.025) < 0.005
    assert abs(at_boundary.count(False) / n - 0.025) < 0.005
    mde = detectable_effect((-Z * se, Z * se))
    below = [judge(_wald(x, se), ">", 0.0) for x in rng.normal(-mde, se, n)]
    assert abs(below.count(False) / n - 0.80) < 0.01


def test_a_failure_needs_a_test_that_could_detect_the_claimed_effect():
    t = StatTest("paired bootstrap", -0.05, (-0.20, -0.001))  # excludes any gain, but it is wide
    assert judge(t, ">", 0.0) is False  # no size stated: excluding every allowed value is enough
    assert t.detectable > 0.1
    assert judge(t, ">", 0.0, claimed_effect=0.026) is None  # could not have seen a gain of 0.026
    narrow = StatTest("paired bootstrap", -0.01, (-0.015, -0.005))
    assert judge(narrow, ">", 0.0, claimed_effect=0.026) is False


def test_the_rule_on_both_sides_and_on_a_band():
    assert judge(StatTest("t", 0.5, (0.1, 0.9)), ">", 0.0) is True
    assert judge(StatTest("t", 0.5, (0.1, 0.9)), "<", 0.0) is False
    assert judge(StatTest("t", 0.5, (-0.1, 0.9)), "<", 0.0) is None
    assert judge(StatTest("t", -0.5, (-0.9, -0.1)), "<", 0.0) is True
    assert judge(StatTest("t", 4.0, (3.5, 4.5)), "in", (3.0, 5.0)) is True
    assert judge(StatTest("t", 2.0, (1.6, 2.4)), "in", (3.0, 5.0)) is False
    assert judge(StatTest("t", 2.9, (2.6, 3.3)), "in", (3.0, 5.0)) is None
    with pytest.raises(ValueError, match="'>', '<' or 'in'"):
        judge(StatTest("t", 0.0, (0.0, 1.0)), ">=", 0.0)


def test_a_p_value_alone_supports_but_never_fails():
    assert judge(StatTest("exact McNemar", estimate=0.1, p_value=0.001), ">", 0.0) is True
    assert judge(StatTest("exact McNemar", estimate=-0.1, p_value=0.001), ">", 0.0) is None
    assert judge(StatTest("exact McNemar", estimate=0.1, p_value=0.2), ">", 0.0) is None


def test_the_shape_refuses_what_a_referee_would():
    with pytest.raises(ValueError, match="names its test"):
        Verdict(False, "8 of 15", basis=STATISTICAL)
    with pytest.raises(ValueError, match="exact verdict is decided"):
        Verdict(None, "x", basis=EXACT)
    with pytest.raises(ValueError, match="basis must be"):
        Verdict(True, "x", basis="roughly")
    with pytest.raises(ValueError, match="interval or a p-value"):
        StatTest("bootstrap", 0.1)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        StatTest("bootstrap", 0.1, p_value=1.5)
    with pytest.raises(ValueError, match="held must lie"):
        Robustness(3, 2, "seeds")
    v = Verdict(None, "straddles", basis=STATISTICAL, test=StatTest("bootstrap", 0.0, (-1.0, 1.0)))
    assert not v.resolved and Verdict(np.bool_(True), "x").holds is True


def test_words_name_the_test_its_interval_and_what_it_could_detect():
    t = StatTest("paired bootstrap over 2000 resamples", 0.129, (-0.198, 0.456), widened="")
    w = t.words()
    assert w.startswith("paired bootstrap over 2000 resamples") and "[-0.198, 0.456]" in w and "could detect" in w
    assert "(widened)" in StatTest("percentile bootstrap", 4.74, (3.02, 4.74), widened="to include the point").words()
    r = Robustness(5, 8, "k-means seeds 0-4, k = 3, k = 8, code/text", flips=("k = 3",))
    assert r.fragile and r.words() == "holds in 5 of 8 (k-means seeds 0-4, k = 3, k = 8, code/text); flips under: k = 3"
