"""Sparse leaderboards: complete the score matrix, measure the completion's error, and give d_eff and
greedy coverage of the completed matrix with their uncertainty (the paper's App. H.50; Soft-Impute).

A sparse leaderboard (the Epoch AI Benchmarking Hub: ~91% of cells missing, scores on mixed scales)
has no correlation matrix until its gaps are filled. The paper fills a dense-ish 49 x 31 block with
column means (H.50); this module fills the whole completable matrix by low-rank completion instead:

1. **What can be completed** (:func:`completable`). A rank-r completion determines a model's row
   from its observed cells and a benchmark's column from its observed models, so both need enough
   of them. The rule: keep benchmarks with >= ``min_benchmark_obs`` observed models and models
   with >= ``min_model_obs`` observed benchmarks *among the kept ones*, repeated until nothing
   changes. The fixed point is the largest row/column set meeting both bounds (the union of two
   sets meeting them meets them too, and peeling never removes a member of such a set).
2. **Scales** (:func:`column_scale`). Per column, optionally log10 (for positive, right-skewed
   columns spanning >= 2 decades, e.g. METR time horizons in minutes), then z-scores of the observed values:
   z_ij = (t(y_ij) - m_j) / s_j. Soft-Impute's nuclear-norm penalty is not scale-invariant, so
   without this an Elo column (spread ~10^2) would dominate 0-1 accuracies. Completion runs in z
   units and is mapped back by the inverse.
3. **Completion** (:func:`complete`): dkps Soft-Impute (:func:`blindspot.perspective.completion.complete_masks`;
   Mazumder, Hastie & Tibshirani 2010, as :mod:`dkps.lrmc`: per-column centring, lambda path, lambda
   by 5-fold CV MAE, clipping to the observed range); observed cells keep their values, missing ones
   get mu_j + Zhat_ij.
4. **Error** (:func:`masked_cv`): K-fold cross-validation over the *observed* cells, R repeats.
   Each fold's training cells are completed (with lambda chosen by the inner CV on those cells
   only: nested), and the held-out cells are predicted by LRMC, by the per-benchmark mean of the
   training cells, and by the additive model z_ij = a_i + b_j (:func:`twoway_fit`). MAE in z units,
   overall and per benchmark, with a bootstrap over models for the ratio LRMC / mean.
5. **Spectrum** (:func:`completed_spectrum`): d_eff (Theorem 1) and the greedy r90 (Theorem 4) of
   the completed matrix, with two sources of uncertainty: the R x K fold completions (each from
   (K-1)/K of the observed cells; a delete-a-group jackknife over cells gives
   se^2 = (K-1)/K sum_k (theta_k - theta_bar)^2, averaged over repeats) and a bootstrap over models
   of the completed matrix. The combined interval is theta +- z sqrt(se_cells^2 + se_models^2).
6. **What imputation does** (:func:`calibrate_imputation`): synthetic factor-model truths with a
   known dense d_eff, hidden with a real missingness pattern (rows and columns permuted, which keeps
   every row and column count), then filled by column means and by LRMC.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core.conventions import aggregate
from blindspot.core.coverage import greedy_orders
from blindspot.core.spectrum import participation_ratio
from blindspot.data.tables import ScoreTable
from blindspot.perspective.completion import complete_masks

__all__ = [
    "Completable",
    "completable",
    "ColumnScale",
    "column_scale",
    "Completion",
    "complete",
    "fold_masks",
    "twoway_fit",
    "MaskedCV",
    "masked_cv",
    "corr_stack",
    "deff_r90_stack",
    "CompletedSpectrum",
    "completed_spectrum",
    "factor_truth",
    "mean_impute",
    "calibrate_imputation",
    "invert_calibration",
]


def _frame(scores: ScoreTable | pd.DataFrame) -> pd.DataFrame:
    df = scores.scores if isinstance(scores, ScoreTable) else scores
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"expected a ScoreTable or a DataFrame (models x benchmarks), got {type(scores).__name__}")
    out = df.apply(pd.to_numeric, errors="coerce").astype(float)
    if np.isinf(out.to_numpy()).any():
        raise ValueError("the score matrix has infinite cells; use NaN for missing scores")
    return out


def _check_int(name: str, v: object, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return int(v)


# --------------------------------------------------------------------------------------------
# 1. which rows and columns can be completed
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Completable:
    """The completable sub-matrix of a sparse score table (NaN = missing).

    Attributes
    ----------
    scores : DataFrame, the kept models x kept benchmarks, missing cells NaN.
    min_model_obs, min_benchmark_obs : the inclusion bounds.
    dropped_models, dropped_benchmarks : names left out.
    rounds : peeling rounds until the fixed point.
    """

    scores: pd.DataFrame
    min_model_obs: int
    min_benchmark_obs: int
    dropped_models: tuple[str, ...]
    dropped_benchmarks: tuple[str, ...]
    rounds: int

    @property
    def observed(self) -> pd.DataFrame:
        return self.scores.notna()

    @property
    def observed_fraction(self) -> float:
        return float(self.observed.to_numpy().mean())

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.scores.shape)  # type: ignore[return-value]

    @property
    def rule(self) -> str:
        return (
            f"models with >= {self.min_model_obs} observed benchmarks and benchmarks with >= "
            f"{self.min_benchmark_obs} observed models, among each other (fixed point, {self.rounds} rounds)"
        )


def completable(scores: ScoreTable | pd.DataFrame, min_model_obs: int = 5, min_benchmark_obs: int = 10) -> Completable:
    """The largest sub-matrix whose models have >= ``min_model_obs`` and whose benchmarks have >=
    ``min_benchmark_obs`` observed cells inside it (alternate peeling to the fixed point).

    Raises
    ------
    ValueError
        Bounds below 1, or fewer than 3 models or 2 benchmarks survive.
    """
    m = _check_int("min_model_obs", min_model_obs, 1)
    b = _check_int("min_benchmark_obs", min_benchmark_obs, 1)
    df = _frame(scores)
    obs = df.notna().to_numpy()
    rows = np.ones(obs.shape[0], dtype=bool)
    cols = np.ones(obs.shape[1], dtype=bool)
    rounds = 0
    while True:
        rounds += 1
        new_cols = cols & (obs[rows].sum(axis=0) >= b)
        new_rows = rows & (obs[:, new_cols].sum(axis=1) >= m)
        if (new_rows == rows).all() and (new_cols == cols).all():
            break
        rows, cols = new_rows, new_cols
    if rows.sum() < 3 or cols.sum() < 2:
        raise ValueError(
            f"only {int(rows.sum())} model(s) and {int(cols.sum())} benchmark(s) meet min_model_obs = {m} "
            f"and min_benchmark_obs = {b}; lower the bounds (need >= 3 models and >= 2 benchmarks)"
        )
    return Completable(
        df.loc[rows, cols], m, b, tuple(map(str, df.index[~rows])), tuple(map(str, df.columns[~cols])), rounds
    )


# --------------------------------------------------------------------------------------------
# 2. per-column scales
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ColumnScale:
    """z_ij = (t_j(y_ij) - mean_j) / sd_j with t_j = log10 where ``log[j]`` else the identity."""

    columns: tuple[str, ...]
    log: np.ndarray
    mean: np.ndarray
    sd: np.ndarray

    def transform(self, Y: np.ndarray | pd.DataFrame) -> np.ndarray:
        """Scores -> z units (NaN stays NaN)."""
        Y = np.asarray(Y, dtype=float)
        if Y.shape[-1] != len(self.columns):
            raise ValueError(f"expected {len(self.columns)} columns, got {Y.shape[-1]}")
        with np.errstate(divide="ignore", invalid="ignore"):
            T = np.where(self.log, np.log10(np.where(self.log, Y, 1.0)), Y)
        return (T - self.mean) / self.sd

    def inverse(self, Z: np.ndarray) -> np.ndarray:
        """z units -> scores."""
        Z = np.asarray(Z, dtype=float)
        T = Z * self.sd + self.mean
        return np.where(self.log, 10.0 ** np.where(self.log, T, 0.0), T)

    def units(self) -> list[str]:
        """The unit a z-unit error is converted to per column: 'score' or 'log10 score'."""
        return ["log10 score" if f else "score" for f in self.log]


def column_scale(
    scores: ScoreTable | pd.DataFrame, log: str | Sequence[str] | None = "auto", log_ratio: float = 100.0
) -> ColumnScale:
    """Per-column transform and z-scoring from the observed cells (ddof = 0).

    Parameters
    ----------
    log : 'auto' (log10 for columns whose observed values are all > 0, span max/min >=
        ``log_ratio`` and are less skewed after the log: |skew(log10 y)| < |skew(y)|, e.g. time
        horizons in minutes but not an accuracy with a tiny minimum), a list of column names, or
        None (no log).

    Raises
    ------
    ValueError
        A named log column that is absent or has a value <= 0; a column with fewer than 2 observed
        values or no spread (it cannot be standardised).
    """
    df = _frame(scores)
    Y = df.to_numpy()
    M = ~np.isnan(Y)
    cols = [str(c) for c in df.columns]
    if log == "auto":
        with np.errstate(invalid="ignore"):
            lo = np.where(M, Y, np.inf).min(axis=0)
            hi = np.where(M, Y, -np.inf).max(axis=0)
            flag = (lo > 0) & np.isfinite(lo) & (hi / np.where(lo > 0, lo, 1.0) >= log_ratio)
        for j in np.flatnonzero(flag):  # only where the log makes the column less skewed
            y = Y[M[:, j], j]
            flag[j] = abs(stats.skew(np.log10(y))) < abs(stats.skew(y))
    elif log is None:
        flag = np.zeros(len(cols), dtype=bool)
    else:
        names = [log] if isinstance(log, str) else list(log)
        absent = [c for c in names if c not in cols]
        if absent:
            raise ValueError(f"log columns {absent} are not benchmarks of the table")
        flag = np.isin(cols, names)
        bad = [c for c, f, m_, y in zip(cols, flag, M.T, Y.T) if f and (y[m_] <= 0).any()]
        if bad:
            raise ValueError(f"log columns {bad} have values <= 0; log10 needs positive scores")
    n_obs = M.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(flag, np.log10(np.where(flag & M, Y, 1.0)), Y)
    T = np.where(M, T, np.nan)
    few = [c for c, k in zip(cols, n_obs) if k < 2]
    if few:
        raise ValueError(f"columns {few} have fewer than 2 observed values: they cannot be standardised")
    mean = np.nanmean(T, axis=0)
    sd = np.nanstd(T, axis=0)
    flat = [c for c, s in zip(cols, sd) if not s > 1e-12]
    if flat:
        raise ValueError(f"columns {flat} have no spread among their observed values; drop them")
    return ColumnScale(tuple(cols), flag, mean, sd)


# --------------------------------------------------------------------------------------------
# 3. completion
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Completion:
    """A Soft-Impute completion of a sparse score matrix.

    Attributes
    ----------
    filled : DataFrame in score units: observed cells unchanged, missing ones completed.
    filled_z : (n, k) the same in z units.
    fitted_z : (n, k) the low-rank fit mu_j + Zhat_ij at every cell (observed ones included).
    observed : (n, k) bool.
    lam : the lambda chosen by CV; cv_curve : its CV MAE (z units) along the lambda path.
    scale : the column transform.
    """

    filled: pd.DataFrame
    filled_z: np.ndarray
    fitted_z: np.ndarray
    observed: np.ndarray
    lam: float
    cv_curve: np.ndarray
    scale: ColumnScale

    @property
    def rank(self) -> int:
        """Numerical rank of the low-rank part (singular values above 1e-8 of the largest)."""
        Zc = self.fitted_z - self.fitted_z.mean(axis=0)
        s = np.linalg.svd(Zc, compute_uv=False)
        return int((s > 1e-8 * max(s[0], 1e-300)).sum())


def _prepare(scores, scale):
    df = _frame(scores)
    scale = column_scale(df) if scale is None else scale
    if list(scale.columns) != [str(c) for c in df.columns]:
        raise ValueError("the column scale was fitted on other columns; refit it with column_scale(scores)")
    Z = scale.transform(df.to_numpy())
    return df, scale, Z, ~np.isnan(Z)


def complete(
    scores: ScoreTable | pd.DataFrame, scale: ColumnScale | None = None, seed: int = 0, lrmc: dict | None = None
) -> Completion:
    """Complete a sparse score matrix in z units with dkps Soft-Impute, lambda by 5-fold CV (:mod:`dkps.lrmc`).

    ``lrmc`` overrides :data:`blindspot.perspective.completion.LRMC_SETTINGS` (e.g. ``{"max_iter": 50}``).

    Raises
    ------
    ValueError
        A model or benchmark without any observed cell (apply :func:`completable` first).
    """
    df, scale, Z, M = _prepare(scores, scale)
    empty_r, empty_c = ~M.any(axis=1), ~M.any(axis=0)
    if empty_r.any() or empty_c.any():
        raise ValueError(
            f"models {list(df.index[empty_r])[:5]} / benchmarks {list(df.columns[empty_c])[:5]} have no "
            "observed score; restrict to completable(scores) first"
        )
    Yhat, lam, cv = complete_masks(Z, M[None], "cv", seed=seed, **(lrmc or {}))
    filled_z = np.where(M, Z, Yhat[0])
    filled = pd.DataFrame(np.where(M, df.to_numpy(), scale.inverse(Yhat[0])), index=df.index, columns=df.columns)
    return Completion(filled, filled_z, Yhat[0], M, float(lam[0]), cv[0], scale)


# --------------------------------------------------------------------------------------------
# 4. masked-cell cross-validation
# --------------------------------------------------------------------------------------------
def fold_masks(observed: np.ndarray, n_folds: int = 5, n_repeats: int = 1, seed: int = 0) -> np.ndarray:
    """Test masks (n_repeats * n_folds, n, k): each repeat partitions the observed cells into K folds.

    Fold of the i-th observed cell (row-major) in repeat r: ``perm_r[i] mod K`` with
    ``perm_r = default_rng(seed)``'s r-th permutation, so folds differ in size by at most one.
    """
    M = np.asarray(observed, dtype=bool)
    K = _check_int("n_folds", n_folds, 2)
    R = _check_int("n_repeats", n_repeats, 1)
    obs = np.flatnonzero(M.ravel())
    if obs.size < K:
        raise ValueError(f"{obs.size} observed cells cannot be split into {K} folds")
    rng = np.random.default_rng(seed)
    out = np.zeros((R * K, M.size), dtype=bool)
    for r in range(R):
        fold = rng.permutation(obs.size) % K
        out[r * K + fold, obs] = True
    return out.reshape((R * K,) + M.shape)


def twoway_fit(Z: np.ndarray, masks: np.ndarray, n_iter: int = 500, tol: float = 1e-10) -> np.ndarray:
    """Least-squares additive fit z_ij ~ a_i + b_j on the masked cells, predicted everywhere.

    Block coordinate descent on sum_(i,j in mask) (z_ij - a_i - b_j)^2 (alternating row and column
    means of the residuals), batched over the masks (B, n, k). Rows without a masked cell get
    a_i = 0 (their prediction is b_j). On a connected design the predictions are the unique
    least-squares ones.
    """
    Z = np.where(np.isnan(Z), 0.0, np.asarray(Z, dtype=float))
    M = np.asarray(masks, dtype=bool)
    if M.ndim == 2:
        M = M[None]
    W = M.astype(float)
    rc = np.maximum(W.sum(axis=2), 1.0)
    cc = np.maximum(W.sum(axis=1), 1.0)
    a = np.zeros(M.shape[:2])
    b = (W * Z).sum(axis=1) / cc
    active = np.ones(M.shape[0], dtype=bool)  # each problem stops on its own (no coupling in a batch)
    for _ in range(n_iter):
        a_new = (W * (Z - b[:, None, :])).sum(axis=2) / rc
        b_new = (W * (Z - a_new[:, :, None])).sum(axis=1) / cc
        step = np.maximum(np.abs(a_new - a).max(axis=1), np.abs(b_new - b).max(axis=1))
        a = np.where(active[:, None], a_new, a)
        b = np.where(active[:, None], b_new, b)
        active &= step >= tol
        if not active.any():
            break
    return a[:, :, None] + b[:, None, :]


@dataclass(frozen=True)
class MaskedCV:
    """Cross-validated error of LRMC against two baselines on held-out observed cells (z units).

    Attributes
    ----------
    cells : DataFrame, one row per (repeat, held-out cell): ``repeat, fold, model, benchmark, z`` and
        the predictions ``lrmc, mean, twoway`` (z units).
    per_benchmark : DataFrame indexed by benchmark: ``n`` (observed cells), ``unit``, MAE of each
        method in z units (``mae_lrmc`` ...), ``ratio`` (lrmc / mean) and ``mae_lrmc_units``,
        ``mae_mean_units`` (z-unit errors times the column's sd: score or log10-score units).
    per_repeat : DataFrame, MAE of each method per repeat.
    mae : dict method -> MAE over all held-out cells and repeats (z units).
    ratio, ratio_lo, ratio_hi : MAE(lrmc) / MAE(mean) and its bootstrap-over-models interval.
    lambdas : (R*K,) lambda chosen by each fold's inner CV.
    fold_filled : (R*K, n, k) each fold's completion in z units (training cells kept, the rest LRMC).
    n_folds, n_repeats, level : the protocol.
    """

    cells: pd.DataFrame
    per_benchmark: pd.DataFrame
    per_repeat: pd.DataFrame
    mae: dict
    ratio: float
    ratio_lo: float
    ratio_hi: float
    lambdas: np.ndarray
    fold_filled: np.ndarray = field(repr=False)
    n_folds: int = 5
    n_repeats: int = 1
    level: float = 0.95

    @property
    def gain(self) -> float:
        """1 - ratio: the share of the per-benchmark-mean error that LRMC removes."""
        return 1.0 - self.ratio


METHODS = ("lrmc", "mean", "twoway")


def masked_cv(
    scores: ScoreTable | pd.DataFrame,
    n_folds: int = 5,
    n_repeats: int = 1,
    seed: int = 0,
    scale: ColumnScale | None = None,
    n_boot: int = 1000,
    level: float = 0.95,
    lrmc: dict | None = None,
) -> MaskedCV:
    """K-fold cross-validation over the observed cells: LRMC vs the per-benchmark mean (and a + b).

    Each of the R x K training masks is completed in one batched Soft-Impute call, every problem
    choosing its lambda by its own inner CV (nested: a held-out cell never reaches its prediction
    or its lambda; ``lrmc`` overrides :data:`blindspot.perspective.completion.LRMC_SETTINGS`, its ``n_folds``
    being the inner CV's). Baselines use the same training cells. The column scale (the z unit) is fitted
    once on all observed cells; it fixes units only — every location (column mean) is refitted on
    the training cells. The ratio interval resamples models with replacement (``n_boot`` draws of
    per-model error sums, one matrix product).

    Raises
    ------
    ValueError
        Bad fold/repeat/bootstrap counts or level; a model or benchmark without observed cells.
    """
    df, scale, Z, M = _prepare(scores, scale)
    if not M.any(axis=1).all() or not M.any(axis=0).all():
        raise ValueError("every model and benchmark needs an observed cell; restrict to completable(scores) first")
    _check_int("n_boot", n_boot, 2)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    test = fold_masks(M, n_folds, n_repeats, seed)
    train = M[None] & ~test
    Yhat, lam, _ = complete_masks(Z, train, "cv", seed=seed, **(lrmc or {}))
    cnt = train.sum(axis=1)
    Zt = np.where(train, Z[None], 0.0)
    glob = Zt.sum(axis=(1, 2)) / np.maximum(train.sum(axis=(1, 2)), 1)
    mu = np.where(cnt > 0, Zt.sum(axis=1) / np.maximum(cnt, 1), glob[:, None])
    pred = {"lrmc": Yhat, "mean": np.broadcast_to(mu[:, None, :], Yhat.shape), "twoway": twoway_fit(Z, train)}
    b, i, j = np.nonzero(test)
    K = int(n_folds)
    cells = pd.DataFrame(
        {
            "repeat": b // K,
            "fold": b % K,
            "model": df.index.to_numpy()[i],
            "benchmark": np.asarray(df.columns)[j],
            "z": Z[i, j],
            **{m: p[b, i, j] for m, p in pred.items()},
        }
    )
    err = {m: np.abs(cells[m].to_numpy() - cells["z"].to_numpy()) for m in METHODS}
    mae = {m: float(e.mean()) for m, e in err.items()}
    E = pd.DataFrame(
        {**{f"mae_{m}": e for m, e in err.items()}, "benchmark": cells.benchmark, "repeat": cells["repeat"]}
    )
    per_b = E.groupby("benchmark", sort=False)[[f"mae_{m}" for m in METHODS]].mean().reindex(df.columns)
    per_b.insert(0, "n", M.sum(axis=0))
    per_b.insert(1, "unit", scale.units())
    per_b["ratio"] = per_b["mae_lrmc"] / per_b["mae_mean"]
    per_b["mae_lrmc_units"] = per_b["mae_lrmc"] * scale.sd
    per_b["mae_mean_units"] = per_b["mae_mean"] * scale.sd
    per_rep = E.groupby("repeat")[[f"mae_{m}" for m in METHODS]].mean()
    # bootstrap over models: per-model error sums, resampled as multinomial counts (one GEMM)
    n = len(df)
    s_l = np.bincount(i, weights=err["lrmc"], minlength=n)
    s_m = np.bincount(i, weights=err["mean"], minlength=n)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    W = np.bincount((idx + n * np.arange(n_boot)[:, None]).ravel(), minlength=n_boot * n).reshape(n_boot, n)
    boot = (W @ s_l) / np.maximum(W @ s_m, 1e-300)
    a = (1 - level) / 2
    lo, hi = np.quantile(boot, [a, 1 - a])
    fold_filled = np.where(train, Z[None], Yhat)
    return MaskedCV(
        cells,
        per_b,
        per_rep,
        mae,
        mae["lrmc"] / mae["mean"],
        float(lo),
        float(hi),
        lam,
        fold_filled,
        K,
        int(n_repeats),
        float(level),
    )


# --------------------------------------------------------------------------------------------
# 5. d_eff and greedy coverage of completed matrices
# --------------------------------------------------------------------------------------------
def corr_stack(X: np.ndarray) -> np.ndarray:
    """Pearson correlation matrices (B, k, k) of a stack of score matrices (B, n, k).

    A column without spread in a slice gets a zero row and column (it adds no eigenvalue).
    """
    X = np.asarray(X, dtype=float)
    if X.ndim == 2:
        X = X[None]
    Xc = X - X.mean(axis=1, keepdims=True)
    sd = np.sqrt((Xc**2).mean(axis=1))
    ok = sd > 1e-12 * np.maximum(np.abs(X).max(axis=1), 1.0)
    Zs = Xc / np.where(ok, sd, 1.0)[:, None, :]
    C = np.matmul(np.swapaxes(Zs, 1, 2), Zs) / X.shape[1]
    C = C * (ok[:, :, None] & ok[:, None, :])
    return (C + np.swapaxes(C, 1, 2)) / 2


def deff_r90_stack(X: np.ndarray, target: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """d_eff (Theorem 1) and greedy r_target (Theorem 4) of each matrix of a stack (B, n, k).

    One batched ``eigvalsh`` and one batched greedy run (:func:`blindspot.core.coverage.greedy_orders`);
    r is the length of the shortest greedy prefix with coverage >= ``target``.
    """
    if not 0 < target <= 1:
        raise ValueError(f"target must be in (0, 1], got {target}")
    C = corr_stack(X)
    lam = np.clip(np.linalg.eigvalsh(C), 0.0, None)
    d = np.atleast_1d(participation_ratio(lam))
    _, cov = greedy_orders(C)
    r = np.argmax(cov >= target - 1e-10, axis=1) + 1
    return d, r


def _frontier_rows(F: np.ndarray) -> np.ndarray:
    """Frontier of a completed z matrix: mean z-score >= its median (the paper's frontier rule, on z units)."""
    g = aggregate(F)
    return g >= np.median(g)


@dataclass(frozen=True)
class CompletedSpectrum:
    """d_eff and greedy r90 of a completed matrix with their uncertainty.

    Attributes
    ----------
    d_eff, r90 : of the full completion; n, k : its shape (frontier rows only when ``frontier``).
    fold_d_eff, fold_r90 : (R*K,) of the fold completions (each from (K-1)/K of the observed cells).
    se_cells : delete-a-group jackknife SE over observed cells, sqrt(mean_r (K-1)/K sum_k (theta_rk -
        theta_r.)^2); NaN without fold completions.
    boot_d_eff, boot_r90 : bootstrap over models (rows of the full completion resampled).
    lo_models, hi_models : percentile interval of ``boot_d_eff``.
    lo, hi : combined interval d_eff +- z sqrt(se_cells^2 + sd(boot_d_eff)^2).
    r90_lo, r90_hi : percentile interval of ``boot_r90``; r90_fold_min, r90_fold_max : range over folds.
    """

    d_eff: float
    r90: int
    n: int
    k: int
    fold_d_eff: np.ndarray
    fold_r90: np.ndarray
    se_cells: float
    boot_d_eff: np.ndarray
    boot_r90: np.ndarray
    lo_models: float
    hi_models: float
    lo: float
    hi: float
    r90_lo: int
    r90_hi: int
    r90_fold_min: int
    r90_fold_max: int
    level: float
    frontier: bool

    @property
    def se_models(self) -> float:
        return float(self.boot_d_eff.std(ddof=1))

    def row(self) -> dict:
        """A one-line summary for tables."""
        return {
            "n": self.n,
            "k": self.k,
            "d_eff": self.d_eff,
            "se cells": self.se_cells,
            "se models": self.se_models,
            "lo": self.lo,
            "hi": self.hi,
            "r90": self.r90,
            "r90 lo": self.r90_lo,
            "r90 hi": self.r90_hi,
        }


def completed_spectrum(
    completion: Completion,
    cv: MaskedCV | None = None,
    n_boot: int = 500,
    seed: int = 0,
    target: float = 0.9,
    level: float = 0.95,
    frontier: bool = False,
) -> CompletedSpectrum:
    """d_eff and greedy r_target of ``completion.filled_z`` (all models, or the frontier by mean z),
    with the jackknife over the fold completions of ``cv`` and a bootstrap over models.

    Raises
    ------
    ValueError
        ``cv`` from another matrix, n_boot < 2, or a level outside (0, 1).
    """
    _check_int("n_boot", n_boot, 2)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    F = completion.filled_z
    rows = _frontier_rows(F) if frontier else np.ones(F.shape[0], dtype=bool)
    X = F[rows]
    d, r = deff_r90_stack(X, target)
    if cv is not None:
        if cv.fold_filled.shape[1:] != F.shape:
            raise ValueError(f"cv was run on a {cv.fold_filled.shape[1:]} matrix, the completion is {F.shape}")
        stack = cv.fold_filled
        if frontier:
            fd, fr = zip(*(deff_r90_stack(S[_frontier_rows(S)], target) for S in stack))
            fd, fr = np.concatenate(fd), np.concatenate(fr)
        else:
            fd, fr = deff_r90_stack(stack, target)
        th = fd.reshape(cv.n_repeats, cv.n_folds)
        K = cv.n_folds
        se_cells = float(np.sqrt(((K - 1) / K * ((th - th.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)).mean()))
    else:
        fd = fr = np.array([], dtype=float)
        se_cells = float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, X.shape[0], size=(n_boot, X.shape[0]))
    bd, br = deff_r90_stack(X[idx], target)
    a = (1 - level) / 2
    lo_m, hi_m = np.quantile(bd, [a, 1 - a])
    z = stats.norm.ppf(1 - a)
    se = np.sqrt(np.nan_to_num(se_cells) ** 2 + bd.std(ddof=1) ** 2)
    r_lo, r_hi = np.quantile(br, [a, 1 - a], method="inverted_cdf")
    return CompletedSpectrum(
        float(d[0]),
        int(r[0]),
        int(X.shape[0]),
        int(X.shape[1]),
        np.asarray(fd, float),
        np.asarray(fr, int),
        se_cells,
        bd,
        br,
        float(lo_m),
        float(hi_m),
        float(d[0] - z * se),
        float(d[0] + z * se),
        int(r_lo),
        int(r_hi),
        int(fr.min()) if len(fr) else int(r[0]),
        int(fr.max()) if len(fr) else int(r[0]),
        float(level),
        bool(frontier),
    )


# --------------------------------------------------------------------------------------------
# 6. what imputation does to d_eff: a calibration on a real missingness pattern
# --------------------------------------------------------------------------------------------
def factor_truth(n: int, k: int, tau: float, rng: np.random.Generator) -> np.ndarray:
    """A dense (n, k) Gaussian sample whose population covariance has eigenvalues exp(-i / tau),
    i = 0..k-1, and random (Haar) eigenvectors. Larger tau: flatter spectrum, larger d_eff
    (the population participation ratio is about 2 tau for 1 << tau << k)."""
    if not tau > 0:
        raise ValueError(f"tau must be > 0, got {tau}")
    Q = stats.ortho_group.rvs(k, random_state=rng) if k > 1 else np.ones((1, 1))
    lam = np.exp(-np.arange(k) / tau)
    return rng.standard_normal((n, k)) @ (np.sqrt(lam)[:, None] * Q.T)


def mean_impute(Y: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Stack (B, n, k): the observed cells of Y under each mask, the rest filled with the column mean
    of the observed ones (the paper's H.50 imputation)."""
    M = np.asarray(masks, dtype=bool)
    Yb = np.where(M, np.asarray(Y, dtype=float)[None], 0.0)
    mu = Yb.sum(axis=1) / np.maximum(M.sum(axis=1), 1)
    return np.where(M, Yb, mu[:, None, :])


def calibrate_imputation(
    observed: np.ndarray | pd.DataFrame,
    taus: Sequence[float] = (0.5, 1.0, 2.0, 4.0),
    reps: int = 3,
    seed: int = 0,
    lrmc: dict | None = None,
) -> pd.DataFrame:
    """d_eff of a dense synthetic truth against its mean-imputed and LRMC-completed estimates when
    it is observed through a real missingness pattern.

    For each tau, one truth :func:`factor_truth` of the pattern's shape; ``reps`` masks: the pattern
    itself, then copies with rows and columns permuted at random (every row and column keeps its
    count of observed cells). All masks of one truth are completed in one batched Soft-Impute call
    (lambda by CV per mask).

    Returns
    -------
    DataFrame with columns ``tau, rep, d_eff_true, d_eff_mean, d_eff_lrmc, r90_true, r90_mean, r90_lrmc``.
    """
    M0 = np.asarray(observed.to_numpy() if isinstance(observed, pd.DataFrame) else observed, dtype=bool)
    if M0.ndim != 2 or M0.shape[0] < 3 or M0.shape[1] < 2:
        raise ValueError(f"observed must be an (n >= 3, k >= 2) boolean mask, got shape {M0.shape}")
    if (M0.sum(axis=0) < 2).any() or (M0.sum(axis=1) < 1).any():
        raise ValueError("every column needs >= 2 and every row >= 1 observed cell (apply completable first)")
    _check_int("reps", reps, 1)
    rng = np.random.default_rng(seed)
    n, k = M0.shape
    masks = [M0] + [M0[rng.permutation(n)][:, rng.permutation(k)] for _ in range(reps - 1)]
    M = np.stack(masks)
    rows = []
    for tau in taus:
        Y = factor_truth(n, k, float(tau), rng)
        d_true, r_true = deff_r90_stack(Y)
        d_mean, r_mean = deff_r90_stack(mean_impute(Y, M))
        Yhat, _, _ = complete_masks(Y, M, "cv", seed=seed, **(lrmc or {}))
        d_lrmc, r_lrmc = deff_r90_stack(np.where(M, Y[None], Yhat))
        for b in range(len(M)):
            rows.append(
                {
                    "tau": float(tau),
                    "rep": b,
                    "d_eff_true": float(d_true[0]),
                    "d_eff_mean": float(d_mean[b]),
                    "d_eff_lrmc": float(d_lrmc[b]),
                    "r90_true": int(r_true[0]),
                    "r90_mean": int(r_mean[b]),
                    "r90_lrmc": int(r_lrmc[b]),
                }
            )
    return pd.DataFrame(rows)


def invert_calibration(cal: pd.DataFrame, value: float, estimate: str = "d_eff_mean") -> float | None:
    """The true d_eff whose calibrated ``estimate`` equals ``value``: linear interpolation of the
    curve (mean over reps per tau) of true d_eff against the estimate.

    Returns None when ``value`` lies outside the calibrated range (add taus to widen it).

    Raises
    ------
    ValueError
        An unknown estimate column, or a curve that is not increasing (it cannot be inverted).
    """
    if estimate not in cal.columns or "d_eff_true" not in cal.columns:
        raise ValueError(f"cal must come from calibrate_imputation and hold {estimate!r}; it has {list(cal.columns)}")
    g = cal.groupby("tau")[["d_eff_true", estimate]].mean().sort_values("d_eff_true")
    x, y = g[estimate].to_numpy(), g["d_eff_true"].to_numpy()
    if len(x) < 2 or not np.all(np.diff(x) > 0):
        raise ValueError(
            f"the calibration curve of {estimate} is not increasing in the true d_eff; it cannot be inverted"
        )
    if not x[0] <= value <= x[-1]:
        return None
    return float(np.interp(value, x, y))
