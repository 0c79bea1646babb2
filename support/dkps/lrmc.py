"""LRMC: low-rank completion of the target matrix by Soft-Impute, or by the original's ALS.

Mazumder, Hastie & Tibshirani (2010): iterate
:math:`\\hat Z \\leftarrow S_\\lambda(P_\\Omega(Z) + P_\\Omega^\\perp(\\hat Z))` with the singular-value
soft threshold :math:`S_\\lambda(X) = U\\,\\mathrm{diag}(\\max(\\sigma-\\lambda,0))V^\\top`, along a
decreasing λ path with warm starts, λ chosen by K-fold cross-validated MAE. Problems are solved
in batches (one stacked SVD per iteration) so the many refits of the holdout protocols stay fast.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import StrOptions, validate_params

from .base import HOLDOUT, RefitEstimator
from .baselines import matrix_completion_predict
from .settings import COUNT, POSITIVE, Number
from .threads import single_blas_thread

__all__ = ["LRMC", "soft_impute_path", "complete_batch"]

_BATCH = 256


def soft_impute_path(
    Z: np.ndarray,
    M: np.ndarray,
    lambdas: np.ndarray,
    max_rank: int | None = None,
    max_iter: int = 200,
    tol: float = 1e-5,
    on_lambda: Callable[[int, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Soft-Impute on a batch of problems along per-problem λ paths (Mazumder, Hastie & Tibshirani 2010, Algorithm 1).

    Parameters
    ----------
    Z : (B, n, T) centred targets (values outside ``M`` are ignored).
    M : (B, n, T) bool, observed entries Ω.
    lambdas : (B, L) decreasing λ per problem.
    on_lambda : called as ``on_lambda(l, Zhat)`` after the path reaches ``lambdas[:, l]``.

    Returns
    -------
    Zhat at the last λ, (B, n, T). Each problem stops iterating once
    :math:`\\|\\hat Z_{new}-\\hat Z\\|_F^2/\\max(\\|\\hat Z\\|_F^2,10^{-12}) < \\text{tol}`.
    """
    B, n, T = Z.shape
    Zobs = np.where(M, Z, 0.0)
    Zhat = np.zeros_like(Zobs)
    for l in range(lambdas.shape[1]):
        lam = lambdas[:, l][:, None]
        active = np.ones(B, dtype=bool)
        for _ in range(max_iter):
            idx = np.flatnonzero(active)
            if idx.size == 0:
                break
            X = np.where(M[idx], Zobs[idx], Zhat[idx])
            U, s, Vt = np.linalg.svd(X, full_matrices=False)
            s = np.maximum(s - lam[idx], 0.0)
            if max_rank is not None:
                s[:, max_rank:] = 0.0
            new = np.einsum("bik,bk,bkj->bij", U, s, Vt)
            num = ((new - Zhat[idx]) ** 2).sum(axis=(1, 2))
            den = np.maximum((Zhat[idx] ** 2).sum(axis=(1, 2)), 1e-12)
            Zhat[idx] = new
            active[idx[num / den < tol]] = False
        if on_lambda is not None:
            on_lambda(l, Zhat)
    return Zhat


def _centre(Y: np.ndarray, M: np.ndarray):
    """Per-task mean of the observed entries (global mean for an empty column)."""
    cnt = M.sum(axis=1)  # (B, T)
    tot = np.where(M, Y, 0.0).sum(axis=1)
    g = np.where(M, Y, 0.0).sum(axis=(1, 2)) / np.maximum(M.sum(axis=(1, 2)), 1)
    mu = np.where(cnt > 0, tot / np.maximum(cnt, 1), g[:, None])
    return mu  # (B, T)


def _grid(Z: np.ndarray, M: np.ndarray, n_lambdas: int, ratio: float) -> np.ndarray:
    top = np.linalg.svd(np.where(M, Z, 0.0), compute_uv=False)[:, 0]
    top = np.maximum(top, 1e-12)
    return top[:, None] * np.logspace(0, np.log10(ratio), n_lambdas)[None, :]


