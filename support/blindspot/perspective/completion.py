"""Complete a sparse score matrix with the dkps low-rank estimator (Soft-Impute, lambda by CV).

Used by ``blindspot analyze --missing complete`` (:func:`complete_matrix`: only the missing cells are
filled; observed cells keep their values) and by :mod:`blindspot.perspective.sparse` (:func:`complete_masks`:
many masks of one matrix in one batched call). Both go through ``dkps.lrmc.complete_batch`` with
the settings of :data:`LRMC_SETTINGS` (dkps's LRMC, after Mazumder, Hastie & Tibshirani 2010:
per-column centring on the observed entries, Soft-Impute along a decreasing lambda path, lambda by
K-fold CV MAE, predictions clipped to the observed range).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from dkps.lrmc import complete_batch

__all__ = ["complete_matrix", "complete_masks", "LRMC_SETTINGS"]

#: The defaults of dkps's LRMC estimator, used throughout the book.
LRMC_SETTINGS: dict = dict(max_rank=None, n_lambdas=20, lambda_ratio=1e-3, n_folds=5, max_iter=200, tol=1e-5)


def complete_masks(
    Y: np.ndarray, masks: np.ndarray, lambda_: str | float | np.ndarray = "cv", seed: int = 0, **settings
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Soft-Impute completions of one matrix ``Y`` under a stack of observation masks (:mod:`dkps.lrmc`).

    Parameters
    ----------
    Y : (n, k) array; NaN cells must be outside every mask.
    masks : (B, n, k) bool, the observed cells of each problem (e.g. the training cells of CV folds).
    lambda_ : 'cv' (each problem chooses its own lambda by an inner K-fold CV over its own mask), a
        float, or a (B,) array of floats.
    seed : ``random_state`` of the inner CV folds.
    settings : overrides of :data:`LRMC_SETTINGS`.

    Returns
    -------
    Yhat : (B, n, k) mu_j + Zhat (every cell, observed ones included), clipped to the observed range;
    lam : (B,) the lambda used; cv : (B, n_lambdas) the inner CV MAE per lambda (NaN for a given lambda).

    Raises
    ------
    ValueError
        Shapes that do not match, a mask covering a NaN cell, an empty mask, or an unknown setting.
    """

    Y = np.asarray(Y, dtype=float)
    M = np.asarray(masks, dtype=bool)
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-D matrix, got shape {Y.shape}")
    if M.ndim == 2:
        M = M[None]
    if M.ndim != 3 or M.shape[1:] != Y.shape:
        raise ValueError(f"masks must have shape (B, {Y.shape[0]}, {Y.shape[1]}), got {np.shape(masks)}")
    if (M & np.isnan(Y)[None]).any():
        raise ValueError("a mask marks a NaN cell of Y as observed; masks must be subsets of the observed cells")
    if not M.any(axis=(1, 2)).all():
        raise ValueError(f"mask(s) {np.flatnonzero(~M.any(axis=(1, 2))).tolist()[:5]} observe no cell")
    unknown = set(settings) - set(LRMC_SETTINGS)
    if unknown:
        raise ValueError(f"unknown LRMC setting(s) {sorted(unknown)}; known: {sorted(LRMC_SETTINGS)}")
    kw = {**LRMC_SETTINGS, **settings}
    # one BLAS thread: the SVDs are small, and on a shared machine threaded BLAS on small matrices
    # spin-waits (measured 10-50x slower on 2 busy cores), as in blindspot.perspective.synthetic_studies
    with threadpool_limits(limits=1, user_api="blas"):
        return complete_batch(np.where(np.isnan(Y), 0.0, Y), M, lambda_, random_state=seed, **kw)


def complete_matrix(scores: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The score frame with every NaN replaced by its dkps ``LRMC`` completion (observed cells unchanged).

    Raises
    ------
    ValueError
        If a model row or a benchmark column has no observed value (nothing to complete it from).
    """
    obs = scores.notna()
    empty_rows = scores.index[~obs.any(axis=1)].tolist()
    empty_cols = scores.columns[~obs.any(axis=0)].tolist()
    if empty_rows or empty_cols:
        raise ValueError(
            f"cannot complete: models {empty_rows[:5]} / benchmarks {empty_cols[:5]} have no observed score"
        )
    Y = scores.to_numpy(dtype=float)
    M = ~np.isnan(Y)
    Yhat, _, _ = complete_masks(Y, M[None], "cv", seed=seed)
    filled = pd.DataFrame(Yhat[0], index=scores.index, columns=scores.columns)
    out = scores.where(obs, filled)
    if out.isna().to_numpy().any():
        raise ValueError("LRMC left cells empty; the matrix is too sparse to complete")
    return out.astype(float)
