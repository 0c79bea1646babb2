"""Ensemble."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dkps import LRMC, PKPS, Ensemble, SampleScore
from dkps.ensemble import blend_weight


def test_parameter_validation_at_fit(small):
    for args, kw, match in [
        ([PKPS()], {}, "exactly 2"),
        ([PKPS(), LRMC(), SampleScore()], {}, "exactly 2"),
        ([PKPS(), object()], {}, "dkps estimators"),
        ([PKPS(), LRMC()], dict(mode="best"), "mode"),
        ([PKPS(), LRMC()], dict(mode="fixed"), "alpha"),
        ([PKPS(), LRMC()], dict(mode=1.5), r"'mode' parameter .* float in the range \[0.0, 1.0\]"),
        ([PKPS(), LRMC()], dict(predict_kwargs=[{}]), "two dicts"),
        ([PKPS(), LRMC()], dict(holdout="family", predict_kwargs=[{"holdout": "model"}, {}]), "holdout"),
        ([PKPS(), LRMC()], dict(grid=1), r"'grid' parameter .* int in the range \[2, inf\)"),
    ]:
        ens = Ensemble(args, **kw)  # stored untouched (scikit-learn convention) ...
        with pytest.raises(ValueError, match=match):
            ens.fit(small)  # ... validated by fit


def test_grid_as_a_number_of_points(small):
    ens = Ensemble([PKPS(), LRMC()], grid=11).fit(small)
    assert ens.grid == 11 and ens.weight_ in np.linspace(0, 1, 11)


def test_blend_weight_brute_force_and_ties():
    rng = np.random.default_rng(0)
    p0, p1, y = rng.random(50), rng.random(50), rng.random(50)
    grid = np.linspace(0, 1, 21)
    w = blend_weight(p0, p1, y, grid)
    maes = [np.abs(g * p0 + (1 - g) * p1 - y).mean() for g in grid]
    assert w == grid[int(np.argmin(maes))]
    same = rng.random(10)
    assert blend_weight(same, same, rng.random(10), grid) == 0.5  # all tie -> 0.5
    assert blend_weight(np.array([0.0]), np.array([1.0]), np.array([0.5]), np.array([0.2, 0.5, 0.8])) == 0.5
    with pytest.warns(UserWarning, match="w = 0.5"):
        assert blend_weight(np.array([np.nan]), np.array([1.0]), np.array([0.5]), grid) == 0.5


def test_fixed_modes_blend_members_and_leave_inputs_untouched(small):
    pk, lr = PKPS(), LRMC().fit(small)
    before = lr.completed_.copy()
    for mode, w in ((0.3, 0.3), ("mean", 0.5), ("fixed", 0.8)):
        ens = Ensemble([pk, lr], mode=mode, alpha=0.8 if mode == "fixed" else None).fit(small)
        assert ens.weight_ == w == ens.alpha_global_
        p0 = ens.estimators_[0].predict(as_frame=True).score_hat.to_numpy()
        p1 = ens.estimators_[1].predict(as_frame=True).score_hat.to_numpy()
        np.testing.assert_allclose(ens.predict(as_frame=True).score_hat, w * p0 + (1 - w) * p1, rtol=1e-12)
    assert not hasattr(pk, "coords_") and ens.estimators_[0] is not pk  # members are clones
    np.testing.assert_array_equal(lr.completed_, before)


def test_cv_weight_is_learned_on_the_oof_cells(quick):
    ens = Ensemble([PKPS(), LRMC()], mode="cv", holdout=None, predict_kwargs=[{"whiten": True}, {}]).fit(quick)
    oof = ens.oof_predictions_
    assert len(oof) == int(ens.targets_.notna().to_numpy().sum()) and set(oof.fold) == set(range(5))
    assert ens.weight_ == blend_weight(oof.p0.to_numpy(), oof.p1.to_numpy(), oof.y.to_numpy(), np.asarray(ens.grid))
    got = {(d["model_id"], d["task_id"]) for d in ens.predict()}
    want = set(ens.estimators_[0].default_cells()) | set(ens.estimators_[1].default_cells())
    assert got == want


def test_group_weights_and_aliases(small):
    data = small.assign(family="f" + (small.model_id.str[6:].astype(int) % 4).astype(str))
    ens = Ensemble([PKPS(), SampleScore()], mode="cv", holdout="family").fit(data)
    assert set(ens.weights_by_group_) == {"f0", "f1", "f2", "f3"} and ens.alpha_ == ens.weights_by_group_
    assert ens.weight_ == np.median(list(ens.weights_by_group_.values()))
    union = set(ens.estimators_[0].default_cells()) | set(ens.estimators_[1].default_cells())
    assert {(d["model_id"], d["task_id"]) for d in ens.predict()} == union


def test_precision_mode_by_hand(small):
    ens = Ensemble([SampleScore(), PKPS()], mode="precision").fit(small)
    e = ens.prior_err_
    cell = small.iloc[0]
    m, t = cell.model_id, cell.task_id
    p0 = ens.estimators_[0].predict([{"model_id": m, "task_id": t}])[0]["score_hat"]
    p1 = ens.estimators_[1].predict([{"model_id": m, "task_id": t}])[0]["score_hat"]
    n = ((small.model_id == m) & (small.task_id == t)).sum()
    w = e[m] / (e[m] + p1 * (1 - p1) / n)
    got = ens.predict([{"model_id": m, "task_id": t}])[0]["score_hat"]
    assert got == pytest.approx(w * p0 + (1 - w) * p1, rel=1e-12)
    assert (e >= 1e-6).all()


def test_catalog_arrays_are_cached_read_only_and_not_pickled(small):
    """Family arrays and exclusion sets are computed once per catalog, read-only, shared by masked
    copies, equal to their definition, and an estimator that used a lambda family_fn still pickles."""
    import copy
    import pickle

    fam = lambda m: m[-1]  # noqa: E731 (a lambda on purpose: pickle cannot store it)
    est = SampleScore().fit(small)
    excl = est._exclusion("family", fam)
    codes = pd.factorize(np.array([fam(m) for m in est.model_names_], dtype=object))[0]
    assert np.array_equal(excl, codes[:, None] == codes[None, :])
    assert est._exclusion("family", fam) is excl and not excl.flags.writeable
    assert np.array_equal(est._exclusion("model"), np.eye(len(est.model_names_), dtype=bool))
    masked = est._with_masked_targets(np.zeros(est._tables.target.shape, dtype=bool))
    assert masked._exclusion("family", fam) is excl
    again = pickle.loads(pickle.dumps(est))
    assert np.array_equal(again._exclusion("family", fam), excl)
    assert copy.deepcopy(est)._family_array(fam).tolist() == [fam(m) for m in est.model_names_]


def test_validated_records_are_not_validated_again(small, monkeypatch):
    """A RefitEstimator (and an Ensemble's refit members) take the Records that validate returned."""
    import dkps.base
    import dkps.ensemble
    from dkps.records import validate

    rec = validate(small)
    ref = SampleScore().fit(small).predict(as_frame=True)
    calls = []
    monkeypatch.setattr(dkps.base, "validate", lambda *a, **k: calls.append(1) or validate(*a, **k))
    monkeypatch.setattr(dkps.ensemble, "validate", lambda *a, **k: calls.append(1) or validate(*a, **k))
    got = SampleScore().fit(rec).predict(as_frame=True)
    pd.testing.assert_frame_equal(got, ref, check_exact=True)
    Ensemble([SampleScore(), LRMC()], mode="mean").fit(small)
    assert len(calls) == 1  # the Ensemble's own validation only


def test_prefit_members_give_the_same_ensemble_as_fitting_clones(small):
    """prefit=True with members fitted on the same records: the same weights and predictions, bit
    for bit, and the members are neither cloned nor refitted; other records are refused."""
    g = {m: m[-1] for m in pd.unique(small.model_id)}
    kw = dict(mode="cv", holdout="family", family_fn=g.__getitem__)
    ref = Ensemble([PKPS(), SampleScore()], **kw).fit(small)
    pk, ss = PKPS().fit(small), SampleScore().fit(small)
    ens = Ensemble([pk, ss], prefit=True, **kw).fit(small)
    assert ens.estimators_[0] is pk and ens.estimators_[1] is ss
    assert ens.weights_by_group_ == ref.weights_by_group_
    pd.testing.assert_frame_equal(ens.predict(as_frame=True), ref.predict(as_frame=True), check_exact=True)
    with pytest.raises(ValueError, match="fitted members"):
        Ensemble([PKPS(), ss], prefit=True, **kw).fit(small)
    other = small[small.model_id != small.model_id.iloc[0]]
    with pytest.raises(ValueError, match="other records"):
        Ensemble([pk, ss], prefit=True, **kw).fit(other)
    with pytest.raises(ValueError, match="'prefit' parameter of Ensemble must be an instance of 'bool'"):
        Ensemble([pk, ss], prefit="yes").fit(small)