def complete_batch(
    Y: np.ndarray,
    M: np.ndarray,
    lambda_="cv",
    max_rank=None,
    n_lambdas=20,
    lambda_ratio=1e-3,
    n_folds=5,
    max_iter=200,
    tol=1e-5,
    random_state=0,
):
    """Complete a batch of target matrices: centre per task, Soft-Impute path, λ by K-fold CV, clip.

    Parameters
    ----------
    Y : (n, T) targets (NaN = missing), shared by the batch; M : (B, n, T) masks Ω (subsets of
    the defined entries); ``lambda_``: 'cv', a float, or a (B,) array of floats.

    Returns
    -------
    Yhat : (B, n, T) ``μ_t + Ẑ`` clipped to the observed range; lam : (B,) selected λ;
    cv : (B, L) mean CV MAE per λ (NaN when λ was given).
    """
    Y = np.asarray(Y, dtype=float)
    B = M.shape[0]
    Yb = np.broadcast_to(np.nan_to_num(Y), M.shape)
    mu = _centre(Yb, M)
    Z = Yb - mu[:, None, :]
    grid = _grid(Z, M, n_lambdas, lambda_ratio)
    cv = np.full((B, n_lambdas), np.nan)
    if isinstance(lambda_, str):
        # K-fold CV over each problem's observed entries
        fold_masks, test_masks = [], []
        for b in range(B):
            obs = np.flatnonzero(M[b].ravel())
            perm = np.random.default_rng(random_state).permutation(len(obs))
            fold = np.empty(len(obs), dtype=int)
            fold[perm] = np.arange(len(obs)) % n_folds
            for f in range(n_folds):
                te = np.zeros(M[b].size, dtype=bool)
                te[obs[fold == f]] = True
                te = te.reshape(M[b].shape)
                fold_masks.append(M[b] & ~te)
                test_masks.append(te)
        FM = np.stack(fold_masks)
        TM = np.stack(test_masks)
        Yf = np.broadcast_to(np.nan_to_num(Y), FM.shape)
        muf = _centre(Yf, FM)
        Zf = Yf - muf[:, None, :]
        lamf = np.repeat(grid, n_folds, axis=0)
        lo = np.array([Y[FM[j]].min() if FM[j].any() else 0.0 for j in range(len(FM))])
        hi = np.array([Y[FM[j]].max() if FM[j].any() else 1.0 for j in range(len(FM))])
        fold_err = np.full((len(FM), n_lambdas), np.nan)

        for s in range(0, len(FM), _BATCH):
            sl = slice(s, s + _BATCH)
            sub = np.arange(len(FM))[sl]

            def rec_sub(l, Zh, sub=sub):
                pred = np.clip(muf[sub][:, None, :] + Zh, lo[sub][:, None, None], hi[sub][:, None, None])
                e = np.where(TM[sub], np.abs(pred - Yf[sub]), 0.0).sum(axis=(1, 2))
                c = TM[sub].sum(axis=(1, 2))
                fold_err[sub, l] = np.where(c > 0, e / np.maximum(c, 1), np.nan)

            soft_impute_path(Zf[sl], FM[sl], lamf[sl], max_rank, max_iter, tol, rec_sub)
        with np.errstate(invalid="ignore"):
            for b in range(B):
                fe = fold_err[b * n_folds : (b + 1) * n_folds]
                ok = ~np.isnan(fe)
                cv[b] = np.where(ok.any(axis=0), np.where(ok, fe, 0).sum(0) / np.maximum(ok.sum(0), 1), np.nan)
        best = np.zeros(B, dtype=int)
        for b in range(B):
            if np.isnan(cv[b]).all():
                best[b] = 0
            else:
                m = np.nanmin(cv[b])
                best[b] = int(np.flatnonzero(cv[b] <= m + 1e-12 * max(abs(m), 1e-300))[0])  # larger λ first
        lam_sel = grid[np.arange(B), best]
    else:
        lam_sel = np.broadcast_to(np.asarray(lambda_, dtype=float), (B,)).copy()
        if (lam_sel < 0).any() or not np.isfinite(lam_sel).all():
            raise ValueError("lambda_ must be >= 0 and finite")
        best = None
    # refit along the path down to the selected λ
    path = np.concatenate([grid, lam_sel[:, None]], axis=1)
    path = np.where(path >= lam_sel[:, None], path, lam_sel[:, None])  # stop descending at λ*
    Zhat = np.zeros_like(Z)
    for s in range(0, B, _BATCH):
        sl = slice(s, s + _BATCH)
        Zhat[sl] = soft_impute_path(Z[sl], M[sl], path[sl], max_rank, max_iter, tol)
    lo = np.array([Y[M[b]].min() if M[b].any() else 0.0 for b in range(B)])
    hi = np.array([Y[M[b]].max() if M[b].any() else 1.0 for b in range(B)])
    Yhat = np.clip(mu[:, None, :] + Zhat, lo[:, None, None], hi[:, None, None])
    return Yhat, lam_sel, cv


