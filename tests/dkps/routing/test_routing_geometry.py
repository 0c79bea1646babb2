"""Geometry of query-localised routing: closed forms and brute-force references (float64)."""

from __future__ import annotations

import numpy as np
import pytest

from dkps.routing.localized_geometry import (
    factorised_distances,
    localized_distances,
    localized_mean_abs,
    localized_means,
    pairwise_sq_distances,
    query_sq_distances,
    rbf_weights,
    static_distances,
    task_weights,
)
from dkps.routing.rules import nearest_for_all_targets


@pytest.fixture
def suite():
    """n = 8 models, m = 60 queries, d = 6, 3 tasks: seeded Gaussian responses."""
    rng = np.random.default_rng(7)
    n, m, d, dq = 8, 60, 6, 4
    X = rng.normal(size=(n, m, d))
    U = rng.normal(size=(m, dq))
    tasks = np.array([f"t{j % 3}" for j in range(m)], dtype=object)
    Uq = rng.normal(size=(5, dq))
    return X, U, tasks, Uq


def test_P_gram_equals_direct_difference(suite):  # I5 (tensor part)
    X = suite[0]
    P = pairwise_sq_distances(X, block=7)
    direct = ((X[:, None, :, :] - X[None, :, :, :]) ** 2).sum(-1).transpose(2, 0, 1)
    assert np.abs(P - direct).max() < 1e-9
    assert (P >= 0).all() and np.array_equal(P, P.transpose(0, 2, 1))
    assert (np.diagonal(P, axis1=1, axis2=2) == 0).all()


def test_sigma_to_infinity_is_static(suite):  # I1 (paired)
    X, U, _, Uq = suite
    P = pairwise_sq_distances(X)
    from dkps.routing.localization_bandwidth import median_anchor_distance

    med = median_anchor_distance(U)
    W = rbf_weights(query_sq_distances(Uq, U), 1e6 * med)
    D = localized_distances(P, W)
    S = static_distances(P)
    assert np.abs(D - S[None]).max() < 1e-12
    assert np.array_equal(nearest_for_all_targets(D)[0], np.broadcast_to(nearest_for_all_targets(S)[0], (5, 8)))
    uniform = localized_distances(P, np.ones((1, U.shape[0])))[0]
    assert np.abs(uniform - S).max() < 1e-12
    W_inf = rbf_weights(query_sq_distances(Uq, U), np.inf)
    assert np.abs(localized_distances(P, W_inf) - S[None]).max() < 1e-12


def test_sigma_to_infinity_factorised_is_plain_mean(suite):  # I1 (factorised)
    X, U, _, Uq = suite
    n, m, d = X.shape
    rows = X.reshape(n * m, d)
    row_model = np.repeat(np.arange(n), m)
    row_query = np.tile(np.arange(m), n)
    d2 = query_sq_distances(Uq, U)
    st = localized_means(rows, row_model, rbf_weights(d2, np.inf)[:, row_query], n)
    assert np.abs(st.phi - X.mean(1)[None]).max() < 1e-12
    st = localized_means(rows, row_model, rbf_weights(d2, 1e6 * np.sqrt(d2.max()))[:, row_query], n)
    assert np.abs(st.phi - X.mean(1)[None]).max() < 1e-10


def test_paired_distance_is_brute_force_weighted_sum(suite):  # I2
    X, U, _, Uq = suite
    P = pairwise_sq_distances(X)
    W = rbf_weights(query_sq_distances(Uq, U), 0.7)
    D = localized_distances(P, W)
    n, m, _ = X.shape
    for q in range(Uq.shape[0]):
        w = W[q] / W[q].sum()
        for i in range(n):
            for k in range(n):
                ref = sum(w[j] * np.sum((X[i, j] - X[k, j]) ** 2) for j in range(m))
                assert abs(D[q, i, k] ** 2 - ref) < 1e-10
    # rf-sq (kernel regression of the squared realised error) is D^2 itself: identical picks
    assert np.array_equal(
        nearest_for_all_targets(localized_distances(P, W, squared=True))[0], nearest_for_all_targets(D)[0]
    )


def test_factorised_is_distance_of_weighted_means_and_decomposition(suite):  # I3
    X, U, _, Uq = suite
    n, m, d = X.shape
    W = rbf_weights(query_sq_distances(Uq, U), 0.9)
    rows = X.reshape(n * m, d)
    row_model = np.repeat(np.arange(n), m)
    row_query = np.tile(np.arange(m), n)
    st = localized_means(rows, row_model, W[:, row_query], n)
    Df = factorised_distances(st)
    Dp = localized_distances(pairwise_sq_distances(X), W)
    for q in range(Uq.shape[0]):
        w = W[q] / W[q].sum()
        mu = np.einsum("j,ijd->id", w, X)
        ref = np.linalg.norm(mu[:, None] - mu[None], axis=-1)
        assert np.abs(Df[q] - ref).max() < 1e-10
        for i in range(n):
            for k in range(n):
                gap = sum(w[j] * np.sum(((X[i, j] - mu[i]) - (X[k, j] - mu[k])) ** 2) for j in range(m))
                assert abs(Dp[q, i, k] ** 2 - Df[q, i, k] ** 2 - gap) < 1e-10
                assert gap >= 0
        s2 = np.einsum("j,ij->i", w, (X**2).sum(-1)) - (mu**2).sum(-1)
        assert np.abs(st.s2[q] - s2).max() < 1e-10
    assert (Df <= Dp + 1e-12).all()


