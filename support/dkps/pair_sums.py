"""The affinity's pair sums Num and Den over every pair of models, in blocks of models under a memory budget.

For models :math:`i, i'` the product-kernel affinity sums over all their response rows
(:mod:`dkps.kernels`; Acharyya et al. 2024 for the delta query kernel)

.. math::
    \\mathrm{Num}_{ii'} = \\sum_{j,l} k_Q(u_j,u_l)\\,k_R(x_j,x_l),\\qquad
    \\mathrm{Den}_{ii'} = \\sum_{j,l} k_Q(u_j,u_l),

by sufficient statistics: per suite and candidate bandwidth, ``W = S K`` for a block of models,
then ``W S^T`` against every model. The cost is :math:`O(n^2 r Q)` per suite; the memory of a block
is :math:`O(b\\, r\\, Q)` for ``b`` models, so :func:`blocked_pair_sums` picks ``b`` from a budget
in MiB and never holds more than one block's contraction per job. Blocks run through joblib
(``n_jobs``; any joblib backend, Dask's included): each block is computed the same way whatever
runs it, so the sums do not depend on ``n_jobs`` or the backend.

A small fit whose per-model contractions fit :data:`EXACT_UPDATE_BYTES` keeps them
(:func:`full_pair_sums`) so that ``update`` equals a fresh fit bit for bit
(:func:`exact_update_pair_sums`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from . import kernels
from .layout import Layout
from .statistics import merge_rows
from .threads import blas_threads

__all__ = [
    "EXACT_UPDATE_BYTES",
    "exact_possible",
    "full_pair_sums",
    "exact_update_pair_sums",
    "blocked_pair_sums",
    "block_size",
    "block_bounds",
]

#: Largest per-model contraction cache (bytes) kept for updates that equal a fresh fit bit for bit.
EXACT_UPDATE_BYTES = 64 * 2**20


def _dots(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``X @ Y.T`` by ``np.einsum`` (no BLAS): each entry is the same sum whatever the other rows,
    which keeps ``update`` bit-identical to a fresh fit."""
    return np.einsum("ik,jk->ij", X, Y)


