"""kNN regression, whitening and the nested bandwidth criterion against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from dkps.knn import (
    CellPredictions,
    FitCriterion,
    cv_errors,
    knn_cells,
    neighbour_order,
    pairwise_distances,
    whitened_knn_cells,
)


def brute_knn(D, Y, i, t, excl, k, weights, min_train):
    T = [j for j in range(len(Y)) if not np.isnan(Y[j, t]) and not excl[j]]
    if len(T) < max(1, min_train):
        return np.nan
    T.sort(key=lambda j: (D[i, j], j))
    nb = T[:k]
    d = np.array([D[i, j] for j in nb])
    y = np.array([Y[j, t] for j in nb])
    if weights == "uniform":
        return y.mean()
    if (d == 0).any():
        return y[d == 0].mean()
    w = 1 / np.maximum(d, 1e-12)
    return (w * y).sum() / w.sum()


def problem(seed=0, n=15, T=4, dup=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    if dup:
        X[3] = X[7]  # a zero distance and a tie
        X[9] = X[2]
    Y = rng.random((n, T))
    Y[rng.random((n, T)) < 0.3] = np.nan
    return X, Y


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("k, mt", [(1, 1), (3, 1), (5, 3), (20, 2)])
def test_knn_matches_brute_force(weights, k, mt):
    X, Y = problem()
    D = pairwise_distances(X)
    order = neighbour_order(D)
    n, T = Y.shape
    rows, cols = np.repeat(np.arange(n), T), np.tile(np.arange(T), n)
    rng = np.random.default_rng(1)
    excl = rng.random((len(rows), n)) < 0.2
    excl[np.arange(len(rows)), rows] = True
    got, sup = knn_cells(D, order, Y, rows, cols, excl, k, weights, mt)
    for c in range(len(rows)):
        ref = brute_knn(D, Y, rows[c], cols[c], excl[c], k, weights, mt)
        assert (np.isnan(ref) and np.isnan(got[c])) or got[c] == pytest.approx(ref, rel=1e-12)


def brute_cv(coords, Y, excl, G, k, weights, mt):
    D = pairwise_distances(coords)
    errs = []
    for j, u in zip(*np.nonzero(~np.isnan(Y))):
        if j in G:
            continue
        ex = excl[j].copy()
        ex[list(G)] = True
        p = brute_knn(D, Y, j, u, ex, k, weights, mt)
        if not np.isnan(p):
            errs.append(abs(p - Y[j, u]))
    return np.mean(errs) if errs else np.nan


@pytest.mark.parametrize("weights, k, mt", [("distance", 5, 1), ("uniform", 3, 3), ("distance", 2, 4)])
def test_nested_cv_errors_match_brute_force(weights, k, mt):
    X, Y = problem(2, n=14, T=3)
    X2 = X * np.array([1.0, 3.0, 0.2])
    n = len(Y)
    fam = np.arange(n) // 3
    for excl in (np.eye(n, dtype=bool), fam[:, None] == fam[None, :]):
        groups = [np.array([], int), np.array([4]), np.array([0, 1, 2]), np.array([9, 13])]
        got = cv_errors([X, X2], Y, excl, groups, k, weights, mt)
        for g, G in enumerate(groups):
            for h, C in enumerate([X, X2]):
                ref = brute_cv(C, Y, excl, set(G.tolist()), k, weights, mt)
                assert (np.isnan(ref) and np.isnan(got[g, h])) or got[g, h] == pytest.approx(ref, rel=1e-12)


def test_cv_errors_with_kept_distances_are_the_same_numbers():
    X, Y = problem(5, n=16, T=4)
    X2 = X * np.array([2.0, 0.5, 1.0])
    coords = [X, X2]
    kept = {h: (pairwise_distances(C), neighbour_order(pairwise_distances(C))) for h, C in enumerate(coords)}
    excl = np.eye(len(Y), dtype=bool)
    groups = [np.array([], int), np.array([3]), np.array([0, 5, 6])]
    plain = cv_errors(coords, Y, excl, groups, 4, "distance", 1)
    reused = cv_errors(coords, Y, excl, groups, 4, "distance", 1, dist_order=kept.__getitem__)
    np.testing.assert_array_equal(reused, plain)  # bit for bit: the same gathers of the same values


def test_whitened_prediction_by_hand():
    X, Y = problem(3, n=12, T=4, dup=False)
    Y = np.clip(Y, 0.0, 1.0)
    Y[0, 0] = 1.0  # hits the clip
    D = pairwise_distances(X)
    order = neighbour_order(D)
    i, t, k, eps = 5, 2, 4, 1e-3
    excl = np.zeros(12, bool)
    excl[[5, 6]] = True
    got = whitened_knn_cells(D, order, Y, np.array([i]), np.array([t]), excl, k, "distance", 1, eps)[0]
    z = np.log(np.clip(Y, eps, 1 - eps) / (1 - np.clip(Y, eps, 1 - eps)))
    mu, sd = np.zeros(4), np.ones(4)
    for u in range(4):
        v = [z[j, u] for j in range(12) if not excl[j] and not np.isnan(Y[j, u])]
        if v:
            mu[u] = np.mean(v)
        if len(v) >= 2 and np.std(v) >= 1e-8:
            sd[u] = np.std(v)
    zt = (z - mu) / sd

    def beta(j):
        v = [zt[j, u] for u in range(4) if u != t and not np.isnan(Y[j, u])]
        return np.mean(v) if v else 0.0

    R = np.full_like(Y, np.nan)
    for j in range(12):
        if not np.isnan(Y[j, t]):
            R[j, t] = zt[j, t] - beta(j)
    rhat = brute_knn(D, R, i, t, excl, k, "distance", 1)
    want = 1 / (1 + np.exp(-(mu[t] + sd[t] * (beta(i) + rhat))))
    assert got == pytest.approx(want, rel=1e-12)


def _fit_criterion_problem(seed):
    """Random geometries (half of them on a grid: tied distances) and targets with NaNs and ties."""
    rng = np.random.default_rng(seed)
    n, T, k, H = int(rng.integers(3, 25)), int(rng.integers(1, 5)), int(rng.integers(1, 6)), int(rng.integers(1, 4))
    geoms = []
    for _ in range(H):
        X = rng.integers(0, 3, size=(n, 2)).astype(float) if rng.random() < 0.5 else rng.normal(size=(n, 3))
        D = pairwise_distances(X)
        geoms.append((D, neighbour_order(D)))
    Y0 = rng.choice([0.0, 0.25, 0.5, 1.0], size=(n, T)) if rng.random() < 0.5 else rng.random((n, T))
    Y0[rng.random((n, T)) < 0.3] = np.nan
    return rng, geoms, Y0, k


def _changed(rng, Y0, mode):
    """Y0 with rows hidden (0), rows given other values (1: the Ensemble's masks) or scattered cells changed (2)."""
    n, T = Y0.shape
    Y = Y0.copy()
    rows = rng.random(n) < rng.random() * 0.5
    if mode == 0:
        Y[rows] = np.nan
    elif mode == 1:
        Y[rows] = rng.random((int(rows.sum()), T))
    else:
        ch = rng.random((n, T)) < 0.2
        Y[ch] = np.where(rng.random(int(ch.sum())) < 0.5, np.nan, rng.random(int(ch.sum())))
    return Y


@pytest.mark.parametrize("seed", range(60))
def test_fit_criterion_is_cv_errors_bit_for_bit(seed):
    """FitCriterion on Y0 and on every changed table equals the full leave-one-model-out criterion."""
    rng, geoms, Y0, k = _fit_criterion_problem(seed)
    n = len(Y0)

    def full(Y):
        coords = [None] * len(geoms)
        eye = np.eye(n, dtype=bool)
        return cv_errors(coords, Y, eye, [np.array([], int)], k, "distance", 1, dist_order=lambda h: geoms[h])[0]

    crit = FitCriterion(geoms, Y0, k)
    assert np.array_equal(crit.errors0, full(Y0), equal_nan=True)
    for mode in (0, 1, 2, 0, 1, 2):
        Y = _changed(rng, Y0, mode)
        assert np.array_equal(crit.errors(geoms, Y), full(Y), equal_nan=True)


@pytest.mark.parametrize("seed", range(3))
def test_fit_criterion_candidates_as_joblib_jobs_equal_serial_bit_for_bit(seed):
    rng, geoms, Y0, k = _fit_criterion_problem(seed)
    serial, par = FitCriterion(geoms, Y0, k), FitCriterion(geoms, Y0, k, n_jobs=2)
    assert np.array_equal(par.errors0, serial.errors0, equal_nan=True)
    for (p0, last), (q0, qlast) in zip(par.state, serial.state):
        assert np.array_equal(p0, q0, equal_nan=True) and np.array_equal(last, qlast)
    Y = _changed(rng, Y0, 2)  # a changed table reuses the states the jobs computed
    assert np.array_equal(par.errors(geoms, Y), serial.errors(geoms, Y), equal_nan=True)


def test_fit_criterion_refuses_other_geometries():
    _, geoms, Y0, k = _fit_criterion_problem(3)
    crit = FitCriterion(geoms, Y0, k)
    other = [(D.copy(), order.copy()) for D, order in geoms]
    assert crit.errors(other, Y0) is None  # the same values, but not the arrays it was built on
    assert crit.errors(geoms, Y0[:, :0]) is None


def _cv_errors_direct(geoms, Y, excl, groups, k, weights, mt):
    """The nested criterion computed directly: every cell outside G predicted by knn_cells with E(j) and G
    excluded (no reuse of the predictions without G), the mean of the defined errors per (group, geometry)."""
    n = len(Y)
    jj, uu = np.nonzero(~np.isnan(Y))
    out = np.full((len(groups), len(geoms)), np.nan)
    for g, G in enumerate(groups):
        inG = np.zeros(n, dtype=bool)
        inG[G] = True
        keep = ~inG[jj]
        for h, (D, order) in enumerate(geoms):
            p, _ = knn_cells(D, order, Y, jj[keep], uu[keep], excl[jj[keep]] | inG, k, weights, mt)
            e = np.abs(p - Y[jj[keep], uu[keep]])
            out[g, h] = e[~np.isnan(e)].mean() if (~np.isnan(e)).any() else np.nan
    return out


@pytest.mark.parametrize("seed", range(40))
def test_nested_cv_errors_are_the_direct_computation_bit_for_bit(seed):
    """cv_errors (changed cells only, every group in one pass) equals the direct per-group kNN bit for bit,
    with tied distances, tied and missing targets, model and family exclusion sets."""
    rng, geoms, Y, k = _fit_criterion_problem(1000 + seed)
    n = len(Y)
    weights = ("distance", "uniform")[seed % 2]
    mt = int(rng.integers(1, 5))
    fam = rng.integers(0, max(1, n // 3), size=n)
    excl = np.eye(n, dtype=bool) if seed % 3 else fam[:, None] == fam[None, :]
    groups = [np.array([], int)] + [np.flatnonzero(rng.random(n) < 0.2) for _ in range(6)]
    groups += [np.flatnonzero(fam == f) for f in np.unique(fam)]
    got = cv_errors([None] * len(geoms), Y, excl, groups, k, weights, mt, dist_order=lambda h: geoms[h])
    assert np.array_equal(got, _cv_errors_direct(geoms, Y, excl, groups, k, weights, mt), equal_nan=True)


@pytest.mark.parametrize("seed", range(40))
def test_kept_cell_predictions_are_knn_cells_bit_for_bit(seed):
    """CellPredictions on Y0 and on changed tables (rows hidden, rows or cells changed) equals knn_cells
    bit for bit, predictions and supports, for the three kinds of exclusion sets and both weightings."""
    rng, geoms, Y0, k = _fit_criterion_problem(2000 + seed)
    n, T = Y0.shape
    fam = rng.integers(0, max(1, n // 3), size=n)
    excl = [np.eye(n, dtype=bool), fam[:, None] == fam[None, :], np.zeros((n, n), dtype=bool)][seed % 3]
    weights, mt = ("distance", "uniform")[seed % 2], int(rng.integers(1, 5))
    D, order = geoms[0]
    kept = CellPredictions(D, order, excl, Y0, k, weights, mt)
    for mode in (None, 0, 1, 2, 0, 1, 2):
        Y = Y0 if mode is None else _changed(rng, Y0, mode)
        rows, cols = rng.integers(0, n, size=3 * n), rng.integers(0, T, size=3 * n)
        ref = knn_cells(D, order, Y, rows, cols, excl[rows], k, weights, mt)
        got = kept.predict(D, order, excl, Y, rows, cols)
        assert np.array_equal(got[0], ref[0], equal_nan=True) and np.array_equal(got[1], ref[1])


def test_predict_cells_keeps_predictions_only_for_read_only_exclusions():
    """The regression's kept predictions give knn_cells' numbers and are built only for the estimators'
    read-only exclusion matrices and requests of at least a quarter of the cells."""
    from dkps import regression

    rng, geoms, Y0, k = _fit_criterion_problem(7)
    n, T = Y0.shape
    D, order = geoms[0]
    excl = np.eye(n, dtype=bool)
    rows, cols = np.repeat(np.arange(n), T), np.tile(np.arange(T), n)
    regression._RECENT_PREDICTIONS.clear()
    ref = knn_cells(D, order, Y0, rows, cols, excl[rows], k, "distance", 1)[0]
    assert np.array_equal(
        regression._knn_predictions(D, order, Y0, rows, cols, excl, k, "distance", 1), ref, equal_nan=True
    )
    assert not regression._RECENT_PREDICTIONS  # a writeable exclusion matrix is never kept
    excl.setflags(write=False)
    for mode in (0, 1, 2):
        Y = _changed(rng, Y0, mode)
        ref = knn_cells(D, order, Y, rows, cols, excl[rows], k, "distance", 1)[0]
        got = regression._knn_predictions(D, order, Y, rows, cols, excl, k, "distance", 1)
        assert np.array_equal(got, ref, equal_nan=True)
    assert len(regression._RECENT_PREDICTIONS) == 1  # built once, reused for the changed tables
