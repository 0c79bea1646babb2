"""Per-task kNN regression in the perspective space, whitening, and the nested bandwidth criterion.

kNN with deterministic ties (inverse-distance weights by default and ``min_train``, as in the
original dkps); ``whiten=True`` (logit with ε = 1e-3, per-task standardisation, a leave-task-out
model bias, residual kNN: the bias decomposition of the original's matrix-completion baseline,
recomputed without the held-out models); and the leave-one-model-out bandwidth criterion, nested
per held-out group so that no target of the group influences its own bandwidth (nested
cross-validation: Varma & Simon 2006; Cawley & Talbot 2010).

Exclusion sets: ``excl[i, j] = True`` means model ``j`` may not be used when predicting model ``i``
(the exclusion set ``E(i)``: the model itself under ``holdout='model'``, its family under
``'family'``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "pairwise_distances",
    "neighbour_order",
    "knn_cells",
    "whitened_knn_cells",
    "cv_errors",
    "select_bandwidth",
]

_CELL_CHUNK = 4096


def pairwise_distances(X: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of ``X`` (exactly 0 on the diagonal)."""
    X = np.asarray(X, dtype=float)
    if X.shape[1] == 0:
        return np.zeros((len(X), len(X)))
    diff = X[:, None, :] - X[None, :, :]
    return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))


def neighbour_order(D: np.ndarray) -> np.ndarray:
    """Per row, model indices sorted by (distance, index) — the deterministic tie rule."""
    return np.argsort(D, axis=1, kind="stable")


def _predict_sorted(d, y, sel, weights):
    """Weighted mean over the selected sorted neighbours (rows = cells)."""
    if weights == "uniform":
        w = sel.astype(float)
    else:
        w = np.divide(1.0, np.maximum(d, 1e-12), out=np.zeros(d.shape), where=sel)  # 0 where not selected
        zero = sel & (d == 0.0)
        has_zero = zero.any(axis=1)
        if has_zero.any():
            w = np.where(has_zero[:, None], zero.astype(float), w)
    tot = w.sum(axis=1)
    yy = np.where(sel, y, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w * yy).sum(axis=1) / tot


def _knn_sorted(nb, y, excluded, d, k: int, weights: str, need: int, return_topk: bool):
    """:func:`knn_cells` on one chunk whose neighbours are already sorted: ``nb`` (cells x models) the
    neighbour ids, ``y`` their targets, ``excluded`` their exclusion flags and ``d`` their distances."""
    usable = ~np.isnan(y) & ~excluded
    csum = np.cumsum(usable, axis=1)
    sel = usable & (csum <= k)
    sup = csum[:, -1] if csum.shape[1] else np.zeros(len(csum), dtype=int)
    p = _predict_sorted(d, y, sel, weights)
    p[sup < need] = np.nan
    if not return_topk:
        return p, sup, None
    pos = np.where(sel, csum - 1, k)  # slot of each selected neighbour
    tk = np.full((len(nb), k + 1), -1, dtype=int)
    rr = np.repeat(np.arange(len(nb)), nb.shape[1]).reshape(nb.shape)
    tk[rr[sel], pos[sel]] = nb[sel]
    return p, sup, tk[:, :k]


def knn_cells(
    D: np.ndarray,
    order: np.ndarray,
    Y: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    excl_cells: np.ndarray,
    k: int,
    weights: str,
    min_train: int,
) -> tuple[np.ndarray, np.ndarray]:
    r"""kNN prediction of cells ``(rows[c], cols[c])`` from the other models' targets.

    Training set :math:`T = \{j : Y[j,t]\ \text{defined}, j\notin E\}` with ``E = excl_cells[c]``
    (a bool row over models). Neighbours sorted by (distance, model index); the first
    :math:`\min(k,|T|)` are averaged uniformly or with weights :math:`1/\max(d,10^{-12})` (only the
    zero-distance ones if any :math:`d=0`). NaN when :math:`|T| < \max(1, \text{min\_train})`.

    Returns
    -------
    pred : (c,) ; support : (c,) int
    """
    rows = np.asarray(rows, dtype=int)
    cols = np.asarray(cols, dtype=int)
    nc = len(rows)
    pred = np.full(nc, np.nan)
    support = np.zeros(nc, dtype=int)
    need = max(1, int(min_train))
    for s in range(0, nc, _CELL_CHUNK):
        e = min(nc, s + _CELL_CHUNK)
        r, c = rows[s:e], cols[s:e]
        nb = order[r]  # (m, n) sorted neighbour ids
        excluded = np.take_along_axis(excl_cells[s:e], nb, axis=1)
        d = np.take_along_axis(D[r], nb, axis=1)
        pred[s:e], support[s:e], _ = _knn_sorted(nb, Y[nb, c[:, None]], excluded, d, k, weights, need, False)
    return pred, support


