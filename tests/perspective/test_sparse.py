"""blindspot.perspective.sparse and blindspot.data.epoch_hub: completable sub-matrix, scales, completion, masked-cell CV,
d_eff / greedy r90 of completed matrices and the imputation calibration (H.50)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from blindspot.core.coverage import greedy_select
from blindspot.core.spectrum import d_eff
from blindspot.data.epoch_hub import load_epoch_hub, load_paper_epoch, load_sparse_scores, sparse_stand_in
from blindspot.perspective import sparse
from blindspot.perspective.completion import complete_masks


def low_rank_frame(rng, n=60, k=10, rank=2, missing=0.5, noise=0.0, scales=True) -> tuple[pd.DataFrame, np.ndarray]:
    """A rank-``rank`` matrix on mixed scales with cells hidden at random (every row keeps >= 3)."""
    X = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, k)) + noise * rng.normal(size=(n, k))
    if scales:
        X = X * np.geomspace(0.01, 100, k) + np.linspace(0, 1000, k)
    hide = rng.random((n, k)) < missing
    for i in range(n):
        keep = rng.choice(k, 3, replace=False)
        hide[i, keep] = False
    df = pd.DataFrame(np.where(hide, np.nan, X), index=[f"m{i}" for i in range(n)], columns=[f"b{j}" for j in range(k)])
    return df, X


# --------------------------------------------------------------------------------------------
# completable
# --------------------------------------------------------------------------------------------
def _feasible(obs, rows, cols, m, b):
    sub = obs[np.ix_(rows, cols)]
    return (sub.sum(axis=1) >= m).all() and (sub.sum(axis=0) >= b).all()


@pytest.mark.parametrize("seed", range(6))
def test_completable_is_the_largest_feasible_submatrix(seed):
    rng = np.random.default_rng(seed)
    obs = rng.random((6, 5)) < 0.6
    m, b = 2, 3
    union_r, union_c = np.zeros(6, bool), np.zeros(5, bool)
    for rs in itertools.product([0, 1], repeat=6):
        for cs in itertools.product([0, 1], repeat=5):
            r, c = np.array(rs, bool), np.array(cs, bool)
            if r.any() and c.any() and _feasible(obs, r, c, m, b):
                union_r |= r
                union_c |= c
    df = pd.DataFrame(np.where(obs, rng.random(obs.shape), np.nan), index=list("abcdef"), columns=list("ABCDE"))
    if union_r.sum() >= 3 and union_c.sum() >= 2:
        got = sparse.completable(df, m, b)
        assert list(got.scores.index) == list(df.index[union_r])
        assert list(got.scores.columns) == list(df.columns[union_c])
        assert _feasible(obs, union_r, union_c, m, b)  # the union of feasible sets is feasible
        assert set(got.dropped_models) == set(df.index[~union_r])
    else:
        with pytest.raises(ValueError, match="lower the bounds"):
            sparse.completable(df, m, b)


def test_completable_bad_bounds(rng):
    df, _ = low_rank_frame(rng)
    for kw, match in (({"min_model_obs": 0}, "min_model_obs"), ({"min_benchmark_obs": 2.5}, "min_benchmark_obs")):
        with pytest.raises(ValueError, match=match):
            sparse.completable(df, **kw)


# --------------------------------------------------------------------------------------------
# scales
# --------------------------------------------------------------------------------------------
def test_column_scale_round_trip_and_units(rng):
    df, _ = low_rank_frame(rng, scales=False)
    df["minutes"] = 10 ** rng.uniform(-1, 3, len(df))  # four decades: log10
    df["with_zero"] = np.r_[0.0, rng.uniform(1, 1000, len(df) - 1)]  # spans decades but has a 0: no log
    df["accuracy"] = np.r_[0.001, rng.uniform(0.05, 1, len(df) - 1)]  # spans decades, not right-skewed: no log
    sc = sparse.column_scale(df)
    assert sc.log.tolist() == [False] * 10 + [True, False, False]
    Z = sc.transform(df)
    obs = df.notna().to_numpy()
    assert np.allclose([Z[obs[:, j], j].mean() for j in range(Z.shape[1])], 0, atol=1e-12)
    assert np.allclose([Z[obs[:, j], j].std() for j in range(Z.shape[1])], 1)
    back = sc.inverse(Z)
    assert np.allclose(back[obs], df.to_numpy()[obs], rtol=1e-12)
    assert sparse.column_scale(df, log=None).log.sum() == 0
    with pytest.raises(ValueError, match="values <= 0"):
        sparse.column_scale(df, log=["with_zero"])
    with pytest.raises(ValueError, match="not benchmarks"):
        sparse.column_scale(df, log=["nope"])
    with pytest.raises(ValueError, match="no spread"):
        sparse.column_scale(df.assign(flat=1.0))
    with pytest.raises(ValueError, match="fewer than 2 observed"):
        sparse.column_scale(df.assign(lonely=[1.0] + [np.nan] * (len(df) - 1)))


# --------------------------------------------------------------------------------------------
# completion
# --------------------------------------------------------------------------------------------
def test_complete_recovers_a_low_rank_matrix_on_mixed_scales(rng):
    df, X = low_rank_frame(rng, n=80, k=10, rank=2, missing=0.5)
    c = sparse.complete(df)
    obs = df.notna().to_numpy()
    assert (c.filled.to_numpy()[obs] == df.to_numpy()[obs]).all()  # observed cells untouched
    assert np.isfinite(c.filled.to_numpy()).all()
    Xz, Fz = c.scale.transform(X), c.filled_z
    err = np.abs(Fz - Xz)[~obs].mean()
    base = np.abs(np.nanmean(np.where(obs, Xz, np.nan), axis=0) - Xz)[~obs].mean()
    assert err < 0.25 * base  # a rank-2 matrix half observed: LRMC is far better than column means


def test_completion_is_invariant_to_column_units(rng):
    df, _ = low_rank_frame(rng, scales=False)
    rescaled = df * np.geomspace(1e-3, 1e3, df.shape[1]) + 500.0
    a, b = sparse.complete(df, seed=1), sparse.complete(rescaled, seed=1)
    assert np.allclose(a.filled_z, b.filled_z, atol=1e-8)
    # without standardisation the large-unit columns would dominate Soft-Impute: results differ
    raw = complete_masks(rescaled.to_numpy(), rescaled.notna().to_numpy()[None], "cv", seed=1)[0][0]
    assert not np.allclose(b.filled.to_numpy(), np.where(rescaled.notna(), rescaled, raw), rtol=1e-3)


def test_complete_and_complete_masks_reject_bad_input(rng):
    df, _ = low_rank_frame(rng)
    holed = df.copy()
    holed.iloc[0] = np.nan
    with pytest.raises(ValueError, match="no observed score"):
        sparse.complete(holed)  # model m0 has no observed cell
    Y = df.to_numpy()
    with pytest.raises(ValueError, match="NaN cell"):
        complete_masks(Y, np.ones((1,) + Y.shape, bool))
    with pytest.raises(ValueError, match="masks must have shape"):
        complete_masks(Y, np.ones((1, 3, 3), bool))
    with pytest.raises(ValueError, match="unknown LRMC setting"):
        complete_masks(Y, ~np.isnan(Y), n_lambda=3)
    with pytest.raises(ValueError, match="observe no cell"):
        complete_masks(Y, np.zeros((1,) + Y.shape, bool))


# --------------------------------------------------------------------------------------------
# folds and the additive baseline
# --------------------------------------------------------------------------------------------
def test_fold_masks_partition_the_observed_cells(rng):
    obs = rng.random((30, 7)) < 0.4
    T = sparse.fold_masks(obs, n_folds=4, n_repeats=3, seed=2)
    assert T.shape == (12, 30, 7)
    for r in range(3):
        block = T[4 * r : 4 * r + 4]
        assert (block.sum(axis=0) == obs).all()  # disjoint, and together every observed cell
        sizes = block.sum(axis=(1, 2))
        assert sizes.max() - sizes.min() <= 1
    assert not (T[:4] == T[4:8]).all()  # repeats differ
    with pytest.raises(ValueError, match="n_folds"):
        sparse.fold_masks(obs, n_folds=1)
    with pytest.raises(ValueError, match="cannot be split"):
        sparse.fold_masks(np.eye(3, dtype=bool), n_folds=5)


def test_twoway_fit_is_least_squares(rng):
    a, b = rng.normal(size=15), rng.normal(size=6)
    Z = a[:, None] + b[None, :]
    M = rng.random(Z.shape) < 0.5
    M[np.arange(15), np.arange(15) % 6] = True  # a connected design
    assert np.allclose(sparse.twoway_fit(Z, M)[0], Z, atol=1e-6)  # an additive matrix is recovered exactly
    Zn = Z + rng.normal(size=Z.shape)
    i, j = np.nonzero(M)
    A = np.zeros((i.size, 21))
    A[np.arange(i.size), i] = 1
    A[np.arange(i.size), 15 + j] = 1
    coef = np.linalg.lstsq(A, Zn[i, j], rcond=None)[0]
    assert np.allclose(sparse.twoway_fit(Zn, M)[0], coef[:15, None] + coef[None, 15:], atol=1e-6)
    M2 = M.copy()
    M2[0] = False  # a row without cells is predicted by b_j alone
    P = sparse.twoway_fit(Zn, M2)[0]
    assert np.allclose(P[0] - P[0].mean(), P[1] - P[1].mean(), atol=1e-8)


# --------------------------------------------------------------------------------------------
# masked-cell cross-validation
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cv_case():
    rng = np.random.default_rng(7)
    df, _ = low_rank_frame(rng, n=50, k=8, rank=2, missing=0.4, noise=0.05)
    return df, sparse.masked_cv(df, n_folds=4, n_repeats=2, seed=3, n_boot=200)


def test_masked_cv_bookkeeping(cv_case):
    df, cv = cv_case
    n_obs = int(df.notna().to_numpy().sum())
    assert len(cv.cells) == 2 * n_obs
    assert (cv.cells.groupby("repeat").size() == n_obs).all()
    assert not cv.cells.duplicated(["repeat", "model", "benchmark"]).any()  # each cell held out once per repeat
    for m in sparse.METHODS:
        assert cv.mae[m] == pytest.approx(np.abs(cv.cells[m] - cv.cells.z).mean())
    assert cv.per_benchmark["n"].sum() == n_obs
    assert cv.ratio == pytest.approx(cv.mae["lrmc"] / cv.mae["mean"])
    assert cv.ratio_lo <= cv.ratio <= cv.ratio_hi
    # the mean baseline is the held-out cell's column mean over that fold's training cells
    sc = sparse.column_scale(df)
    Z = pd.DataFrame(sc.transform(df), index=df.index, columns=df.columns)
    row = cv.cells.iloc[5]
    fold = cv.cells[(cv.cells["repeat"] == row["repeat"]) & (cv.cells.fold == row.fold)]
    held = set(zip(fold.model, fold.benchmark))
    col = Z[row.benchmark].dropna()
    train = [v for mdl, v in col.items() if (mdl, row.benchmark) not in held]
    assert row["mean"] == pytest.approx(np.mean(train))


def test_lrmc_beats_the_column_mean_on_a_low_rank_matrix(cv_case):
    _, cv = cv_case
    assert cv.ratio_hi < 0.5 and cv.gain > 0.5


def test_a_held_out_value_never_reaches_its_prediction(rng):
    df, _ = low_rank_frame(rng, n=30, k=6, missing=0.3)
    sc = sparse.column_scale(df)
    a = sparse.masked_cv(df, n_folds=3, seed=1, scale=sc, n_boot=20)
    cell = a.cells.iloc[0]
    moved = df.copy()
    moved.loc[cell.model, cell.benchmark] += 1e6  # change one held-out value, keep the units fixed
    b = sparse.masked_cv(moved, n_folds=3, seed=1, scale=sc, n_boot=20)
    got = b.cells.set_index(["model", "benchmark"]).loc[(cell.model, cell.benchmark)]
    assert got.lrmc == cell.lrmc and got["mean"] == cell["mean"] and got.twoway == cell.twoway
    assert got.z != cell.z


def test_masked_cv_bad_input(rng):
    df, _ = low_rank_frame(rng)
    with pytest.raises(ValueError, match="n_boot"):
        sparse.masked_cv(df, n_boot=1)
    with pytest.raises(ValueError, match="level"):
        sparse.masked_cv(df, level=1.0)
    with pytest.raises(ValueError, match="other columns"):
        sparse.masked_cv(df, scale=sparse.column_scale(df.iloc[:, :5]))
    with pytest.raises(ValueError, match="unknown LRMC setting"):
        sparse.masked_cv(df, lrmc={"n_lambda": 4})
    inner = sparse.masked_cv(df, n_folds=4, n_boot=20, lrmc={"n_folds": 2, "n_lambdas": 3})  # inner != outer folds
    assert inner.fold_filled.shape[0] == 4 and inner.lambdas.shape == (4,)


# --------------------------------------------------------------------------------------------
# d_eff and r90 of completed matrices
# --------------------------------------------------------------------------------------------
def test_deff_r90_stack_agrees_with_the_one_matrix_functions(rng):
    X = rng.normal(size=(4, 40, 7)) @ rng.normal(size=(7, 7))
    d, r = sparse.deff_r90_stack(X)
    for b in range(4):
        assert d[b] == pytest.approx(d_eff(X[b]), rel=1e-10)
        assert r[b] == greedy_select(np.corrcoef(X[b], rowvar=False), target=0.9).r_target
    with pytest.raises(ValueError, match="target"):
        sparse.deff_r90_stack(X, target=0)


def test_completed_spectrum_intervals(cv_case):
    df, cv = cv_case
    comp = sparse.complete(df, seed=3)
    sp = sparse.completed_spectrum(comp, cv, n_boot=200, seed=1)
    assert sp.d_eff == pytest.approx(d_eff(comp.filled_z)) and sp.n == len(df)
    th = sp.fold_d_eff.reshape(2, 4)
    jack = np.sqrt(np.mean(3 / 4 * ((th - th.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)))
    assert sp.se_cells == pytest.approx(jack)
    assert sp.lo < sp.d_eff < sp.hi
    assert sp.hi - sp.lo == pytest.approx(2 * 1.959964 * np.hypot(sp.se_cells, sp.se_models), rel=1e-5)
    assert sp.r90_fold_min <= sp.r90_fold_max and sp.r90_lo <= sp.r90_hi
    front = sparse.completed_spectrum(comp, cv, n_boot=50, frontier=True)
    assert front.n == (len(df) + 1) // 2 and front.fold_d_eff.size == 8
    alone = sparse.completed_spectrum(comp, None, n_boot=50)
    assert np.isnan(alone.se_cells) and alone.fold_d_eff.size == 0
    other = sparse.masked_cv(df.iloc[:-3], n_folds=3, n_boot=20)
    with pytest.raises(ValueError, match="cv was run on"):
        sparse.completed_spectrum(comp, other)


# --------------------------------------------------------------------------------------------
# calibration of the imputations
# --------------------------------------------------------------------------------------------
def test_factor_truth_has_the_requested_spectrum():
    rng = np.random.default_rng(0)
    Y = sparse.factor_truth(40000, 6, 2.0, rng)
    lam = np.sort(np.linalg.eigvalsh(np.cov(Y, rowvar=False)))[::-1]
    assert np.allclose(lam, np.exp(-np.arange(6) / 2.0), rtol=0.05)
    with pytest.raises(ValueError, match="tau"):
        sparse.factor_truth(10, 3, 0.0, rng)


def test_mean_impute_is_column_mean_filling(rng):
    Y = rng.normal(size=(20, 4))
    M = rng.random((2, 20, 4)) < 0.6
    M[:, :2] = True
    F = sparse.mean_impute(Y, M)
    for b in range(2):
        expect = pd.DataFrame(np.where(M[b], Y, np.nan)).fillna(pd.DataFrame(np.where(M[b], Y, np.nan)).mean())
        assert np.allclose(F[b], expect.to_numpy())


def test_mean_imputation_inflates_and_lrmc_tracks_the_truth(rng):
    obs = rng.random((80, 10)) < 0.35
    obs[np.arange(80), np.arange(80) % 10] = True
    obs[np.arange(80), (np.arange(80) + 3) % 10] = True
    cal = sparse.calibrate_imputation(obs, taus=(0.7, 2.0), reps=2, seed=0)
    assert len(cal) == 4 and set(cal.rep) == {0, 1}
    assert (cal.d_eff_mean > cal.d_eff_true).all()  # mean imputation shrinks correlations
    assert (np.abs(cal.d_eff_lrmc - cal.d_eff_true) < np.abs(cal.d_eff_mean - cal.d_eff_true)).all()
    with pytest.raises(ValueError, match="every column needs"):
        sparse.calibrate_imputation(np.eye(5, dtype=bool))


def test_invert_calibration():
    cal = pd.DataFrame(
        {"tau": [1, 1, 2, 2, 4, 4], "d_eff_true": [1, 1, 2, 2, 4, 4], "d_eff_mean": [3, 3, 5, 5, 9, 9]}
    )  # estimate = 2 * true + 1
    assert sparse.invert_calibration(cal, 7.0) == pytest.approx(3.0)
    assert sparse.invert_calibration(cal, 10.0) is None
    with pytest.raises(ValueError, match="not increasing"):
        sparse.invert_calibration(cal.assign(d_eff_mean=[3, 3, 2, 2, 1, 1]), 2.0)
    with pytest.raises(ValueError, match="must come from"):
        sparse.invert_calibration(cal, 2.0, estimate="d_eff_lrmc")


# --------------------------------------------------------------------------------------------
# data: the hub export and the stand-in
# --------------------------------------------------------------------------------------------
def test_stand_in_is_sparse_and_seeded():
    a, b = sparse_stand_in(seed=3), sparse_stand_in(seed=3)
    assert a.synthetic and a.scores.equals(b.scores)
    assert abs(a.missing_fraction - 0.9) < 0.02
    assert sparse.column_scale(sparse.completable(a).scores).log.any()  # the minutes-like column
    with pytest.raises(ValueError, match="density"):
        sparse_stand_in(density=1.0)


def test_loaders_fall_back_on_an_empty_directory(tmp_path):
    assert load_epoch_hub(tmp_path).synthetic and load_paper_epoch(tmp_path).synthetic
    assert load_paper_epoch(tmp_path).missing_fraction > 0.5  # sparse, unlike load_suite's dense fallback
    with pytest.raises(ValueError, match="not available"):
        load_epoch_hub(tmp_path, fallback=False)


def test_load_sparse_scores_keeps_the_gaps_of_any_file(tmp_path):
    """A reader's file keeps its missing cells as NaN (the book's default policy drops such rows); 'epoch'
    without data is the sparse stand-in, a dense suite stays dense; a name that is neither fails in one line."""
    rng = np.random.default_rng(0)
    S = rng.normal(50, 10, size=(6, 4))
    S[1, 2] = S[4, 0] = np.nan
    f = tmp_path / "mine.csv"
    pd.DataFrame(S, columns=list("abcd")).assign(model=[f"m{i}" for i in range(6)]).to_csv(f, index=False)
    t = load_sparse_scores(f)
    assert t.scores.shape == (6, 4) and int(t.scores.isna().sum().sum()) == 2 and not t.synthetic
    np.testing.assert_array_equal(np.isnan(t.values), np.isnan(S))
    empty = tmp_path / "empty"
    empty.mkdir()
    stand_in = load_sparse_scores("epoch", data_dir=empty)
    assert stand_in.synthetic and stand_in.missing_fraction > 0.5
    assert load_sparse_scores("extended", data_dir=empty).missing_fraction == 0.0
    with pytest.raises(ValueError, match="neither a named suite"):
        load_sparse_scores(tmp_path / "absent.csv")


def test_hub_export_and_inclusion_rule(data_dir):
    hub = load_epoch_hub(data_dir, fallback=False)
    assert hub.scores.shape == (577, 49) and "eci_score" not in hub.scores.columns
    assert round(hub.missing_fraction, 3) == 0.910  # PROVENANCE.md: 0.910 over the 49 benchmarks
    c = sparse.completable(hub, 5, 10)
    obs = hub.scores.notna()
    kept_r, kept_c = obs.index.isin(c.scores.index), obs.columns.isin(c.scores.columns)
    assert (c.observed.sum(axis=1) >= 5).all() and (c.observed.sum(axis=0) >= 10).all()
    assert c.shape[0] <= 205  # PROVENANCE.md: 205 models have >= 5 of the 49 benchmarks at all
    # maximal: adding back any one dropped benchmark or model breaks a bound
    sub = obs.loc[kept_r]
    assert (sub.loc[:, ~kept_c].sum(axis=0) < 10).all()
    assert (obs.loc[~kept_r, kept_c].sum(axis=1) < 5).all()
