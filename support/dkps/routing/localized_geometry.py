"""Query-localised model-model geometry: the distance tensors a router reads.

Notation (one suite of ``n`` models, ``m`` anchor queries, responses in ``R^d``):

- ``X[i, j]`` is model ``i``'s embedded response to anchor query ``j`` (paired data: shape
  ``(n, m, d)``); on unpaired data the responses are *rows* ``X_rows`` (``R x d``) with the
  model index of each row in ``row_model``.
- ``U[j]`` is anchor query ``j``'s embedding; ``u*`` is a new query's.

Everything here is a function of anchors only; a new query enters through its own embedding
``u*`` alone (leave-query-out). The formulas:

- **per-query distance tensor** ``P[j, i, k] = ||x_ij - x_kj||^2`` by the Gram identity
  ``||a||^2 + ||b||^2 - 2<a, b>`` in float64, clipped at 0 (:func:`pairwise_sq_distances`);
- **RBF query weights** ``w_j(u*) = exp(-(||u_j - u*||^2 - min_l ||u_l - u*||^2) / (2 sigma^2))``;
  the shift by the minimum keeps a small ``sigma`` from underflowing every weight and leaves the
  normalised weights unchanged (:func:`rbf_weights`); ``sigma = inf`` gives uniform weights;
- **paired localised distance** ``D_q(i, k) = sqrt(sum_j w~_j(q) P[j, i, k])`` with
  ``w~ = w / sum w``: for a batch of ``Q`` queries one contraction
  ``(Q x m) . (m x n*n) -> (Q x n x n)`` (:func:`localized_distances`). It is the product-kernel
  perspective-space affinity with a linear response kernel and the query kernel
  ``k_Q(j, l) = w_j delta_jl`` (Acharyya et al., *Consistent estimation of generative model
  representations in the data kernel perspective space*, 2024; the query-aware re-weighting is
  the routing README of the dkps repository);
- **static DKPS** ``D_static(i, k) = sqrt(mean_j P[j, i, k])`` is the ``sigma -> inf`` limit
  (:func:`static_distances`);
- **task indicator weights** ``w_j = 1[task(j) = task(q)]`` (:func:`task_weights`), a reference
  ceiling that uses labels;
- **factorised (unpaired) geometry**: with the rank-one query kernel
  ``k_Q(j, l) = w_j w_l`` the affinity factorises into each model's weighted mean of its *own*
  rows, ``phi_i(q) = sum_{j in A_i} w_j x_ij / sum_{j in A_i} w_j`` and
  ``D_q(i, k) = ||phi_i(q) - phi_k(q)||`` (:func:`localized_means`,
  :func:`factorised_distances`). On paired data with equal weights
  ``D_paired^2 - D_fact^2 = sum_j w~_j ||(x_ij - mu_i) - (x_kj - mu_k)||^2 >= 0``.

Undefined distances (a model with no weight near ``q``) are ``+inf``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

__all__ = [
    "LocalizedStats",
    "check_underflow",
    "pairwise_sq_distances",
    "query_sq_distances",
    "rbf_weights",
    "normalize_weights",
    "task_weights",
    "localized_distances",
    "localized_mean_abs",
    "static_distances",
    "localized_means",
    "factorised_distances",
]

#: a model whose summed weight near a query is at or below this has an undefined localised mean
MIN_WEIGHT = 1e-12


def _as_float64(a, name: str, ndim: int) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0].tolist()
        raise ValueError(f"{name} holds NaN or inf (first at index {bad}); embed or drop those rows first")
    return arr


def pairwise_sq_distances(X, *, block: int = 256) -> np.ndarray:
    """Per-query squared distances between every pair of models' responses.

    ``P[j, i, k] = ||x_ij - x_kj||^2 = ||x_ij||^2 + ||x_kj||^2 - 2 <x_ij, x_kj>`` (Gram identity),
    accumulated in float64 and clipped at 0, in blocks of ``block`` queries to bound memory.

    Parameters
    ----------
    X : array of shape (n_models, n_queries, d)
        Paired response embeddings (every model answered every query).
    block : int
        Queries per block.

    Returns
    -------
    ndarray of shape (n_queries, n_models, n_models), float64
        Symmetric in the last two axes with an exact zero diagonal.
    """
    X = _as_float64(X, "X (responses, n_models x n_queries x d)", 3)
    n, m, _ = X.shape
    P = np.empty((m, n, n), dtype=np.float64)
    diag = np.arange(n)
    for s in range(0, m, block):
        Xb = np.ascontiguousarray(X[:, s : s + block].transpose(1, 0, 2))  # (b, n, d)
        sq = np.einsum("bnd,bnd->bn", Xb, Xb)
        G = Xb @ Xb.transpose(0, 2, 1)
        Pb = sq[:, :, None] + sq[:, None, :] - 2.0 * G
        np.maximum(Pb, 0.0, out=Pb)
        Pb[:, diag, diag] = 0.0
        P[s : s + block] = Pb
    return P


def query_sq_distances(U_query, U_anchor) -> np.ndarray:
    """Squared Euclidean distances ``||u_j - u*||^2`` between new queries and anchors.

    Gram identity in float64, clipped at 0.

    Parameters
    ----------
    U_query : array of shape (Q, d_q)
    U_anchor : array of shape (m, d_q)

    Returns
    -------
    ndarray of shape (Q, m)
    """
    Uq = _as_float64(U_query, "query embeddings", 2)
    Ua = _as_float64(U_anchor, "anchor query embeddings", 2)
    if Uq.shape[1] != Ua.shape[1]:
        raise ValueError(
            f"query embeddings have dimension {Uq.shape[1]} but the anchors have {Ua.shape[1]}; "
            "embed the queries with the same encoder as the anchors"
        )
    d2 = (Uq * Uq).sum(1)[:, None] + (Ua * Ua).sum(1)[None, :] - 2.0 * (Uq @ Ua.T)
    return np.maximum(d2, 0.0)


def check_underflow(sigma: float, what: str = "the bandwidth") -> None:
    """Refuse a bandwidth whose square underflows, which would make every weight but one ``0/0``.

    ``2 sigma^2`` must be a positive float: below ``sigma`` of about ``1e-162`` it rounds to 0 and the
    RBF exponent ``-(d - d_min) / (2 sigma^2)`` is undefined.

    Parameters
    ----------
    sigma : float
        The bandwidth (``inf`` passes).
    what : str
        How the message names it.

    Raises
    ------
    ValueError
        If ``2 sigma^2`` is 0 in floating point.
    """
    s = float(sigma)
    if np.isfinite(s) and not 2.0 * s * s > 0.0:
        raise ValueError(
            f"{what} gives sigma = {s:.3g}, whose square underflows to 0 in floating point, so the query weights "
            "are undefined; use a larger bandwidth"
        )


def rbf_weights(sq_dist, sigma: float, *, normalize: bool = True) -> np.ndarray:
    """RBF query-localisation weights with the minimum shift.

    ``w_j = exp(-(d_j - min_l d_l) / (2 sigma^2))`` for squared distances ``d_j = ||u_j - u*||^2``,
    row by row; ``sigma = inf`` gives ``w_j = 1``. The shift cancels in the normalised weights
    ``w~_j = w_j / sum_l w_l`` and makes the largest weight of each row exactly 1, so no row
    underflows to all zeros.

    Parameters
    ----------
    sq_dist : array of shape (Q, m) or (m,)
        Squared query distances (:func:`query_sq_distances`). ``+inf`` entries get weight 0.
    sigma : float
        Bandwidth, > 0 (``numpy.inf`` allowed).
    normalize : bool
        Return ``w~`` (rows summing to 1) instead of ``w``.

    Returns
    -------
    ndarray with the shape of ``sq_dist``

    Raises
    ------
    ValueError
        A bandwidth that is not a number > 0, or whose square underflows (:func:`check_underflow`).
    """
    if isinstance(sigma, (bool, np.bool_)):
        raise ValueError(f"bandwidth sigma must be a number > 0, not the bool {sigma!r}")
    sigma = float(sigma)
    if not sigma > 0 or np.isnan(sigma):
        raise ValueError(f"bandwidth sigma must be > 0, got {sigma}")
    check_underflow(sigma, "the bandwidth")
    d = np.asarray(sq_dist, dtype=np.float64)
    one = d.ndim == 1
    d = np.atleast_2d(d)
    if np.isinf(sigma):
        w = np.where(np.isfinite(d), 1.0, 0.0)
    else:
        finite = np.isfinite(d)
        dmin = np.where(finite, d, np.inf).min(axis=1, keepdims=True)
        dmin = np.where(np.isfinite(dmin), dmin, 0.0)
        with np.errstate(invalid="ignore"):
            w = np.where(finite, np.exp(-(d - dmin) / (2.0 * sigma * sigma)), 0.0)
    if normalize:
        w = normalize_weights(w)
    return w[0] if one else w


def normalize_weights(W) -> np.ndarray:
    """Rows divided by their sums; an all-zero row stays all zero (its distances are undefined)."""
    W = np.asarray(W, dtype=np.float64)
    s = W.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s > 0, W / np.where(s > 0, s, 1.0), 0.0)


def task_weights(anchor_tasks, query_tasks, *, normalize: bool = True) -> np.ndarray:
    """Task-indicator weights ``w_j = 1[task(j) = task(q)]`` (uses labels: a reference ceiling).

    Parameters
    ----------
    anchor_tasks : sequence of length m
    query_tasks : sequence of length Q

    Returns
    -------
    ndarray of shape (Q, m); a query whose task has no anchor gets an all-zero row.
    """
    a = np.asarray(anchor_tasks, dtype=object)
    q = np.asarray(query_tasks, dtype=object)
    W = (q[:, None] == a[None, :]).astype(np.float64)
    return normalize_weights(W) if normalize else W


def _batches(Q: int, batch_size: int) -> list[slice]:
    return [slice(s, min(s + batch_size, Q)) for s in range(0, Q, batch_size)]


def _contract(Wn: np.ndarray, Pflat: np.ndarray, sqrt: bool) -> np.ndarray:
    out = Wn @ Pflat
    np.maximum(out, 0.0, out=out)
    return np.sqrt(out) if sqrt else out


def _run_batches(fn, Wn: np.ndarray, Pflat: np.ndarray, n: int, sqrt: bool, n_jobs, batch_size: int):
    Q = Wn.shape[0]
    slices = _batches(Q, batch_size)
    if n_jobs in (None, 1) or len(slices) == 1:
        out = fn(Wn, Pflat, sqrt)
    else:
        parts = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(fn)(Wn[s], Pflat, sqrt) for s in slices)
        out = np.concatenate(parts, axis=0)
    return out.reshape(Q, n, n)


def localized_distances(P, W, *, squared: bool = False, n_jobs: int | None = None, batch_size: int = 512) -> np.ndarray:
    """Paired query-localised distances for a batch of queries, as one contraction.

    ``D_q(i, k) = sqrt(sum_j w~_j(q) P[j, i, k])`` with ``w~`` the row-normalised ``W``. A query
    whose weight row sums to 0 gets ``+inf`` everywhere except the zero diagonal.

    Parameters
    ----------
    P : array of shape (m, n, n)
        Anchor distance tensor (:func:`pairwise_sq_distances`).
    W : array of shape (Q, m) or (m,)
        Query weights (normalised here).
    squared : bool
        Return ``D^2`` (the kernel regression of the squared mimicry error).
    n_jobs : int or None
        joblib workers over query batches (threads; BLAS releases the GIL).
    batch_size : int
        Queries per batch.

    Returns
    -------
    ndarray of shape (Q, n, n) (or (n, n) for a 1-D ``W``)
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 3 or P.shape[1] != P.shape[2]:
        raise ValueError(f"P must have shape (n_anchors, n_models, n_models), got {P.shape}")
    W = np.asarray(W, dtype=np.float64)
    one = W.ndim == 1
    W = np.atleast_2d(W)
    m, n, _ = P.shape
    if W.shape[1] != m:
        raise ValueError(f"weights have {W.shape[1]} columns but P has {m} anchor queries")
    Wn = normalize_weights(W)
    D = _run_batches(_contract, Wn, P.reshape(m, n * n), n, not squared, n_jobs, batch_size)
    dead = Wn.sum(axis=1) == 0
    if dead.any():
        D[dead] = np.where(np.eye(n, dtype=bool), 0.0, np.inf)
    return D[0] if one else D


