"""blindspot.diagnose.ambient_dimension: bounds, power law, swap CV and Horn (App. D.1, G.3)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from blindspot.core.conventions import frontier
from blindspot.data.suites import load_suite
from blindspot.diagnose import ambient_dimension as ad


def _with_correlation(C: np.ndarray, n: int, rng) -> np.ndarray:
    """Data whose SAMPLE correlation matrix is exactly C."""
    k = C.shape[0]
    Q, _ = np.linalg.qr(rng.normal(size=(n, k)) - 0)
    Q = Q - Q.mean(axis=0)
    Q, _ = np.linalg.qr(Q)  # orthonormal, centred columns
    return Q @ np.linalg.cholesky(C).T


@pytest.mark.parametrize("alpha", [0.8, 1.5, 2.2])
def test_power_law_recovers_alpha(alpha, rng):
    k = 10
    lam = np.arange(1, k + 1, dtype=float) ** (-alpha)
    lam *= k / lam.sum()
    C = stats.random_correlation.rvs(lam, random_state=1)
    X = _with_correlation(C, 200, rng)
    fit = ad.d_powerlaw(X, eps=1e-3)
    assert fit.alpha == pytest.approx(alpha, abs=1e-6)
    assert fit.D == int(np.ceil((lam[0] / 1e-3) ** (1 / alpha)))


def test_spiked_model_bounds_and_horn(rng):
    n, k = 600, 12
    F = rng.normal(size=(n, 2))
    L = np.zeros((k, 2))
    L[:6, 0], L[6:, 1] = 1.2, 1.2  # two strong spikes
    X = F @ L.T + rng.normal(size=(n, k))
    b = ad.d_bounds(X)
    assert b.lower == 2 and b.upper == n - 1
    assert ad.horn_nsignal(X, n_perm=100).n_signal == 2


def test_horn_on_independent_columns(rng):
    assert ad.horn_nsignal(rng.normal(size=(200, 10)), n_perm=100).n_signal <= 1


def test_swap_cv_corner_and_range(rng):
    X = rng.normal(size=(80, 10)) + rng.normal(size=(80, 1))
    cv = ad.d_cv(X, n_splits=100)
    assert cv.Ds[0] == int(np.ceil(cv.d_eff)) + 1 and cv.D in cv.Ds
    assert np.all(cv.predicted <= 0.5) and np.all(np.diff(cv.predicted) > 0)  # rescaled P_swap rises with D
    lo, hi = cv.pred_range
    assert cv.corner == (cv.empirical < lo or cv.empirical > hi)
    if cv.empirical < lo:
        assert cv.D == cv.Ds[0]


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda X: ad.d_powerlaw(X, eps=0), "eps must be positive"),
        (lambda X: ad.d_cv(X[:, :3]), "at least 4 benchmarks"),
        (lambda X: ad.d_cv(X, D_max=3), "no candidate"),
        (lambda X: ad.horn_nsignal(X, n_perm=1), "n_perm"),
        (lambda X: ad.horn_nsignal(X, percentile=100), "percentile"),
    ],
)
def test_bad_input(rng, call, match):
    with pytest.raises(ValueError, match=match):
        call(rng.normal(size=(40, 6)) + rng.normal(size=(40, 1)))


def test_g3_reproduces(data_dir):
    f = frontier(load_suite("extended", data_dir=data_dir, fallback=False))
    p = ad.d_powerlaw(f)
    assert (round(p.alpha, 3), p.D) == (1.603, 184)
    cv = ad.d_cv(f)
    assert (cv.D, cv.empirical, cv.corner) == (6, 0.425, True)
    assert ad.horn_nsignal(f).n_signal == 2
