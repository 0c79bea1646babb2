"""blindspot.prognose.indistinguishability: Theorem 2 (a)-(d) on convex bodies."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindspot.core.covering import covering_radius, random_directions
from blindspot.prognose import indistinguishability as ind


def _grid(d: int, n: int, seed: int = 0) -> np.ndarray:
    if d == 2:
        th = np.linspace(0, 2 * np.pi, n, endpoint=False)
        return np.c_[np.cos(th), np.sin(th)]
    return random_directions(n, d, np.random.default_rng(seed))


def _symmetric_body(d: int, n: int, R: float, rng: np.random.Generator) -> np.ndarray:
    X = rng.normal(size=(n, d))
    X *= (R * rng.uniform(0.2, 1.0, size=(n, 1))) / np.linalg.norm(X, axis=1, keepdims=True)
    return np.vstack([X, -X])


def test_support_and_width_of_a_cube():
    cube = np.array(np.meshgrid(*[[-1.0, 1.0]] * 3)).reshape(3, -1).T
    U = random_directions(50, 3, np.random.default_rng(0))
    assert ind.support(cube, U) == pytest.approx(np.abs(U).sum(axis=1))  # h_cube(u) = ||u||_1
    assert ind.width(cube, np.eye(3)) == pytest.approx([2.0, 2.0, 2.0])


def test_hausdorff_convex_known_cases():
    sq = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    assert ind.hausdorff_convex(sq, sq + [0.3, 0.0]) == pytest.approx(0.3, abs=1e-8)
    seg = np.array([[-1.0, 0.0], [1.0, 0.0]])
    assert ind.hausdorff_convex(seg, np.array([[0.0, 0.5]])) == pytest.approx(math.hypot(1, 0.5), abs=1e-8)


def test_hausdorff_on_directions_is_a_lower_estimate_of_the_exact_value():
    rng = np.random.default_rng(1)
    for _ in range(5):
        P, Q = rng.normal(size=(12, 3)), rng.normal(size=(9, 3))
        exact = ind.hausdorff_convex(P, Q)
        dense = ind.hausdorff_on_directions(P, Q, _grid(3, 20_000))
        assert dense <= exact + 1e-9
        assert exact - dense < 0.02


@pytest.mark.parametrize("d,m", [(2, 5), (3, 8), (3, 20), (4, 12)])
def test_theorem2a_visible_bound_holds_for_random_symmetric_bodies(d, m):
    rng = np.random.default_rng(100 * d + m)
    R = 2.5
    grid = _grid(d, 20_000, seed=m)
    for _ in range(8):
        K, L = _symmetric_body(d, 15, R, rng), _symmetric_body(d, 15, R, rng)
        U = random_directions(m, d, rng)
        eps = float(np.abs(ind.support(K, U) - ind.support(L, U)).max())
        omega = covering_radius(U).omega
        bound = ind.visible_bound(eps, R, omega).visible
        assert ind.hausdorff_on_directions(K, L, grid) <= bound + 1e-9
        assert ind.hausdorff_convex(K, L) <= bound + 1e-7


def test_visible_bound_is_vacuous_beyond_one_radian():
    assert not ind.visible_bound(0.0, 3.0, 0.99).vacuous
    b = ind.visible_bound(0.0, 3.0, 1.2)
    assert b.vacuous and b.bound == pytest.approx(6.0) and b.visible == pytest.approx(7.2)


@pytest.mark.parametrize("d,m,seed", [(2, 4, 0), (2, 7, 1), (3, 6, 2), (3, 15, 3), (4, 10, 4)])
def test_lipschitz_witness(d, m, seed):
    U = random_directions(m, d, np.random.default_rng(seed))
    R = 1.7
    w = ind.lipschitz_witness(U, R)
    assert np.abs(w.width_residuals()).max() < 1e-9  # equal widths on every benchmark direction
    assert w.t == pytest.approx(R * min(math.tan(w.omega), 1.0))
    grid = _grid(d, 40_000, seed)
    gap = np.abs(w.support_L(grid) - w.support_K(grid)).max()
    assert gap <= w.delta_H + 1e-12
    assert w.support_L(w.v0[None, :])[0] - w.support_K(w.v0[None, :])[0] == pytest.approx(w.delta_H)
    # both bodies inside B_R and origin-symmetric (support functions even)
    assert w.support_L(grid).max() <= R + 1e-12
    assert w.support_L(grid) == pytest.approx(w.support_L(-grid))


def test_witness_as_polytopes_in_the_plane():
    th = np.pi * np.arange(3) / 3  # three equispaced lines: omega = pi/6
    U = np.c_[np.cos(th), np.sin(th)]
    w = ind.lipschitz_witness(U, 1.0)
    K, L = w.points_K(), w.points_L()
    assert ind.width(K, U) == pytest.approx(ind.width(L, U), abs=1e-12)
    assert ind.hausdorff_convex(K, L) == pytest.approx(w.delta_H, abs=1e-8)
    assert w.delta_H == pytest.approx(math.tan(np.pi / 6))


def test_octahedron_witness_reaches_R():
    w = ind.lipschitz_witness(np.eye(3), 1.0)  # tan(arccos(1/sqrt 3)) = sqrt 2 > 1
    assert w.delta_H == pytest.approx(1.0)


def test_rates_and_benchmark_counts():
    assert ind.rate_bound(0.1, 2.0, 16, 3, 1.5) == pytest.approx(0.1 + 1.5 * 2.0 / 4.0)
    assert ind.smooth_bound(0.0, 1.0, 16, 3, 1.0, 1.0) == pytest.approx(16 ** (-1.0))
    # m >= (C R / (delta - eps))^(d-1)
    assert ind.min_benchmarks(0.6, 0.1, 1.0, 3, 2.0) == 16
    assert ind.min_benchmarks_planar(0.5, 0.0, 1.0) == math.ceil(2 * math.pi)
    for d in (2, 3, 4, 5):  # halving delta (eps = 0) multiplies m by 2^(d-1)
        m1, m2 = ind.min_benchmarks(0.4, 0.0, 10.0, d, 1.0), ind.min_benchmarks(0.2, 0.0, 10.0, d, 1.0)
        assert m2 / m1 == pytest.approx(ind.curse_factor(d), rel=0.05)
    assert [ind.curse_factor(d) for d in (2, 3, 4, 5)] == [2, 4, 8, 16]
    assert ind.smooth_benchmarks(100, 1.0) == pytest.approx(10.0)


def test_stated_covering_radius_and_rogers_estimates():
    # App. C's formula with C_d = sqrt(2d) and C_d = 1 at m = 12 (App. C prints 0.690 / 0.918 / 1.060), and two of
    # the paper's three "Rogers optima" for m = 12, d = 5 (the code's and H.11's 1.201, H.46's 0.803; App. C's 1.060)
    assert [round(ind.covering_radius_stated(d, 12, math.sqrt(2 * d)), 2) for d in (3, 4, 5)] == [1.58, 2.41, 3.02]
    assert [round(ind.covering_radius_stated(d, 12, 1.0), 3) for d in (3, 4, 5)] == [0.644, 0.853, 0.954]
    assert ind.rogers_estimate_sqrt_d(5, 12) == pytest.approx(1.2015, abs=1e-4)
    assert ind.rogers_estimate_d_over_m(5, 12) == pytest.approx(0.803, abs=1e-3)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: ind.min_benchmarks(0.1, 0.2, 1.0, 3, 1.0), "must exceed"),
        (lambda: ind.min_benchmarks_planar(0.1, 0.1, 1.0), "must exceed"),
        (lambda: ind.rate_bound(0.0, 1.0, 10, 1, 1.0), "d >= 2"),
        (lambda: ind.visible_bound(-0.1, 1.0, 0.5), "eps must be"),
        (lambda: ind.visible_bound(0.0, 1.0, 4.0), "at most pi"),
        (lambda: ind.smooth_bound(0.0, 1.0, 10, 3, 0.0, 1.0), "alpha"),
        (lambda: ind.lipschitz_witness(np.eye(3), 0.0), "R must be positive"),
        (lambda: ind.lipschitz_witness(np.eye(3)[:2], 1.0), "span only"),
        (lambda: ind.support(np.ones((3, 2)), np.eye(3)), "R\\^2 but directions in R\\^3"),
        (lambda: ind.support(np.array([[np.nan, 1.0]]), np.eye(2)), "NaN"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_check_visible_bound_table():
    df = ind.check_visible_bound(3, 10, R=2.0, n_pairs=6, seed=1)
    assert len(df) == 6 and (df["delta_H"] <= df["bound"] + 1e-7).all()
    assert (df["trivial"] == 4.0).all() and (df["delta_H"] <= 4.0 + 1e-9).all()


def test_clustered_directions_do_not_cover():
    rng = np.random.default_rng(0)
    for m in (8, 64, 256):
        U = ind.clustered_directions(m, 3, 0.3, rng)
        assert np.arccos(U[:, 0]).max() <= 0.3 + 1e-12
        assert covering_radius(U).omega >= np.pi / 2 - 0.3 - 1e-9
    with pytest.raises(ValueError, match="half_angle"):
        ind.clustered_directions(8, 3, 2.0, rng)


def test_cap_fraction_closed_forms():
    assert ind.cap_fraction(math.pi / 2, 3) == pytest.approx(0.5)
    assert ind.cap_fraction(math.pi, 4) == pytest.approx(1.0)
    t = 0.7  # on S^2 a cap of angle t has area 2 pi (1 - cos t), i.e. the share (1 - cos t)/2
    assert ind.cap_fraction(t, 3) == pytest.approx((1 - math.cos(t)) / 2)
    assert ind.cap_fraction(t, 2) == pytest.approx(t / math.pi)  # on the circle: an arc of 2t
    assert ind.cap_fraction(math.pi - t, 3) == pytest.approx(1 - (1 - math.cos(t)) / 2)


def test_covering_lower_bound_is_below_known_optima():
    for m in (3, 6, 12):  # in the plane the bound is exact: m lines equispaced, pi/(2m); m points, pi/m
        assert ind.covering_lower_bound(m, 2) == pytest.approx(math.pi / (2 * m))
        assert ind.covering_lower_bound(m, 2, projective=False) == pytest.approx(math.pi / m)
    phi = (1 + 5**0.5) / 2
    ico = np.array([p for a in (1, -1) for b in (1, -1) for p in ([0, a, b * phi], [a, b * phi, 0], [b * phi, 0, a])])
    assert ind.covering_lower_bound(12, 3, projective=False) <= covering_radius(ico, projective=False).omega
    assert ind.covering_lower_bound(3, 3) <= covering_radius(np.eye(3)).omega


@pytest.mark.parametrize("m, d, projective", [(12, 2, True), (12, 3, True), (8, 4, False)])
def test_covering_search_improves_and_respects_the_lower_bound(m, d, projective):
    s = ind.covering_search(m, d, projective=projective, n_iter=150, seed=1)
    assert s.omega <= s.start_omega
    assert s.omega == pytest.approx(covering_radius(s.U, projective=projective).omega)
    assert s.omega >= ind.covering_lower_bound(m, d, projective) - 1e-9
    assert ind.covering_search(m, d, projective=projective, n_iter=150, seed=1).omega == s.omega  # seeded


def test_compare_with_random_separates_clustered_from_spread_directions(rng):
    clustered = ind.clustered_directions(12, 3, 0.3, rng)
    c = ind.compare_with_random(clustered, n_random=30, seed=2)
    assert c.share_random_worse == 0.0  # a cap of half-angle 0.3 leaves omega >= pi/2 - 0.3
    phi = (1 + 5**0.5) / 2
    ico = np.array([p for a in (1, -1) for b in (1, -1) for p in ([0, a, b * phi], [a, b * phi, 0], [b * phi, 0, a])])
    spread = ind.compare_with_random(ico, n_random=30, seed=2)
    assert spread.share_random_worse == 1.0  # the icosahedron's axes cover better than any random 12
    with pytest.raises(ValueError, match="n_random"):
        ind.compare_with_random(ico, n_random=0)
