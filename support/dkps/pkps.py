"""PKPS and DKPS: the (product-kernel / data-kernel) perspective space.

The data-kernel perspective space (DKPS) of Acharyya, Trosset, Priebe & Helm (2024,
arXiv:2409.17308; Helm et al.'s perspective-space papers) embeds models by their responses to
shared queries; the product kernel of the original dkps lets responses to *different* queries be
compared through a query kernel.

Pipeline (all score-free until the last step):

1. per suite, reduce query and response vectors by PCA with the Zhu–Ghodsi elbow and
   unit-normalise them into disjoint blocks;
2. per-(model, query) sufficient statistics, then the self-normalised affinity
   :math:`A_{ii'} = \\mathrm{Num}_{ii'}/\\mathrm{Den}_{ii'}` by block matrix products;
3. :math:`D^2_{ii'} = A_{ii}+A_{i'i'}-2A_{ii'}`, shortest-path completion of unconnected pairs,
   classical MDS (Torgerson 1952) — one geometry per candidate query bandwidth;
4. per-task kNN regression on the other models' targets, optionally whitened, with
   the bandwidth chosen by the nested leave-one-model-out criterion.

``update`` recomputes Num/Den only for model pairs that involve a model with new rows.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from . import embed as _embed, kernels
from .base import BaseEstimator, check_predict_kwargs, replaced_rows, warn_replaced
from .geometry import PCABasis, classical_mds, complete_distances, fit_pca
from .knn import cv_errors, knn_cells, neighbour_order, pairwise_distances, select_bandwidth, whitened_knn_cells
from .records import Records, _check_queries, check_frame_consistency, validate
from .threads import single_blas_thread
from .whitening import Whitener

__all__ = ["PKPS", "DKPS", "Layout", "SuiteLayout"]

QUERY_DEFAULTS = dict(
    kernel="rbf",
    bandwidth="cv",
    bandwidth_ref=None,
    bandwidth_grid=(0.03, 0.1, 0.3, 1.0, 3.0),
    bandwidth_mult=1.0,
    cv_k=None,
    pca_dim="elbow",
    pca_n_elbows=2,
    normalize=True,
)
RESPONSE_DEFAULTS = dict(
    kernel="linear",
    bandwidth="median",
    bandwidth_ref=None,
    bandwidth_mult=1.0,
    pca_dim="elbow",
    pca_n_elbows=2,
    normalize=True,
)
MDS_DEFAULTS = dict(dim=8, n_elbows=2)
EMBED_DEFAULTS = dict(provider="google", model=None, api_key=None, cache_dir=None, batch_size=100)
#: Largest per-model contraction cache (bytes) kept for updates that equal a fresh fit bit for bit.
EXACT_UPDATE_BYTES = 64 * 2**20


# ------------------------------------------------------------------------------------ validation
def _pos_float(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v) and v > 0


def _pos_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1


def _merge(name: str, given: dict | None, defaults: dict) -> dict:
    if given is None:
        return dict(defaults)
    if not isinstance(given, dict):
        raise ValueError(f"{name} must be a dict or None, got {type(given).__name__}")
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(f"{name} has unknown keys {unknown}; allowed keys are {sorted(defaults)}")
    out = dict(defaults)
    out.update(given)
    return out


def _check_pca(name: str, d: dict) -> None:
    p = d["pca_dim"]
    if not (p is None or p == "elbow" or _pos_int(p)):
        raise ValueError(f"{name}['pca_dim'] must be 'elbow', None or an int >= 1, got {p!r}")
    if not _pos_int(d["pca_n_elbows"]):
        raise ValueError(f"{name}['pca_n_elbows'] must be an int >= 1, got {d['pca_n_elbows']!r}")
    if not isinstance(d["normalize"], bool):
        raise ValueError(f"{name}['normalize'] must be True or False")
    if not _pos_float(d["bandwidth_mult"]):
        raise ValueError(f"{name}['bandwidth_mult'] must be a float > 0, got {d['bandwidth_mult']!r}")
    ref = d["bandwidth_ref"]
    if ref is not None and not _pos_float(ref):
        raise ValueError(f"{name}['bandwidth_ref'] must be None or a float > 0, got {ref!r}")


def _check_query_kwargs(d: dict) -> None:
    k = d["kernel"]
    if not (callable(k) or k in kernels.QUERY_KERNELS):
        raise ValueError(f"unknown query kernel {k!r}; use one of {kernels.QUERY_KERNELS} or a callable")
    bw = d["bandwidth"]
    if not (bw in ("median", "cv") or _pos_float(bw)):
        raise ValueError(f"query bandwidth must be 'median', 'cv' or a float > 0, got {bw!r}")
    grid = d["bandwidth_grid"]
    if isinstance(grid, (str, bytes)):
        raise ValueError("query bandwidth_grid must be a sequence of positive factors")
    try:
        grid = tuple(grid)
    except TypeError:
        raise ValueError("query bandwidth_grid must be a sequence of positive factors") from None
    if len(grid) == 0 or not all(_pos_float(g) for g in grid):
        raise ValueError(
            f"query bandwidth_grid must be a non-empty sequence of floats > 0, got {d['bandwidth_grid']!r}"
        )
    cvk = d["cv_k"]
    if cvk is not None and not _pos_int(cvk):
        raise ValueError(f"query cv_k must be None or an int >= 1, got {cvk!r}")
    _check_pca("query_kwargs", d)


def _check_response_kwargs(d: dict) -> None:
    k = d["kernel"]
    if not (callable(k) or k in kernels.RESPONSE_KERNELS):
        raise ValueError(f"unknown response kernel {k!r}; use one of {kernels.RESPONSE_KERNELS} or a callable")
    bw = d["bandwidth"]
    if not (bw == "median" or _pos_float(bw)):
        raise ValueError(f"response bandwidth must be 'median' or a float > 0, got {bw!r}")
    _check_pca("response_kwargs", d)


def _check_mds_kwargs(d: dict) -> None:
    if not (d["dim"] is None or _pos_int(d["dim"])):
        raise ValueError(f"mds_kwargs['dim'] must be None or an int >= 1, got {d['dim']!r}")
    if not _pos_int(d["n_elbows"]):
        raise ValueError(f"mds_kwargs['n_elbows'] must be an int >= 1, got {d['n_elbows']!r}")


# ------------------------------------------------------------------------------------ layout
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


@dataclass
class _SuiteStats:
    keys: list = field(default_factory=list)  # (task_id, query_id)
    key_index: dict = field(default_factory=dict)
    key_task: list = field(default_factory=list)
    U: np.ndarray | None = None  # (Q, q) reduced query vectors
    C: np.ndarray | None = None  # (n, Q) counts
    S: np.ndarray | None = None  # (n, r, Q) sums of reduced response vectors
    rows: dict = field(default_factory=dict)  # model -> list of (q_idx, X) for non-linear k_R


class PKPS(BaseEstimator):
    """Product Kernel Perspective Space.

    Parameters
    ----------
    query_kwargs : dict, optional
        ``kernel`` ('rbf' | 'delta' | 'linear' | 'cosine' | callable), ``bandwidth`` ('median' |
        'cv' | float), ``bandwidth_ref`` (None = within-task median query distance, or a float),
        ``bandwidth_grid`` (factors of the reference for 'cv'), ``bandwidth_mult``, ``cv_k``,
        ``pca_dim`` ('elbow' | int | None), ``pca_n_elbows``, ``normalize``.
    response_kwargs : dict, optional
        ``kernel`` ('linear' | 'cosine' | 'rbf' | callable), ``bandwidth`` ('median' | float),
        ``bandwidth_ref``, ``bandwidth_mult``, ``pca_dim``, ``pca_n_elbows``, ``normalize``.
    mds_kwargs : dict, optional
        ``dim`` (int, default 8, or None for the Zhu–Ghodsi choice) and ``n_elbows``.
    embedding_kwargs : dict, optional
        ``provider``, ``model``, ``api_key``, ``cache_dir``, ``batch_size`` for rows given as text.
    random_state : int
        Seed of the subsample used for median distances.
    """

    default_holdout = "model"

    def __init__(self, query_kwargs=None, response_kwargs=None, mds_kwargs=None, embedding_kwargs=None, random_state=0):
        self.query_kwargs = query_kwargs
        self.response_kwargs = response_kwargs
        self.mds_kwargs = mds_kwargs
        self.embedding_kwargs = embedding_kwargs
        self.random_state = random_state

    def _query_settings(self) -> dict | None:
        """The query-channel settings before the defaults are merged in (DKPS builds its own)."""
        return self.query_kwargs

    def _resolve_params(self) -> None:
        """Merge the ``*_kwargs`` dicts over the defaults and validate them (run by ``fit``)."""
        qk = _merge("query_kwargs", self._query_settings(), QUERY_DEFAULTS)
        _check_query_kwargs(qk)
        qk["bandwidth_grid"] = tuple(float(g) for g in qk["bandwidth_grid"])
        rk = _merge("response_kwargs", self.response_kwargs, RESPONSE_DEFAULTS)
        _check_response_kwargs(rk)
        mk = _merge("mds_kwargs", self.mds_kwargs, MDS_DEFAULTS)
        _check_mds_kwargs(mk)
        ek = _merge("embedding_kwargs", self.embedding_kwargs, EMBED_DEFAULTS)
        self._qk, self._rk, self._mk, self._ek = qk, rk, mk, ek

    # ------------------------------------------------------------------ helpers
    @property
    def _delta(self) -> bool:
        return self._qk["kernel"] == "delta"

    @property
    def _linear_response(self) -> bool:
        k = self._rk["kernel"]
        return k == "linear" or k == "cosine"

    def _embed_missing(self, rec: Records) -> None:
        """Embed text rows that have no vector, through ``dkps.embed.embed_api``; rows that carry
        vectors are never sent."""
        kw = dict(self._ek)
        provider = kw.pop("provider")
        need = [i for i, v in enumerate(rec.response_vectors) if v is None]
        if need:
            vecs = _embed.embed_api(provider, [rec.response_text[i] for i in need], **kw)
            for i, v in zip(need, vecs):
                rec.response_vectors[i] = np.asarray(v, dtype=float)
        if not self._delta:
            needq = [i for i, v in enumerate(rec.query_vectors) if v is None and rec.query_text[i] is not None]
            if needq:
                vecs = _embed.embed_api(provider, [rec.query_text[i] for i in needq], **kw)
                for i, v in zip(needq, vecs):
                    rec.query_vectors[i] = np.asarray(v, dtype=float)

    def _query_vectors_by_key(self, rec: Records, idx: np.ndarray, keys: list) -> np.ndarray:
        first: dict = {}
        tasks = rec.frame.task_id.to_numpy()
        qids = rec.frame.query_id.to_numpy()
        for i in idx:
            k = (tasks[i], qids[i])
            if k not in first and rec.query_vectors[i] is not None:
                first[k] = rec.query_vectors[i]
        missing = [k for k in keys if k not in first]
        if missing:
            raise ValueError(f"query {missing[0]} has no embedding; give query_embedding or query text")
        return np.stack([first[k] for k in keys])

    # ------------------------------------------------------------------ layout: reductions and bandwidths
    def _derive_layout(self, rec: Records) -> Layout:
        qk, rk = self._qk, self._rk
        rng = np.random.default_rng(self.random_state)
        frame = rec.frame
        suites = tuple(sorted(pd.unique(frame.suite)))
        per_suite = {}
        within_task: list[np.ndarray] = []
        within_suite: list[np.ndarray] = []
        for s in suites:
            idx = np.flatnonzero(frame.suite.to_numpy() == s)
            X = np.stack([rec.response_vectors[i] for i in idx])
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
            if not self._delta:
                keys, key_task = _unique_keys(frame, idx)
                U = self._query_vectors_by_key(rec, idx, keys)
                qb = fit_pca(U, qk["pca_dim"], qk["pca_n_elbows"], qk["normalize"])
                if qk["kernel"] == "rbf" and qk["bandwidth_ref"] is None and qk["bandwidth"] in ("median", "cv"):
                    Z = qb.transform(U)
                    kt = np.asarray(key_task, dtype=object)
                    for t in pd.unique(kt):
                        ti = np.flatnonzero(kt == t)
                        if len(ti) > 1000:
                            ti = np.sort(rng.choice(ti, 1000, replace=False))
                        if len(ti) >= 2:
                            iu = np.triu_indices(len(ti), 1)
                            within_task.append(np.sqrt(kernels.sq_dists(Z[ti], Z[ti])[iu]))
                    if len(Z) >= 2:
                        sub = Z if len(Z) <= 1000 else Z[np.sort(rng.choice(len(Z), 1000, replace=False))]
                        iu = np.triu_indices(len(sub), 1)
                        within_suite.append(np.sqrt(kernels.sq_dists(sub, sub)[iu]))
            per_suite[s] = SuiteLayout(qb, rb, r_h)
        ref = None
        grid: tuple = (None,)
        if qk["kernel"] == "rbf":
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
        return Layout(suites, per_suite, ref, grid)

    # ------------------------------------------------------------------ statistics
    def _add_rows(self, rec: Records, row_idx: np.ndarray, model_pos: np.ndarray) -> None:
        """Project rows with the frozen layout and add them to the per-(model, query) statistics."""
        frame = rec.frame
        suites = frame.suite.to_numpy()
        tasks = frame.task_id.to_numpy()
        qids = frame.query_id.to_numpy()
        n = len(self.model_names_)
        for s in self.layout_.suites:
            idx = row_idx[suites[row_idx] == s]
            if idx.size == 0:
                continue
            lay = self.layout_.per_suite[s]
            st = self._stats[s]
            # new query keys (first appearance order)
            new_keys = []
            for i in idx:
                key = (tasks[i], qids[i])
                if key not in st.key_index:
                    st.key_index[key] = len(st.keys)
                    st.keys.append(key)
                    st.key_task.append(tasks[i])
                    new_keys.append(key)
            Q = len(st.keys)
            if not self._delta and new_keys:
                Unew = lay.query_basis.transform(self._query_vectors_by_key(rec, idx, new_keys))
                st.U = Unew if st.U is None else np.vstack([st.U, Unew])
            X = lay.response_basis.transform(np.stack([rec.response_vectors[i] for i in idx]))
            qi = np.array([st.key_index[(tasks[i], qids[i])] for i in idx], dtype=int)
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
            if self._linear_response:
                if self._rk["kernel"] == "cosine" and not lay.response_basis.normalize:
                    nr = np.linalg.norm(X, axis=1, keepdims=True)
                    X = X / np.where(nr < 1e-12, 1.0, nr)
                M = sparse.csr_matrix((np.ones(len(flat)), (flat, np.arange(len(flat)))), shape=(n * Q, len(flat)))
                SX = np.ascontiguousarray(np.asarray(M @ X).reshape(n, Q, r).transpose(0, 2, 1))
                st.S = SX if fresh else st.S + SX
            else:
                for m in np.unique(mi):
                    sel = mi == m
                    name = self.model_names_[m]
                    st.rows.setdefault(name, []).append((qi[sel], X[sel]))

    def _clear_models(self, pos: np.ndarray, names: list) -> None:
        """Zero the per-(model, query) statistics of the models at ``pos``."""
        for st in self._stats.values():
            if st.C is not None:
                st.C = st.C.copy()
                st.C[pos] = 0.0
                if st.S is not None:
                    st.S = st.S.copy()
                    st.S[pos] = 0.0
            for m in names:
                st.rows.pop(m, None)

    def _fitted_rows(self, frame: pd.DataFrame, idx: np.ndarray) -> Records:
        """Rows ``idx`` of the fitted frame as records (their query keys are already known)."""
        n = len(idx)
        return Records(
            frame=frame.iloc[idx].reset_index(drop=True),
            response_vectors=[self._response_rows[i] for i in idx],
            response_text=[None] * n,
            query_vectors=[None] * n,
            query_text=[None] * n,
        )

    def _reindex_models(self, old_names: list, new_names: list) -> np.ndarray:
        """Move statistics and Num/Den to a new (sorted) model list; returns old->new positions."""
        pos = {m: i for i, m in enumerate(new_names)}
        old_to_new = np.array([pos[m] for m in old_names], dtype=int)
        n_new = len(new_names)
        for st in self._stats.values():
            if st.C is not None:
                C = np.zeros((n_new, st.C.shape[1]))
                C[old_to_new] = st.C
                st.C = C
                if st.S is not None:
                    S = np.zeros((n_new,) + st.S.shape[1:])
                    S[old_to_new] = st.S
                    st.S = S
        H = self._num.shape[0]
        num = np.zeros((H, n_new, n_new))
        den = np.zeros((H, n_new, n_new))
        num[np.ix_(np.arange(H), old_to_new, old_to_new)] = self._num
        den[np.ix_(np.arange(H), old_to_new, old_to_new)] = self._den
        self._num, self._den = num, den
        return old_to_new

    # ------------------------------------------------------------------ affinity sums
    def _exact_possible(self) -> bool:
        """True when the pair sums can be cached per model, so that ``update`` equals a fresh fit
        bit for bit: a linear (or cosine) response kernel, every model answering in every suite, and
        the per-model contractions ``W = S K`` within :data:`EXACT_UPDATE_BYTES`."""
        if not self._linear_response:
            return False
        H = len(self.layout_.grid)
        size = 0
        for st in self._stats.values():
            if st.C is None or not (st.C.sum(axis=1) > 0).all() or st.S is None:
                return False
            size += st.S.size * H * 8
        return self._delta or size <= EXACT_UPDATE_BYTES

    def _pair_block_full(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Num, Den (H, n, n) of every pair, unsymmetrised, keeping ``W = S K`` and ``C K`` per model.

        The same products as :meth:`_pair_block` on every model: per suite and bandwidth
        ``x = W S^T`` with ``W = S K`` (:func:`~dkps.kernels.contract`) and ``d = (C K) C^T``;
        the delta kernel has ``W = S``.
        """
        n, grid = len(self.model_names_), self.layout_.grid
        H = len(grid)
        num, den = np.zeros((H, n, n)), np.zeros((H, n, n))
        evals = 0
        self._wcache, self._kcache = {}, {}
        for sname in self.layout_.suites:
            st = self._stats[sname]
            Sf = st.S.reshape(n, -1)
            if self._delta:
                num += _dots(Sf, Sf)[None]
                den += _dots(st.C, st.C)[None]
                continue
            Ks = kernels.query_gram(self._qk["kernel"], st.U, st.U, grid)
            evals += st.U.shape[0] ** 2 * len(Ks)
            cache = []
            self._kcache[sname] = Ks
            for h, K in enumerate(Ks):
                W, CK = kernels.contract(st.C, st.S, K)
                num[h] += _dots(W.reshape(n, -1), Sf)
                den[h] += _dots(CK, st.C)
                cache.append((W.reshape(st.S.shape), CK))
            self._wcache[sname] = cache
        return num, den, evals

    def _pair_block_exact(self, A: np.ndarray, old_to_new: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Num, Den (H, |A|, n) of the models ``A`` by the same per-model products as a fresh fit
        (:meth:`_pair_block_full`), symmetrised: updates the cached ``W`` rows of ``A`` and uses the
        others as they are."""
        n, grid = len(self.model_names_), self.layout_.grid
        H = len(grid)
        X1, X2 = np.zeros((H, len(A), n)), np.zeros((H, n, len(A)))
        D1, D2 = np.zeros((H, len(A), n)), np.zeros((H, n, len(A)))
        evals = 0
        new_cache = {}
        for sname in self.layout_.suites:
            st = self._stats[sname]
            Sf = st.S.reshape(n, -1)
            SA = np.take(st.S, A, axis=0)
            CA = np.take(st.C, A, axis=0)
            SAf = SA.reshape(len(A), -1)
            if self._delta:
                X1 += _dots(SAf, Sf)[None]
                X2 += _dots(Sf, SAf)[None]
                D1 += _dots(CA, st.C)[None]
                D2 += _dots(st.C, CA)[None]
                continue
            Ks = self._kcache[sname]  # no new query: the fit's kernel matrices
            cache = []
            for h, K in enumerate(Ks):
                W_old, CK_old = self._wcache[sname][h]
                W = np.zeros(st.S.shape)
                CK = np.zeros(st.C.shape)
                W[old_to_new] = W_old
                CK[old_to_new] = CK_old
                WA, CKA = kernels.contract(CA, SA, K)
                W[A] = WA.reshape(SA.shape)
                CK[A] = CKA
                X1[h] += _dots(WA.reshape(len(A), -1), Sf)
                X2[h] += _dots(W.reshape(n, -1), SAf)
                D1[h] += _dots(CKA, st.C)
                D2[h] += _dots(CK, CA)
                cache.append((W, CK))
            new_cache[sname] = cache
        if not self._delta:
            self._wcache = new_cache
        num = 0.5 * (X1 + X2.transpose(0, 2, 1))
        den = 0.5 * (D1 + D2.transpose(0, 2, 1))
        return num, den, evals

    def _pair_block(self, A: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Num, Den (H, |A|, n) of the models ``A`` against every model, summed over suites."""
        n = len(self.model_names_)
        grid = self.layout_.grid
        H = len(grid)
        num = np.zeros((H, len(A), n))
        den = np.zeros((H, len(A), n))
        evals = 0
        qkern = self._qk["kernel"]
        for s in self.layout_.suites:
            st = self._stats[s]
            if st.C is None:
                continue
            CA = _rows(st.C, A)
            QA = np.flatnonzero(CA.sum(axis=0) > 0)
            if QA.size == 0:
                continue
            B = np.flatnonzero(st.C.sum(axis=1) > 0)
            QB = np.flatnonzero(st.C.sum(axis=0) > 0)
            if self._delta:
                if self._linear_response:
                    nm, dn = kernels.pair_sums_delta(
                        _cols(CA, QA), _sub(st.S, A, QA), _cols(_rows(st.C, B), QA), _sub(st.S, B, QA)
                    )
                    num[:, :, B] += nm[None]
                    den[:, :, B] += dn[None]
                    continue
                Ks = [np.eye(len(st.keys))]
            elif self._linear_response:
                Ks = kernels.query_gram(qkern, st.U[QA], st.U[QB], grid)
                evals += QA.size * QB.size * len(Ks)
                SA = _sub(st.S, A, QA)
                CB, SB = _cols(_rows(st.C, B), QB), _sub(st.S, B, QB)
                CAq = _cols(CA, QA)
                for h, K in enumerate(Ks):
                    nm, dn = kernels.pair_sums(CAq, SA, CB, SB, K)
                    num[h][:, B] += nm
                    den[h][:, B] += dn
                continue
            else:
                Ks = kernels.query_gram(qkern, st.U, st.U, grid)
                evals += len(st.keys) ** 2 * len(Ks)
            # raw-row path (non-linear response kernel)
            lay = self.layout_.per_suite[s]
            rows_a = [_merge_rows(st.rows.get(self.model_names_[a], [])) for a in A]
            rows_b = [_merge_rows(st.rows.get(self.model_names_[b], [])) for b in B]
            for h, K in enumerate(Ks):
                nm, dn = kernels.pair_sums_rows(rows_a, rows_b, K, self._rk["kernel"], lay.response_bandwidth)
                num[h][:, B] += nm
                den[h][:, B] += dn
        return num, den, evals

    # ------------------------------------------------------------------ geometry: distances, completion, MDS
    def _geometry(self) -> None:
        H, n, _ = self._num.shape
        self._affinity, self._distances, self._mds, self._coords = [], [], [], []
        self.n_unconnected_ = 0
        unreachable = 0
        for h in range(H):
            num, den = self._num[h], self._den[h]
            ok = den > 1e-12
            diag = np.diag(den)
            bad = np.flatnonzero(~(diag > 1e-12))
            if bad.size:
                raise ValueError(
                    f"model {self.model_names_[bad[0]]!r} has no comparable responses (its query-kernel "
                    "mass with itself is 0); give it responses with non-zero query vectors"
                )
            with np.errstate(invalid="ignore", divide="ignore"):
                A = np.where(ok, num / np.where(ok, den, 1.0), np.nan)
            a = np.diag(A)
            D2 = a[:, None] + a[None, :] - 2.0 * A
            D = np.sqrt(np.maximum(D2, 0.0))
            D[~ok] = np.nan
            np.fill_diagonal(D, 0.0)
            D = np.where(np.isnan(D) | np.isnan(D.T), np.nan, 0.5 * (D + D.T))
            self.n_unconnected_ = max(self.n_unconnected_, int(np.sum(np.triu(np.isnan(D), 1))))
            Dc, n_unreach = complete_distances(D, warn=False)
            unreachable = max(unreachable, n_unreach)
            mds = classical_mds(Dc, self._mk["dim"], self._mk["n_elbows"])
            self._affinity.append(A)
            self._distances.append(Dc)
            self._mds.append(mds)
            self._coords.append(mds.coords)
        self._dist_cache = {}
        self.n_disconnected_ = unreachable
        if unreachable:
            warnings.warn(
                f"{unreachable} model pairs are not connected through any chain of comparable models "
                "(no shared suite or query); their distance is set to 2 x the largest distance",
                UserWarning,
                stacklevel=3,
            )

    def _select_reported(self) -> None:
        """Fit-time bandwidth report: ``bandwidth_ = h*_∅`` (LOMO, k=5) and ``cv_errors_``."""
        grid = self.layout_.grid
        self._cv_cache = {}
        if grid == (None,):
            self._h_fit = 0
            self.bandwidth_ = None
            self.cv_errors_ = None
        elif len(grid) == 1:
            self._h_fit = 0
            self.bandwidth_ = float(grid[0])
            self.cv_errors_ = None
        else:
            Y = self._tables.target
            if np.isnan(Y).all():
                self._h_fit = int(np.argmin(np.abs(np.log(np.array(grid)) - np.log(self.layout_.bandwidth_ref))))
                self.cv_errors_ = None
            else:
                n = len(self.model_names_)
                k = self._qk["cv_k"] or 5
                err = cv_errors(
                    self._coords,
                    Y,
                    np.eye(n, dtype=bool),
                    [np.array([], dtype=int)],
                    k,
                    "distance",
                    1,
                    dist_order=self._dist_order,
                )[0]
                self._h_fit = select_bandwidth(err, np.array(grid), self.layout_.bandwidth_ref)
                self.cv_errors_ = {float(h): float(e) for h, e in zip(grid, err)}
            self.bandwidth_ = float(grid[self._h_fit])
        h = self._h_fit
        self.affinity_ = self._affinity[h]
        self.distance_matrix_ = self._distances[h]
        self.coords_ = self._coords[h]
        self.mds_dim_ = self._mds[h].dim
        self.bandwidth_grid_ = list(grid) if len(grid) > 1 else None

    def _after_tables(self) -> None:
        self._select_reported()

    # ------------------------------------------------------------------ public: fit / update
    @single_blas_thread
    def fit(self, records: Any, layout: Layout | None = None) -> PKPS:
        """Build the perspective space from ``records``; returns ``self``.

        ``layout`` reuses a frozen layout (``other.layout_``) instead of deriving one.
        """
        self._resolve_params()
        rec = validate(records, require_query=not self._delta)
        self._embed_missing(rec)
        self._set_catalog(rec.frame)
        if layout is None:
            layout = self._derive_layout(rec)
        else:
            if not isinstance(layout, Layout):
                raise ValueError("layout must be the layout_ of a fitted PKPS")
            unknown = sorted(set(self.suite_names_) - set(layout.suites))
            if unknown:
                raise ValueError(f"records have suites {unknown} that the given layout does not know")
        self.layout_ = layout
        self.pca_dims_ = {
            s: (None if ls.query_basis is None else ls.query_basis.dim, ls.response_basis.dim)
            for s, ls in layout.per_suite.items()
        }
        self._stats = {s: _SuiteStats() for s in layout.suites}
        self._query_registry = _registry(rec)
        model_pos = pd.Index(self.model_names_).get_indexer(rec.frame.model_id)
        self._add_rows(rec, np.arange(len(rec)), model_pos)
        self._response_rows = list(rec.response_vectors)  # kept so update can replace rows sent again
        n = len(self.model_names_)
        if n < 2:
            raise ValueError("fit needs responses of at least 2 models")
        A = np.arange(n)
        self._wcache = None
        if self._exact_possible():
            num, den, evals = self._pair_block_full()
        else:
            num, den, evals = self._pair_block(A)
        self._num = 0.5 * (num + num.transpose(0, 2, 1))
        self._den = 0.5 * (den + den.transpose(0, 2, 1))
        self.last_kernel_evaluations_ = evals
        self.last_update_pairs_ = None
        self._geometry()
        self._fitted = True
        self._select_reported()
        return self

    @single_blas_thread
    def update(self, records: Any) -> PKPS:
        """Add models, responses, or tasks of known suites; recompute only affected pairs."""
        self._check_fitted()
        rec = validate(records, require_query=not self._delta, allow_empty=True)
        if len(rec) == 0:
            return self
        new_suites = sorted(set(rec.frame.suite) - set(self.layout_.suites))
        if new_suites:
            raise ValueError(
                f"update adds suites {new_suites} unseen at fit: a new benchmark changes the block "
                "layout; re-run fit on all records"
            )
        old_frame = self._frame
        replaced = replaced_rows(old_frame, rec.frame)
        frame = pd.concat([old_frame[~replaced], rec.frame], ignore_index=True)
        check_frame_consistency(frame)
        _check_queries(rec, known=self._query_registry)
        self._embed_missing(rec)
        warn_replaced(replaced, stacklevel=4)  # accepted: from here on the estimator changes
        # fresh containers: fitted copies that share statistics with this estimator stay intact
        self._stats = {s: _copy_stats(st) for s, st in self._stats.items()}
        old_names = list(self.model_names_)
        new_names = sorted(set(old_names) | set(rec.frame.model_id))
        n_keys = {sname: len(st.keys) for sname, st in self._stats.items()}
        old_to_new = self._reindex_models(old_names, new_names)
        self._set_catalog(frame)
        self._query_registry = _registry(rec, self._query_registry)
        model_pos = pd.Index(new_names).get_indexer(rec.frame.model_id)
        rebuilt = np.zeros(0, dtype=int)
        if replaced.any():
            # models with replaced rows: drop their statistics and add back the rows they keep
            redo = sorted(set(old_frame.model_id[replaced]))
            rebuilt = pd.Index(new_names).get_indexer(redo)
            self._clear_models(rebuilt, redo)
            keep = np.flatnonzero(old_frame.model_id.isin(redo).to_numpy() & ~replaced)
            kept = self._fitted_rows(old_frame, keep)
            self._add_rows(kept, np.arange(len(kept)), pd.Index(new_names).get_indexer(kept.frame.model_id))
        self._add_rows(rec, np.arange(len(rec)), model_pos)
        self._response_rows = [v for v, r in zip(self._response_rows, replaced) if not r] + list(rec.response_vectors)
        A = np.union1d(np.unique(model_pos), rebuilt)
        same_keys = all(len(st.keys) == n_keys[sname] for sname, st in self._stats.items())
        if self._wcache is not None and same_keys and self._exact_possible():
            num_a, den_a, evals = self._pair_block_exact(A, old_to_new)
        else:
            self._wcache = None
            num_a, den_a, evals = self._pair_block(A)
        num, den = self._num.copy(), self._den.copy()
        num[:, A, :] = num_a
        den[:, A, :] = den_a
        num[:, :, A] = num_a.transpose(0, 2, 1)
        den[:, :, A] = den_a.transpose(0, 2, 1)
        blk = np.ix_(np.arange(num.shape[0]), A, A)
        num[blk] = 0.5 * (num_a[:, :, A] + num_a[:, :, A].transpose(0, 2, 1))
        den[blk] = 0.5 * (den_a[:, :, A] + den_a[:, :, A].transpose(0, 2, 1))
        self._num, self._den = num, den
        names = self.model_names_
        aff = set(A.tolist())
        self.last_update_pairs_ = {
            (names[a], names[b]) for a in range(len(names)) for b in range(len(names)) if a in aff or b in aff
        }
        self.last_kernel_evaluations_ = evals
        self._geometry()
        self._select_reported()
        return self

    # ------------------------------------------------------------------ public: predict
    @single_blas_thread
    def predict(
        self,
        records: Any = None,
        *,
        cells: Any = None,
        k: int = 5,
        holdout: str | None = "model",
        whiten: bool = False,
        weights: str = "distance",
        min_train: int | None = None,
        target: str = "auto",
        family_fn: Callable | None = None,
        selection: str = "nested",
        as_frame: bool = False,
    ):
        """Predict cell scores by per-task kNN in the perspective space.

        Parameters
        ----------
        records, cells : records container with ``model_id`` (and optionally ``task_id``), or None
            for every cell without an observed target.
        k : int
            Neighbours. ``holdout``: None | 'model' (default) | 'family' — the exclusion set E(i).
        whiten : False, True or 'global'
            Logit/standardise/bias-residual regression. True: the statistics are computed without the
            held-out models' targets (leak-free). 'global': the original dkps's rule, one
            :class:`~dkps.Whitener` fitted on the whole target matrix (the held-out cell's own score
            included).
        weights : 'distance' (default, as in the original dkps) or 'uniform'.
        min_train : int or None
            Minimum training-set size; None means 3 under 'family' or ``whiten`` and 1 otherwise.
        target : 'auto' | 'sample' | 'reference'
            Which per-cell table is regressed.
        family_fn : callable, optional
            model_id -> family, overriding the records' families.
        selection : 'nested' (leak-free per held-out group) or 'fit' (reuse ``bandwidth_``).
        as_frame : bool
            Return a DataFrame instead of a list of dicts.
        """
        self._check_fitted()
        check_predict_kwargs(k, holdout, weights, min_train, target)
        if selection not in ("nested", "fit"):
            raise ValueError(f"selection must be 'nested' or 'fit', got {selection!r}")
        if not (isinstance(whiten, (bool, np.bool_)) or whiten == "global"):
            raise ValueError(f"whiten must be True, False or 'global', got {whiten!r}")
        rows, cols = self._cells_from_args(records, cells)
        vals = self._predict_arrays(
            rows,
            cols,
            k=k,
            holdout=holdout,
            whiten=whiten,
            weights=weights,
            min_train=min_train,
            target=target,
            family_fn=family_fn,
            selection=selection,
        )
        return self._format(rows, cols, vals, as_frame)

    def _dist_order(self, h: int):
        if h not in self._dist_cache:
            D = pairwise_distances(self._coords[h])
            self._dist_cache[h] = (D, neighbour_order(D))
        return self._dist_cache[h]

    def _h_indices(self, rows, Y, holdout, k, weights, mt, family_fn, selection, fam_codes, target):
        H = len(self.layout_.grid)
        if H == 1:
            return np.zeros(len(rows), dtype=int)
        if selection == "fit":
            return np.full(len(rows), self._h_fit, dtype=int)
        n = len(self.model_names_)
        kk = self._qk["cv_k"] or k
        if holdout == "family":
            excl_crit = fam_codes[:, None] == fam_codes[None, :]
            gkey = fam_codes
        else:
            excl_crit = np.eye(n, dtype=bool)
            gkey = np.arange(n) if holdout == "model" else np.zeros(n, dtype=int)
        base = (target, holdout, kk, weights, mt, id(family_fn) if family_fn else None)
        todo = [g for g in np.unique(gkey[rows]) if base + (int(g),) not in self._cv_cache]
        if todo:
            if holdout is None:
                groups = [np.array([], dtype=int)]
            else:
                groups = [np.flatnonzero(gkey == g) for g in todo]
            err = cv_errors(self._coords, Y, excl_crit, groups, kk, weights, mt, dist_order=self._dist_order)
            grid = np.array(self.layout_.grid)
            for g, e in zip(todo, err):
                self._cv_cache[base + (int(g),)] = select_bandwidth(e, grid, self.layout_.bandwidth_ref)
        return np.array([self._cv_cache[base + (int(g),)] for g in gkey[rows]], dtype=int)

    def _predict_arrays(
        self,
        rows,
        cols,
        k=5,
        holdout="model",
        whiten=False,
        weights="distance",
        min_train=None,
        target="auto",
        family_fn=None,
        selection="nested",
    ) -> np.ndarray:
        Y = self._target_table(target)
        if np.isnan(Y).all():
            raise ValueError("no observed scores: add score/sample_score/reference_score to the records")
        if whiten:
            vals = Y[~np.isnan(Y)]
            if (vals < 0).any() or (vals > 1).any():
                raise ValueError("whiten=True needs targets in [0, 1] (it takes their logit)")
        out = np.full(len(rows), np.nan)
        if len(rows) == 0:
            return out
        mt = min_train if min_train is not None else (3 if (holdout == "family" or whiten) else 1)
        fam_codes = pd.factorize(self._family_array(family_fn))[0]
        excl = self._exclusion(holdout, family_fn)
        hidx = self._h_indices(rows, Y, holdout, k, weights, mt, family_fn, selection, fam_codes, target)
        for h in np.unique(hidx):
            sel = np.flatnonzero(hidx == h)
            D, order = self._dist_order(int(h))
            if not whiten:
                out[sel], _ = knn_cells(D, order, Y, rows[sel], cols[sel], excl[rows[sel]], k, weights, mt)
                continue
            if whiten == "global":  # the original's: one Whitener on every observed target
                wt = Whitener().fit(Y)
                r, _ = knn_cells(D, order, wt.transform(Y), rows[sel], cols[sel], excl[rows[sel]], k, weights, mt)
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
                out[s2] = whitened_knn_cells(D, order, Y, rows[s2], cols[s2], excl[rows[s2[0]]], k, weights, mt)
        return out

    # ------------------------------------------------------------------ aliases of the original dkps
    @property
    def dist_matrix_(self):
        self._check_fitted()
        return self.distance_matrix_

    @property
    def embedding_(self) -> dict:
        self._check_fitted()
        return {m: self.coords_[i] for i, m in enumerate(self.model_names_)}

    @property
    def query_bandwidth_(self):
        self._check_fitted()
        return self.bandwidth_

    @property
    def embeddings_by_bandwidth_(self) -> dict:
        self._check_fitted()
        return {h: {m: X[i] for i, m in enumerate(self.model_names_)} for h, X in zip(self.layout_.grid, self._coords)}

    def distance_matrices(self) -> dict:
        """Completed distance matrix per candidate bandwidth (None key for non-rbf kernels)."""
        self._check_fitted()
        return dict(zip(self.layout_.grid, self._distances))


def _dots(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``X @ Y.T`` by ``np.einsum`` (no BLAS): each entry is the same sum whatever the other rows,
    which keeps ``update`` bit-identical to a fresh fit."""
    return np.einsum("ik,jk->ij", X, Y)


def _copy_stats(st: _SuiteStats) -> _SuiteStats:
    """New list/dict containers (arrays are replaced, never mutated, by update)."""
    return _SuiteStats(
        keys=list(st.keys),
        key_index=dict(st.key_index),
        key_task=list(st.key_task),
        U=st.U,
        C=st.C,
        S=st.S,
        rows={m: list(v) for m, v in st.rows.items()},
    )


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


def _merge_rows(parts: list):
    if not parts:
        return (np.zeros(0, dtype=int), np.zeros((0, 0)))
    return (np.concatenate([p[0] for p in parts]), np.vstack([p[1] for p in parts]))


def _unique_keys(frame: pd.DataFrame, idx: np.ndarray):
    keys, tasks, seen = [], [], set()
    t = frame.task_id.to_numpy()
    q = frame.query_id.to_numpy()
    for i in idx:
        key = (t[i], q[i])
        if key not in seen:
            seen.add(key)
            keys.append(key)
            tasks.append(t[i])
    return keys, tasks


def _registry(rec: Records, known: dict | None = None) -> dict:
    """(task_id, query_id) -> (query vector or None, query text or None), first value wins."""
    reg = {} if known is None else dict(known)
    t = rec.frame.task_id.to_numpy()
    q = rec.frame.query_id.to_numpy()
    for i in range(len(rec)):
        key = (t[i], q[i])
        v, s = rec.query_vectors[i], rec.query_text[i]
        if v is None and s is None:
            continue
        old = reg.get(key)
        if old is None:
            reg[key] = (v, s)
        else:
            reg[key] = (old[0] if old[0] is not None else v, old[1] if old[1] is not None else s)
    return reg


class DKPS(PKPS):
    """Data Kernel Perspective Space: PKPS with the delta query kernel (Acharyya et al. 2024).

    Only responses to *identical* queries ``(task_id, query_id)`` are compared; query columns are
    ignored. With ``response_kwargs=dict(pca_dim=None, normalize=False)`` the distance is exactly
    the literature's :math:`\\|\\bar X_i - \\bar X_{i'}\\|_F/\\sqrt m` on paired data.

    ``sigma_ratio`` (the original package's "delta limit") instead uses an rbf query kernel with
    bandwidth ``sigma_ratio`` x the reference scale; query vectors are then needed.
    """

    def __init__(
        self,
        response_kwargs=None,
        mds_kwargs=None,
        embedding_kwargs=None,
        random_state=0,
        sigma_ratio=None,
        bandwidth_ref=None,
    ):
        self.response_kwargs = response_kwargs
        self.mds_kwargs = mds_kwargs
        self.embedding_kwargs = embedding_kwargs
        self.random_state = random_state
        self.sigma_ratio = sigma_ratio
        self.bandwidth_ref = bandwidth_ref

    def _query_settings(self) -> dict:
        if self.sigma_ratio is None:
            if self.bandwidth_ref is not None:
                raise ValueError(
                    "bandwidth_ref only applies with sigma_ratio (the rbf 'delta limit'); drop it or give sigma_ratio"
                )
            return dict(kernel="delta")
        if not _pos_float(self.sigma_ratio):
            raise ValueError(f"sigma_ratio must be a float > 0, got {self.sigma_ratio!r}")
        return dict(
            kernel="rbf", bandwidth="median", bandwidth_ref=self.bandwidth_ref, bandwidth_mult=float(self.sigma_ratio)
        )
