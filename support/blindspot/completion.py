"""Complete a sparse score matrix with the dkps low-rank estimator (Soft-Impute, lambda by CV).

Used by ``blindspot analyze --missing complete``: only the missing cells are filled; observed
cells keep their values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["complete_matrix"]


def complete_matrix(scores: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The score frame with every NaN replaced by its dkps ``LRMC`` completion (observed cells unchanged).

    Raises
    ------
    ValueError
        If a model row or a benchmark column has no observed value (nothing to complete it from).
    """
    from dkps.lrmc import complete_batch  # the Soft-Impute path behind dkps.LRMC

    obs = scores.notna()
    empty_rows = scores.index[~obs.any(axis=1)].tolist()
    empty_cols = scores.columns[~obs.any(axis=0)].tolist()
    if empty_rows or empty_cols:
        raise ValueError(f"cannot complete: models {empty_rows[:5]} / benchmarks {empty_cols[:5]} have no observed score")
    Y = scores.to_numpy(dtype=float)
    M = ~np.isnan(Y)
    Yhat, _, _ = complete_batch(Y, M[None], "cv", max_rank=None, n_lambdas=20, lambda_ratio=1e-3, n_folds=5,
                                max_iter=200, tol=1e-5, random_state=seed)
    filled = pd.DataFrame(Yhat[0], index=scores.index, columns=scores.columns)
    out = scores.where(obs, filled)
    if out.isna().to_numpy().any():
        raise ValueError("LRMC left cells empty; the matrix is too sparse to complete")
    return out.astype(float)
