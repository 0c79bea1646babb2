"""Per-(model, query) sufficient statistics of the responses, the input of the pair sums.

For a linear (or, on unit vectors, cosine) response kernel a model's responses to one query enter
the affinity only through their count :math:`c_{iq}` and their sum :math:`s_{iq}=\\sum x`
(:mod:`dkps.kernels`); other response kernels keep the reduced rows themselves. Rows are projected
with the frozen :class:`~dkps.layout.Layout`, so ``update`` adds to the statistics of a fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse

from .layout import Layout, query_vectors_by_key
from .records import Records

__all__ = [
    "SuiteStats",
    "add_rows",
    "clear_models",
    "reindex_models",
    "copy_stats",
    "merge_rows",
    "query_registry",
    "fitted_rows",
]


@dataclass
class SuiteStats:
    keys: list = field(default_factory=list)  # (task_id, query_id)
    key_index: dict = field(default_factory=dict)
    key_task: list = field(default_factory=list)
    U: np.ndarray | None = None  # (Q, q) reduced query vectors
    C: np.ndarray | None = None  # (n, Q) counts
    S: np.ndarray | None = None  # (n, r, Q) sums of reduced response vectors
    rows: dict = field(default_factory=dict)  # model -> list of (q_idx, X) for non-linear k_R


def add_rows(
    stats: dict,
    layout: Layout,
    rec: Records,
    row_idx: np.ndarray,
    model_pos: np.ndarray,
    model_names: list,
    delta: bool,
    response_kernel,
) -> None:
    """Project rows ``row_idx`` of ``rec`` with the frozen layout and add them to ``stats`` (per suite)."""
    frame = rec.frame
    suites = frame.suite.to_numpy()
    tasks = frame.task_id.to_numpy()
    qids = frame.query_id.to_numpy()
    n = len(model_names)
    linear = response_kernel == "linear" or response_kernel == "cosine"
    for s in layout.suites:
        idx = row_idx[suites[row_idx] == s]
        if idx.size == 0:
            continue
        lay = layout.per_suite[s]
        st = stats[s]
        # new query keys (first appearance order), and every row's key index
        codes = rec.key_codes[idx]
        uc, first, inv = np.unique(codes, return_index=True, return_inverse=True)
        slot = np.empty(len(uc), dtype=int)
        new_keys = []
        for u in np.argsort(first, kind="stable"):
            i = idx[first[u]]
            key = (tasks[i], qids[i])
            if key not in st.key_index:
                st.key_index[key] = len(st.keys)
                st.keys.append(key)
                st.key_task.append(tasks[i])
                new_keys.append(key)
            slot[u] = st.key_index[key]
        Q = len(st.keys)
        if not delta and new_keys:
            Unew = lay.query_basis.transform(query_vectors_by_key(rec, idx, new_keys))
            st.U = Unew if st.U is None else np.vstack([st.U, Unew])
        X = lay.response_basis.transform(rec.stacked("response", idx))
        qi = slot[inv.reshape(-1)]
        mi = model_pos[idx]
        r = X.shape[1]
        fresh = st.C is None
        if fresh:
            st.C = np.zeros((n, Q))
            st.S = None
        elif st.C.shape[1] < Q:
            pad = Q - st.C.shape[1]
            st.C = np.hstack([st.C, np.zeros((n, pad))])
            if st.S is not None:
                st.S = np.concatenate([st.S, np.zeros((n, r, pad))], axis=2)
        flat = mi * Q + qi
        st.C = st.C + np.bincount(flat, minlength=n * Q).reshape(n, Q)
        if linear:
            if response_kernel == "cosine" and not lay.response_basis.normalize:
                nr = np.linalg.norm(X, axis=1, keepdims=True)
                X = X / np.where(nr < 1e-12, 1.0, nr)
            M = sparse.csr_matrix((np.ones(len(flat)), (flat, np.arange(len(flat)))), shape=(n * Q, len(flat)))
            SX = _cell_sums(M, X, n, Q)
            st.S = SX if fresh else st.S + SX
        else:
            for m in np.unique(mi):
                sel = mi == m
                name = model_names[m]
                st.rows.setdefault(name, []).append((qi[sel], X[sel]))


def _cell_sums(M: sparse.csr_matrix, X: np.ndarray, n: int, Q: int, block: int = 16) -> np.ndarray:
    """The (n, r, Q) sums ``S[i, :, q]`` of the rows ``X`` of each (model ``i``, query ``q``) cell,
    ``M`` the (n Q, N) 0/1 matrix of rows to cells (model-major), by blocks of models.

    A block's rows of ``M @ X`` are the same sums, term by term in the same order, as the rows of
    the whole product (each output row of a CSR product reads only its own row of ``M``), so the
    result is bit-identical to ``(M @ X).reshape(n, Q, r).transpose(0, 2, 1)``; the blocks hold one
    block's product at a time instead of a second ``(n Q, r)`` array, and each block's transpose
    stays in cache (several times faster than one strided copy)."""
    r = X.shape[1]
    out = np.empty((n, r, Q))
    for s in range(0, n, block):
        e = min(n, s + block)
        part = np.asarray(M[s * Q : e * Q] @ X).reshape(e - s, Q, r)
        out[s:e] = part.transpose(0, 2, 1)
    return out


def clear_models(stats: dict, pos: np.ndarray, names: list) -> None:
    """Zero the statistics of the models at ``pos`` (named ``names``)."""
    for st in stats.values():
        if st.C is not None:
            st.C = st.C.copy()
            st.C[pos] = 0.0
            if st.S is not None:
                st.S = st.S.copy()
                st.S[pos] = 0.0
        for m in names:
            st.rows.pop(m, None)


def reindex_models(stats: dict, old_to_new: np.ndarray, n_new: int) -> None:
    """Move the statistics to a new model list (old model ``i`` to position ``old_to_new[i]``)."""
    for st in stats.values():
        if st.C is not None:
            C = np.zeros((n_new, st.C.shape[1]))
            C[old_to_new] = st.C
            st.C = C
            if st.S is not None:
                S = np.zeros((n_new,) + st.S.shape[1:])
                S[old_to_new] = st.S
                st.S = S


def copy_stats(st: SuiteStats) -> SuiteStats:
    """New list/dict containers (arrays are replaced, never mutated, by update)."""
    return SuiteStats(
        keys=list(st.keys),
        key_index=dict(st.key_index),
        key_task=list(st.key_task),
        U=st.U,
        C=st.C,
        S=st.S,
        rows={m: list(v) for m, v in st.rows.items()},
    )


def merge_rows(parts: list):
    """One ``(query_index, X)`` pair from a model's list of added row batches."""
    if not parts:
        return (np.zeros(0, dtype=int), np.zeros((0, 0)))
    return (np.concatenate([p[0] for p in parts]), np.vstack([p[1] for p in parts]))


