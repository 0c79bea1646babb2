"""Tests of blindspot.tomography.harmonic_fit: spherical-harmonic fits of support functions from widths (D = 3)."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.tomography import harmonic_fit as hf
from blindspot.tomography.reconstruction import fibonacci_sphere, fit_rate


def test_basis_is_orthonormal_on_the_sphere():
    # equal-area quadrature on many Fibonacci points: the Gram matrix (4 pi / N) A^T A is the identity
    u = fibonacci_sphere(40_000)
    A = hf.real_even_harmonics(u, 6)
    assert A.shape == (40_000, hf.n_even_harmonics(6)) == (40_000, 28)
    G = A.T @ A * (4 * np.pi / u.shape[0])
    assert np.abs(G - np.eye(28)).max() < 2e-3


def test_a_support_function_in_the_span_is_recovered_exactly():
    # h = 1 + 0.1 (3 z^2 - 1)/2: degree 2, zonal; the fit of degree 2 (or 4) from 40 widths is exact
    u = fibonacci_sphere(40)
    h = 1 + 0.1 * (3 * u[:, 2] ** 2 - 1) / 2
    g = fibonacci_sphere(500)
    for L in (2, 4):
        fit = hf.harmonic_fit(u, 2 * h, L)
        assert np.abs(fit.support(g) - (1 + 0.1 * (3 * g[:, 2] ** 2 - 1) / 2)).max() < 1e-12


@pytest.mark.parametrize("alpha", [0.25, 0.5, 1.0])
def test_zonal_power_body_is_convex_with_the_closed_form_radius(alpha):
    b = hf.ZonalPowerBody(alpha, c=0.3)
    assert b.min_radius == pytest.approx(1 - 0.3 * alpha)
    # meridian radius h + h'' at the pole, by a finite difference along a meridian
    t, dt = 0.0, 1e-4
    h = lambda s: b.support(np.array([[np.sin(s), 0.0, np.cos(s)]]))[0]  # noqa: E731
    assert h(t) + (h(t + dt) - 2 * h(t) + h(t - dt)) / dt**2 == pytest.approx(1 - 0.3 * alpha, abs=1e-5)
    # the 1-homogeneous extension H(x) = |x| h(x/|x|) is convex: its Hessian is PSD at random points
    rng = np.random.default_rng(0)

    def H(x):
        r = np.linalg.norm(x)
        return r * b.support((x / r)[None, :])[0]

    e = 1e-4
    for x in rng.normal(size=(20, 3)):
        M = np.array(
            [[(H(x + e * (a + c)) - H(x + e * a) - H(x + e * c) + H(x)) / e**2 for c in np.eye(3)] for a in np.eye(3)]
        )
        assert np.linalg.eigvalsh((M + M.T) / 2).min() > -1e-3


def test_error_falls_at_the_c1alpha_rate():
    bodies = [hf.ZonalPowerBody(0.25), hf.ZonalPowerBody(0.75)]
    curves = hf.harmonic_error_curves(bodies, [6, 8, 10, 12, 14, 16], eval_points=2000)
    for b, c in zip(bodies, curves):
        assert np.all(np.diff(c.errors) < 0)
        f = fit_rate(c.ms, c.errors, m_min=200)  # the asymptotic range
        assert f.slope == pytest.approx(-(1 + b.alpha) / 2, abs=0.1)
    # the smoother body is fitted better at every m
    assert np.all(curves[1].errors < curves[0].errors)


def test_bad_input():
    with pytest.raises(ValueError, match="even integer"):
        hf.real_even_harmonics(fibonacci_sphere(10), 3)
    with pytest.raises(ValueError, match="cannot determine"):
        hf.harmonic_fit(fibonacci_sphere(10), np.ones(10), 4)
    with pytest.raises(ValueError, match="convex body"):
        hf.ZonalPowerBody(0.5, c=2.5)
    with pytest.raises(ValueError, match="alpha"):
        hf.ZonalPowerBody(0.0)
    with pytest.raises(ValueError, match="more widths than coefficients"):
        hf.harmonic_error_curves([hf.ZonalPowerBody(0.5)], [4], points_per_degree2=0.4)
