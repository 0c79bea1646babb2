"""Score-free geometry."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from dkps.geometry import classical_mds, complete_distances, fit_pca, profile_loglik, zhu_ghodsi


@pytest.mark.parametrize(
    "values, two, one",
    [([10, 9, 8, 1, 0.9, 0.8], 4, 3), ([100, 1, 0.5, 0.4, 0.3], 2, 1), ([5, 1], 2, 2), ([3, 3, 3], 3, 1)],
)
def test_zhu_ghodsi_worked_examples(values, two, one):
    # two elbows: the original package's figures; one elbow: the first elbow alone
    assert zhu_ghodsi(values) == two
    assert zhu_ghodsi(values, n_elbows=1) == one
    assert zhu_ghodsi(values[::-1]) == two  # order of the input does not matter


def test_profile_loglik_equals_gaussian_likelihood():
    rng = np.random.default_rng(0)
    for _ in range(20):
        p = int(rng.integers(3, 12))
        v = np.sort(rng.gamma(2.0, size=p))[::-1]
        ll = profile_loglik(v)
        for q in range(1, p + 1):
            g1, g2 = v[:q], v[q:]
            ss = ((g1 - g1.mean()) ** 2).sum() + (((g2 - g2.mean()) ** 2).sum() if g2.size else 0.0)
            var = ss / (p - 2 if q < p else p - 1)
            ref = norm.logpdf(g1, g1.mean(), np.sqrt(var)).sum()
            if g2.size:
                ref += norm.logpdf(g2, g2.mean(), np.sqrt(var)).sum()
            assert ll[q - 1] == pytest.approx(ref, rel=1e-9, abs=1e-9)
        # within q < p, argmax of the likelihood = argmin of the pooled within-group SS
        ss = [((v[:q] - v[:q].mean()) ** 2).sum() + ((v[q:] - v[q:].mean()) ** 2).sum() for q in range(1, p)]
        assert int(np.argmax(ll[:-1])) == int(np.argmin(ss))


def test_zhu_ghodsi_edges_and_errors():
    assert zhu_ghodsi([2.0]) == 1
    assert zhu_ghodsi([10, 9, 1]) == 2  # the remainder after the first elbow is a single value
    for bad in ([], [1.0, np.nan]):
        with pytest.raises(ValueError):
            zhu_ghodsi(bad)
    with pytest.raises(ValueError, match="n_elbows"):
        zhu_ghodsi([3, 2, 1], n_elbows=0)


def test_classical_mds_recovers_points():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 3))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    res = classical_mds(D, 3)
    Y = res.coords
    DY = np.sqrt(((Y[:, None] - Y[None]) ** 2).sum(-1))
    np.testing.assert_allclose(DY, D, atol=1e-8)
    idx = np.argmax(np.abs(Y), axis=0)
    assert (Y[idx, np.arange(3)] > 0).all()  # sign convention
    assert classical_mds(D[:3, :3], 8).dim <= 2  # d <= n - 1
    with pytest.raises(ValueError, match="at least 2"):
        classical_mds(np.zeros((1, 1)))


def test_classical_mds_dim_none_uses_two_elbows_of_top_eigenvalues():
    rng = np.random.default_rng(2)
    n = 64
    X = rng.normal(size=(n, 3)) * np.array([10.0, 9.0, 3.0])
    X = np.hstack([X, 0.05 * rng.normal(size=(n, 6))])
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    res = classical_mds(D, None)
    top = res.eigenvalues[:6]  # ceil(log2(64)) = 6
    assert res.dim == zhu_ghodsi(top) == 3


def test_complete_distances_shortest_path_and_disconnected():
    D = np.array([[0, 1, np.nan, np.nan], [1, 0, 2, np.nan], [np.nan, 2, 0, 0.0], [np.nan, np.nan, 0.0, 0]])
    C, k = complete_distances(D)
    assert k == 0
    assert C[0, 2] == 3 and C[0, 3] == 3 and C[1, 3] == 2  # zero-length edge kept
    D2 = np.array([[0, 1, np.nan], [1, 0, np.nan], [np.nan, np.nan, 0]])
    with pytest.warns(UserWarning, match="not connected"):
        C2, k2 = complete_distances(D2)
    assert k2 == 2 and C2[0, 2] == 2.0 and C2[2, 1] == 2.0


def test_pca_block_by_hand():
    X = np.array([[0.0, 0.0, 1.0], [2.0, 0.0, 1.0], [4.0, 0.1, 1.0], [6.0, -0.1, 1.0], [3.0, 0.0, 1.0]])
    basis = fit_pca(X, "elbow")
    Xc = X - X.mean(0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    np.testing.assert_allclose(basis.singular_values, s[s > 1e-10 * s[0]])
    assert basis.dim == zhu_ghodsi(s[s > 1e-10 * s[0]])
    Z = basis.transform(X)
    norms = np.linalg.norm(Z, axis=1)
    np.testing.assert_allclose(norms[norms > 0], 1.0)
    assert norms[4] == 0.0  # the row equal to the mean stays zero
    raw = fit_pca(X, None, normalize=False)
    np.testing.assert_array_equal(raw.transform(X), X)
    assert fit_pca(X, 1).dim == 1 and fit_pca(X, 10).dim == 2  # capped at the rank


def test_pca_gram_route_matches_svd():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25000, 6)) @ np.diag([5, 4, 3, 1, 0.5, 0.1]) + 2.0
    gram = fit_pca(X, 6)
    _, s, Vt = np.linalg.svd(X - X.mean(0), full_matrices=False)
    np.testing.assert_allclose(gram.singular_values, s, rtol=1e-8)
    # same subspace: projections agree up to column signs
    P1 = gram.components @ gram.components.T
    P2 = Vt.T @ Vt
    np.testing.assert_allclose(P1, P2, atol=1e-8)


def test_pca_basis_is_reused_for_the_same_rows_and_settings_only():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 5))
    a = fit_pca(X, "elbow")
    assert fit_pca(X.copy(), "elbow") is a  # the same bytes: the same basis, not a refit
    assert fit_pca(X, 2) is not a and fit_pca(X, "elbow", normalize=False) is not a
    Y = X.copy()
    Y[7, 3] += 1e-9  # one value changed: a new fit
    b = fit_pca(Y, "elbow")
    assert b is not a and not np.array_equal(b.mean, a.mean)
    with pytest.raises(ValueError):  # shared between estimators, so nobody may change it in place
        a.components[0, 0] = 1.0