def query_registry(rec: Records, known: dict | None = None) -> dict:
    """(task_id, query_id) -> (query vector or None, query text or None), first value wins."""
    reg = {} if known is None else dict(known)
    if len(rec) == 0:
        return reg
    t = rec.frame.task_id.to_numpy()
    q = rec.frame.query_id.to_numpy()
    codes = rec.key_codes
    n_keys = int(codes.max()) + 1
    qv, qt = rec.query_vectors, rec.query_text
    has_v = np.ones(len(rec), dtype=bool) if rec.query_matrix is not None else np.array([v is not None for v in qv])
    has_t = np.array([s is not None for s in qt])

    def first_with(has: np.ndarray) -> np.ndarray:
        """Per key code, the first row that has it (len(rec) where none)."""
        out = np.full(n_keys, len(rec))
        rows = np.flatnonzero(has)
        out[codes[rows][::-1]] = rows[::-1]
        return out

    fv, ft = first_with(has_v), first_with(has_t)
    # keys in the order of their first row with a vector or a text (the order of a row-by-row pass)
    for c in np.argsort(np.minimum(fv, ft), kind="stable"):
        i = min(fv[c], ft[c])
        if i == len(rec):
            break
        v = qv[fv[c]] if fv[c] < len(rec) else None
        s = qt[ft[c]] if ft[c] < len(rec) else None
        key = (t[i], q[i])
        old = reg.get(key)
        if old is None:
            reg[key] = (v, s)
        else:
            reg[key] = (old[0] if old[0] is not None else v, old[1] if old[1] is not None else s)
    return reg


def fitted_rows(frame: pd.DataFrame, response_rows: list, idx: np.ndarray) -> Records:
    """Rows ``idx`` of a fitted frame as records (their query keys are already known)."""
    n = len(idx)
    return Records(
        frame=frame.iloc[idx].reset_index(drop=True),
        response_vectors=[response_rows[i] for i in idx],
        response_text=[None] * n,
        query_vectors=[None] * n,
        query_text=[None] * n,
    )
