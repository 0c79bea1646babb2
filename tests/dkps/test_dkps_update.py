"""update == fresh fit, and only affected pairs are recomputed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dkps.pair_sums
from dkps import DKPS, IRT, LRMC, PKPS, Ensemble, NotFittedError, SampleScore, kernels
from dkps.discovery import all_estimators

RTOL, ATOL = 1e-10, 1e-12


def split(quick):
    """R1 and R2: R2 holds 10 new models, extra responses of 2 existing models, and a new task."""
    new_models = ["model_05"] + [f"model_{i:02d}" for i in range(31, 40)]  # one sorts into the middle
    new_task = "task_007"
    extra = quick.model_id.isin(["model_02", "model_05"]) & quick.query_id.str.endswith(("1", "3", "5", "7"))
    in_r2 = quick.model_id.isin(new_models) | (quick.task_id == new_task) | extra
    return quick[~in_r2].reset_index(drop=True), quick[in_r2].reset_index(drop=True)


def assert_same(a, b):
    assert a.model_names_ == b.model_names_ and a.task_names_ == b.task_names_
    for att in ("affinity_", "distance_matrix_", "coords_"):
        np.testing.assert_allclose(getattr(a, att), getattr(b, att), rtol=RTOL, atol=ATOL, err_msg=att)
    assert (a.bandwidth_ is None and b.bandwidth_ is None) or a.bandwidth_ == pytest.approx(b.bandwidth_, rel=RTOL)
    for kw in ({}, {"whiten": True}, {"holdout": None}):
        pa, pb = a.predict(as_frame=True, **kw), b.predict(as_frame=True, **kw)
        assert pa[["model_id", "task_id"]].equals(pb[["model_id", "task_id"]])
        np.testing.assert_allclose(pa.score_hat, pb.score_hat, rtol=1e-9, atol=1e-9)


def test_update_equals_fit_with_frozen_layout(quick):
    R1, R2 = split(quick)
    first = PKPS().fit(R1)
    layout = first.layout_
    upd = first.update(R2)
    fresh = PKPS().fit(pd.concat([R1, R2], ignore_index=True), layout=layout)
    assert "task_007" in upd.task_names_ and len(upd.model_names_) == 40
    assert_same(upd, fresh)


@pytest.mark.parametrize("cls", [PKPS, DKPS])
def test_data_independent_config_equals_plain_fresh_fit(quick, cls):
    R1, R2 = split(quick)
    if cls is PKPS:
        cfg = dict(query_kwargs=dict(pca_dim=None, bandwidth=0.8), response_kwargs=dict(pca_dim=None))
    else:
        cfg = dict(response_kwargs=dict(pca_dim=None))
    upd = cls(**cfg).fit(R1).update(R2)
    fresh = cls(**cfg).fit(pd.concat([R1, R2], ignore_index=True))
    assert_same(upd, fresh)


@pytest.mark.parametrize("exact", [False, True], ids=["incremental", "cached"])
def test_only_affected_pairs_are_recomputed(quick, monkeypatch, exact):
    if not exact:  # no per-model cache: the incremental block products
        monkeypatch.setattr(dkps.pair_sums, "EXACT_UPDATE_BYTES", 0)
    R1, R2 = quick[quick.model_id != "model_17"], quick[quick.model_id == "model_17"]
    est = PKPS().fit(R1)
    before_names = list(est.model_names_)
    num_before, den_before = est._num.copy(), est._den.copy()
    fit_evals = est.last_kernel_evaluations_
    calls = []
    real = kernels.query_gram

    def counting(kernel, U1, U2, bandwidths=(None,)):
        calls.append(len(U1) * len(U2) * len(bandwidths))
        return real(kernel, U1, U2, bandwidths)

    monkeypatch.setattr(kernels, "query_gram", counting)
    est.update(R2)
    names = est.model_names_
    assert est.last_update_pairs_ == {(a, b) for a in names for b in names if "model_17" in (a, b)}
    # kernel evaluations: the new model's queries x all queries, per bandwidth — not all pairs
    q17 = R2.query_id.nunique()
    q_all = quick.query_id.nunique()
    if exact:  # known queries only: the fit's kernel matrices are reused, none is evaluated
        assert sum(calls) == est.last_kernel_evaluations_ == 0
    else:
        assert sum(calls) == est.last_kernel_evaluations_ == q17 * q_all * 5
    assert est.last_kernel_evaluations_ < fit_evals
    # the unaffected block is bitwise unchanged
    pos = [names.index(m) for m in before_names]
    np.testing.assert_array_equal(est._num[:, pos][:, :, pos], num_before)
    np.testing.assert_array_equal(est._den[:, pos][:, :, pos], den_before)


def test_update_edge_cases(small):
    est = PKPS().fit(small)
    before = est.distance_matrix_.copy()
    assert est.update(small.iloc[:0]) is est  # empty: no-op
    np.testing.assert_array_equal(est.distance_matrix_, before)
    new = small.iloc[:3].copy()
    new["suite"] = "other"
    with pytest.raises(ValueError, match="re-run fit"):
        PKPS().fit(small.assign(suite="default")).update(new)
    with pytest.raises(NotFittedError):
        PKPS().update(small)
    with pytest.warns(UserWarning, match="replaced 2 "):
        est.update(small.iloc[:2])
    bad = small.iloc[:1].copy()
    bad["query_embedding"] = [np.asarray(bad.query_embedding.iloc[0]) + 1.0]
    with pytest.raises(ValueError, match="query_embedding"):
        est.update(bad)


REFIT = [pytest.param(c, id=n) for n, c in all_estimators("refit")]  # every estimator whose update is a refit


@pytest.mark.parametrize("make", [*REFIT, pytest.param(lambda: SampleScore(fallback="task_mean"), id="task_mean")])
def test_baseline_update_equals_refit(small, make):
    R1 = small[small.model_id < "model_09"]
    R2 = small[small.model_id >= "model_09"]
    data = small.copy()
    if isinstance(make(), IRT):  # IRT needs binary scores
        rng = np.random.default_rng(0)
        data["score"] = (rng.random(len(data)) < data["score"]).astype(float)
        R1, R2 = data[data.model_id < "model_09"], data[data.model_id >= "model_09"]
    a = make().fit(R1).update(R2)
    b = make().fit(pd.concat([R1, R2], ignore_index=True))
    cells = [{"model_id": m} for m in b.model_names_]
    pa = a.predict(cells, as_frame=True).score_hat.to_numpy()
    pb = b.predict(cells, as_frame=True).score_hat.to_numpy()
    np.testing.assert_allclose(pa, pb, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_ensemble_update_equals_fit(quick):
    R1, R2 = split(quick)
    cfg = dict(query_kwargs=dict(pca_dim=None, bandwidth=0.8), response_kwargs=dict(pca_dim=None))

    def make():
        return Ensemble([PKPS(**cfg), LRMC()], mode="cv", holdout=None)

    a = make().fit(R1).update(R2)
    b = make().fit(pd.concat([R1, R2], ignore_index=True))
    assert a.weight_ == b.weight_
    np.testing.assert_allclose(a.predict(as_frame=True).score_hat, b.predict(as_frame=True).score_hat, rtol=1e-9)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PKPS(query_kwargs=dict(bandwidth=1.0, pca_dim=None), response_kwargs=dict(pca_dim=None)),
        lambda: PKPS(
            query_kwargs=dict(bandwidth="cv", bandwidth_ref=1.0, pca_dim=None), response_kwargs=dict(pca_dim=None)
        ),
        lambda: DKPS(response_kwargs=dict(pca_dim=None)),
    ],
    ids=["fixed", "cv", "DKPS"],
)
def test_update_is_bit_identical_to_a_fresh_fit_with_data_free_reducers(quick, make):
    # new models (one sorts into the middle) answering known queries, and extra rows of a known model
    new = quick.model_id.isin(["model_05", "model_33", "model_38"]) | (
        (quick.model_id == "model_02") & quick.query_id.str.endswith("3")
    )
    R1, R2 = quick[~new], quick[new]
    upd = make().fit(R1).update(R2)
    fresh = make().fit(pd.concat([R1, R2], ignore_index=True))
    assert upd.model_names_ == fresh.model_names_
    np.testing.assert_array_equal(upd.distance_matrix_, fresh.distance_matrix_)
    assert upd.bandwidth_ == fresh.bandwidth_
    assert upd.predict() == fresh.predict()
    assert upd.predict(whiten=True) == fresh.predict(whiten=True)
