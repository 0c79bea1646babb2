"""blindspot.diagnose.variance_capture: Theorem 1(a),(b)."""

import numpy as np
import pytest

from blindspot.diagnose import variance_capture


def test_expectation_d_over_D(rng):
    D, d, n = 40, 5, 8000
    mu = 1 / np.arange(1, D + 1)
    f = variance_capture.capture_fraction(np.diag(mu), variance_capture.haar_subspaces(D, d, n, rng))
    assert abs(f.mean() - d / D) < 4 * f.std() / np.sqrt(n)


def test_kyfan_bound_and_equality(rng):
    D, d = 12, 3
    A = rng.normal(size=(D, D))
    S = A @ A.T
    mu, U = np.linalg.eigh(S)
    f = variance_capture.capture_fraction(S, variance_capture.haar_subspaces(D, d, 2000, rng))
    kf = variance_capture.kyfan_bound(mu, d)
    assert f.max() <= kf + 1e-12
    assert variance_capture.capture_fraction(S, U[:, ::-1][:, :d]) == pytest.approx(kf)


def test_isotropic_has_zero_variance(rng):
    f = variance_capture.capture_fraction(np.eye(10), variance_capture.haar_subspaces(10, 4, 100, rng))
    np.testing.assert_allclose(f, 0.4)


def test_haar_bases_are_orthonormal(rng):
    V = variance_capture.haar_subspaces(7, 3, 5, rng)
    np.testing.assert_allclose(np.einsum("nia,nib->nab", V, V), np.broadcast_to(np.eye(3), (5, 3, 3)), atol=1e-12)


def test_stated_capture_bound_counterexample():
    D, d = 10, 2
    f = variance_capture.capture_fraction(np.diag([1.0] + [0.0] * (D - 1)), np.eye(D)[:, :d])
    assert f == 1.0 > variance_capture.capture_bound_stated(d, D)


def test_concentration_bound():
    assert variance_capture.concentration_bound(20, 0.1, 3.0) == pytest.approx(2 * np.exp(-20 * 0.01 / 72))
    assert variance_capture.concentration_bound(20, 0.1, 3.0) > 1  # vacuous at the paper's example
    with pytest.raises(ValueError):
        variance_capture.concentration_bound(20, 0.1, 0.5)


def test_bad_inputs():
    with pytest.raises(ValueError, match="symmetric"):
        variance_capture.capture_fraction(np.array([[1.0, 2.0], [0.0, 1.0]]), np.eye(2)[:, :1])
    with pytest.raises(ValueError, match="d must be"):
        variance_capture.kyfan_bound(np.ones(3), 4)


def test_a_diagonal_given_as_a_vector_agrees_with_the_matrix(rng):
    mu = rng.uniform(0, 2, size=30)
    V = variance_capture.haar_subspaces(30, 4, 50, rng)
    np.testing.assert_allclose(
        variance_capture.capture_fraction(mu, V), variance_capture.capture_fraction(np.diag(mu), V), rtol=1e-12
    )
    assert variance_capture.capture_fraction(mu, V[0]) == pytest.approx(
        variance_capture.capture_fraction(np.diag(mu), V[0])
    )
    with pytest.raises(ValueError, match="non-negative"):
        variance_capture.capture_fraction(-mu, V)
    with pytest.raises(ValueError, match="rows"):
        variance_capture.capture_fraction(mu[:10], V)
