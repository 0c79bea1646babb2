"""blindspot.treat.radius_from_coverage: Proposition 3's orthogonal term, kappa_orth and omega_within."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindspot.core import coverage as cv
from blindspot.data import synthetic
from blindspot.treat import radius_from_coverage


def test_orth_term_formula_and_errors():
    assert radius_from_coverage.orth_term(2.0, 0.75) == pytest.approx(2 * 2.0 * 0.5)
    assert radius_from_coverage.orth_term(1.0, 0.91, 0.48) == pytest.approx(2 * math.sqrt(0.09 * 0.48))
    with pytest.raises(ValueError, match="non-negative"):
        radius_from_coverage.orth_term(-1, 0.5)
    with pytest.raises(ValueError, match="coverage in"):
        radius_from_coverage.orth_term(1, 1.5)
    with pytest.raises(ValueError, match="kappa_orth"):
        radius_from_coverage.orth_term(1, 0.5, 0.0)


def test_orth_term_non_increasing_along_greedy_and_zero_at_rank(rng):
    S = synthetic.random_correlations(1, 8, rng)[0]
    g = cv.greedy_select(S)
    path = radius_from_coverage.bridge_path(S, g.order, R=3.0)
    assert np.all(np.diff(path["term_kappa1"]) <= 1e-12)
    assert path["term_kappa1"].iloc[-1] == pytest.approx(0.0, abs=1e-6)
    # the isotropic term (kappa = 1/dim) never exceeds the single-direction term (kappa = 1)
    assert (path["term_isotropic"] <= path["term_kappa1"] + 1e-12).all()


def test_kappa_in_range_and_extremes(rng):
    S = synthetic.random_correlations(1, 7, rng)[0]
    for v in radius_from_coverage.KAPPA_VARIANTS:
        for T in ([0], [1, 4], [0, 2, 3, 5]):
            ko = radius_from_coverage.kappa_orth(S, T, v)
            assert 1 / ko.dim - 1e-12 <= ko.kappa <= 1 + 1e-12
    # isotropic uncovered variance: identity -> kappa = 1/dim for every reading
    for v in radius_from_coverage.KAPPA_VARIANTS:
        assert radius_from_coverage.kappa_orth(np.eye(6), [0, 1], v).kappa == pytest.approx(1 / 4)
    # one uncovered direction: the unselected block is rank one -> kappa = 1
    B = np.eye(4)
    B[np.ix_([2, 3], [2, 3])] = 1.0
    assert radius_from_coverage.kappa_orth(B, [0, 1], "unselected_block").kappa == pytest.approx(1.0)
    with pytest.raises(ValueError, match="nothing is left uncovered"):
        radius_from_coverage.kappa_orth(np.eye(3), [0, 1, 2])
    with pytest.raises(ValueError, match="variant must be"):
        radius_from_coverage.kappa_orth(np.eye(3), [0], "other")


def test_orthonormal_covering_radius_closed_form_and_mc(rng):
    assert radius_from_coverage.orthonormal_covering_radius(2) == pytest.approx(3 * math.pi / 4)
    assert radius_from_coverage.orthonormal_covering_radius(1) == pytest.approx(math.pi)
    for r in (2, 3):
        exact = radius_from_coverage.orthonormal_covering_radius(r)
        mc = radius_from_coverage.covering_radius_mc(np.eye(r), 20000, rng)
        assert exact - 0.05 < mc <= exact + 1e-12


def test_code_variant_is_data_independent(rng):
    # rows of an orthogonal matrix are orthonormal, whatever Sigma is: the radius depends on r only
    for _ in range(3):
        S = synthetic.random_correlations(1, 8, rng)[0]
        _, _, Vt = np.linalg.svd(S)
        rows = Vt.T[[0, 3, 5]]
        np.testing.assert_allclose(rows @ rows.T, np.eye(3), atol=1e-12)
        mc = radius_from_coverage.code_within_span_radius(S, [0, 3, 5], 20000, seed=1)
        assert (
            radius_from_coverage.orthonormal_covering_radius(3) - 0.05
            < mc
            <= radius_from_coverage.orthonormal_covering_radius(3) + 1e-12
        )


def test_rogers_optimum_exceeds_half_pi_from_six():
    assert radius_from_coverage.rogers_optimum(5) < math.pi / 2 < radius_from_coverage.rogers_optimum(6)
    with pytest.raises(ValueError, match="at least 2"):
        radius_from_coverage.rogers_optimum(1)


def test_cap_support_matches_sampled_points(rng):
    k, eta = 5, 0.3
    u = np.zeros(k)
    u[0] = 1.0
    X = rng.normal(size=(200_000, k))
    X *= (rng.uniform(size=(len(X), 1)) ** (1 / k)) / np.linalg.norm(X, axis=1, keepdims=True)
    X = X[X[:, 0] >= 1 - eta]  # points of the cap
    V = rng.normal(size=(30, k))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    h = radius_from_coverage.cap_support(V, u, eta)
    sampled = (X @ V.T).max(axis=0)
    assert np.all(sampled <= h + 1e-12) and np.all(h - sampled < 0.08)
    with pytest.raises(ValueError, match="eta"):
        radius_from_coverage.cap_support(V, u, 0.0)


def test_uncovered_caps_are_invisible_yet_far_apart(rng):
    S = synthetic.random_correlations(1, 6, rng)[0]
    T = cv.greedy_select(S, r=4).order
    cp = radius_from_coverage.uncovered_caps(S, T, eta=0.05)
    assert cp.visible_gap < 1e-12 and cp.hausdorff == pytest.approx(1.95)
    assert np.abs(S[:, T].T @ cp.u).max() < 1e-9  # u is orthogonal to every selected loading
    V = rng.normal(size=(5000, 6))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    gaps = np.abs(radius_from_coverage.cap_support(V, cp.u, 0.05) - radius_from_coverage.cap_support(-V, cp.u, 0.05))
    assert gaps.max() <= cp.hausdorff + 1e-12  # the Hausdorff distance is reached at u
    assert cp.term == pytest.approx(2 * math.sqrt(1 - cp.tau)) and cp.holds == (cp.hausdorff <= cp.term)
    # the verdict flips with the coverage: one benchmark of many uncorrelated ones covers almost nothing
    low = radius_from_coverage.uncovered_caps(np.eye(100), [0])
    assert low.tau == pytest.approx(0.01) and low.holds
    with pytest.raises(ValueError, match="nothing is uncovered"):
        radius_from_coverage.uncovered_caps(S, list(range(6)))
