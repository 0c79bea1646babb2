"""The regression of a perspective space: per-task kNN on the other models' targets, optionally whitened.

A cell :math:`(i, t)` is predicted from the targets on task :math:`t` of its nearest models in the
geometry of its bandwidth (:func:`dkps.knn.knn_cells`), never from models in its exclusion set
:math:`E(i)`. ``whiten=True`` regresses residuals after the logit, per-task standardisation and a
leave-task-out model bias, with the statistics computed without the held-out group
(:func:`dkps.knn.whitened_knn_cells`); ``whiten='global'`` is the original dkps's rule, one
:class:`~dkps.whitening.Whitener` on the whole target matrix.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from .knn import CellPredictions, knn_cells, whitened_knn_cells
from .whitening import Whitener

__all__ = ["predict_cells"]


#: Recent :class:`dkps.knn.CellPredictions`: fitted copies with masked targets (the Ensemble's
#: out-of-fold weights) share their estimator's geometry and exclusion matrix, so their predictions
#: are those of the first copy with a few cells changed. Bounded, holding no geometry alive.
_RECENT_PREDICTIONS: deque = deque(maxlen=8)


def _knn_predictions(D, order, Y, rows, cols, excl, k, weights, min_train) -> np.ndarray:
    """``knn_cells(D, order, Y, rows, cols, excl[rows], ...)[0]``, the same numbers, through a kept
    :class:`~dkps.knn.CellPredictions` of the same geometry and exclusion matrix when the request
    covers at least a quarter of the cells (else directly: keeping every cell would cost more)."""
    n, T = Y.shape
    if excl.flags.writeable or len(rows) * 4 < n * T:  # only the estimators' cached, read-only exclusions
        return knn_cells(D, order, Y, rows, cols, excl[rows], k, weights, min_train)[0]
    for kept in list(_RECENT_PREDICTIONS):
        if kept.matches(D, order, excl, k, weights, min_train):
            got = kept.predict(D, order, excl, Y, rows, cols)
            if got is not None:
                return got[0]
    kept = CellPredictions(D, order, excl, Y, k, weights, min_train)
    _RECENT_PREDICTIONS.append(kept)
    return kept.predict(D, order, excl, Y, rows, cols)[0]


def predict_cells(
    Y: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    hidx: np.ndarray,
    dist_order: Callable[[int], tuple[np.ndarray, np.ndarray]],
    excl: np.ndarray,
    fam_codes: np.ndarray,
    holdout: str | None,
    whiten,
    k: int,
    weights: str,
    min_train: int,
) -> np.ndarray:
    """Predictions of cells ``(rows[c], cols[c])``, cell ``c`` in the geometry ``hidx[c]``.

    ``dist_order(h)`` gives the distance matrix of geometry ``h`` and its neighbour order;
    ``excl[i]`` the exclusion set of model ``i``; NaN where fewer than ``min_train`` models qualify.
    """
    out = np.full(len(rows), np.nan)
    for h in np.unique(hidx):
        sel = np.flatnonzero(hidx == h)
        D, order = dist_order(int(h))
        if not whiten:
            out[sel] = _knn_predictions(D, order, Y, rows[sel], cols[sel], excl, k, weights, min_train)
            continue
        if whiten == "global":  # the original's: one Whitener on every observed target
            wt = Whitener().fit(Y)
            r, _ = knn_cells(D, order, wt.transform(Y), rows[sel], cols[sel], excl[rows[sel]], k, weights, min_train)
            R = np.full(Y.shape, np.nan)
            R[rows[sel], cols[sel]] = r
            out[sel] = np.where(np.isfinite(r), wt.inverse_transform(R)[rows[sel], cols[sel]], np.nan)
            continue
        # whitened: one pass per distinct exclusion set
        gk = (
            rows[sel]
            if holdout == "model"
            else (fam_codes[rows[sel]] if holdout == "family" else np.zeros(len(sel), int))
        )
        for g in np.unique(gk):
            s2 = sel[gk == g]
            out[s2] = whitened_knn_cells(D, order, Y, rows[s2], cols[s2], excl[rows[s2[0]]], k, weights, min_train)
    return out