def localized_mean_abs(P, W, *, n_jobs: int | None = None, batch_size: int = 512) -> np.ndarray:
    """Kernel regression of the realised *absolute* deviation: ``sum_j w~_j sqrt(P[j, i, k])``.

    This is the expected deviation between models ``i`` and ``k`` at the query (the localised
    mean of their realised response distances on the anchors); by Jensen's inequality it is at
    most :func:`localized_distances`.

    Returns
    -------
    ndarray of shape (Q, n, n)
    """
    P = np.asarray(P, dtype=np.float64)
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    m, n, _ = P.shape
    Wn = normalize_weights(W)
    E = _run_batches(lambda w, p, _s: w @ p, Wn, np.sqrt(P).reshape(m, n * n), n, False, n_jobs, batch_size)
    E[Wn.sum(axis=1) == 0] = np.inf
    return E


def static_distances(P) -> np.ndarray:
    """Static (paired) DKPS distances ``sqrt(mean_j P[j, i, k])``: uniform weights, ``sigma -> inf``."""
    P = np.asarray(P, dtype=np.float64)
    return np.sqrt(np.maximum(P.mean(axis=0), 0.0))


@dataclass(frozen=True)
class LocalizedStats:
    """Each model's localised statistics of its own rows, per query.

    Attributes
    ----------
    phi : ndarray (Q, n, d)
        ``phi_i(q) = sum_{j in A_i} w_j x_j / den_i(q)``; NaN where ``ok`` is False.
    den : ndarray (Q, n)
        ``den_i(q) = sum_{j in A_i} w_j``.
    ok : ndarray (Q, n) of bool
        ``den > 1e-12``.
    score : ndarray (Q, n) or None
        Nadaraya-Watson estimate of the model's own score near ``q`` (if scores were given).
    s2 : ndarray (Q, n)
        Localised residual variance (trace) ``max(sum w ||x||^2 / den - ||phi||^2, 0)``.
    n_eff : ndarray (Q, n)
        Kish effective sample size ``den^2 / sum w^2``.
    """

    phi: np.ndarray
    den: np.ndarray
    ok: np.ndarray
    score: np.ndarray | None
    s2: np.ndarray
    n_eff: np.ndarray


