"""Should the missing cells of this leaderboard be filled at all? (``--missing complete``)

Low-rank completion (dkps LRMC, Soft-Impute with lambda by cross-validation; Mazumder, Hastie &
Tibshirani 2010, JMLR 11:2287) is only worth its name when it predicts held-out scores better
than the trivial guess, each benchmark's mean. :func:`check_completion` measures that:

1. **Identifiability.** A rank-r matrix with per-column means has k + r(n + k - r) free numbers;
   with fewer observed cells than that even rank r = 1 is not determined (the counting bound of
   Candes & Recht 2009, Found. Comput. Math. 9:717). Below m = n + 2k - 1 it refuses at once.
2. **Cross-validated error.** The observed cells are split into 5 folds; each fold is held out
   in turn, the rest is completed (lambda chosen by LRMC's own inner cross-validation on the
   training cells only, so the comparison is not tuned on the cells it scores), and the RMSE on
   the held-out cells is compared with that of the training cells' column means. When the
   completion does not beat the means it refuses, with both numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.perspective.completion import complete_masks

__all__ = ["CompletionCheck", "check_completion", "N_FOLDS"]

N_FOLDS = 5


@dataclass(frozen=True)
class CompletionCheck:
    """How well the completion predicts held-out observed cells, against each benchmark's mean.

    Attributes
    ----------
    observed_share : float
        Fraction of the n x k cells that are observed.
    n_observed, n_needed : int
        Observed cells m, and n + 2k - 1, the fewest that identify a rank-1 completion.
    rmse_completion, rmse_column_mean : float
        Cross-validated RMSE of LRMC and of the column-mean baseline on held-out observed cells.
    sd_observed : float
        Standard deviation of the observed scores (within benchmarks, pooled): the scale of the errors
        (1 when the columns were standardised first, as the report does).
    n_folds : int
    """

    observed_share: float
    n_observed: int
    n_needed: int
    rmse_completion: float
    rmse_column_mean: float
    sd_observed: float
    n_folds: int

    @property
    def improvement(self) -> float:
        """1 - rmse_completion / rmse_column_mean (> 0: the completion beats the means)."""
        return 1.0 - self.rmse_completion / self.rmse_column_mean


def _folds(M: np.ndarray, n_folds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    obs = np.flatnonzero(M.ravel())
    fold = np.empty(obs.size, dtype=int)
    fold[np.random.default_rng(seed).permutation(obs.size)] = np.arange(obs.size) % n_folds
    test = np.zeros((n_folds, M.size), dtype=bool)
    test[fold, obs] = True
    test = test.reshape((n_folds, *M.shape))
    return M[None] & ~test, test


def check_completion(scores: pd.DataFrame, seed: int = 0, n_folds: int = N_FOLDS) -> CompletionCheck:
    """Cross-validate the LRMC completion of ``scores`` against column means; refuse when it does not help.

    Raises
    ------
    ValueError
        A model or benchmark with no observed cell, too few observed cells to identify a rank-1 completion, or a completion whose
        cross-validated RMSE is not below the column-mean baseline (both numbers in the message).
    """
    Y = scores.to_numpy(dtype=float)
    M = np.isfinite(Y)
    n, k = Y.shape
    empty_rows = scores.index[~M.any(axis=1)].tolist()
    empty_cols = scores.columns[~M.any(axis=0)].tolist()
    if empty_rows or empty_cols:
        raise ValueError(
            f"--missing complete: models {empty_rows[:5]} / benchmarks {empty_cols[:5]} have no observed score, so "
            f"nothing can fill them; drop them first"
        )
    m = int(M.sum())
    needed = n + 2 * k - 1
    share = m / Y.size
    col_sd = np.nanstd(Y, axis=0)
    sd = float(np.sqrt(np.nanmean(col_sd**2)))
    if m < needed:
        raise ValueError(
            f"--missing complete: only {share:.1%} of the cells are observed ({m} of {Y.size}); a low-rank completion "
            f"of {n} models x {k} benchmarks needs at least n + 2k - 1 = {needed} observed cells to identify even one "
            f"direction. Use --missing drop-rows, or keep only the benchmarks most models have (--benchmarks)"
        )
    train, test = _folds(M, n_folds, seed)
    Yhat, _, _ = complete_masks(np.where(M, Y, np.nan), train, "cv", seed=seed)
    se_c = se_m = 0.0
    for f in range(n_folds):
        cnt = train[f].sum(axis=0)
        tot = np.where(train[f], Y, 0.0).sum(axis=0)
        overall = tot.sum() / max(cnt.sum(), 1)
        mu = np.where(cnt > 0, tot / np.maximum(cnt, 1), overall)
        te = test[f]
        se_c += float(((Yhat[f] - Y)[te] ** 2).sum())
        se_m += float(((mu[None, :] - Y)[te] ** 2).sum())
    rc, rm = float(np.sqrt(se_c / m)), float(np.sqrt(se_m / m))
    chk = CompletionCheck(share, m, needed, rc, rm, sd, n_folds)
    if not rc < rm:
        unit = "standard deviations" if abs(sd - 1.0) < 1e-6 else f"score units; the scores' sd is {sd:.4g}"
        raise ValueError(
            f"--missing complete: the completion does not beat each benchmark's mean on held-out cells "
            f"({n_folds}-fold cross-validated RMSE {rc:.4g} against {rm:.4g} for the column means, in {unit}; "
            f"{share:.1%} of cells observed): filled cells would be guesses. Use --missing drop-rows, or keep only the "
            f"benchmarks most models have (--benchmarks)"
        )
    return chk