def _logit(p):
    return np.log(p) - np.log1p(-p)


def whitened_knn_cells(
    D: np.ndarray,
    order: np.ndarray,
    Y: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    excl_row: np.ndarray,
    k: int,
    weights: str,
    min_train: int,
    eps: float = 1e-3,
) -> np.ndarray:
    r"""``whiten=True`` prediction for cells that share one exclusion set ``E``.

    1. :math:`z = \mathrm{logit}(\mathrm{clip}(y,\varepsilon,1-\varepsilon))`;
    2. per task :math:`\mu_u,\sigma_u` (population sd) over models :math:`\notin E` with a target
       (:math:`\sigma_u=1` if :math:`<10^{-8}` or fewer than 2 values; :math:`\mu_u=0` if none);
       :math:`\tilde z = (z-\mu_u)/\sigma_u`;
    3. leave-task-out bias :math:`\beta_j^{(t)} = \mathrm{mean}_{u\ne t}\tilde z(j,u)` (0 if none);
    4. residuals :math:`r(j,t)=\tilde z(j,t)-\beta_j^{(t)}` averaged by the kNN rule;
    5. :math:`\hat z = \mu_t + \sigma_t(\beta_i^{(t)} + \hat r)`, returned as
       :math:`\mathrm{sigmoid}(\hat z)`.

    The target model's own targets on *other* tasks enter through :math:`\beta_i^{(t)}` — the
    deliberate exception of the leakage contract; its target on ``t`` never does.
    """
    n, T = Y.shape
    keep = ~np.asarray(excl_row, dtype=bool)
    z = _logit(np.clip(Y, eps, 1 - eps))
    defined = ~np.isnan(Y)
    use = defined & keep[:, None]
    cnt = use.sum(axis=0)
    zs = np.where(use, z, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(cnt > 0, zs.sum(axis=0) / np.maximum(cnt, 1), 0.0)
        var = np.where(cnt > 0, (np.where(use, (z - mu) ** 2, 0.0)).sum(axis=0) / np.maximum(cnt, 1), 0.0)
    sd = np.sqrt(var)
    sd = np.where((sd < 1e-8) | (cnt < 2), 1.0, sd)
    zt = np.where(defined, (z - mu) / sd, np.nan)
    zt0 = np.where(defined, zt, 0.0)
    tot = zt0.sum(axis=1, keepdims=True)
    num = defined.sum(axis=1, keepdims=True)
    loo_cnt = num - defined
    with np.errstate(invalid="ignore", divide="ignore"):
        beta = np.where(loo_cnt > 0, (tot - zt0) / np.maximum(loo_cnt, 1), 0.0)  # beta[j, t]
    resid = np.where(defined, zt - beta, np.nan)
    excl_cells = np.broadcast_to(~keep, (len(rows), n))
    rhat, _ = knn_cells(D, order, resid, rows, cols, excl_cells, k, weights, min_train)
    zhat = mu[cols] + sd[cols] * (beta[rows, cols] + rhat)
    return 1.0 / (1.0 + np.exp(-zhat))


def cv_errors(
    coords_list: list,
    Y: np.ndarray,
    excl: np.ndarray,
    groups: list,
    k: int,
    weights: str,
    min_train: int,
    dist_order: Callable[[int], tuple[np.ndarray, np.ndarray]] | None = None,
) -> np.ndarray:
    r"""Nested leave-one-model-out criterion :math:`\mathrm{err}_G(h)` .

    For a hidden model set ``G`` and each geometry ``coords_list[h]``: the mean absolute error,
    over observed cells :math:`(j,u)` with :math:`j\notin G`, of the non-whitened kNN prediction
    whose training set excludes :math:`G\cup E(j)` (``excl[j]``). Cells without a prediction are
    skipped; a ``G`` with no scorable cell gets NaN.

    Exact speed-up: the prediction of a cell changes under ``G`` only if a member of ``G`` is among
    its first ``k`` usable neighbours or removing ``G`` drops its support below ``min_train``; only
    those cells are recomputed.

    ``dist_order(h)``, if given, returns :func:`pairwise_distances` of ``coords_list[h]`` and its
    :func:`neighbour_order` (a fitted estimator keeps them for all its calls).

    Returns
    -------
    ndarray (len(groups), len(coords_list))
    """
    n, T = Y.shape
    jj, uu = np.nonzero(~np.isnan(Y))
    yc = Y[jj, uu]
    need = max(1, int(min_train))
    out = np.full((len(groups), len(coords_list)), np.nan)
    excl = np.asarray(excl, dtype=bool)
    usable_mt = (~np.isnan(Y)).astype(float)  # (n, T)
    any_group = any(np.asarray(G).size for G in groups)
    for h, X in enumerate(coords_list):
        if dist_order is None:
            D = pairwise_distances(X)
            order = neighbour_order(D)
        else:
            D, order = dist_order(h)
        # Every cell's neighbours are its model's row of `order`: sort the distances and the exclusions
        # once per model, then gather rows (the same values knn_cells would gather per cell).
        d_sorted = np.take_along_axis(D, order, axis=1)
        excl_sorted = np.take_along_axis(excl, order, axis=1)
        p0, s0, topk = _cells_sorted(order, d_sorted, excl_sorted, Y, jj, uu, None, k, weights, need, any_group)
        e0 = np.abs(p0 - yc)
        for g, G in enumerate(groups):
            G = np.asarray(G, dtype=int)
            if G.size == 0:
                ok = ~np.isnan(e0)
                out[g, h] = e0[ok].mean() if ok.any() else np.nan
                continue
            inG = np.zeros(n, dtype=bool)
            inG[G] = True
            keep = ~inG[jj]
            hit = (topk >= 0) & inG[np.maximum(topk, 0)]
            affected = hit.any(axis=1)
            # support lost: members of G usable for the cell
            lost = (usable_mt[G][:, uu] * (~excl[jj][:, G]).T).sum(axis=0)
            affected |= (lost > 0) & (s0 - lost < need) & (s0 >= need)
            affected &= keep
            e = e0.copy()
            if affected.any():
                idx = np.flatnonzero(affected)
                p1, _, _ = _cells_sorted(
                    order, d_sorted, excl_sorted, Y, jj[idx], uu[idx], inG, k, weights, need, False
                )
                e[idx] = np.abs(p1 - yc[idx])
            e = e[keep]
            ok = ~np.isnan(e)
            out[g, h] = e[ok].mean() if ok.any() else np.nan
    return out


def _cells_sorted(order, d_sorted, excl_sorted, Y, rows, cols, also_excluded, k, weights, need, return_topk):
    """:func:`knn_cells` for cells whose exclusion set is their model's row of the exclusion matrix (sorted
    as ``excl_sorted``), plus ``also_excluded`` models if given."""
    nc = len(rows)
    pred = np.full(nc, np.nan)
    support = np.zeros(nc, dtype=int)
    topk = np.full((nc, k), -1, dtype=int) if return_topk else None
    for s in range(0, nc, _CELL_CHUNK):
        e = min(nc, s + _CELL_CHUNK)
        r, c = rows[s:e], cols[s:e]
        nb = order[r]
        excluded = excl_sorted[r] if also_excluded is None else excl_sorted[r] | also_excluded[nb]
        pred[s:e], support[s:e], tk = _knn_sorted(
            nb, Y[nb, c[:, None]], excluded, d_sorted[r], k, weights, need, return_topk
        )
        if return_topk:
            topk[s:e] = tk
    return pred, support, topk


def select_bandwidth(errors: np.ndarray, grid: np.ndarray, ref: float) -> int:
    """Index of :math:`\\arg\\min_h \\mathrm{err}(h)`; ties (relative 1e-12) go to the ``h`` closest
    to ``ref`` on a log scale, then to the smaller ``h`` . All-NaN errors count as ties."""
    grid = np.asarray(grid, dtype=float)
    err = np.asarray(errors, dtype=float)
    if np.isnan(err).all():
        cand = np.arange(len(grid))
    else:
        m = np.nanmin(err)
        cand = np.flatnonzero(~np.isnan(err) & (err <= m + 1e-12 * max(abs(m), 1e-300)))
    dist = np.abs(np.log(grid[cand]) - np.log(ref))
    best = cand[np.lexsort((grid[cand], np.round(dist, 12)))]
    return int(best[0])
