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

import weakref
from collections.abc import Callable

import numpy as np
from joblib import Parallel, delayed

__all__ = [
    "pairwise_distances",
    "neighbour_order",
    "knn_cells",
    "whitened_knn_cells",
    "cv_errors",
    "FitCriterion",
    "CellPredictions",
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
    # per group, what does not depend on the geometry: its members, the cells kept, the support lost
    excl_cells = excl[jj]  # (cells, n)
    per_group = []
    for G in groups:
        G = np.asarray(G, dtype=int)
        if G.size == 0:
            per_group.append(None)
            continue
        inG = np.zeros(n, dtype=bool)
        inG[G] = True
        lost = (usable_mt[G][:, uu] * (~excl_cells[:, G]).T).sum(axis=0)  # members of G usable for the cell
        per_group.append((inG, ~inG[jj], lost))
    hidden = np.array([np.zeros(n, dtype=bool) if pg is None else pg[0] for pg in per_group])  # (groups, n)
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
        redo = []  # per group, the cells whose prediction changes without the group
        for pg in per_group:
            if pg is None:
                redo.append(None)
                continue
            inG, keep, lost = pg
            affected = ((topk >= 0) & inG[np.maximum(topk, 0)]).any(axis=1)
            affected |= (lost > 0) & (s0 - lost < need) & (s0 >= need)
            redo.append(np.flatnonzero(affected & keep))
        # every group's changed cells in one pass, each cell without its own group
        sizes = [0 if r is None else r.size for r in redo]
        if sum(sizes):
            idx = np.concatenate([r for r in redo if r is not None])
            gid = np.repeat(np.arange(len(redo)), sizes)
            p1, _, _ = _cells_sorted(
                order, d_sorted, excl_sorted, Y, jj[idx], uu[idx], (hidden, gid), k, weights, need, False
            )
            e1 = np.abs(p1 - yc[idx])
        at = np.cumsum([0] + sizes)
        for g, pg in enumerate(per_group):
            if pg is None:
                out[g, h] = _mean_defined(e0)
                continue
            e = e0.copy()
            if sizes[g]:
                e[redo[g]] = e1[at[g] : at[g + 1]]
            out[g, h] = _mean_defined(e[pg[1]])
    return out


def _candidate_state(D, order, Y0, jj, uu, k: int, weights: str, need: int) -> tuple[np.ndarray, np.ndarray]:
    """One candidate's leave-one-model-out predictions ``p0`` of the observed cells ``(jj, uu)`` of
    ``Y0`` and the neighbour each selected last (-1: fewer than ``k`` usable, every rank counts)."""
    p0, _, topk = _cells_sorted(
        order, *_sorted_lomo(D, order, np.arange(len(D))), Y0, jj, uu, None, k, weights, need, True
    )
    return p0, topk[:, -1].copy()


class FitCriterion:
    r"""The fit-time criterion (:func:`cv_errors` with ``excl`` the identity, no hidden group) on a
    target table ``Y0``, kept per cell so that the criterion of a *changed* table ``Y`` (some cells
    hidden, revealed or given another value: a fitted copy with masked targets, as for the
    Ensemble's out-of-fold weights) is computed exactly, recomputing only the cells the change reaches.

    Under :math:`Y_0` the prediction of cell :math:`(j, u)` averages its first ``k`` usable
    neighbours in ``order[j]``, the last of them at rank :math:`P_{ju}` (every rank when fewer
    than ``k`` are usable). If no changed cell :math:`(m, u)`, :math:`m \ne j`, has its model at a
    rank :math:`\le P_{ju}`, the same neighbours are selected with the same targets and weights,
    so the prediction is the same bits; if moreover the support does not cross ``min_train`` and
    the cell's own target is unchanged, so is its error. Every other cell of ``Y`` is recomputed
    from ``Y`` itself, and the mean runs over the cells of ``Y`` in the order of :func:`cv_errors`.

    ``geometries[h]`` is ``(D, order)`` of candidate ``h`` (:func:`pairwise_distances`,
    :func:`neighbour_order`). The criterion keeps only weak references to them (it never keeps a
    geometry alive) and per-cell vectors; the first changed table adds each candidate's ``(n, n)``
    neighbour ranks (int32), so a plain fit keeps O(cells).
    """

    def __init__(
        self,
        geometries: list,
        Y0: np.ndarray,
        k: int,
        weights: str = "distance",
        min_train: int = 1,
        n_jobs: int | None = None,
    ):
        self._refs = [(weakref.ref(D), weakref.ref(order)) for D, order in geometries]
        self.Y0 = np.array(Y0, dtype=float)
        self.k, self.weights, self.need = int(k), weights, max(1, int(min_train))
        self.jj, self.uu = np.nonzero(~np.isnan(self.Y0))
        yc = self.Y0[self.jj, self.uu]
        # per candidate: p0 and the k-th selected neighbour of every observed cell of Y0, one joblib
        # job per candidate (``n_jobs``; each job is the same computation whatever runs it)
        job = delayed(_candidate_state)
        self.state = Parallel(n_jobs=n_jobs)(
            job(D, order, self.Y0, self.jj, self.uu, self.k, weights, self.need) for D, order in geometries
        )
        self.errors0 = np.array([_mean_defined(np.abs(p0 - yc)) for p0, _ in self.state])
        self._cuts = None  # (rank, cut) per candidate, built by the first changed table (not for a plain fit)

    def _ranks_and_cuts(self, geometries: list) -> list:
        """Per candidate ``rank[j, m]`` (position of m in ``order[j]``) and ``cut[j, u]`` (the rank of
        the cell's k-th selected neighbour under Y0, n when fewer than k are usable)."""
        if self._cuts is None:
            n, T = self.Y0.shape
            ids = np.arange(n)
            self._cuts = []
            for (_, order), (_, last) in zip(geometries, self.state):
                rank = np.empty(order.shape, dtype=np.int32 if n < 2**31 else np.int64)
                rank[ids[:, None], order] = ids[None, :]
                cut = np.full((n, T), n, dtype=rank.dtype)
                cut[self.jj, self.uu] = np.where(last >= 0, rank[self.jj, np.maximum(last, 0)], n)
                self._cuts.append((rank, cut))
        return self._cuts

    def same_geometries(self, geometries: list) -> bool:
        """The candidates' ``(D, order)`` are the very arrays this criterion was built on."""
        return len(geometries) == len(self._refs) and all(
            rd() is D and ro() is order for (rd, ro), (D, order) in zip(self._refs, geometries)
        )

    def errors(self, geometries: list, Y: np.ndarray) -> np.ndarray | None:
        """The criterion per candidate on ``Y`` (as :func:`cv_errors` computes it), or None when the
        geometries are not this criterion's or ``Y`` has another shape."""
        Y = np.asarray(Y, dtype=float)
        if Y.shape != self.Y0.shape or not self.same_geometries(geometries):
            return None
        n, T = Y.shape
        obs0, obs = ~np.isnan(self.Y0), ~np.isnan(Y)
        same_bits = Y.view(np.int64) == self.Y0.view(np.int64)
        changed = (obs != obs0) | (obs & ~same_bits)  # (n, T)
        jj, uu = np.nonzero(obs)
        yc = Y[jj, uu]
        at0 = np.full((n, T), -1)
        at0[self.jj, self.uu] = np.arange(len(self.jj))
        c0 = at0[jj, uu]  # each cell of Y in the cell list of Y0 (-1: not observed there)
        support0, support = obs0.sum(axis=0) - 1, obs.sum(axis=0) - 1  # usable: the task's others
        redo_cell = (c0 < 0) | changed[jj, uu] | ((support[uu] >= self.need) != (support0[uu] >= self.need))
        mc, uc = np.nonzero(changed)
        ids = np.arange(n)
        out = np.empty(len(self.state))
        for h, ((D, order), (p0, _), (rank, cut)) in enumerate(
            zip(geometries, self.state, self._ranks_and_cuts(geometries))
        ):
            reached = np.zeros((n, T), dtype=bool)
            for u in np.unique(uc):
                ms = mc[uc == u]
                reached[:, u] = ((rank[:, ms] <= cut[:, u][:, None]) & (ids[:, None] != ms[None, :])).any(axis=1)
            redo = redo_cell | reached[jj, uu]
            p = np.where(c0 >= 0, p0[np.maximum(c0, 0)], np.nan)
            if redo.any():
                idx = np.flatnonzero(redo)
                models, at = np.unique(jj[idx], return_inverse=True)  # sort only the rows needed
                p[idx], _, _ = _cells_sorted(
                    order[models],
                    *_sorted_lomo(D[models], order[models], models),
                    Y,
                    at,
                    uu[idx],
                    None,
                    self.k,
                    self.weights,
                    self.need,
                    False,
                )
            out[h] = _mean_defined(np.abs(p - yc))
        return out


class CellPredictions:
    r"""The kNN predictions of every (model, task) cell (:func:`knn_cells`) for one geometry, exclusion
    matrix and rule on a target table ``Y0``, kept so that the predictions on a *changed* table ``Y``
    (fitted copies with masked targets) recompute only the cells the change reaches.

    Cell :math:`(j, u)` keeps its prediction under ``Y`` when no changed cell :math:`(m, u)` with
    :math:`m \notin E(j)` has its model at a rank up to that of the cell's ``k``-th usable neighbour
    under ``Y0`` (any rank when fewer than ``k`` are usable) and its support stays on the same side
    of ``min_train``: the same neighbours, targets and weights are selected, so the same bits.

    Keeps weak references to ``D``, ``order`` and ``excl`` (read-only arrays shared by the fitted
    copies) and per cell ``(n, T)`` vectors plus the ``(n, n)`` ranks (int32).
    """

    def __init__(self, D, order, excl, Y0, k: int, weights: str, min_train: int):
        self._refs = (weakref.ref(D), weakref.ref(order), weakref.ref(excl))
        self.key = (int(k), weights, max(1, int(min_train)))
        self.Y0 = np.array(Y0, dtype=float)
        n, T = self.Y0.shape
        ids = np.arange(n)
        rows, cols = np.repeat(ids, T), np.tile(np.arange(T), n)
        d_sorted = np.take_along_axis(D, order, axis=1)
        excl_sorted = np.take_along_axis(excl, order, axis=1)
        p0, s0, topk = _cells_sorted(
            order, d_sorted, excl_sorted, self.Y0, rows, cols, None, k, weights, self.key[2], True
        )
        self.p0, self.s0 = p0.reshape(n, T), s0.reshape(n, T)
        self.rank = np.empty(order.shape, dtype=np.int32 if n < 2**31 else np.int64)
        self.rank[ids[:, None], order] = ids[None, :]
        last = topk[:, -1]
        self.cut = np.where(last >= 0, self.rank[rows, np.maximum(last, 0)], n).reshape(n, T)

    def matches(self, D, order, excl, k, weights, min_train) -> bool:
        rd, ro, re = self._refs
        return rd() is D and ro() is order and re() is excl and self.key == (int(k), weights, max(1, int(min_train)))

    def predict(self, D, order, excl, Y, rows, cols) -> tuple[np.ndarray, np.ndarray] | None:
        """``knn_cells(D, order, Y, rows, cols, excl[rows], ...)``'s ``(pred, support)``; None when ``Y``
        has another shape."""
        Y = np.asarray(Y, dtype=float)
        if Y.shape != self.Y0.shape:
            return None
        n, T = Y.shape
        k, weights, need = self.key
        obs0, obs = ~np.isnan(self.Y0), ~np.isnan(Y)
        changed = (obs != obs0) | (obs & (Y.view(np.int64) != self.Y0.view(np.int64)))
        flips = np.flatnonzero((obs != obs0).any(axis=1))  # models whose observed cells changed
        gained = obs[flips].astype(float) - obs0[flips]  # +1 revealed, -1 hidden
        support = self.s0 + np.rint((~excl[:, flips]).astype(float) @ gained).astype(self.s0.dtype)
        reached = (support >= need) != (self.s0 >= need)
        mc, uc = np.nonzero(changed)
        for u in np.unique(uc):
            ms = mc[uc == u]
            near = (self.rank[:, ms] <= self.cut[:, u][:, None]) & ~excl[:, ms]
            reached[:, u] |= near.any(axis=1)
        rows, cols = np.asarray(rows, dtype=int), np.asarray(cols, dtype=int)
        pred, sup = self.p0[rows, cols].copy(), support[rows, cols]
        redo = np.flatnonzero(reached[rows, cols])
        if redo.size:
            models, at = np.unique(rows[redo], return_inverse=True)
            o = order[models]
            pred[redo], _, _ = _cells_sorted(
                o,
                np.take_along_axis(D[models], o, axis=1),
                np.take_along_axis(excl[models], o, axis=1),
                Y,
                at,
                cols[redo],
                None,
                k,
                weights,
                need,
                False,
            )
        return pred, sup


def _sorted_lomo(D: np.ndarray, order: np.ndarray, models: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the rows of ``models`` (``D`` and ``order`` restricted to them): their distances and their
    leave-one-model-out exclusions (the model itself) in neighbour order — the rows of
    ``take_along_axis(D, order)`` and ``take_along_axis(eye, order)``."""
    return np.take_along_axis(D, order, axis=1), order == np.asarray(models)[:, None]


def _mean_defined(e: np.ndarray) -> float:
    """Mean of the non-NaN entries (NaN if none), as :func:`cv_errors` averages a criterion."""
    ok = ~np.isnan(e)
    return e[ok].mean() if ok.any() else np.nan


def _cells_sorted(order, d_sorted, excl_sorted, Y, rows, cols, also_excluded, k, weights, need, return_topk):
    """:func:`knn_cells` for cells whose exclusion set is their model's row of the exclusion matrix (sorted
    as ``excl_sorted``), plus ``also_excluded`` models if given: a bool vector over models for every
    cell, or ``(rows, of_cell)`` with ``rows`` (groups x models) and ``of_cell`` each cell's group."""
    nc = len(rows)
    pred = np.full(nc, np.nan)
    support = np.zeros(nc, dtype=int)
    topk = np.full((nc, k), -1, dtype=int) if return_topk else None
    for s in range(0, nc, _CELL_CHUNK):
        e = min(nc, s + _CELL_CHUNK)
        r, c = rows[s:e], cols[s:e]
        nb = order[r]
        if also_excluded is None:
            excluded = excl_sorted[r]
        elif isinstance(also_excluded, tuple):
            excluded = excl_sorted[r] | also_excluded[0][also_excluded[1][s:e, None], nb]
        else:
            excluded = excl_sorted[r] | also_excluded[nb]
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
