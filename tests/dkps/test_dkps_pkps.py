"""PKPS / DKPS: the literature equivalence, invariances, bandwidth, honesty on synthetic data."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from dkps import DKPS, PKPS, generate_benchmark_data
from dkps.geometry import zhu_ghodsi
from dkps.knn import cv_errors, select_bandwidth
from dkps.synthetic import latent_r2, score_records


def paired_rows(n=12, m=15, r=3, p=6, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, m, r, p))
    rows = [
        dict(model_id=f"m{i:02d}", task_id="t", query_id=f"q{j}", response_embedding=X[i, j, k])
        for i in range(n)
        for j in range(m)
        for k in range(r)
    ]
    return rows, X


def test_dkps_equals_literature_distance():
    rows, X = paired_rows()
    est = DKPS(response_kwargs=dict(pca_dim=None, normalize=False)).fit(rows)
    Xbar = X.mean(axis=2)  # (n, m, p): mean over the r replicates
    m = X.shape[1]
    ref = np.sqrt(((Xbar[:, None] - Xbar[None]) ** 2).sum(axis=(2, 3)) / m)
    np.testing.assert_allclose(est.distance_matrix_, ref, atol=1e-10, rtol=0)


def test_dkps_is_pkps_with_delta_kernel(small):
    a = DKPS().fit(small)
    b = PKPS(query_kwargs={"kernel": "delta"}).fit(small)
    np.testing.assert_array_equal(a.distance_matrix_, b.distance_matrix_)
    np.testing.assert_array_equal(a.coords_, b.coords_)
    assert a.predict() == b.predict()
    with pytest.raises(TypeError):
        DKPS(query_kwargs={"kernel": "rbf"})
    assert a.bandwidth_ is None and a.pca_dims_["default"][0] is None


def test_duplicating_a_models_rows_leaves_affinity_unchanged(small):
    est = PKPS().fit(small)
    m = est.model_names_[3]
    doubled = pd.concat([small, small[small.model_id == m]], ignore_index=True)
    est2 = PKPS().fit(doubled, layout=est.layout_)
    np.testing.assert_allclose(est2.affinity_, est.affinity_, rtol=1e-12, atol=1e-12)


def test_fit_is_deterministic_and_row_order_free(small):
    a = PKPS().fit(small)
    b = PKPS().fit(small)
    np.testing.assert_array_equal(a.distance_matrix_, b.distance_matrix_)
    assert a.predict() == b.predict()
    perm = small.sample(frac=1.0, random_state=1)
    c = PKPS().fit(perm)
    assert c.model_names_ == a.model_names_  # sorted ids
    np.testing.assert_allclose(c.distance_matrix_, a.distance_matrix_, atol=1e-10)


def test_bandwidth_reference_is_within_task_median():
    rows = []
    qv = {
        ("t0", "a"): [0.0, 0.0],
        ("t0", "b"): [3.0, 4.0],
        ("t0", "c"): [6.0, 8.0],
        ("t1", "a"): [100.0, 0.0],
        ("t1", "b"): [101.0, 0.0],
    }
    rng = np.random.default_rng(0)
    for m in ("x", "y", "z"):
        for (t, q), v in qv.items():
            rows.append(
                dict(model_id=m, task_id=t, query_id=q, query_embedding=v, response_embedding=rng.normal(size=3))
            )
    est = PKPS(query_kwargs=dict(pca_dim=None, normalize=False, bandwidth="median")).fit(rows)
    # within-task distances: t0 -> 5, 10, 5; t1 -> 1  => median 5 (across tasks ~100 is ignored)
    assert est.layout_.bandwidth_ref == 5.0 and est.bandwidth_ == 5.0
    est = PKPS(query_kwargs=dict(pca_dim=None, normalize=False, bandwidth_mult=2.0, bandwidth="median")).fit(rows)
    assert est.bandwidth_ == 10.0


def test_cv_bandwidth_is_the_argmin_of_cv_errors(quick):
    est = PKPS().fit(quick)
    grid = est.bandwidth_grid_
    assert grid == pytest.approx([est.layout_.bandwidth_ref * f for f in (0.03, 0.1, 0.3, 1, 3)])
    errs = np.array([est.cv_errors_[h] for h in grid])
    assert est.bandwidth_ == grid[int(np.argmin(errs))]
    # the report equals an independent leave-one-model-out run of the criterion
    Y = est.targets_.to_numpy()
    n = len(est.model_names_)
    ref = cv_errors(est._coords, Y, np.eye(n, dtype=bool), [np.array([], int)], 5, "distance", 1)[0]
    np.testing.assert_allclose(errs, ref)
    assert (
        select_bandwidth(np.array([1.0, 0.5, 0.5, 2.0]), np.array([1.0, 2.0, 4.0, 8.0]), 4.0) == 2
    )  # tie -> closest to ref


def test_parameter_validation_at_fit(small):
    for kw, match in [
        (dict(query_kwargs=dict(bogus=1)), "unknown keys"),
        (dict(query_kwargs=dict(kernel="nope")), "'kernel' parameter of PKPS query_kwargs must be a str among"),
        (dict(query_kwargs=dict(bandwidth=0)), "bandwidth"),
        (dict(query_kwargs=dict(bandwidth=-1.0)), "bandwidth"),
        (dict(query_kwargs=dict(bandwidth_grid=())), "bandwidth_grid"),
        (dict(query_kwargs=dict(pca_dim=0)), "pca_dim"),
        (dict(response_kwargs=dict(kernel="delta")), "'kernel' parameter of PKPS response_kwargs must be a str among"),
        (dict(response_kwargs=dict(bandwidth="cv")), "'bandwidth' parameter of PKPS response_kwargs"),
        (dict(mds_kwargs=dict(dim=0)), "dim"),
    ]:
        est = PKPS(**kw)  # the constructor stores its arguments untouched (scikit-learn convention)
        assert est.get_params() == {**PKPS().get_params(), **kw}
        with pytest.raises(ValueError, match=match):
            est.fit(small)
    q = dict(bandwidth="median")
    est = PKPS(query_kwargs=q).fit(small)  # partial dicts merge over the defaults, at fit
    assert est.query_kwargs is q and est.get_params()["mds_kwargs"] is None
    assert est.bandwidth_grid_ is None and est.mds_dim_ <= 8


def test_catalog_and_aliases(small):
    est = PKPS().fit(small)
    n = len(est.model_names_)
    assert est.affinity_.shape == est.distance_matrix_.shape == (n, n)
    assert est.coords_.shape == (n, est.mds_dim_)
    assert est.suite_names_ == ["default"] and set(est.task_suite_.values()) == {"default"}
    assert set(est.embedding_) == set(est.model_names_)
    np.testing.assert_array_equal(est.dist_matrix_, est.distance_matrix_)
    assert est.query_bandwidth_ == est.bandwidth_
    assert len(est.embeddings_by_bandwidth_) == 5
    st = est.score_table()
    obs = st[st.source == "observed"]
    np.testing.assert_array_equal(obs.score.to_numpy(), est.targets_.to_numpy()[~np.isnan(est.targets_.to_numpy())])
    assert st[st.source == "predicted"].score.notna().all()


def test_whiten_needs_unit_interval(small):
    bad = small.copy()
    bad["score"] = bad["score"] * 3
    est = PKPS().fit(bad)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        est.predict(whiten=True)
    est.predict()  # plain kNN works on any scale


def test_fit_without_scores_then_predict_raises(small):
    est = PKPS().fit(small.drop(columns="score"))
    assert est.bandwidth_ == pytest.approx(est.layout_.bandwidth_ref) and est.cv_errors_ is None
    with pytest.raises(ValueError, match="no observed scores"):
        est.predict()


def test_mds_dim_none_uses_zhu_ghodsi(quick):
    est = PKPS(mds_kwargs=dict(dim=None)).fit(quick)
    lam = est._mds[est._h_fit].eigenvalues
    pos = lam[lam > 1e-10 * np.abs(lam).max()]
    assert est.mds_dim_ == zhu_ghodsi(pos[: int(np.ceil(np.log2(len(est.model_names_))))])


# ------------------------------------------------------------------ honesty on synthetic data
SEEDS = range(5)


def _r2(est, bd):
    return latent_r2(est.coords_[pd.Index(est.model_names_).get_indexer(bd.params["model_ids"])], bd.latent)


def test_latent_recovery_beats_the_scores():
    for seed in SEEDS:
        bd = generate_benchmark_data(random_state=seed, generative_model="factor")
        est = PKPS().fit(score_records(bd))
        S = np.where(bd.observed, 1 / (1 + np.exp(-bd.scores)), np.nan)
        S = np.where(np.isnan(S), np.nanmean(S, axis=0), S)
        r_pkps, r_scores = _r2(est, bd), latent_r2(S, bd.latent)
        assert r_pkps >= 0.75, (seed, r_pkps)
        assert r_pkps >= r_scores + 0.10, (seed, r_pkps, r_scores)


def test_pkps_beats_dkps_on_unpaired_queries():
    for seed in SEEDS:
        bd = generate_benchmark_data(random_state=seed, generative_model="factor", queries_per_cell=2)
        data = score_records(bd)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            r_p, r_d = _r2(PKPS().fit(data), bd), _r2(DKPS().fit(data), bd)
        assert r_p >= r_d + 0.10, (seed, r_p, r_d)


@pytest.mark.slow
def test_completion_accuracy_against_task_mean():
    from dkps import LRMC, Ensemble

    ratios = []
    for seed in SEEDS:
        bd = generate_benchmark_data(random_state=seed, generative_model="factor")
        data = score_records(bd)
        T = 1 / (1 + np.exp(-bd.scores))
        base = np.abs(np.nanmean(np.where(bd.observed, T, np.nan), 0)[None] - T)[~bd.observed].mean()

        def ratio(p):
            i = pd.Index(bd.params["model_ids"]).get_indexer(p.model_id)
            j = pd.Index(bd.params["task_ids"]).get_indexer(p.task_id)
            return np.abs(p.score_hat.to_numpy() - T[i, j]).mean() / base

        pk, lr = PKPS().fit(data), LRMC().fit(data)
        ens = Ensemble([pk, lr], mode="cv", holdout=None, predict_kwargs=[{"whiten": True}, {}]).fit(data)
        ratios.append(
            [
                ratio(pk.predict(as_frame=True)),
                ratio(pk.predict(as_frame=True, whiten=True)),
                ratio(lr.predict(as_frame=True)),
                ratio(ens.predict(as_frame=True)),
            ]
        )
    r = np.array(ratios).mean(axis=0)
    assert r[0] <= 0.85 and r[1] <= 0.75 and r[2] <= 0.80, r
    assert r[3] <= min(r[1], r[2]) + 0.01, r


def test_clone_and_get_params(small):
    from dkps import clone

    est = PKPS(query_kwargs=dict(bandwidth="median"), mds_kwargs=dict(dim=3)).fit(small)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and not hasattr(twin, "coords_")
    np.testing.assert_array_equal(twin.fit(small).coords_, est.coords_)


def test_target_choice_and_reference_scores(small):
    data = small.copy()
    m = "model_01"
    t = data.task_id[data.model_id == m].iloc[0]
    cell = (data.model_id == m) & (data.task_id == t)
    data.loc[cell, "reference_score"] = 0.99
    est = PKPS().fit(data)
    assert est.targets_.loc[m, t] == 0.99 and est.sample_scores_.loc[m, t] != 0.99
    # with holdout=None a model's own observed cell is its own nearest neighbour (distance 0)
    got = {
        tg: est.predict([{"model_id": m, "task_id": t}], holdout=None, target=tg)[0]["score_hat"]
        for tg in ("auto", "sample", "reference")
    }
    assert got["auto"] == got["reference"] == pytest.approx(0.99)
    assert got["sample"] == pytest.approx(est.sample_scores_.loc[m, t])


def test_dkps_sigma_ratio_is_a_narrow_rbf(small):
    est = DKPS(sigma_ratio=0.1).fit(small)
    assert est.bandwidth_grid_ is None and est.bandwidth_ is not None  # an rbf query kernel
    assert est.bandwidth_ == pytest.approx(0.1 * PKPS(query_kwargs=dict(bandwidth="median")).fit(small).bandwidth_)
    with pytest.raises(ValueError, match="sigma_ratio"):
        DKPS(sigma_ratio=0).fit(small)
