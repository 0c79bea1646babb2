"""Query and response kernels and the PKPS affinity sums.

The product-kernel affinity generalises the data-kernel perspective space of Acharyya, Trosset,
Priebe & Helm (2024, arXiv:2409.17308), which compares responses to identical queries only.

The PKPS affinity of models :math:`i, i'` sums over all their response rows :math:`j, l`

.. math::
    \\mathrm{Num}_{ii'} = \\sum_{j,l} k_Q(u_j,u_l)\\,k_R(x_j,x_l),\\qquad
    \\mathrm{Den}_{ii'} = \\sum_{j,l} k_Q(u_j,u_l),\\qquad A_{ii'} = \\mathrm{Num}/\\mathrm{Den}.

For the linear (and, on unit vectors, cosine) response kernel these reduce to per-(model, query)
sufficient statistics — counts :math:`c_{iq}` and sums :math:`s_{iq}=\\sum x` — and block matrix
products:
:math:`\\mathrm{Num}_{ii'} = \\sum_{q,q'} K_Q[q,q']\\langle s_{iq}, s_{i'q'}\\rangle`,
:math:`\\mathrm{Den} = C K_Q C^\\top`. No Python loop runs over query pairs.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = [
    "QUERY_KERNELS",
    "RESPONSE_KERNELS",
    "sq_dists",
    "query_gram",
    "response_gram",
    "pair_sums",
    "contract",
    "pair_sums_delta",
    "pair_sums_rows",
]

QUERY_KERNELS = ("rbf", "delta", "linear", "cosine")
RESPONSE_KERNELS = ("linear", "cosine", "rbf")
_CHUNK = 2048


def sq_dists(U1: np.ndarray, U2: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``||u - u'||^2`` (clipped at 0)."""
    d = (U1 * U1).sum(1)[:, None] + (U2 * U2).sum(1)[None, :] - 2.0 * (U1 @ U2.T)
    return np.maximum(d, 0.0)


def _check_callable_output(K: np.ndarray, shape: tuple[int, int], what: str) -> np.ndarray:
    K = np.asarray(K, dtype=float)
    if K.shape != shape:
        raise ValueError(f"callable {what} kernel returned shape {K.shape}, expected {shape}")
    if not np.isfinite(K).all():
        raise ValueError(f"callable {what} kernel returned non-finite values; it must be finite")
    if (K < 0).any():
        raise ValueError(f"callable {what} kernel returned negative values; it must be >= 0")
    return K


def query_gram(kernel, U1: np.ndarray, U2: np.ndarray, bandwidths=(None,)) -> list[np.ndarray]:
    """Query kernel matrices ``K[h][a, b] = k_Q(U1[a], U2[b])`` for each bandwidth.

    ``'rbf'``: :math:`\\exp(-\\|u-u'\\|^2/(2h^2))` for each ``h`` in ``bandwidths``;
    ``'linear'``: :math:`\\max(\\langle u,u'\\rangle,0)`; ``'cosine'``: :math:`\\max(\\cos(u,u'),0)`
    (0 with a zero vector); a callable ``f(U1, U2)`` must return finite values >= 0.
    Non-rbf kernels return one matrix whatever ``bandwidths`` holds.
    """
    U1 = np.asarray(U1, dtype=float)
    U2 = np.asarray(U2, dtype=float)
    if callable(kernel):
        return [_check_callable_output(kernel(U1, U2), (len(U1), len(U2)), "query")]
    if kernel == "rbf":
        D2 = sq_dists(U1, U2)
        return [np.exp(-D2 / (2.0 * h * h)) for h in bandwidths]
    if kernel == "linear":
        return [np.maximum(U1 @ U2.T, 0.0)]
    if kernel == "cosine":
        n1 = np.linalg.norm(U1, axis=1)
        n2 = np.linalg.norm(U2, axis=1)
        V1 = U1 / np.where(n1 < 1e-12, 1.0, n1)[:, None]
        V2 = U2 / np.where(n2 < 1e-12, 1.0, n2)[:, None]
        K = np.maximum(V1 @ V2.T, 0.0)
        K[n1 < 1e-12] = 0.0
        K[:, n2 < 1e-12] = 0.0
        return [K]
    raise ValueError(f"unknown query kernel {kernel!r}; use one of {QUERY_KERNELS} or a callable")