def _rows(X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Rows of X (a view when idx is every row) — contiguous, unlike fancy indexing."""
    if len(idx) == X.shape[0] and (len(idx) == 0 or (idx[0] == 0 and idx[-1] == X.shape[0] - 1)):
        return X
    return np.take(X, idx, axis=0)


def _cols(X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    if len(idx) == X.shape[-1] and (len(idx) == 0 or (idx[0] == 0 and idx[-1] == X.shape[-1] - 1)):
        return X
    return np.take(X, idx, axis=-1)


def _sub(S: np.ndarray, models: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """S[models][:, :, queries] as a C-contiguous array."""
    return np.ascontiguousarray(_cols(_rows(S, models), queries))


def exact_possible(stats: dict, H: int, delta: bool, linear: bool) -> bool:
    """True when the pair sums can be cached per model, so that ``update`` equals a fresh fit
    bit for bit: a linear (or cosine) response kernel, every model answering in every suite, and
    the per-model contractions ``W = S K`` within :data:`EXACT_UPDATE_BYTES`."""
    if not linear:
        return False
    size = 0
    for st in stats.values():
        if st.C is None or not (st.C.sum(axis=1) > 0).all() or st.S is None:
            return False
        size += st.S.size * H * 8
    return delta or size <= EXACT_UPDATE_BYTES


def full_pair_sums(stats: dict, suites: tuple, n: int, grid: tuple, qkern, delta: bool):
    """Num, Den (H, n, n) of every pair, unsymmetrised, and the per-model caches ``W = S K``, ``C K``.

    Per suite and bandwidth ``x = W S^T`` with ``W = S K`` (:func:`~dkps.kernels.contract`) and
    ``d = (C K) C^T``; the delta kernel has ``W = S``. Returns ``num, den, evals, wcache, kcache``.
    """
    H = len(grid)
    num, den = np.zeros((H, n, n)), np.zeros((H, n, n))
    evals = 0
    wcache, kcache = {}, {}
    for sname in suites:
        st = stats[sname]
        Sf = st.S.reshape(n, -1)
        if delta:
            num += _dots(Sf, Sf)[None]
            den += _dots(st.C, st.C)[None]
            continue
        Ks = kernels.query_gram(qkern, st.U, st.U, grid)
        evals += st.U.shape[0] ** 2 * len(Ks)
        cache = []
        kcache[sname] = Ks
        for h, K in enumerate(Ks):
            W, CK = kernels.contract(st.C, st.S, K, per_model=True)
            num[h] += _dots(W.reshape(n, -1), Sf)
            den[h] += _dots(CK, st.C)
            cache.append((W.reshape(st.S.shape), CK))
        wcache[sname] = cache
    return num, den, evals, wcache, kcache


def exact_update_pair_sums(
    stats: dict, suites: tuple, A: np.ndarray, old_to_new: np.ndarray, n: int, H: int, delta: bool, wcache, kcache
):
    """Num, Den (H, |A|, n) of the models ``A`` by the same per-model products as a fresh fit
    (:func:`full_pair_sums`), symmetrised: updates the cached ``W`` rows of ``A`` and uses the
    others as they are. Returns ``num, den, evals, new_wcache`` (``new_wcache`` None under delta)."""
    X1, X2 = np.zeros((H, len(A), n)), np.zeros((H, n, len(A)))
    D1, D2 = np.zeros((H, len(A), n)), np.zeros((H, n, len(A)))
    new_cache = {}
    for sname in suites:
        st = stats[sname]
        Sf = st.S.reshape(n, -1)
        SA = np.take(st.S, A, axis=0)
        CA = np.take(st.C, A, axis=0)
        SAf = SA.reshape(len(A), -1)
        if delta:
            X1 += _dots(SAf, Sf)[None]
            X2 += _dots(Sf, SAf)[None]
            D1 += _dots(CA, st.C)[None]
            D2 += _dots(st.C, CA)[None]
            continue
        Ks = kcache[sname]  # no new query: the fit's kernel matrices
        cache = []
        for h, K in enumerate(Ks):
            W_old, CK_old = wcache[sname][h]
            W = np.zeros(st.S.shape)
            CK = np.zeros(st.C.shape)
            W[old_to_new] = W_old
            CK[old_to_new] = CK_old
            WA, CKA = kernels.contract(CA, SA, K, per_model=True)
            W[A] = WA.reshape(SA.shape)
            CK[A] = CKA
            X1[h] += _dots(WA.reshape(len(A), -1), Sf)
            X2[h] += _dots(W.reshape(n, -1), SAf)
            D1[h] += _dots(CKA, st.C)
            D2[h] += _dots(CK, CA)
            cache.append((W, CK))
        new_cache[sname] = cache
    num = 0.5 * (X1 + X2.transpose(0, 2, 1))
    den = 0.5 * (D1 + D2.transpose(0, 2, 1))
    return num, den, 0, (None if delta else new_cache)


# ------------------------------------------------------------------------------ blocked sums
@dataclass(frozen=True)
class _SuitePlan:
    """What every block needs of one suite: the statistics, the other side ``B`` and the kernels."""

    kind: str  # 'delta' (delta query kernel, linear response), 'linear', or 'rows' (raw rows)
    C: np.ndarray | None  # (n, Q) counts
    S: np.ndarray | None  # (n, r, Q) sums
    QA: np.ndarray  # queries answered by the requested models
    B: np.ndarray  # models answering in the suite
    CB: np.ndarray | None  # their counts and sums on the B-side queries
    SB: np.ndarray | None
    Ks: list | None  # query kernels (QA x QB), one per bandwidth
    rows: dict | None  # model -> raw row batches ('rows')
    rows_b: list | None
    response_bandwidth: float | None


def _suite_plans(stats: dict, layout: Layout, A: np.ndarray, model_names: list, qkern, delta: bool, linear: bool):
    """Per suite, what every block needs (a :class:`_SuitePlan`), and the number of query-kernel evaluations. The query kernels are computed once, here."""
    grid = layout.grid
    plans, evals = [], 0
    for s in layout.suites:
        st = stats[s]
        if st.C is None:
            continue
        QA = np.flatnonzero(_rows(st.C, A).sum(axis=0) > 0)
        if QA.size == 0:
            continue
        B = np.flatnonzero(st.C.sum(axis=1) > 0)
        QB = np.flatnonzero(st.C.sum(axis=0) > 0)
        h_r = layout.per_suite[s].response_bandwidth
        if delta and linear:
            plans.append(
                _SuitePlan(
                    "delta", st.C, st.S, QA, B, _cols(_rows(st.C, B), QA), _sub(st.S, B, QA), None, None, None, h_r
                )
            )
            continue
        if delta:
            Ks = [np.eye(len(st.keys))]
        elif linear:
            Ks = kernels.query_gram(qkern, st.U[QA], st.U[QB], grid)
            evals += QA.size * QB.size * len(Ks)
            plans.append(
                _SuitePlan(
                    "linear", st.C, st.S, QA, B, _cols(_rows(st.C, B), QB), _sub(st.S, B, QB), Ks, None, None, h_r
                )
            )
            continue
        else:
            Ks = kernels.query_gram(qkern, st.U, st.U, grid)
            evals += len(st.keys) ** 2 * len(Ks)
        rows_b = [merge_rows(st.rows.get(model_names[b], [])) for b in B]
        plans.append(_SuitePlan("rows", None, None, QA, B, None, None, Ks, st.rows, rows_b, h_r))
    return plans, evals


_ARRAYS = ("C", "S", "QA", "B", "CB", "SB")


def _pack(plans: list) -> tuple[list, list]:
    """Plans as (metadata, arrays): joblib's Dask backend scatters array arguments to the workers
    once and reuses them for every block, while a list of plans would travel with each task."""
    meta, arrays = [], []
    for p in plans:
        pos = []
        for a in [getattr(p, f) for f in _ARRAYS] + list(p.Ks or []):
            pos.append(None if a is None else len(arrays))
            if a is not None:
                arrays.append(a)
        meta.append((p.kind, pos, len(p.Ks or []), p.Ks is None, p.rows, p.rows_b, p.response_bandwidth))
    return meta, arrays


def _unpack(meta: list, arrays: tuple) -> list:
    plans = []
    for kind, pos, n_k, no_k, rows, rows_b, h_r in meta:
        vals = [None if i is None else arrays[i] for i in pos]
        Ks = None if no_k else vals[len(_ARRAYS) : len(_ARRAYS) + n_k]
        plans.append(_SuitePlan(kind, *vals[: len(_ARRAYS)], Ks, rows, rows_b, h_r))
    return plans


def _block_sums(meta: list, A_blk: np.ndarray, names_blk: list, n: int, H: int, n_all: int, response_kernel, *arrays):
    """Num, Den (H, |A_blk|, n) of one block of models against every model, summed over suites in order.

    ``n_all`` is the size of the whole request: the orientation of the linear contraction (the
    smaller side contracted with ``K`` first, as in :func:`dkps.kernels.pair_sums`) follows it, so a
    block computes the same products as the unblocked sum."""
    plans = [_aligned_plan(p) for p in _unpack(meta, arrays)]
    with blas_threads():
        num = np.zeros((H, len(A_blk), n))
        den = np.zeros((H, len(A_blk), n))
        for p in plans:
            if p.kind == "delta":
                nm, dn = kernels.pair_sums_delta(_cols(_rows(p.C, A_blk), p.QA), _sub(p.S, A_blk, p.QA), p.CB, p.SB)
                num[:, :, p.B] += nm[None]
                den[:, :, p.B] += dn[None]
            elif p.kind == "linear":
                CAq, SA = _cols(_rows(p.C, A_blk), p.QA), _sub(p.S, A_blk, p.QA)
                swap = n_all > len(p.B)
                buf = _contraction_buffer(SA, p.SB, swap)  # one W for every bandwidth of the suite
                for h, K in enumerate(p.Ks):
                    nm, dn = _oriented_pair_sums(CAq, SA, p.CB, p.SB, K, swap=swap, out=buf)
                    num[h][:, p.B] += nm
                    den[h][:, p.B] += dn
            else:
                rows_a = [merge_rows(p.rows.get(m, [])) for m in names_blk]
                for h, K in enumerate(p.Ks):
                    nm, dn = kernels.pair_sums_rows(rows_a, p.rows_b, K, response_kernel, p.response_bandwidth)
                    num[h][:, p.B] += nm
                    den[h][:, p.B] += dn
    return num, den


def _aligned(x):
    """``x`` as an aligned C-contiguous array (itself when it is one). Arrays shipped to another
    process (a Dask worker's deserialised buffers) can arrive unaligned, and numpy multiplies those
    without BLAS, in another summation order: this keeps every job's products bit-identical.

    A worker receives a scattered array once and passes the same object to each of its jobs, so
    the aligned copy is kept for as long as that object lives (:data:`_ALIGNED_COPIES`): one copy
    per array and process, not one per block."""
    if x is None:
        return None
    if x.flags.c_contiguous and x.flags.aligned:
        return x
    hit = _ALIGNED_COPIES.get(id(x))
    if hit is not None and hit[0]() is x:
        return hit[1]
    y = np.require(x, requirements=["C", "A"])
    _ALIGNED_COPIES[id(x)] = (weakref.ref(x), y)
    weakref.finalize(x, _ALIGNED_COPIES.pop, id(x), None)  # the copy goes with the original
    return y


#: id of an unaligned input array -> (weak reference to it, its aligned copy), see :func:`_aligned`.
_ALIGNED_COPIES: dict = {}


def _aligned_plan(p: _SuitePlan) -> _SuitePlan:
    return _SuitePlan(
        p.kind,
        _aligned(p.C),
        _aligned(p.S),
        p.QA,
        p.B,
        _aligned(p.CB),
        _aligned(p.SB),
        None if p.Ks is None else [_aligned(K) for K in p.Ks],
        p.rows,
        p.rows_b,
        p.response_bandwidth,
    )


def _contraction_buffer(SA: np.ndarray, SB: np.ndarray, swap: bool) -> np.ndarray:
    """Room for the contraction ``W`` of :func:`_oriented_pair_sums`: ``(nB r, QA)`` with ``swap``, else ``(nA r, QB)``."""
    nA, r, QA = SA.shape
    nB, _, QB = SB.shape
    return np.empty((nB * r, QA)) if swap else np.empty((nA * r, QB))


def _oriented_pair_sums(CA, SA, CB, SB, K, swap: bool, out: np.ndarray | None = None):
    """:func:`dkps.kernels.pair_sums` with the contracted side fixed by ``swap`` (True: the B side);
    ``out`` (:func:`_contraction_buffer`) holds the contraction, overwritten by each call."""
    nA, r, QA = SA.shape
    nB, _, QB = SB.shape
    if swap:
        W, CK = kernels.contract(CB, SB, K.T, out=out)
        num = W.reshape(nB, r * QA) @ SA.reshape(nA, r * QA).T
        return num.T, (CK @ CA.T).T
    W, CK = kernels.contract(CA, SA, K, out=out)
    num = W.reshape(nA, r * QB) @ SB.reshape(nB, r * QB).T
    return num, CK @ CB.T


def block_size(plans: list, n: int, H: int, memory_budget_mb: float) -> int:
    """Models per block: the budget over one model's share of a block — its rows of the
    statistics and contractions, :math:`8 (r+1)(|Q_A|+|Q_B|)` bytes per suite, and its rows of the
    outputs, :math:`4 \\cdot 8 H n` bytes."""
    per_model = 4 * 8 * H * n
    for p in plans:
        r = p.S.shape[1] if p.S is not None else 1
        qb = p.SB.shape[2] if p.SB is not None else len(p.QA)
        per_model += 8 * (r + 1) * (len(p.QA) + qb)
    return max(1, int(memory_budget_mb * 2**20 // per_model))


def block_bounds(n_models: int, most: int) -> list[tuple[int, int]]:
    """Consecutive blocks ``[start, stop)`` of ``n_models`` when at most ``most`` fit the budget: as
    few blocks as the budget allows, :math:`\\lceil n/\\text{most}\\rceil`, whose sizes differ by at
    most one (no short last block: workers that take blocks side by side finish together)."""
    if n_models <= 0:
        return []
    n_blocks = -(-n_models // max(1, most))
    edges = [n_models * k // n_blocks for k in range(n_blocks + 1)]
    return list(zip(edges[:-1], edges[1:]))


def blocked_pair_sums(
    stats: dict,
    layout: Layout,
    A: np.ndarray,
    model_names: list,
    qkern,
    response_kernel,
    delta: bool,
    memory_budget_mb: float,
    n_jobs: int | None = None,
):
    """Num, Den (H, |A|, n) of the models ``A`` against every model, summed over suites.

    ``A`` is cut into consecutive blocks of at most :func:`block_size` models, as equal as possible
    (:func:`block_bounds`); each block is one joblib job
    (``n_jobs``, the active joblib backend). Returns ``num, den, evals`` (query-kernel evaluations).
    """
    n = len(model_names)
    H = len(layout.grid)
    linear = response_kernel == "linear" or response_kernel == "cosine"
    plans, evals = _suite_plans(stats, layout, A, model_names, qkern, delta, linear)
    num = np.zeros((H, len(A), n))
    den = np.zeros((H, len(A), n))
    if not plans:
        return num, den, evals
    bounds = block_bounds(len(A), block_size(plans, n, H, memory_budget_mb))
    meta, arrays = _pack(plans)
    jobs = (
        delayed(_block_sums)(meta, A[s:e], [model_names[a] for a in A[s:e]], n, H, len(A), response_kernel, *arrays)
        for s, e in bounds
    )
    for (s, e), (nm, dn) in zip(bounds, Parallel(n_jobs=n_jobs)(jobs)):
        num[:, s:e] = nm
        den[:, s:e] = dn
    return num, den, evals