class LRMC(RefitEstimator):
    r"""Low-rank matrix completion of the (models x tasks) target matrix.

    ``method='soft_impute'``: per-task centring, then Soft-Impute [1]_ along a path of :math:`\lambda`,

    .. math::
        Z_{k+1} = S_\lambda\big(P_\Omega(Y) + P_\Omega^\perp(Z_k)\big), \qquad
        S_\lambda(X) = U\, \max(\Sigma - \lambda, 0)\, V^\top,

    with :math:`\lambda` chosen by K-fold cross-validated MAE, clipped to the observed range.
    ``method='als'``: the original dkps's completion (:func:`dkps.baselines.matrix_completion_predict`: logit,
    per-task standardisation, two-way bias, rank-``rank`` ALS with ridge ``lam``, ``n_init`` averaged
    starts), observed cells predicted out of fold by ``crossfit_k``-fold cross-fitting. ``predict(holdout=None)``
    reads ``pred_matrix_``; ``'model'`` refits once per requested observed cell with that entry removed;
    ``'family'`` refits once per family with all of the family's rows removed.

    Parameters
    ----------
    method : {'soft_impute', 'als'}, default 'soft_impute'
        Soft-Impute or the original's ALS.
    lambda_ : 'cv' or float, default 'cv'
        Soft-Impute's :math:`\lambda` (>= 0), or chosen by cross-validation.
    max_rank : int, optional
        Soft-Impute's rank cap (None: none).
    n_lambdas : int, default 20
        Points of the path :math:`\lambda_{max} \cdot` ``logspace(0, log10(lambda_ratio), n_lambdas)``.
    lambda_ratio : float, default 1e-3
        Smallest over largest :math:`\lambda` of the path, in (0, 1).
    n_folds : int, default 5
        Folds of the :math:`\lambda` cross-validation (>= 2).
    max_iter : int, optional
        Iterations per :math:`\lambda` (Soft-Impute, default 200) or ALS sweeps (default 50).
    tol : float, default 1e-5
        Soft-Impute's relative change at convergence.
    random_state : int, default 0
        Seed of the CV folds (Soft-Impute) or of the starts and folds (ALS).
    rank : int, default 2
        ALS rank.
    lam : float, default 0.1
        ALS ridge penalty (>= 0).
    n_init : int, default 2
        ALS starts averaged.
    crossfit_k : int, default 3
        Folds of the ALS cross-fitting of observed cells (0: NaN there).
    logit : bool, default True
        ALS on the logit of scores in [0, 1].
    crossfit_random_state : int, optional
        Seed of the cross-fitting folds (None: ``random_state``).

    Attributes
    ----------
    completed_ : ndarray of shape (n_models, n_tasks)
        The completed matrix, every cell (the full fit).
    pred_matrix_ : ndarray of shape (n_models, n_tasks)
        What ``predict()`` returns per cell (the original's name).
    lambda_selected_ : float or None
        Soft-Impute's chosen :math:`\lambda` (None under ALS).
    cv_errors_ : ndarray or None
        Soft-Impute's CV curve over the path (None under ALS or a fixed :math:`\lambda`).
    %(catalog_attributes)s

    Raises
    ------
    ValueError
        From ``fit``: a parameter outside its constraints, ALS with ``logit=True`` on scores outside [0, 1], or
        records that :func:`dkps.records.validate` refuses.

    References
    ----------
    .. [1] R. Mazumder, T. Hastie and R. Tibshirani, "Spectral regularization algorithms for learning large
       incomplete matrices", JMLR 11 (2010), 2287-2322.
    .. [2] The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``); "Sparse leaderboards" (``ch-sparse-leaderboards``).
    """

    _parameter_constraints: dict = {
        "method": [StrOptions({"soft_impute", "als"})],
        "lambda_": [StrOptions({"cv"}), Number(numbers.Real, 0, None, closed="left")],
        "max_rank": [COUNT, None],
        "n_lambdas": [COUNT],
        "lambda_ratio": [Number(numbers.Real, 0, 1, closed="neither")],
        "n_folds": [Number(numbers.Integral, 2, None, closed="left")],
        "max_iter": [COUNT, None],
        "tol": [POSITIVE],
        "rank": [COUNT],
        "lam": [Number(numbers.Real, 0, None, closed="left")],
        "n_init": [COUNT],
        "crossfit_k": [Number(numbers.Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        method="soft_impute",
        lambda_="cv",
        max_rank=None,
        n_lambdas=20,
        lambda_ratio=1e-3,
        n_folds=5,
        max_iter=None,
        tol=1e-5,
        random_state=0,
        rank=2,
        lam=0.1,
        n_init=2,
        crossfit_k=3,
        logit=True,
        crossfit_random_state=None,
    ):
        self.method = method
        self.lambda_ = lambda_
        self.max_rank = max_rank
        self.n_lambdas = n_lambdas
        self.lambda_ratio = lambda_ratio
        self.n_folds = n_folds
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.rank = rank
        self.lam = lam
        self.n_init = n_init
        self.crossfit_k = crossfit_k
        self.logit = logit
        self.crossfit_random_state = crossfit_random_state

    def _kw(self) -> dict:
        return dict(
            max_rank=self.max_rank,
            n_lambdas=self.n_lambdas,
            lambda_ratio=self.lambda_ratio,
            n_folds=self.n_folds,
            max_iter=200 if self.max_iter is None else self.max_iter,
            tol=self.tol,
            random_state=self.random_state,
        )

    def _als(self, Y: np.ndarray, M: np.ndarray) -> np.ndarray:
        """The ALS completion of ``Y`` observed at ``M``, every cell filled."""
        return matrix_completion_predict(
            Y,
            M,
            rank=self.rank,
            lam=self.lam,
            n_init=self.n_init,
            max_iter=50 if self.max_iter is None else self.max_iter,
            logit=self.logit,
            random_state=self.random_state,
            fill_observed=True,
        )

    def _complete(self, Y: np.ndarray, masks: np.ndarray, lam) -> np.ndarray:
        """Completions of ``Y`` for a batch of observation masks (B, n, T)."""
        if self.method == "als":
            return np.stack([self._als(Y, m) for m in masks])
        return complete_batch(Y, masks, lam, **self._kw())[0]

    def _refit(self, frame: pd.DataFrame) -> None:
        self._after_tables()

    def _after_tables(self) -> None:
        Y = self._tables.target
        M = ~np.isnan(Y)
        self._cache = {}
        self.lambda_selected_ = None
        self.cv_errors_ = None
        if not M.any():
            self.completed_ = np.full(Y.shape, np.nan)
            self.pred_matrix_ = self.completed_
            return
        if self.method == "als":
            if self.logit and ((Y[M] < 0).any() or (Y[M] > 1).any()):
                raise ValueError("LRMC(method='als', logit=True) needs scores in [0, 1]; pass logit=False otherwise")
            self.completed_ = self._als(Y, M)
            pred = np.where(M, np.nan, self.completed_)
            if self.crossfit_k:
                rs = self.random_state if self.crossfit_random_state is None else self.crossfit_random_state
                obs = np.argwhere(M)
                if len(obs) >= self.crossfit_k:
                    perm = np.random.default_rng(rs).permutation(len(obs))
                    for fold in np.array_split(perm, self.crossfit_k):
                        r, c = obs[fold, 0], obs[fold, 1]
                        held = M.copy()
                        held[r, c] = False
                        pred[r, c] = self._als(Y, held)[r, c]
            self.pred_matrix_ = pred
            return
        Yhat, lam, cv = complete_batch(Y, M[None], self.lambda_, **self._kw())
        self.completed_ = Yhat[0]
        self.pred_matrix_ = self.completed_
        self.lambda_selected_ = float(lam[0])
        self.cv_errors_ = None if np.isnan(cv).all() else cv[0]

    @single_blas_thread
    @validate_params(
        {
            "holdout": HOLDOUT,
            "family_fn": [callable, None],
            "selection": [StrOptions({"nested", "fit"})],
            "as_frame": ["boolean"],
        },
        prefer_skip_nested_validation=True,
    )
    def predict(
        self,
        records: Any = None,
        *,
        cells: Any = None,
        holdout: str | None = None,
        family_fn: Callable | None = None,
        selection: str = "nested",
        as_frame: bool = False,
    ):
        """Completed scores of the requested cells (default: every unobserved cell).

        Parameters
        ----------
        %(cells_params)s
        holdout : {'model', 'family'} or None, default None
            Refit without the cell's own entry (or its family's rows) for observed cells; None reads
            ``pred_matrix_``.
        family_fn : callable, optional
            model_id -> family for ``holdout='family'``.
        selection : {'nested', 'fit'}, default 'nested'
            Re-run the :math:`\\lambda`-CV inside each refit, or reuse ``lambda_selected_`` (Soft-Impute only).
        %(predict_returns)s

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            A keyword outside its constraints, ``selection`` under ALS, ``family_fn`` without
            ``holdout='family'``, unknown cells, or no observed scores.
        """
        self._check_fitted()
        if selection == "fit" and self.method == "als":
            raise ValueError("selection chooses Soft-Impute's lambda; method='als' has none, so drop selection")
        if family_fn is not None and holdout != "family":
            raise ValueError("family_fn only applies with holdout='family'; drop it or set holdout='family'")
        rows, cols = self._cells_from_args(records, cells)
        vals = self._predict_arrays(rows, cols, holdout=holdout, family_fn=family_fn, selection=selection)
        return self._format(rows, cols, vals, as_frame)

    def _predict_arrays(self, rows, cols, holdout=None, family_fn=None, selection="nested", **_ignored) -> np.ndarray:
        Y = self._tables.target
        M = ~np.isnan(Y)
        if not M.any():
            raise ValueError("no observed scores: LRMC needs targets")
        out = self.pred_matrix_[rows, cols].astype(float)
        lam = self.lambda_selected_ if (selection == "fit" and self.method == "soft_impute") else self.lambda_
        if holdout == "model":
            need = [c for c in range(len(rows)) if M[rows[c], cols[c]]]
            cells = sorted(
                {(int(rows[c]), int(cols[c])) for c in need} - set(k[1:] for k in self._cache if k[0] == ("model", lam))
            )
            if cells:
                masks = np.repeat(M[None], len(cells), axis=0)
                for b, (i, t) in enumerate(cells):
                    masks[b, i, t] = False
                Yhat = self._complete(Y, masks, lam)
                for b, (i, t) in enumerate(cells):
                    self._cache[(("model", lam), i, t)] = Yhat[b, i, t]
            for c in need:
                out[c] = self._cache[(("model", lam), int(rows[c]), int(cols[c]))]
        elif holdout == "family":
            fam = self._family_codes(family_fn)
            groups = sorted(
                {int(fam[i]) for i in rows} - {k[1] for k in self._cache if k[0] == ("family", lam, id(family_fn))}
            )
            if groups:
                masks = np.repeat(M[None], len(groups), axis=0)
                for b, g in enumerate(groups):
                    masks[b, fam == g, :] = False
                Yhat = self._complete(Y, masks, lam)
                for b, g in enumerate(groups):
                    self._cache[(("family", lam, id(family_fn)), g)] = Yhat[b]
            for c in range(len(rows)):
                out[c] = self._cache[(("family", lam, id(family_fn)), int(fam[rows[c]]))][rows[c], cols[c]]
        return out