def response_gram(kernel, X1: np.ndarray, X2: np.ndarray, h: float | None = None) -> np.ndarray:
    """Response kernel matrix: linear, cosine, rbf (bandwidth ``h``) or a callable."""
    if callable(kernel):
        return _check_callable_output(kernel(X1, X2), (len(X1), len(X2)), "response")
    if kernel == "linear":
        return X1 @ X2.T
    if kernel == "cosine":
        n1 = np.linalg.norm(X1, axis=1)
        n2 = np.linalg.norm(X2, axis=1)
        return (X1 / np.where(n1 < 1e-12, 1.0, n1)[:, None]) @ (X2 / np.where(n2 < 1e-12, 1.0, n2)[:, None]).T
    if kernel == "rbf":
        return np.exp(-sq_dists(X1, X2) / (2.0 * h * h))
    raise ValueError(f"unknown response kernel {kernel!r}; use one of {RESPONSE_KERNELS} or a callable")


def pair_sums(CA: np.ndarray, SA: np.ndarray, CB: np.ndarray, SB: np.ndarray, K: np.ndarray):
    """Num and Den of every model pair (a in A, b in B) from sufficient statistics.

    Parameters
    ----------
    CA : (nA, QA) counts; SA : (nA, r, QA) sums of response vectors (dimension-major layout);
    likewise CB, SB over QB.
    K : (QA, QB) query kernel between the two query sets.

    Returns
    -------
    Num, Den : (nA, nB) arrays with
        ``Num[a,b] = sum_{q,q'} K[q,q'] <SA[a,:,q], SB[b,:,q']>`` and ``Den = CA K CB^T``.

    The smaller model side is contracted with ``K`` first (two GEMMs), so adding one model to a
    fitted space costs ``O(QA QB r)`` instead of ``O(n QA QB r)``. Rows of ``K`` are processed in
    chunks to bound memory.
    """
    nA, r, QA = SA.shape
    nB, _, QB = SB.shape
    if nA > nB:
        num, den = pair_sums(CB, SB, CA, SA, K.T)
        return num.T, den.T
    W, CK = contract(CA, SA, K)
    num = W.reshape(nA, r * QB) @ SB.reshape(nB, r * QB).T
    den = CK @ CB.T
    return num, den


