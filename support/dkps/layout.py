"""The frozen layout of a perspective space: per-suite PCA bases and the response bandwidth.

Per suite, response vectors (and, unless the query kernel is delta, query vectors) are reduced by
PCA with the Zhu–Ghodsi elbow and unit-normalised (:func:`dkps.geometry.fit_pca`); an rbf response
kernel gets its bandwidth from the median pairwise distance of the reduced responses. The query
bandwidth's reference and candidate grid come from :mod:`dkps.bandwidth`. ``update`` projects new
rows with this layout, never refits it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import kernels
from .bandwidth import query_bandwidth_grid, within_task_distances
from .geometry import PCABasis, fit_pca
from .records import Records, key_codes

__all__ = ["SuiteLayout", "Layout", "derive_layout", "unique_keys", "query_vectors_by_key"]


@dataclass(frozen=True)
class SuiteLayout:
    """Frozen per-suite reduction: query basis (None for delta), response basis, response rbf h."""

    query_basis: PCABasis | None
    response_basis: PCABasis
    response_bandwidth: float | None


@dataclass(frozen=True)
class Layout:
    """Everything ``update`` projects new rows with: frozen PCA bases, reference bandwidth and grid."""

    suites: tuple
    per_suite: dict
    bandwidth_ref: float | None
    grid: tuple  # candidate query bandwidths (None for non-rbf kernels)


def first_key_rows(codes: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The first row of ``idx`` (in its order) of each distinct key code among ``codes[idx]``, in
    order of first appearance."""
    idx = np.asarray(idx, dtype=int)
    _, first = np.unique(codes[idx], return_index=True)
    return idx[np.sort(first)]


def unique_keys(frame: pd.DataFrame, idx: np.ndarray, codes: np.ndarray | None = None):
    """The distinct ``(task_id, query_id)`` keys of rows ``idx`` in first-appearance order, and their tasks.

    ``codes`` are the frame's key codes (:func:`dkps.records.key_codes`, computed when not given)."""
    t = frame.task_id.to_numpy()
    q = frame.query_id.to_numpy()
    rows = first_key_rows(key_codes(frame) if codes is None else codes, idx)
    return [(t[i], q[i]) for i in rows], [t[i] for i in rows]


def query_vectors_by_key(rec: Records, idx: np.ndarray, keys: list) -> np.ndarray:
    """One query vector per key (the first row of ``idx`` that carries one)."""
    idx = np.asarray(idx, dtype=int)
    if rec.query_matrix is None:
        idx = idx[[rec.query_vectors[i] is not None for i in idx]]
    tasks = rec.frame.task_id.to_numpy()
    qids = rec.frame.query_id.to_numpy()
    first = {(tasks[i], qids[i]): i for i in first_key_rows(rec.key_codes, idx)}
    missing = [k for k in keys if k not in first]
    if missing:
        raise ValueError(f"query {missing[0]} has no embedding; give query_embedding or query text")
    return rec.stacked("query", [first[k] for k in keys])


def derive_layout(rec: Records, qk: dict, rk: dict, delta: bool, random_state) -> Layout:
    """Fit the per-suite bases and bandwidths on ``rec`` (merged settings ``qk``, ``rk``)."""
    rng = np.random.default_rng(random_state)
    frame = rec.frame
    suites = tuple(sorted(pd.unique(frame.suite)))
    per_suite = {}
    within_task: list[np.ndarray] = []
    within_suite: list[np.ndarray] = []
    for s in suites:
        idx = np.flatnonzero(frame.suite.to_numpy() == s)
        X = rec.stacked("response", idx)
        rb = fit_pca(X, rk["pca_dim"], rk["pca_n_elbows"], rk["normalize"])
        r_h = None
        if rk["kernel"] == "rbf":
            if rk["bandwidth"] == "median":
                ref = rk["bandwidth_ref"] or kernels.median_pair_distance(rb.transform(X), rng)
                if not np.isfinite(ref) or ref <= 0:
                    ref = 1.0
                r_h = float(ref) * rk["bandwidth_mult"]
            else:
                r_h = float(rk["bandwidth"])
        qb = None
        if not delta:
            keys, key_task = unique_keys(frame, idx, rec.key_codes)
            U = query_vectors_by_key(rec, idx, keys)
            qb = fit_pca(U, qk["pca_dim"], qk["pca_n_elbows"], qk["normalize"])
            if qk["kernel"] == "rbf" and qk["bandwidth_ref"] is None and qk["bandwidth"] in ("median", "cv"):
                wt, ws = within_task_distances(qb.transform(U), key_task, rng)
                within_task.extend(wt)
                within_suite.extend(ws)
        per_suite[s] = SuiteLayout(qb, rb, r_h)
    ref, grid = query_bandwidth_grid(qk, within_task, within_suite)
    return Layout(suites, per_suite, ref, grid)