def localized_means(X_rows, row_model, W, n_models: int, *, scores=None) -> LocalizedStats:
    """Factorised geometry: each model's weighted mean of its own anchor rows, per query.

    One matrix product per model, ``W[:, rows_m] @ X_rows[rows_m]`` (and the same for the squared
    norms, the squared weights and the scores).

    Parameters
    ----------
    X_rows : array of shape (R, d)
        Anchor response rows.
    row_model : int array of shape (R,)
        Model index of each row, in ``0..n_models-1``.
    W : array of shape (Q, R)
        Unnormalised (or normalised) weights of each row for each query; normalisation happens
        per model, so any positive row scaling cancels.
    n_models : int
    scores : array of shape (R,), optional

    Returns
    -------
    LocalizedStats
    """
    X = _as_float64(X_rows, "anchor response rows", 2)
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    rm = np.asarray(row_model, dtype=np.int64)
    if W.shape[1] != X.shape[0] or rm.shape != (X.shape[0],):
        raise ValueError(f"W has {W.shape[1]} columns, X_rows {X.shape[0]} rows and row_model {rm.shape[0]} entries")
    Q, d = W.shape[0], X.shape[1]
    num = np.zeros((Q, n_models, d))
    den = np.zeros((Q, n_models))
    sq = np.zeros((Q, n_models))
    w2 = np.zeros((Q, n_models))
    sc = None if scores is None else np.zeros((Q, n_models))
    s_rows = None if scores is None else np.asarray(scores, dtype=np.float64)
    norms = (X * X).sum(1)
    for i in range(n_models):
        rows = np.flatnonzero(rm == i)
        if rows.size == 0:
            continue
        Wi = W[:, rows]
        num[:, i] = Wi @ X[rows]
        den[:, i] = Wi.sum(1)
        sq[:, i] = Wi @ norms[rows]
        w2[:, i] = (Wi * Wi).sum(1)
        if sc is not None:
            sc[:, i] = Wi @ s_rows[rows]
    ok = den > MIN_WEIGHT
    safe = np.where(ok, den, 1.0)
    phi = np.where(ok[..., None], num / safe[..., None], np.nan)
    s2 = np.where(ok, np.maximum(sq / safe - np.nansum(phi * phi, axis=2), 0.0), np.nan)
    n_eff = np.where(ok, den * den / np.where(w2 > 0, w2, 1.0), 0.0)
    score = None if sc is None else np.where(ok, sc / safe, np.nan)
    return LocalizedStats(phi=phi, den=den, ok=ok, score=score, s2=s2, n_eff=n_eff)


def factorised_distances(stats: LocalizedStats, *, squared: bool = False) -> np.ndarray:
    """``D_q(i, k) = ||phi_i(q) - phi_k(q)||`` by the Gram identity; ``+inf`` where a mean is undefined.

    Returns
    -------
    ndarray of shape (Q, n, n); zero diagonal for defined models.
    """
    phi = np.where(stats.ok[..., None], stats.phi, 0.0)
    sq = (phi * phi).sum(2)
    D2 = sq[:, :, None] + sq[:, None, :] - 2.0 * (phi @ phi.transpose(0, 2, 1))
    np.maximum(D2, 0.0, out=D2)
    n = phi.shape[1]
    D2[:, np.arange(n), np.arange(n)] = 0.0
    bad = ~(stats.ok[:, :, None] & stats.ok[:, None, :])
    D2[bad] = np.inf
    return D2 if squared else np.sqrt(D2)
