"""Tests of blindspot.tomography.reconstruction: recovery from m widths, rates, witness, Theorem 3's side claims."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.convex_bodies import (
    Ball,
    Box,
    Disc,
    Ellipse,
    Ellipsoid,
    TrigBody,
    arc_oval,
    hausdorff_distance,
    power_body,
    random_symmetric_polygon,
    reuleaux_triangle,
    square,
    unit_vectors,
)
from blindspot.tomography.reconstruction import (
    disc_witness,
    equally_spaced_angles,
    error_curve,
    error_curve_3d,
    fibonacci_sphere,
    fit_rate,
    halfplane_bound_curvature,
    halfplane_bound_lipschitz,
    halfplane_reconstruction,
    halfspace_reconstruction_3d,
    homogeneity_check,
    lipschitz_bound_paper,
    measure_widths,
    minimax_lower_bound,
    paper_rate,
    radius_of_curvature,
    recovery_error,
    recovery_error_3d,
    theoretical_exponent,
    trig_reconstruction,
    width_picture,
    xray,
    xray_parity_example,
)

FIT_MS = [33, 49, 65, 97, 129, 193, 257, 385, 513]


# ---------------------------------------------------------------- bad input


def test_rejects_too_few_widths():
    for m in (0, 1, 2):
        with pytest.raises(ValueError, match="at least m = 3"):
            equally_spaced_angles(m)
    with pytest.raises(ValueError, match="at least m = 3"):
        halfplane_reconstruction([0.0, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="at least m = 3"):
        trig_reconstruction([1.0, 1.0])
    with pytest.raises(ValueError, match="integer"):
        equally_spaced_angles(4.5)


def test_rejects_non_unit_directions():
    u = unit_vectors(equally_spaced_angles(4))
    u[2] *= 1.5
    with pytest.raises(ValueError, match="unit vectors: row 2 has norm 1.5"):
        halfplane_reconstruction(u, np.ones(4))
    with pytest.raises(ValueError, match="unit vectors"):
        halfspace_reconstruction_3d(fibonacci_sphere(10) * 2, np.ones(10))


def test_rejects_bad_widths_and_degenerate_directions():
    with pytest.raises(ValueError, match="one width per direction"):
        halfplane_reconstruction(equally_spaced_angles(5), np.ones(4))
    with pytest.raises(ValueError, match="positive"):
        halfplane_reconstruction(equally_spaced_angles(5), -np.ones(5))
    with pytest.raises(ValueError, match="parallel"):
        halfplane_reconstruction(np.array([0.0, np.pi, 2 * np.pi]), np.ones(3))
    planar = np.column_stack([unit_vectors(equally_spaced_angles(6)), np.zeros(6)])
    with pytest.raises(ValueError, match="lie in a plane"):
        halfspace_reconstruction_3d(planar, np.ones(6))


def test_rejects_non_symmetric_body_and_bad_method():
    with pytest.raises(ValueError, match="central symmetral"):
        recovery_error(reuleaux_triangle(1.0), 9)
    with pytest.raises(ValueError, match="method"):
        recovery_error(Disc(1.0), 9, method="spline")


def test_non_convex_support_function_is_reported():
    """A 'support function' with h + h'' < 0 fails with a message that says so (issue item 6)."""
    with pytest.raises(ValueError, match="not convex"):
        TrigBody(1.0, cos_coeffs=(0.0, 0.4))  # ρ = 1 - 1.2 cos 2θ
    with pytest.raises(ValueError, match="not convex"):
        disc_witness(1.0, 5, fraction=1.5)


# ---------------------------------------------------------------- half-plane reconstruction


@pytest.mark.parametrize("m", [3, 4, 7, 16, 33])
def test_halfplane_disc_closed_form(m):
    """Slabs of a disc: the circumscribed regular 2m-gon; δ_H = r(sec(π/(2m)) - 1)."""
    r = 1.7
    rec = halfplane_reconstruction(equally_spaced_angles(m, 0.1), np.full(m, 2 * r))
    assert len(rec.vertices) == 2 * m
    np.testing.assert_allclose(np.linalg.norm(rec.vertices, axis=1), r / np.cos(np.pi / (2 * m)), rtol=1e-12)
    exact = r * (1 / np.cos(np.pi / (2 * m)) - 1)
    n = 10_000  # grid points per half-turn: the grid misses the peak by at most |v|(π/(2n))²/2
    miss = r / np.cos(np.pi / (2 * m)) * (np.pi / (2 * n)) ** 2 / 2
    assert exact - miss - 1e-15 <= recovery_error(Disc(r), m, n_rot=3, n_grid=n) <= exact + 1e-15


def test_halfplane_matches_consecutive_line_intersections():
    """Independent construction: vertex j = intersection of the support lines at θ_j and θ_{j+1}."""
    body = arc_oval()
    m = 11
    theta = equally_spaced_angles(m, 0.05)
    w = measure_widths(body, theta)
    rec = halfplane_reconstruction(theta, w)
    t = np.concatenate([theta, theta + np.pi])
    h = np.concatenate([w, w]) / 2
    t1, h1 = np.roll(t, -1), np.roll(h, -1)
    det = np.sin(t1 - t)
    verts = np.column_stack([(h * np.sin(t1) - h1 * np.sin(t)) / det, (h1 * np.cos(t) - h * np.cos(t1)) / det])
    grid = np.linspace(0, 2 * np.pi, 5001)
    np.testing.assert_allclose(rec.support(grid), np.max(unit_vectors(grid) @ verts.T, axis=1), atol=1e-12)
    # unit-vector input gives the same polygon as angle input
    rec2 = halfplane_reconstruction(unit_vectors(theta), w)
    np.testing.assert_allclose(rec2.support(grid), rec.support(grid), atol=1e-12)


def test_halfplane_contains_body_and_handles_noise(rng):
    body = Ellipse(1.0, 0.5, 0.3)
    theta = equally_spaced_angles(13, 0.02)
    w = measure_widths(body, theta)
    grid = np.linspace(0, 2 * np.pi, 3001)
    assert np.all(halfplane_reconstruction(theta, w).support(grid) >= body.support(grid) - 1e-12)
    noisy = w * (1 + 0.05 * rng.standard_normal(w.size))
    rec = halfplane_reconstruction(theta, noisy)  # inconsistent data: still a polygon inside every slab
    proj = np.abs(rec.vertices @ unit_vectors(theta).T)
    assert np.all(proj <= noisy / 2 + 1e-9)


def test_square_aligned_with_grid_is_recovered_exactly():
    """If the edge normals are among the directions, the slabs reproduce the square (concurrent lines)."""
    assert recovery_error(square(1.0), 8, "halfplane") < 1e-12


def test_upper_bounds_hold():
    """δ_H(P, K) <= R tan(π/2m) <= πR/m (Lipschitz) and <= (π/m) tan(π/2m)/(2κ) (curvature >= κ)."""
    ms = [5, 8, 13, 32]
    for body in (square(1.0, 0.3), random_symmetric_polygon(6, np.random.default_rng(1))):
        r = body.circumradius()
        for m in ms:
            err = recovery_error(body, m, n_rot=6)
            assert err <= halfplane_bound_lipschitz(r, m) + 1e-9 <= lipschitz_bound_paper(r, m)
    for body in (arc_oval(), Ellipse(1.0, 0.6, 0.2), Disc(0.8)):
        for m in ms:
            assert recovery_error(body, m, n_rot=6) <= halfplane_bound_curvature(body.kappa, m) + 1e-12


# ---------------------------------------------------------------- trigonometric reconstruction


@pytest.mark.parametrize("m", [5, 6, 9, 10])
def test_trig_interpolates_and_is_exact_for_trig_bodies(m):
    theta = equally_spaced_angles(m, 0.37)
    body = TrigBody(1.0, cos_coeffs=(0.0, 0.04, 0.0, 0.01), sin_coeffs=(0.0, -0.03))  # even harmonics <= 4
    w = measure_widths(body, theta)
    rec = trig_reconstruction(w, 0.37)
    np.testing.assert_allclose(rec.support(theta), w / 2, atol=1e-13)
    grid = np.linspace(0, np.pi, 997)
    np.testing.assert_allclose(rec.support(grid), body.support(grid), atol=1e-13)  # degree 4 in θ, 2 in φ < m/2


def test_trig_even_m_nyquist_term():
    """For even m the interpolant keeps cos(mθ) (the split Nyquist term) and aliases sin(mθ) to 0."""
    m = 8
    a0, c = 1.0, 0.004
    cos = np.zeros(m)
    cos[-1] = c  # c·cos(8θ): ρ = 1 - 63c > 0
    body = TrigBody(a0, cos_coeffs=tuple(cos))
    theta = equally_spaced_angles(m)
    rec = trig_reconstruction(measure_widths(body, theta))
    grid = np.linspace(0, np.pi, 501)
    np.testing.assert_allclose(rec.support(grid), body.support(grid), atol=1e-13)
    assert recovery_error(body, m, "trig") < 1e-12


def test_trig_fft_path_agrees_with_direct_evaluation():
    """recovery_error uses a zero-padded FFT; TrigReconstruction.support sums the series directly."""
    body = arc_oval()
    for m in (7, 12):
        theta = equally_spaced_angles(m)
        rec = trig_reconstruction(measure_widths(body, theta))
        grid = np.pi * np.arange(20 * m) / (20 * m)
        direct = float(np.max(np.abs(rec.support(grid) - body.support(grid))))
        assert recovery_error(body, m, "trig", n_grid=20 * m) == pytest.approx(direct, rel=1e-10)


def test_ellipse_trig_error_decays_faster_than_any_power():
    """Analytic support function: geometric decay, so Θ(m^-2) is a worst case over the class only."""
    e = Ellipse(1.0, 0.6)
    e5, e9, e17 = (recovery_error(e, m, "trig") for m in (5, 9, 17))
    assert e9 < e5 and e17 < e9
    assert np.log(e17 / e9) / np.log(17 / 9) < -8  # local log-log slope far below -2


# ---------------------------------------------------------------- rates (tolerance ±0.05)


def test_polygon_rates_are_minus_one():
    for body in (square(1.0, 0.3), random_symmetric_polygon(5, np.random.default_rng(0))):
        for method in ("halfplane", "trig"):
            c = error_curve(body, FIT_MS, method, n_rot=4)
            assert fit_rate(c.ms, c.errors).slope == pytest.approx(-1.0, abs=0.05)


def test_curvature_bounded_rates_are_minus_two():
    for method in ("halfplane", "trig"):
        c = error_curve(arc_oval(), FIT_MS, method, n_rot=4)
        assert fit_rate(c.ms, c.errors).slope == pytest.approx(-2.0, abs=0.05)
    c = error_curve(Ellipse(1.0, 0.6, 0.2), FIT_MS, "halfplane", n_rot=2)
    assert fit_rate(c.ms, c.errors).slope == pytest.approx(-2.0, abs=0.05)


@pytest.mark.parametrize("alpha", [0.25, 0.5, 0.75])
def test_beta_rates(alpha):
    """h = 1 + 0.3|sin θ|^{1+α}: trig-interpolation slope -(1+α) over m = 33..513 (measured -1.250/-1.501/-1.751)."""
    c = error_curve(power_body(alpha), FIT_MS, "trig")
    assert fit_rate(c.ms, c.errors).slope == pytest.approx(-(1 + alpha), abs=0.05)


# ---------------------------------------------------------------- fit_rate


def test_fit_rate_exact_power_law_and_range():
    ms = np.array([4, 8, 16, 32, 64, 128])
    err = 3.0 * ms**-1.7
    err[:2] = 1.0  # pre-asymptotic points, excluded by m_min
    f = fit_rate(ms, err, m_min=16)
    assert f.slope == pytest.approx(-1.7, abs=1e-12)
    assert np.exp(f.intercept) == pytest.approx(3.0, rel=1e-10)
    assert (f.m_min, f.m_max, f.n_points) == (16, 128, 4)
    assert f.ci_low <= f.slope <= f.ci_high
    np.testing.assert_allclose(f.predict([16, 64]), 3.0 * np.array([16, 64]) ** -1.7, rtol=1e-10)


def test_fit_rate_confidence_interval_coverage():
    """On log-normal noise the 95% t interval covers the true slope 95% of the time (Monte Carlo)."""
    rng = np.random.default_rng(7)
    ms = np.geomspace(10, 1000, 8)
    reps = 2000
    hits = 0
    for _ in range(reps):
        err = 2.0 * ms**-1.3 * np.exp(0.2 * rng.standard_normal(ms.size))
        f = fit_rate(ms, err)
        hits += f.ci_low <= -1.3 <= f.ci_high
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(hits / reps - 0.95) < 3.5 * se


def test_fit_rate_rejects_bad_input():
    with pytest.raises(ValueError, match="exact recovery"):
        fit_rate([10, 20, 40, 80], [1e-3, 1e-4, 0.0, 1e-6])
    with pytest.raises(ValueError, match="at least 3 points"):
        fit_rate([10, 20, 40, 80], [1, 2, 3, 4], m_min=40)
    with pytest.raises(ValueError, match="same length"):
        fit_rate([10, 20, 40], [1, 2])


# ---------------------------------------------------------------- lower-bound witness


@pytest.mark.parametrize("m", [3, 4, 9, 32])
def test_disc_witness(m):
    r = 0.8
    wit = disc_witness(r, m)
    theta = equally_spaced_angles(m)
    assert np.max(np.abs(wit.perturbation(theta))) < 1e-15 * max(1, m)  # vanishes at the samples
    t = np.linspace(0, 2 * np.pi, 40_001)
    assert wit.radius_of_curvature(t).min() >= -1e-12  # convex: min ρ = r - ε(4m² - 1) = 0
    disc, pert = wit.bodies()
    np.testing.assert_allclose(disc.width(theta), pert.width(theta), atol=1e-15)
    assert hausdorff_distance(disc, pert, n_grid=200_000) == pytest.approx(wit.epsilon, rel=1e-6)
    assert wit.epsilon == pytest.approx(r / (4 * m**2 - 1))
    assert pert.is_origin_symmetric()
    # both bodies have curvature >= κ = 1/(2r), and ε/2 is the stated minimax lower bound for that κ
    assert wit.kappa == pytest.approx(1 / (2 * r))
    assert pert.kappa == pytest.approx(wit.kappa, rel=1e-6)
    assert wit.epsilon / 2 == pytest.approx(float(minimax_lower_bound(wit.kappa, m)))


def test_minimax_sandwich():
    """Lower bound 1/(4κ(4m²-1)) <= measured half-plane error <= upper bound, both ~ 1/(κm²)."""
    ms = np.array([4, 16, 64, 256])
    for kappa in (0.5, 2.0):
        lo, hi = minimax_lower_bound(kappa, ms), halfplane_bound_curvature(kappa, ms)
        assert np.all(lo < hi)
        np.testing.assert_allclose(lo * kappa * ms**2, 1 / 16, rtol=0.02)  # → 1/16
        np.testing.assert_allclose(hi[-1] * kappa * ms[-1] ** 2, np.pi**2 / 4, rtol=1e-4)
    # the disc of radius 1/κ (in the class) has half-plane error between the two bounds
    for m in (4, 16, 64):
        err = recovery_error(Disc(1 / 0.5), m)
        assert minimax_lower_bound(0.5, m) <= err <= halfplane_bound_curvature(0.5, m)


# ---------------------------------------------------------------- Theorem 3's side claims


def test_dilation_makes_error_one_homogeneous_but_paper_rate_two_homogeneous():
    body = arc_oval()
    res = homogeneity_check(body, 17, [0.01, 0.1, 1.0, 10.0, 100.0], n_rot=2)
    assert res.error_exponent == pytest.approx(1.0, abs=1e-9)
    assert res.paper_exponent == pytest.approx(2.0, abs=1e-9)
    np.testing.assert_allclose(res.corrected_ratio, res.corrected_ratio[0], rtol=1e-9)
    # error / (R/(κm²)) falls like 1/t: no constant C can bound it on both sides
    np.testing.assert_allclose(res.paper_ratio * res.scales, res.paper_ratio[2] * res.scales[2], rtol=1e-9)
    # example: disc of radius 2 (κ = 1/2): witness 2/(4m²-1) vs R/(κm²) = 4/m²
    m = 10
    assert disc_witness(2.0, m).epsilon == pytest.approx(2 / (4 * m**2 - 1))
    assert float(paper_rate(2.0, 0.5, m)) == pytest.approx(4 / m**2)
    with pytest.raises(ValueError, match="κ = 0"):
        homogeneity_check(square(1.0), 9, [1, 2])


def test_xray_closed_forms():
    r = 1.3
    t = np.linspace(-1.2, 1.2, 25)
    np.testing.assert_allclose(xray(Disc(r), 0.4, t), 2 * np.sqrt(r**2 - t**2), atol=2e-6)
    # square [-1, 1]²: X-ray along the x-axis has chord length 2 for |t| < 1
    np.testing.assert_allclose(xray(square(1.0), 0.0, np.array([-0.5, 0.0, 0.9, 1.5])), [2, 2, 2, 0], atol=1e-9)
    # the support of the X-ray in direction u is the projection on u^⊥: its length is the width at u^⊥
    e = Ellipse(1.0, 0.4, 0.3)
    half = float(e.width(np.array([0.9 + np.pi / 2]))[0]) / 2
    x = xray(e, 0.9, np.array([-half - 1e-3, -half + 1e-3, half - 1e-3, half + 1e-3]))
    assert x[0] == 0 and x[3] == 0 and x[1] > 0 and x[2] > 0


def test_xray_parity_example():
    """Widths identical in all m directions, X-rays in the same directions differ (Gardner–McMullen)."""
    res = xray_parity_example(m=6, fraction=0.5, n_offsets=201)
    assert res.width_gap < 1e-14
    assert res.min_xray_gap > 100 * 2e-6  # far above the X-ray discretisation error of the closed-form test
    assert res.min_xray_gap > res.epsilon  # chord differences exceed the Hausdorff gap ε


# ---------------------------------------------------------------- D = 3


def test_fibonacci_sphere_is_quasi_uniform(rng):
    for m in (50, 400, 3200):
        u = fibonacci_sphere(m)
        np.testing.assert_allclose(np.linalg.norm(u, axis=1), 1.0, atol=1e-12)
        assert np.linalg.norm(u.mean(axis=0)) < 2.0 / m
        probe = rng.normal(size=(2000, 3))
        probe /= np.linalg.norm(probe, axis=1, keepdims=True)
        covering = np.arccos(np.clip(np.max(probe @ u.T, axis=1), -1, 1)).max()
        assert covering < 3.0 / np.sqrt(m)  # covering radius ~ m^{-1/2}


def test_3d_reconstruction_contains_body_and_ball_error(rng):
    u = fibonacci_sphere(200)
    body = Ellipsoid((1.0, 0.7, 0.5))
    rec = halfspace_reconstruction_3d(u, body.width(u))
    probe = rng.normal(size=(500, 3))
    probe /= np.linalg.norm(probe, axis=1, keepdims=True)
    assert np.all(rec.support(probe) >= body.support(probe) - 1e-12)
    # ball: the error is the largest vertex norm minus r (independent of Ball.distance)
    ball = Ball(1.0)
    rec = halfspace_reconstruction_3d(u, ball.width(u))
    assert recovery_error_3d(ball, 200) == pytest.approx(np.linalg.norm(rec.vertices, axis=1).max() - 1, rel=1e-12)


def test_3d_rates():
    """Quasi-uniform directions in D = 3: m^{-2/(D-1)} = m^-1 (smooth), m^{-1/(D-1)} = m^-1/2 (cube)."""
    f = fit_rate(*_curve(Ellipsoid((1.0, 0.8, 0.6))))
    assert f.slope == pytest.approx(theoretical_exponent(3, "curvature"), abs=0.15)
    f = fit_rate(*_curve(Box((1.0, 1.0, 1.0))))
    assert f.slope == pytest.approx(theoretical_exponent(3, "polytope"), abs=0.1)


def _curve(body, ms=(100, 200, 400, 800, 1600)):
    c = error_curve_3d(body, ms, n_rot=3, seed=1)
    return c.ms, c.errors


def test_theoretical_exponents():
    assert theoretical_exponent(2, "curvature") == -2
    assert theoretical_exponent(2, "polytope") == -1
    assert theoretical_exponent(3, "beta", 0.5) == pytest.approx(-0.75)
    with pytest.raises(ValueError, match="beta"):
        theoretical_exponent(2, "beta", 1.5)
    with pytest.raises(ValueError, match="body_class"):
        theoretical_exponent(2, "smooth")


def test_trig_reconstruction_boundary_and_width_picture():
    """The envelope of the interpolant of a smooth body's widths lies on ∂K as m grows; pictures are consistent."""
    body = TrigBody(1.0, cos_coeffs=(0.0, 0.05), sin_coeffs=(0.0, 0.0, 0.0, 0.01))
    rec = trig_reconstruction(measure_widths(body, equally_spaced_angles(11)))
    np.testing.assert_allclose(rec.boundary(360), body.boundary(360), atol=1e-12)  # exact: degree 4 < 11
    dt = 1e-6
    t = np.linspace(0, 3, 7)
    np.testing.assert_allclose(rec.derivative(t), (rec.support(t + dt) - rec.support(t - dt)) / (2 * dt), atol=1e-7)
    pic = width_picture(arc_oval(), 8)
    # same grid spacing π/10000 as recovery_error (full circle vs half-turn of a symmetric body)
    assert pic.error_halfplane == pytest.approx(recovery_error(arc_oval(), 8), rel=1e-9)
    assert pic.error_trig == pytest.approx(recovery_error(arc_oval(), 8, "trig"), rel=1e-6)
    assert pic.polygon.shape == (16, 2)
    reu = width_picture(reuleaux_triangle(1.0), 32)
    # widths of a Reuleaux triangle are all equal: both reconstructions are the disc of radius 1/2
    assert reu.error_trig == pytest.approx(1 / np.sqrt(3) - 0.5, rel=1e-6)
    np.testing.assert_allclose(np.linalg.norm(reu.trig_boundary, axis=1), 0.5, atol=1e-12)


def test_radius_of_curvature_is_the_reciprocal_of_the_curvature():
    for r in (0.5, 2.0):
        rho = radius_of_curvature(Disc(r))
        assert np.allclose(rho, r, rtol=1e-5)
        assert 1 / rho.max() == pytest.approx(Disc(r).kappa, rel=1e-5)  # curvature 1/r, not r
    e = Ellipse(1.0, 0.6)  # radii of curvature b^2/a = 0.36 (ends of the major axis) to a^2/b = 1.667
    rho = radius_of_curvature(e)
    assert rho.min() == pytest.approx(0.36, rel=1e-3) and rho.max() == pytest.approx(1 / 0.6, rel=1e-3)
    with pytest.raises(ValueError, match="n_grid"):
        radius_of_curvature(Disc(1.0), n_grid=4)