def test_min_shift_leaves_normalised_weights_unchanged(suite):  # I4
    _, U, _, Uq = suite
    d2 = query_sq_distances(Uq, U)
    for c in (0.0, 3.5, -2.0, d2.min()):
        w = rbf_weights(d2 - c, 0.4)
        ref = np.exp(-d2 / (2 * 0.4**2))
        ref /= ref.sum(1, keepdims=True)
        assert np.abs(w - ref).max() < 1e-12
    # a tiny bandwidth would underflow without the shift; with it the nearest anchor keeps weight 1
    raw = rbf_weights(d2, 1e-6, normalize=False)
    assert (raw.max(1) == 1.0).all()


def test_batched_factorised_equals_naive_loop(suite):  # I5 (statistics part)
    X, U, _, Uq = suite
    n, m, d = X.shape
    rng = np.random.default_rng(1)
    keep = rng.random((n, m)) < 0.6
    row_model, row_query = np.nonzero(keep)
    rows = X[row_model, row_query]
    W = rbf_weights(query_sq_distances(Uq, U), 0.8, normalize=False)[:, row_query]
    st = localized_means(rows, row_model, W, n, scores=rows[:, 0])
    for q in range(Uq.shape[0]):
        for i in range(n):
            sel = row_model == i
            w = W[q, sel]
            phi = (w[:, None] * rows[sel]).sum(0) / w.sum()
            assert np.abs(st.phi[q, i] - phi).max() < 1e-10
            assert abs(st.score[q, i] - (w * rows[sel, 0]).sum() / w.sum()) < 1e-10
            assert abs(st.n_eff[q, i] - w.sum() ** 2 / (w**2).sum()) < 1e-9
    st32 = localized_means(rows.astype(np.float32), row_model, W.astype(np.float32), n)
    assert np.abs(st32.phi - st.phi).max() < 5e-5


def test_batched_contraction_equals_per_query_loop(suite):
    X, U, _, Uq = suite
    P = pairwise_sq_distances(X)
    W = rbf_weights(query_sq_distances(Uq, U), 0.6)
    D = localized_distances(P, W, batch_size=2, n_jobs=2)
    for q in range(Uq.shape[0]):
        assert np.abs(D[q] - localized_distances(P, W[q])).max() < 1e-12


def test_task_geometry_is_static_on_the_task(suite):  # I10
    X, U, tasks, _ = suite
    P = pairwise_sq_distances(X)
    Wt = task_weights(tasks, ["t0", "t1", "t2"])
    D = localized_distances(P, Wt)
    for c, task in enumerate(["t0", "t1", "t2"]):
        assert np.abs(D[c] - static_distances(P[tasks == task])).max() < 1e-12


def test_undefined_models_get_infinite_distance(suite):
    X, U, _, Uq = suite
    n, m, d = X.shape
    row_model = np.repeat(np.arange(n - 1), m)  # the last model has no rows
    rows = X[: n - 1].reshape(-1, d)
    W = rbf_weights(query_sq_distances(Uq, U), 1.0)[:, np.tile(np.arange(m), n - 1)]
    D = factorised_distances(localized_means(rows, row_model, W, n))
    assert np.isinf(D[:, -1, :-1]).all() and np.isfinite(D[:, :-1, :-1]).all()
    # a query whose weights all vanish (task without anchors) has no finite off-diagonal distance
    Dp = localized_distances(pairwise_sq_distances(X), np.zeros(m))
    assert np.isinf(Dp[~np.eye(n, dtype=bool)]).all()


def test_mean_abs_is_kernel_regression_and_below_rms(suite):
    X, U, _, Uq = suite
    P = pairwise_sq_distances(X)
    W = rbf_weights(query_sq_distances(Uq, U), 0.5)
    E = localized_mean_abs(P, W)
    w = W[0] / W[0].sum()
    ref = np.einsum("j,jik->ik", w, np.sqrt(P))
    assert np.abs(E[0] - ref).max() < 1e-12
    assert (E <= localized_distances(P, W) + 1e-12).all()


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="NaN or inf"):
        pairwise_sq_distances(np.full((3, 2, 2), np.nan))
    with pytest.raises(ValueError, match="> 0"):
        rbf_weights(np.ones((2, 3)), 0.0)
    with pytest.raises(ValueError, match="dimension"):
        query_sq_distances(np.ones((2, 3)), np.ones((4, 5)))
