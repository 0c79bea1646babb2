"""The original's preprocessing (elbow PCA of queries and of each suite's responses) against a brute-force reference."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.decomposition import PCA

from dkps.geometry import zhu_ghodsi
from dkps.routing import Router
from dkps.routing.evaluation import PairedSuite, stratified_split
from dkps.routing.preprocessing import elbow_pca_suite, fit_elbow_pca, fit_response_blocks


def _suite_records(seed: int = 0, n: int = 6, m: int = 48, d: int = 12, dq: int = 9) -> tuple[pd.DataFrame, dict]:
    """Two suites (their queries in two clusters), low-rank responses plus noise, every model every query."""
    rng = np.random.default_rng(seed)
    suites = np.array(["s1"] * (m // 2) + ["s2"] * (m // 2), dtype=object)
    U = rng.normal(size=(m, dq)) @ np.diag(np.r_[6.0, 5.0, 4.0, np.ones(dq - 3) * 0.3])
    U[suites == "s2"] += 4.0
    basis = rng.normal(size=(3, d))
    X = rng.normal(size=(n, m, 3)) @ basis * 3 + rng.normal(size=(n, m, d)) * 0.2
    rows = [
        dict(model_id=f"m{i}", task_id=f"t{suites[j]}", query_id=f"q{j:03d}", suite=suites[j],
             response_embedding=X[i, j], query_embedding=U[j])
        for i in range(n)
        for j in range(m)
    ]  # fmt: skip
    return pd.DataFrame(rows), dict(X=X, U=U, suites=suites)


def _brute_reduce(rows: np.ndarray, cap: int, normalize: bool) -> tuple[np.ndarray, PCA, int]:
    """sklearn's exact PCA, the elbow by dkps.geometry.zhu_ghodsi on its first min(cap, n-1, d) singular values."""
    k = min(cap, rows.shape[0] - 1, rows.shape[1])
    pca = PCA(svd_solver="full").fit(rows)
    q = zhu_ghodsi(pca.singular_values_[:k], 2)
    Z = pca.transform(rows)[:, :q]
    if normalize:
        Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    return Z, pca, q


def test_router_elbow_pca_matches_a_brute_force_reference():
    rec, raw = _suite_records()
    X, U, suites = raw["X"], raw["U"], raw["suites"]
    anchors = np.arange(0, 48, 2)
    held = np.arange(1, 48, 2)
    fit_rec = rec[rec.query_id.isin([f"q{j:03d}" for j in anchors])]
    router = Router(bandwidth=0.5, preprocess="elbow-pca").fit(fit_rec)

    # the reference, written out: query basis on the anchors' queries (cap 64), response blocks per suite (cap 48)
    Ua, _, qdim = _brute_reduce(U[anchors], 64, normalize=False)
    qpca = PCA(svd_solver="full").fit(U[anchors])
    Uh = qpca.transform(U[held])[:, :qdim]
    n = X.shape[0]
    blocks, dims = {}, {}
    for s in ("s1", "s2"):
        cols = anchors[suites[anchors] == s]
        Z, _, q = _brute_reduce(X[:, cols].reshape(-1, X.shape[2]), 48, normalize=True)
        blocks[s], dims[s] = (cols, Z.reshape(n, cols.size, q)), q
    Xr = np.zeros((n, anchors.size, dims["s1"] + dims["s2"]))
    for s, off in (("s1", 0), ("s2", dims["s1"])):
        cols, Z = blocks[s]
        Xr[:, np.searchsorted(anchors, cols), off : off + dims[s]] = Z
    assert router.query_pca_.dim == qdim and router.response_pca_.dim == Xr.shape[2]
    pair_d = [np.linalg.norm(Ua[a] - Ua[b]) for a, b in itertools.combinations(range(anchors.size), 2)]
    med = float(np.median(pair_d))
    assert router.med_ == pytest.approx(med)
    sigma = 0.5 * med
    out = router.route(U[held], target="m0")
    for q in range(held.size):
        d2 = np.array([np.sum((Ua[j] - Uh[q]) ** 2) for j in range(anchors.size)])
        w = np.exp(-(d2 - d2.min()) / (2 * sigma**2))
        w /= w.sum()
        D = [np.sqrt(sum(w[j] * np.sum((Xr[0, j] - Xr[c, j]) ** 2) for j in range(anchors.size))) for c in range(n)]
        D[0] = np.inf
        assert out.pick.iloc[q] == f"m{int(np.argmin(D))}"
        assert out.distance.iloc[q] == pytest.approx(min(D), rel=1e-9)


def test_the_default_is_the_raw_space():
    rec, _ = _suite_records(1)
    raw, pre = Router().fit(rec), Router(preprocess="elbow-pca").fit(rec)
    assert raw.query_pca_ is None and raw.response_pca_ is None
    assert raw.U_.shape[1] == 9 and pre.U_.shape[1] < 9
    with pytest.raises(ValueError, match="'preprocess' parameter"):
        Router(preprocess="pca").fit(rec)


def test_fit_elbow_pca_follows_the_elbow_and_refuses_bad_input():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 10)) @ np.diag([9, 8, 7, 1, 1, 1, 1, 1, 1, 1])
    b = fit_elbow_pca(X, 8)
    S = np.linalg.svd(X - X.mean(0), compute_uv=False)[:8]
    assert b.dim == zhu_ghodsi(S, 2) and np.allclose(b.singular_values, S)
    Z = fit_elbow_pca(X, 8, normalize=True).transform(X)
    assert np.allclose(np.linalg.norm(Z, axis=1), 1.0)
    assert fit_elbow_pca(X, 1).dim == 1  # one value: no elbow to search
    with pytest.raises(ValueError, match="at least 2 rows"):
        fit_elbow_pca(X[:1], 8)
    with pytest.raises(ValueError, match="max_components"):
        fit_elbow_pca(X, 0)
    with pytest.raises(ValueError, match="dimension 10"):
        b.transform(X[:, :3])
    with pytest.raises(ValueError, match="no fitted response block"):
        fit_response_blocks(X, ["a"] * 60).transform(X[:2], ["b", "a"])


def test_elbow_pca_suite_is_fitted_on_the_anchors_only():
    """Poison the held-out responses: the anchors' reduced vectors and every reduced query stay the same."""
    rng = np.random.default_rng(2)
    n, m, d = 5, 40, 10
    X = rng.normal(size=(n, m, 3)) @ rng.normal(size=(3, d)) + 0.1 * rng.normal(size=(n, m, d))
    U = rng.normal(size=(m, 6)) @ np.diag([5, 4, 0.3, 0.3, 0.3, 0.3])
    tasks = np.array(["a", "b"] * (m // 2), dtype=object)
    suite = PairedSuite(X=X, U=U, tasks=tasks, models=[f"m{i}" for i in range(n)], query_ids=np.arange(m).astype(str))
    split = stratified_split(tasks, 0.25, 0)
    poisoned = X.copy()
    poisoned[:, split.eval] = rng.normal(size=(n, split.eval.size, d)) * 50
    a = elbow_pca_suite(suite, split.anchor)
    b = elbow_pca_suite(PairedSuite(X=poisoned, U=U, tasks=tasks, models=suite.models, query_ids=suite.query_ids),
                        split.anchor)  # fmt: skip
    assert np.array_equal(a.X[:, split.anchor], b.X[:, split.anchor]) and np.array_equal(a.U, b.U)
    assert np.allclose(np.linalg.norm(a.X, axis=2), 1.0)
