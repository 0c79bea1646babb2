"""Bandwidth selection of the rbf query kernel: the reference scale, the candidate grid, and the choice.

- **Reference** :math:`h_0`: the median distance between reduced query vectors of the same task
  (subsampled to 1,000 per task), else within a suite, else 1 — times ``bandwidth_mult``.
- **Grid**: ``bandwidth='cv'`` tries :math:`h_0 \\times` each factor of ``bandwidth_grid``;
  ``'median'`` is :math:`h_0` alone; a float is itself.
- **Choice**: the leave-one-model-out kNN error (:func:`dkps.knn.cv_errors`) — at fit, over every
  model (the reported ``bandwidth_``); at predict, nested per held-out group so that no target of the
  group influences its own bandwidth (Varma & Simon 2006; Cawley & Talbot 2010).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np
import pandas as pd

from . import kernels
from .knn import FitCriterion, cv_errors, select_bandwidth

__all__ = ["within_task_distances", "query_bandwidth_grid", "fit_bandwidth", "nested_bandwidth_indices"]

_MAX_ROWS = 1000


def within_task_distances(Z: np.ndarray, key_task: list, rng: np.random.Generator) -> tuple[list, list]:
    """Pairwise distances of reduced query vectors ``Z`` within each task (and over the whole suite),
    each subsampled to :data:`_MAX_ROWS` rows by ``rng``."""
    within_task, within_suite = [], []
    kt = np.asarray(key_task, dtype=object)
    for t in pd.unique(kt):
        ti = np.flatnonzero(kt == t)
        if len(ti) > _MAX_ROWS:
            ti = np.sort(rng.choice(ti, _MAX_ROWS, replace=False))
        if len(ti) >= 2:
            iu = np.triu_indices(len(ti), 1)
            within_task.append(np.sqrt(kernels.sq_dists(Z[ti], Z[ti])[iu]))
    if len(Z) >= 2:
        sub = Z if len(Z) <= _MAX_ROWS else Z[np.sort(rng.choice(len(Z), _MAX_ROWS, replace=False))]
        iu = np.triu_indices(len(sub), 1)
        within_suite.append(np.sqrt(kernels.sq_dists(sub, sub)[iu]))
    return within_task, within_suite


def query_bandwidth_grid(qk: dict, within_task: list, within_suite: list) -> tuple[float | None, tuple]:
    """``(reference, grid)`` of the query bandwidth; ``(None, (None,))`` for a kernel without one."""
    if qk["kernel"] != "rbf":
        return None, (None,)
    if qk["bandwidth_ref"] is not None:
        ref = float(qk["bandwidth_ref"])
    elif within_task and np.concatenate(within_task).size:
        ref = float(np.median(np.concatenate(within_task)))
    elif within_suite and np.concatenate(within_suite).size:
        ref = float(np.median(np.concatenate(within_suite)))
    else:
        ref = 1.0
    if not ref > 0:
        ref = 1.0
    ref *= qk["bandwidth_mult"]
    bw = qk["bandwidth"]
    if bw == "cv":
        grid = tuple(float(ref * f) for f in qk["bandwidth_grid"])
    elif bw == "median":
        grid = (float(ref),)
    else:
        grid = (float(bw),)
    return ref, grid


def fit_bandwidth(
    coords: list, Y: np.ndarray, grid: tuple, ref: float | None, k: int, dist_order: Callable, n_jobs: int | None = None
) -> tuple[int, dict | None]:
    """Fit-time choice ``h*_∅`` (leave-one-model-out, distance weights) and the error per candidate.

    Returns the index into ``grid`` and ``{h: error}`` (None when there is nothing to choose or no
    target: then the candidate closest to ``ref`` on a log scale).
    """
    if grid == (None,) or len(grid) == 1:
        return 0, None
    if np.isnan(Y).all():
        return int(np.argmin(np.abs(np.log(np.array(grid)) - np.log(ref)))), None
    err = _fit_criterion(coords, Y, k, dist_order, n_jobs)
    h = select_bandwidth(err, np.array(grid), ref)
    return h, {float(g): float(e) for g, e in zip(grid, err)}


#: The latest fit-time criteria (:class:`dkps.knn.FitCriterion`). Fitted copies with masked
#: targets share their estimator's geometry (the same distance and order arrays), so their criterion
#: is the fit's with a few cells changed, and only the cells the change reaches are recomputed.
#: Bounded and holding no geometry alive, so memory stays flat; a miss only costs the full computation.
_RECENT_CRITERIA: deque = deque(maxlen=4)


def _fit_criterion(coords: list, Y: np.ndarray, k: int, dist_order: Callable, n_jobs: int | None = None) -> np.ndarray:
    """``cv_errors(coords, Y, I, [∅], k, 'distance', 1)[0]``, reusing a recent criterion of the same
    geometry (identical values, see :class:`dkps.knn.FitCriterion`)."""
    geometries = [dist_order(h) for h in range(len(coords))]
    for crit in list(_RECENT_CRITERIA):
        if crit.k == k:
            err = crit.errors(geometries, Y)
            if err is not None:
                return err
    crit = FitCriterion(geometries, Y, k, n_jobs=n_jobs)
    _RECENT_CRITERIA.append(crit)
    return crit.errors0


def nested_bandwidth_indices(
    coords: list,
    Y: np.ndarray,
    rows: np.ndarray,
    grid: tuple,
    ref: float | None,
    holdout: str | None,
    fam_codes: np.ndarray,
    k: int,
    weights: str,
    min_train: int,
    cache: dict,
    cache_key: tuple,
    dist_order: Callable,
) -> np.ndarray:
    """Per requested row, the grid index chosen without the targets of the row's held-out group.

    The group of model ``i`` is itself (``holdout='model'``), its family (``'family'``) or nobody
    (None); each group's choice is computed once and kept in ``cache`` under ``cache_key + (g,)``.
    """
    n = Y.shape[0]
    if holdout == "family":
        excl_crit = fam_codes[:, None] == fam_codes[None, :]
        gkey = fam_codes
    else:
        excl_crit = np.eye(n, dtype=bool)
        gkey = np.arange(n) if holdout == "model" else np.zeros(n, dtype=int)
    todo = [g for g in np.unique(gkey[rows]) if cache_key + (int(g),) not in cache]
    if todo:
        groups = [np.array([], dtype=int)] if holdout is None else [np.flatnonzero(gkey == g) for g in todo]
        err = cv_errors(coords, Y, excl_crit, groups, k, weights, min_train, dist_order=dist_order)
        g_arr = np.array(grid)
        for g, e in zip(todo, err):
            cache[cache_key + (int(g),)] = select_bandwidth(e, g_arr, ref)
    return np.array([cache[cache_key + (int(g),)] for g in gkey[rows]], dtype=int)
