"""The original dkps's API and behaviour: names, defaults, scikit-learn conventions.

Reference numbers marked "original" were produced by running the original package's functions
(jataware/dkps at f36ec7ab: ``dkps/baselines.py``, ``dkps/synthetic.py``) in a throwaway environment
on the inputs written out here; only the numbers are kept.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.base

import dkps
import dkps.embed
from dkps import (
    DKPS,
    IRT,
    LRMC,
    PKPS,
    DataKernelPerspectiveSpace,
    Ensemble,
    SampleScore,
    Whitener,
    generate_benchmark_data,
)
from dkps.baselines import (
    irt_estimate_ability,
    irt_fit_difficulties,
    irt_predict,
    matrix_completion_predict,
    max_dense_block,
)
from dkps.discovery import all_estimators, example_instance
from dkps.ensemble import WEIGHT_GRID
from dkps.records import default_family
from dkps.synthetic import score_records

FIXED = dict(query_kwargs=dict(bandwidth=1.0, pca_dim=None), response_kwargs=dict(pca_dim=None))


def quick_start(seed=0):
    bd = generate_benchmark_data(
        d_latent=5, d_obs=20, n_models=40, n_tasks=8, n_queries_per_task=16, obs_prob=0.6, random_state=seed
    )
    return bd, score_records(bd)


# ------------------------------------------------------------------ scikit-learn conventions
@pytest.mark.parametrize("cls", [c for _, c in all_estimators()], ids=[n for n, _ in all_estimators()])
def test_scikit_learn_estimator_protocol(cls, small):
    est = example_instance(cls)
    assert isinstance(est, sklearn.base.BaseEstimator)
    params = est.get_params(deep=False)
    twin = sklearn.base.clone(est)
    assert type(twin) is type(est) and twin.get_params(deep=False).keys() == params.keys()
    assert dkps.clone is sklearn.base.clone
    name = type(est).__name__
    assert repr(est).startswith(f"{name}(")
    if name == "IRT":  # the generator's scores are in (0, 1), not 0/1: IRT says so, as the original does
        with pytest.warns(UserWarning, match="non-binary"):
            fitted = est.fit(small)
    else:
        fitted = est.fit(small)
    assert fitted is est and not hasattr(sklearn.base.clone(est), "model_names_")  # clone is unfitted


def test_constructors_store_their_arguments_untouched():
    q, grid, members = dict(bandwidth="median"), [0.0, 0.5, 1.0], [PKPS(), LRMC()]
    assert PKPS(query_kwargs=q).query_kwargs is q
    ens = Ensemble(members, grid=grid)
    assert ens.estimators is members and ens.grid is grid
    assert Ensemble(members).grid is WEIGHT_GRID  # the default is a module constant, stored as is
    tasks = ("t1", "t2")
    assert IRT(binary_tasks=tasks).binary_tasks is tasks
    bad = LRMC(lambda_=-1.0)  # stored, validated by fit
    assert bad.lambda_ == -1.0


def test_repr_set_params_and_deep_params():
    est = PKPS(mds_kwargs=dict(dim=3), random_state=4)
    assert repr(est) == "PKPS(mds_kwargs={'dim': 3}, random_state=4)"
    assert repr(LRMC()) == "LRMC()" and repr(LRMC(method="als")) == "LRMC(method='als')"
    est.set_params(random_state=5)
    assert est.random_state == 5
    ens = Ensemble([PKPS(), LRMC()], mode="mean")
    deep = ens.get_params(deep=True)
    assert deep["mode"] == "mean" and "estimators" in deep
    with pytest.raises(ValueError):
        est.set_params(bogus=1)


def test_predict_rejects_arguments_it_would_ignore(small):
    irt = IRT().fit(small.assign(score=(small.score > 0.5).astype(float)))
    for kw in (dict(holdout="model"), dict(family_fn=str), dict(selection="fit")):
        with pytest.raises(TypeError):
            irt.predict(**kw)
    als = LRMC(method="als").fit(small)
    with pytest.raises(ValueError, match="lambda"):
        als.predict(selection="fit")
    with pytest.raises(ValueError, match="family_fn"):
        als.predict(family_fn=str)
    ss = SampleScore().fit(small)
    with pytest.raises(ValueError, match="fallback"):
        ss.predict(holdout="model")
    with pytest.raises(TypeError):
        ss.predict(selection="fit")


# ------------------------------------------------------------------ the Ensemble.members bug
def test_ensemble_members_are_the_fitted_members(small):
    given = [PKPS(**FIXED), LRMC()]
    ens = Ensemble(given, mode="fixed", alpha=0.3).fit(small)
    assert ens.members is ens.estimators_ and ens.members[0] is not given[0]
    pk = {(r["model_id"], r["task_id"]): r["score_hat"] for r in ens.members[0].predict()}
    mc = {(r["model_id"], r["task_id"]): r["score_hat"] for r in ens.members[1].predict()}
    for r in ens.predict():
        key = (r["model_id"], r["task_id"])
        if key in pk and key in mc:
            assert r["score_hat"] == pytest.approx(0.3 * pk[key] + 0.7 * mc[key])
    assert Ensemble(given).members == given  # unfitted: the given estimators


# ------------------------------------------------------------------ update replaces rows sent again
@pytest.mark.parametrize("make", [lambda: PKPS(**FIXED), SampleScore, LRMC], ids=["PKPS", "SampleScore", "LRMC"])
def test_update_replaces_rows_sent_again(make, small):
    redo = small[small.model_id == "model_00"].copy()
    redo["score"] = redo["score"] * 0.5
    est = make().fit(small)
    with pytest.warns(UserWarning, match=f"replaced {len(redo)} ") as caught:
        est.update(redo)
    assert {w.filename for w in caught} == {__file__}  # the warning points at the caller's line
    want = pd.concat([small[small.model_id != "model_00"], redo], ignore_index=True)
    fresh = make().fit(want)
    pd.testing.assert_frame_equal(est.sample_scores_, fresh.sample_scores_, rtol=1e-12)
    assert est.n_responses_.equals(fresh.n_responses_)  # no replicates were added
    if isinstance(est, PKPS):
        np.testing.assert_allclose(est.distance_matrix_, fresh.distance_matrix_, atol=1e-12)


def test_a_refused_update_replaces_nothing_and_says_nothing(small):
    est = PKPS(**FIXED).fit(small)
    before = est.distance_matrix_.copy()
    bad = small.iloc[:1].copy()  # a row sent again, with a query embedding that contradicts the fitted one
    bad["query_embedding"] = [np.asarray(bad.query_embedding.iloc[0]) + 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "replaced 1 rows" for an update that is refused
        with pytest.raises(ValueError, match="query_embedding"):
            est.update(bad)
    np.testing.assert_array_equal(est.distance_matrix_, before)


def test_pkps_update_replacing_responses_moves_the_model(small):
    est = PKPS(**FIXED).fit(small)
    before = est.distance_matrix_.copy()
    redo = small[small.model_id == "model_03"].copy()
    redo["embedding"] = [np.asarray(v) + 2.0 for v in redo.embedding]
    with pytest.warns(UserWarning, match="replaced"):
        est.update(redo)
    fresh = PKPS(**FIXED).fit(pd.concat([small[small.model_id != "model_03"], redo], ignore_index=True))
    np.testing.assert_allclose(est.distance_matrix_, fresh.distance_matrix_, atol=1e-12)
    i = est.model_names_.index("model_03")
    assert not np.allclose(est.distance_matrix_[i], before[i])


# ------------------------------------------------------------------ defaults of the original
def test_default_family_is_the_developer_prefix():
    assert default_family("allenai/olmo-3") == "allenai"
    assert default_family("openai_gpt-4") == "openai"
    assert default_family("model_00") == "model"
    assert default_family("gpt4") == "gpt4"


def test_cv_bandwidth_grid_is_the_originals(small):
    est = PKPS(query_kwargs=dict(bandwidth="cv", bandwidth_ref=1.0)).fit(small)
    assert sorted(est.embeddings_by_bandwidth_) == [0.03, 0.1, 0.3, 1.0, 3.0]
    assert est.query_bandwidth_ in (0.03, 0.1, 0.3, 1.0, 3.0)


def test_irt_warns_on_non_binary_tasks(small):
    with pytest.warns(UserWarning, match="non-binary"):
        est = IRT().fit(small)  # scores in (0, 1): every task skipped
    assert np.isnan([r["score_hat"] for r in est.predict()]).all()


def test_text_rows_are_embedded_through_embed_api(monkeypatch):
    seen = []

    def fake(provider, texts, **kw):
        seen.append((provider, len(texts)))
        return np.stack([np.random.default_rng(len(t) * 7 + sum(map(ord, t))).normal(size=6) for t in texts])

    monkeypatch.setattr(dkps.embed, "embed_api", fake)
    rows = [
        dict(model_id=f"d{i % 2}/m{i}", task_id="t", query_id=str(q), query=f"q {q}", response=f"r {i} {q}", score=0.5)
        for i in range(5)
        for q in range(4)
    ]
    est = PKPS(query_kwargs=dict(pca_dim=None), mds_kwargs=dict(dim=2)).fit(rows)
    assert [p for p, _ in seen] == ["google", "google"] and sum(n for _, n in seen) == 40
    assert len(est.model_names_) == 5


# ------------------------------------------------------------------ DataKernelPerspectiveSpace
def test_legacy_paired_dkps_distance_is_the_closed_form():
    bd, data = quick_start()
    full = generate_benchmark_data(
        d_latent=5, d_obs=20, n_models=12, n_tasks=3, n_queries_per_task=16, obs_prob=1.0, random_state=0
    )
    rec = score_records(full)
    legacy = DataKernelPerspectiveSpace()
    coords = legacy.fit_transform(rec[["model_id", "task_id", "query_id", "embedding"]])
    X = np.stack([np.stack(rec.embedding[rec.model_id == m]) for m in legacy.model_names_])
    m = X.shape[1]
    want = np.sqrt(((X[:, None] - X[None]) ** 2).sum(axis=(2, 3))) / np.sqrt(m)
    np.testing.assert_allclose(legacy.dist_matrix_, want, atol=1e-12)
    est = DKPS(response_kwargs=dict(pca_dim=None, normalize=False)).fit(rec)
    np.testing.assert_allclose(est.dist_matrix_, legacy.dist_matrix_, atol=1e-12)
    assert set(coords) == set(legacy.model_names_)
    arrays = {name: X[i][:, None, :] for i, name in enumerate(legacy.model_names_)}  # the dict input
    DataKernelPerspectiveSpace().fit_transform(arrays, return_dict=False)
    with pytest.raises(ValueError, match="every\\s+model"):
        DataKernelPerspectiveSpace().fit_transform(data[["model_id", "task_id", "query_id", "embedding"]])


# ------------------------------------------------------------------ Whitener
def test_whitener_by_hand_and_round_trip():
    rng = np.random.default_rng(0)
    M = rng.random((7, 4))
    O = rng.random((7, 4)) < 0.7
    O[0] = False
    w = Whitener().fit(M, O)
    X = np.log(np.clip(M, 1e-3, 1 - 1e-3) / (1 - np.clip(M, 1e-3, 1 - 1e-3)))
    for t in range(4):
        np.testing.assert_allclose(w.mu_[t], X[O[:, t], t].mean())
        np.testing.assert_allclose(w.sd_[t], X[O[:, t], t].std())
    Z = (X - w.mu_) / w.sd_
    g = Z[O].mean()
    row = np.array([Z[i, O[i]].mean() if O[i].any() else g for i in range(7)])
    col = np.array([Z[O[:, t], t].mean() for t in range(4)])
    np.testing.assert_allclose(w.bias_, row[:, None] + col[None] - g)
    R = w.transform(M)
    np.testing.assert_allclose(w.inverse_transform(R), M, atol=1e-12)  # interior scores come back


# ------------------------------------------------------------------ dkps.baselines against the original
def test_matrix_completion_matches_the_original():
    rng = np.random.default_rng(0)
    M = rng.random((12, 5))
    O = rng.random((12, 5)) < 0.7
    P = matrix_completion_predict(M, O)
    assert np.isnan(P[O]).all() and int(np.isnan(P).sum()) == 33
    np.testing.assert_allclose(np.nansum(P), 12.61448623801249, rtol=1e-9)  # original
    np.testing.assert_allclose(P[~O][0], 0.8639409325403247, rtol=1e-9)  # original
    P2 = matrix_completion_predict(M, O, rank=3, lam=0.5, n_init=3, logit=False, fill_observed=True, random_state=7)
    np.testing.assert_allclose([P2.sum(), P2[0, 0]], [28.86389573725587, 0.6520496391973426], rtol=1e-9)


def test_irt_functions_and_dense_block_match_the_original():
    rng = np.random.default_rng(1)
    S = (rng.random((9, 7)) < 0.55).astype(float)
    beta, _ = irt_fit_difficulties(S)
    want = [0.0697722320478, 0.0697722320478, 0.0697722320478, -0.4349752462587, -0.4349752462587]
    np.testing.assert_allclose(beta[:5], want, atol=1e-9)  # original
    np.testing.assert_allclose(beta[6], 1.0720773830877306, atol=1e-9)
    theta = irt_estimate_ability(S[2, :4], beta[:4])
    assert theta == 4.0 and irt_predict(theta, beta) == pytest.approx(0.9794682082482238, abs=1e-9)
    am = rng.random((10, 8)) < 0.75
    F, Q = max_dense_block(am)
    assert F.tolist() == [0, 1, 3, 4, 5, 6, 7, 8] and Q.tolist() == [4, 3, 0]  # original
    assert am[np.ix_(F, Q)].all()
    assert [x.size for x in max_dense_block(np.zeros((3, 2), bool))] == [0, 0]


# original LRMC (ALS) on the quick-start data: seed -> (sum of pred_matrix_, first missing cell,
# first observed cell, missing-cell MAE against the true sigmoid scores), n_init=2, crossfit_k=3
ORIGINAL_ALS = {
    0: (153.09624110325677, 0.26048941093740796, 0.5989463407105162, 0.3326593738971459),
    1: (162.41288194115714, 0.3711681129208521, 0.5304672023448931, 0.25366892905556826),
}


@pytest.mark.parametrize("seed", [0, 1])
def test_lrmc_als_reproduces_the_original(seed):
    bd, data = quick_start(seed)
    est = LRMC(method="als").fit(data)
    P, O = est.pred_matrix_, ~np.isnan(est.sample_scores_.to_numpy())
    total, first_missing, first_observed, mae = ORIGINAL_ALS[seed]
    np.testing.assert_allclose(P.sum(), total, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose([P[~O][0], P[O][0]], [first_missing, first_observed], atol=1e-9)
    truth = 1 / (1 + np.exp(-bd.scores))
    np.testing.assert_allclose(np.abs(P[~O] - truth[~O]).mean(), mae, atol=1e-9)
    got = {(r["model_id"], r["task_id"]): r["score_hat"] for r in est.predict()}
    assert len(got) == (~O).sum()
    no_crossfit = LRMC(method="als", crossfit_k=0).fit(data)
    assert np.isnan(no_crossfit.pred_matrix_[O]).all()
    np.testing.assert_allclose(no_crossfit.pred_matrix_[~O], P[~O], atol=1e-12)
    # the default Soft-Impute is the more accurate completion on these data
    soft = LRMC().fit(data).pred_matrix_
    assert np.abs(soft[~O] - truth[~O]).mean() < mae


def test_irt_block_method_is_the_originals_per_task_fit():
    bd, data = quick_start()
    rng = np.random.default_rng(0)
    data = data.assign(score=(rng.random(len(data)) < data.score).astype(float))
    est = IRT(method="block").fit(data)
    t = est.task_names_[0]
    S = data[data.task_id == t].pivot(index="model_id", columns="query_id", values="score")
    A = S.to_numpy()
    F, Q = max_dense_block(~np.isnan(A))
    beta, _ = irt_fit_difficulties(np.nan_to_num(A[np.ix_(F, Q)]))
    m = S.index[F[0]]
    want = irt_predict(irt_estimate_ability(A[F[0], Q], beta), beta)
    assert est.predict([{"model_id": m, "task_id": t}])[0]["score_hat"] == pytest.approx(want, abs=1e-12)


def test_whiten_global_is_the_originals_whitened_knn(small):
    from sklearn.neighbors import KNeighborsRegressor

    est = PKPS(**FIXED).fit(small)
    Z, Y = est.coords_, est.targets_.to_numpy()
    O = ~np.isnan(Y)
    w = Whitener().fit(Y, O)
    T = w.transform(Y)
    want = np.full(Y.shape, np.nan)
    for t in range(Y.shape[1]):
        for i in range(Y.shape[0]):
            train = np.flatnonzero(O[:, t] & (np.arange(Y.shape[0]) != i))  # leave the model out
            if O[:, t].sum() < 3 or len(train) == 0:
                continue
            knn = KNeighborsRegressor(n_neighbors=min(5, len(train)), weights="distance")
            r = knn.fit(Z[train], T[train, t]).predict(Z[i : i + 1])[0]
            R = np.zeros(Y.shape)
            R[i, t] = r
            want[i, t] = w.inverse_transform(R)[i, t]
    pairs = [{"model_id": m, "task_id": t} for m in est.model_names_ for t in est.task_names_]
    got = np.array([r["score_hat"] for r in est.predict(pairs, whiten="global")]).reshape(Y.shape)
    np.testing.assert_allclose(got, want, atol=1e-10, equal_nan=True)
    leak_free = np.array([r["score_hat"] for r in est.predict(pairs, whiten=True)]).reshape(Y.shape)
    assert not np.allclose(leak_free[O], got[O])  # the default keeps a cell's own score out
    with pytest.raises(ValueError, match="whiten"):
        est.predict(pairs, whiten="yes")
