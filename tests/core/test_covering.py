"""blindspot.core.covering: the exact angular covering radius (Theorem 2)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import SphericalVoronoi

from blindspot.core import covering as cv


def _icosahedron() -> np.ndarray:
    phi = (1 + 5**0.5) / 2
    pts = []
    for a in (1, -1):
        for b in (1, -1):
            pts += [[0, a, b * phi], [a, b * phi, 0], [b * phi, 0, a]]
    return np.array(pts, float)


def _min_angle(v: np.ndarray, U: np.ndarray, projective: bool) -> float:
    c = U @ (v / np.linalg.norm(v))
    if projective:
        c = np.abs(c)
    return float(np.arccos(np.clip(c.max(), -1, 1)))


# --- closed forms ---------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 3, 4, 6])
def test_coordinate_axes(d):
    U = np.eye(d)
    assert cv.covering_radius(U).omega == pytest.approx(np.arccos(1 / np.sqrt(d)), abs=1e-12)
    assert cv.covering_radius(U, projective=False).omega == pytest.approx(np.pi - np.arccos(1 / np.sqrt(d)), abs=1e-9)
    # +-axes given explicitly: the signed radius of the cross-polytope equals the projective one
    both = np.vstack([U, -U])
    assert cv.covering_radius(both, projective=False).omega == pytest.approx(np.arccos(1 / np.sqrt(d)), abs=1e-12)


def test_octahedron_and_icosahedron():
    assert cv.covering_radius(np.eye(3)).omega == pytest.approx(0.95532, abs=1e-5)
    ico = _icosahedron()
    # the icosahedron's deepest hole is a face centre: angle to the vertices = 0.65236 rad
    assert cv.covering_radius(ico).omega == pytest.approx(0.65236, abs=1e-5)
    assert cv.covering_radius(ico, projective=False).omega == pytest.approx(0.65236, abs=1e-5)


@pytest.mark.parametrize("m", [3, 4, 5, 8, 13])
def test_regular_configurations_on_the_circle(m):
    th = 2 * np.pi * np.arange(m) / m  # m equispaced points (signed): omega+ = pi/m
    assert cv.covering_radius(np.c_[np.cos(th), np.sin(th)], projective=False).omega == pytest.approx(np.pi / m)
    lines = np.pi * np.arange(m) / m  # m equispaced lines (projective): omega = pi/(2m)
    assert cv.covering_radius(np.c_[np.cos(lines), np.sin(lines)]).omega == pytest.approx(np.pi / (2 * m))


# --- independent methods ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_spherical_voronoi_on_s2(seed):
    rng = np.random.default_rng(seed)
    U = cv.random_directions(9, 3, rng)
    for projective in (True, False):
        P = np.vstack([U, -U]) if projective else U
        if not projective and np.linalg.norm(cv.min_norm_point(P)[0]) > 1e-6:
            continue  # signed and all in a hemisphere: Voronoi vertices miss the hole, tested below
        sv = SphericalVoronoi(P)
        # the covering radius is attained at a Voronoi vertex: its distance to the nearest generator
        best = max(_min_angle(v, U, projective) for v in sv.vertices)
        assert cv.covering_radius(U, projective=projective).omega == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("d", [3, 4, 5])
def test_sampling_is_a_lower_estimate_that_approaches_the_exact_value(d):
    rng = np.random.default_rng(d)
    U = cv.random_directions(3 * d, d, rng)
    for projective in (True, False):
        ex = cv.covering_radius(U, projective=projective)
        mc = cv.covering_radius(U, projective=projective, method="mc", n_samples=200_000, seed=1)
        assert mc.omega <= ex.omega + 1e-12
        assert ex.omega - mc.omega < {3: 0.01, 4: 0.03, 5: 0.06}[d]


def test_direction_attains_the_radius():
    rng = np.random.default_rng(3)
    for d in (3, 5):
        U = cv.random_directions(12, d, rng)
        for projective in (True, False):
            res = cv.covering_radius(U, projective=projective)
            assert _min_angle(res.direction, U, projective) == pytest.approx(res.omega, abs=1e-9)


def test_signed_hemisphere_case_uses_min_norm_point():
    # all directions near the north pole: 0 is outside conv(U); the deepest hole is the south pole
    rng = np.random.default_rng(0)
    U = np.c_[0.3 * rng.normal(size=(10, 2)), np.ones(10)]
    res = cv.covering_radius(U, projective=False)
    assert res.method == "min-norm"
    Uu = U / np.linalg.norm(U, axis=1, keepdims=True)
    assert res.omega > np.pi / 2
    assert _min_angle(res.direction, Uu, False) == pytest.approx(res.omega, abs=1e-7)
    mc = cv.covering_radius(U, projective=False, method="mc", n_samples=100_000)
    assert mc.omega <= res.omega + 1e-12 and res.omega - mc.omega < 0.01


def test_invariant_to_rotation_permutation_and_signs():
    rng = np.random.default_rng(7)
    U = cv.random_directions(10, 4, rng)
    Q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    base = cv.covering_radius(U).omega
    assert cv.covering_radius(U @ Q.T).omega == pytest.approx(base, abs=1e-10)
    assert cv.covering_radius(U[rng.permutation(10)]).omega == pytest.approx(base, abs=1e-10)
    flips = np.where(rng.random(10) < 0.5, -1.0, 1.0)[:, None]
    assert cv.covering_radius(flips * U).omega == pytest.approx(base, abs=1e-10)  # lines: signs irrelevant
    assert cv.covering_radius(3.7 * U).omega == pytest.approx(base, abs=1e-12)  # lengths irrelevant


def test_projective_at_most_pi_over_2_and_at_most_signed():
    rng = np.random.default_rng(11)
    for _ in range(10):
        U = cv.random_directions(int(rng.integers(3, 15)), 3, rng)
        p, s = cv.covering_radius(U).omega, cv.covering_radius(U, projective=False).omega
        assert p <= np.pi / 2 + 1e-12
        assert p <= s + 1e-12


def test_min_norm_point_known_cases():
    p, w = cv.min_norm_point(np.array([[1.0, 1.0], [1.0, -1.0]]))
    assert p == pytest.approx([1.0, 0.0], abs=1e-9) and w.sum() == pytest.approx(1.0)
    p, _ = cv.min_norm_point(np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]]))  # triangle around 0
    assert np.linalg.norm(p) < 1e-8
    rng = np.random.default_rng(0)
    P = rng.normal(size=(8, 3)) + np.array([3.0, 0, 0])
    p, w = cv.min_norm_point(P)
    # optimality: <p, x - p> >= 0 for every point x (p is the projection of 0 onto conv P)
    assert ((P - p) @ p >= -1e-8).all()
    assert P.T @ w == pytest.approx(p)


def test_covering_rate_decreases_with_m():
    rate = cv.covering_rate(3, [8, 16, 32, 64], n_trials=6, seed=0)
    assert np.all(np.diff(rate.mean_omega) < 0)
    assert rate.slope < 0 and rate.slope_lo <= rate.slope <= rate.slope_hi
    assert rate.theory == pytest.approx(-0.5)


# --- bad input -------------------------------------------------------------------------------------


def test_non_spanning_directions_raise_or_give_pi_over_2():
    U = np.array([[1.0, 0, 0], [0, 1.0, 0], [1.0, 1.0, 0]])
    with pytest.raises(ValueError, match="span only a 2-dimensional subspace.*pi/2 by definition"):
        cv.covering_radius(U)
    with pytest.raises(ValueError, match="span only"):
        cv.covering_radius(U, method="mc")
    res = cv.covering_radius(U, rank_deficient="value")
    assert res.omega == pytest.approx(np.pi / 2) and res.method == "rank-deficient"
    assert _min_angle(res.direction, U / np.linalg.norm(U, axis=1, keepdims=True), True) == pytest.approx(np.pi / 2)
    with pytest.raises(ValueError, match="span only"):
        cv.covering_radius(np.eye(3)[:2])  # fewer directions than dimensions


@pytest.mark.parametrize(
    "U,match",
    [
        (np.array([1.0, 0.0]), "2-D array"),
        (np.array([[1.0], [2.0]]), "d >= 2"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN"),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), "zero vector"),
        (np.empty((0, 3)), "empty"),
    ],
)
def test_bad_directions(U, match):
    with pytest.raises(ValueError, match=match):
        cv.covering_radius(U)


def test_bad_options():
    with pytest.raises(ValueError, match="method must be"):
        cv.covering_radius(np.eye(3), method="grid")
    with pytest.raises(ValueError, match="n_samples"):
        cv.covering_radius_mc(np.eye(3), n_samples=0)
    with pytest.raises(ValueError, match="at least d"):
        cv.covering_rate(5, [4, 8], n_trials=2)
    with pytest.raises(ValueError, match="two different"):
        cv.covering_rate(3, [8, 8], n_trials=2)


def test_paper_protocol_reproduces_h7_slopes():
    """H.7: the paper's signed 2000-query Monte Carlo protocol gives slopes -0.41 / -0.26 / -0.19."""
    slopes = [cv.covering_rate_paper(d)[1] for d in (3, 5, 8)]
    assert [round(s, 2) for s in slopes] == [-0.41, -0.26, -0.19]
