"""No leakage: a held-out group's targets never reach its predictions.

Corrupting a target: ``reference_score <- 1 - reference_score`` where references exist, else
``score <- 1 - score``. Each invariance is checked for exact equality, and each test is shown able
to fail: a deliberately leaky variant, or corrupting a different group, changes the predictions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dkps import DKPS, IRT, LRMC, PKPS, Ensemble, SampleScore, generate_benchmark_data
from dkps.discovery import all_estimators
from dkps.synthetic import score_records


@pytest.fixture(scope="module")
def fam_data():
    bd = generate_benchmark_data(
        n_models=24,
        n_families=8,
        n_tasks=5,
        n_queries_per_task=8,
        obs_prob=0.7,
        random_state=0,
        generative_model="factor",
        queries_per_cell=4,
    )
    return score_records(bd)


@pytest.fixture(scope="module")
def ref_data():
    bd = generate_benchmark_data(
        n_models=24,
        n_families=8,
        n_tasks=5,
        n_queries_per_task=8,
        obs_prob=1.0,
        random_state=1,
        generative_model="factor",
        queries_per_cell=2,
        binary_scores=True,
    )
    return bd.data


def corrupt(data: pd.DataFrame, rows: np.ndarray) -> pd.DataFrame:
    out = data.copy()
    if "reference_score" in out.columns:
        out.loc[rows, "reference_score"] = 1 - out.loc[rows, "reference_score"]
    else:
        out.loc[rows, "score"] = 1 - out.loc[rows, "score"]
    return out


def preds(est, cells, **kw):
    return est.predict(cells, as_frame=True, **kw).score_hat.to_numpy()


class LeakyPKPS(PKPS):
    """Deliberately leaky: claims holdout='model' but keeps the target model in its training set."""

    def _exclusion(self, holdout, family_fn=None):
        n = len(self.model_names_)
        return np.zeros((n, n), dtype=bool)


def model_invariance(cls, data, model="model_05", **kw):
    cells = [{"model_id": model}]
    base = preds(cls().fit(data), cells, **kw)
    bad = preds(cls().fit(corrupt(data, (data.model_id == model).to_numpy())), cells, **kw)
    np.testing.assert_array_equal(base, bad)


def test_pkps_model_holdout_ignores_own_targets(fam_data):
    for model in ("model_00", "model_05", "model_11"):
        model_invariance(PKPS, fam_data, model)
        model_invariance(DKPS, fam_data, model)


def test_leaky_variant_fails_the_model_invariance(fam_data):
    with pytest.raises(AssertionError):
        model_invariance(LeakyPKPS, fam_data)


def test_non_nested_bandwidth_selection_leaks(fam_data):
    """The original package picks one bandwidth from every model's scores (selection='fit' here);
    corrupting model_09's own scores then moves its predictions. The nested default does not.
    (A grid of factors 0.25..4, on which the corruption moves the fit-time choice on these data.)"""

    def pkps():
        return PKPS(query_kwargs=dict(bandwidth_grid=(0.25, 0.5, 1.0, 2.0, 4.0)))

    model_invariance(pkps, fam_data, "model_09")
    with pytest.raises(AssertionError):
        model_invariance(pkps, fam_data, "model_09", selection="fit")


PERSPECTIVE_SPACES = [pytest.param(c, id=n) for n, c in all_estimators() if issubclass(c, PKPS)]


@pytest.mark.parametrize("cls", PERSPECTIVE_SPACES)
def test_family_holdout_ignores_the_familys_targets(fam_data, cls):
    fam = "family_3"
    members = fam_data.family == fam
    cells = [{"model_id": m} for m in sorted(fam_data.model_id[members].unique())]
    base = preds(cls().fit(fam_data), cells, holdout="family")
    same = preds(cls().fit(corrupt(fam_data, members.to_numpy())), cells, holdout="family")
    np.testing.assert_array_equal(base, same)
    # non-vacuity: another family's targets do reach family_3's predictions
    other = preds(cls().fit(corrupt(fam_data, (fam_data.family == "family_5").to_numpy())), cells, holdout="family")
    assert not np.array_equal(base, other)


def test_whiten_reads_own_other_tasks_but_not_the_cell(fam_data):
    est = PKPS().fit(fam_data)
    obs = est.targets_.notna()
    m = "model_04"
    t = obs.columns[obs.loc[m]][0]
    u = obs.columns[obs.loc[m]][1]
    cell = [{"model_id": m, "task_id": t}]
    base = preds(est, cell, whiten=True)
    own = (fam_data.model_id == m) & (fam_data.task_id == t)
    np.testing.assert_array_equal(preds(PKPS().fit(corrupt(fam_data, own.to_numpy())), cell, whiten=True), base)
    other = (fam_data.model_id == m) & (fam_data.task_id == u)
    assert not np.array_equal(preds(PKPS().fit(corrupt(fam_data, other.to_numpy())), cell, whiten=True), base)


def test_lrmc_model_and_family_holdout(fam_data):
    est = LRMC().fit(fam_data)
    obs = est.targets_.notna()
    m = "model_06"
    t = obs.columns[obs.loc[m]][0]
    cell = [{"model_id": m, "task_id": t}]
    own = ((fam_data.model_id == m) & (fam_data.task_id == t)).to_numpy()
    base = preds(est, cell, holdout="model")
    np.testing.assert_array_equal(preds(LRMC().fit(corrupt(fam_data, own)), cell, holdout="model"), base)
    assert not np.array_equal(
        preds(LRMC().fit(corrupt(fam_data, own)), cell, holdout=None), preds(est, cell, holdout=None)
    )
    fam = fam_data.family[fam_data.model_id == m].iloc[0]
    sib = ((fam_data.family == fam) & (fam_data.model_id != m)).to_numpy()
    basef = preds(est, cell, holdout="family")
    np.testing.assert_array_equal(preds(LRMC().fit(corrupt(fam_data, sib | own)), cell, holdout="family"), basef)


def test_ensemble_family_holdout(ref_data):
    def make():
        return Ensemble([PKPS(), SampleScore()], mode="cv", holdout="family")

    fam = "family_2"
    members = (ref_data.family == fam).to_numpy()
    cells = [{"model_id": m} for m in sorted(ref_data.model_id[members].unique())]
    base = preds(make().fit(ref_data), cells)
    np.testing.assert_array_equal(preds(make().fit(corrupt(ref_data, members)), cells), base)
    # non-vacuity: the other families' targets do reach family_2's predictions
    other = preds(make().fit(corrupt(ref_data, ~members)), cells)
    assert not np.array_equal(base, other)


def test_ensemble_kfold_oof_ignores_the_cells_target(fam_data):
    def make():
        return Ensemble([PKPS(), LRMC()], mode="cv", holdout=None, predict_kwargs=[{"whiten": True}, {}])

    a = make().fit(fam_data)
    oof = a.oof_predictions_
    row = oof.iloc[7]
    cell = ((fam_data.model_id == row.model_id) & (fam_data.task_id == row.task_id)).to_numpy()
    b = make().fit(corrupt(fam_data, cell)).oof_predictions_
    hit = (b.model_id == row.model_id) & (b.task_id == row.task_id)
    assert b[hit].y.iloc[0] == pytest.approx(1 - row.y, abs=1e-12)
    assert b[hit].p0.iloc[0] == row.p0 and b[hit].p1.iloc[0] == row.p1


@pytest.mark.parametrize("make", [SampleScore, IRT])
def test_evidence_estimators_never_read_reference(ref_data, make):
    cells = [{"model_id": m} for m in sorted(ref_data.model_id.unique())[:6]]
    a = preds(make().fit(ref_data), cells)
    b = preds(make().fit(corrupt(ref_data, np.ones(len(ref_data), bool))), cells)
    np.testing.assert_array_equal(a, b)