def contract(
    C: np.ndarray, S: np.ndarray, K: np.ndarray, per_model: bool = False, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The first half of :func:`pair_sums`: ``W = S K`` per model (as an ``(n r, Q')`` array) and
    ``CK = C K``, dense, by row chunks of ``K`` for long query lists, or sparse for a narrow kernel.

    Each output row depends only on its own model's statistics and ``K``. With ``per_model`` it is
    also the same to the last bit whatever other models are in the batch: the dense products run
    one model at a time (a stack of ``(r, Q) @ (Q, Q')`` and ``(1, Q) @ (Q, Q')`` products), because
    an optimised BLAS may round a row differently with the shape of the whole product (OpenBLAS's
    edge kernels do). ``update`` relies on it to equal a fresh fit bit for bit.

    ``out``, an aligned C-contiguous float64 ``(n r, Q')`` array, receives ``W`` of the whole-batch dense
    product (neither ``per_model`` nor chunked nor sparse; else it is ignored): the same BLAS call
    writing into it, so the same bits, while a caller that contracts with several kernels reuses one
    buffer instead of faulting in a fresh ``W`` per kernel (every allocation this large is a fresh
    ``mmap`` under Dask's workers, whose ``MALLOC_TRIM_THRESHOLD_`` fixes glibc's mmap threshold)."""
    n, r, Q = S.shape
    Ks = _sparse_kernel(K)

    def dense(Sc: np.ndarray, Cc: np.ndarray, Kc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if per_model:
            return (Sc @ Kc).reshape(n * r, Kc.shape[1]), (Cc[:, None, :] @ Kc)[:, 0, :]
        W = np.matmul(Sc.reshape(n * r, Sc.shape[2]), Kc, out=_fits(out, (n * r, Kc.shape[1])))
        return W, Cc @ Kc

    if Ks is not None:  # a narrow rbf: K is almost all (numerically) zero
        KT = Ks.T.tocsr()
        W = np.ascontiguousarray((KT @ np.ascontiguousarray(S.reshape(n * r, Q).T)).T)
        CK = np.ascontiguousarray((KT @ np.ascontiguousarray(C.T)).T)
    elif Q <= _CHUNK:
        W, CK = dense(np.ascontiguousarray(S), np.ascontiguousarray(C), K)
    else:
        W = np.zeros((n * r, K.shape[1]))
        CK = np.zeros((n, K.shape[1]))
        for s in range(0, Q, _CHUNK):
            e = min(Q, s + _CHUNK)
            Wc, CKc = dense(np.ascontiguousarray(S[:, :, s:e]), np.ascontiguousarray(C[:, s:e]), K[s:e])
            W += Wc
            CK += CKc
    return W, CK


def _fits(out: np.ndarray | None, shape: tuple) -> np.ndarray | None:
    """``out`` when it can take a product of ``shape`` (aligned, C-contiguous float64), else None."""
    if out is None or out.shape != shape or out.dtype != np.float64:
        return None
    return out if out.flags.c_contiguous and out.flags.aligned else None


def _sparse_kernel(K: np.ndarray, density: float = 0.01, tiny: float = 1e-30):
    """``K`` as a sparse matrix when fewer than ``density`` of its entries exceed ``tiny`` x its
    largest entry (a narrow rbf bandwidth), else None. The dropped entries change Num and Den by
    less than ``tiny`` relative to the self-pair mass; the products then cost O(nnz) per row."""
    if K.size == 0:
        return None
    keep = K > tiny * float(K.max())
    if keep.mean() >= density:
        return None
    return sparse.csr_matrix(np.where(keep, K, 0.0))


def pair_sums_delta(CA: np.ndarray, SA: np.ndarray, CB: np.ndarray, SB: np.ndarray):
    """Num and Den under the delta query kernel (same query key only), both sides on one query index.

    ``Num[a,b] = sum_q <SA[a,:,q], SB[b,:,q]>``, ``Den[a,b] = sum_q CA[a,q] CB[b,q]``.
    """
    nA, r, Q = SA.shape
    nB = SB.shape[0]
    num = SA.reshape(nA, Q * r) @ SB.reshape(nB, Q * r).T
    den = CA @ CB.T
    return num, den


def pair_sums_rows(rows_a: list, rows_b: list, K: np.ndarray, kernel, h: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Num and Den from raw rows, for response kernels without sufficient statistics (rbf, callable).

    ``rows_a[a] = (query_index, X)``: the query index of each response row of model ``a`` in ``K``'s
    row space and the reduced response vectors. Cost grows with the product of the two models'
    row counts (the README's "PKPS cost grows with the product of two models' per-cell counts").
    """
    num = np.zeros((len(rows_a), len(rows_b)))
    den = np.zeros_like(num)
    for a, (qa, Xa) in enumerate(rows_a):
        if len(qa) == 0:
            continue
        Ka = K[qa]
        for b, (qb, Xb) in enumerate(rows_b):
            if len(qb) == 0:
                continue
            KQ = Ka[:, qb]
            num[a, b] = float(np.sum(KQ * response_gram(kernel, Xa, Xb, h)))
            den[a, b] = float(np.sum(KQ))
    return num, den


def median_pair_distance(X: np.ndarray, rng: np.random.Generator, max_rows: int = 1000) -> float:
    """Median Euclidean distance over distinct row pairs (subsampled to ``max_rows`` rows)."""
    X = np.asarray(X, dtype=float)
    if len(X) > max_rows:
        X = X[np.sort(rng.choice(len(X), size=max_rows, replace=False))]
    if len(X) < 2:
        return float("nan")
    iu = np.triu_indices(len(X), 1)
    return float(np.median(np.sqrt(sq_dists(X, X)[iu])))
