"""Bandwidth of the query localisation: a multiple of the median anchor distance, or chosen by CV.

- ``sigma = f x med`` with ``med`` the exact median of ``||u_j - u_l||`` over all unordered pairs
  of distinct anchor queries (:func:`median_anchor_distance`); on unpaired data the
  "anchor rows" variant draws random pairs of rows (:func:`median_row_distance`).
- **Anchor pseudo-evaluation CV** (leak-free: anchors only). Anchors are cached history, so each
  of ``V`` sampled anchors plays a new query: its RBF weights over the *other* anchors (its own
  weight set to zero, the minimum shift taken over the others) localise the geometry, every
  target is routed by the nearest-candidate rule, and the realised error on the pseudo-query's
  own responses is read off ``P``. ``table[s, v]`` is the mean over targets
  (:func:`cv_table`). cv-global takes ``argmin_s mean_v table[s, v]``; cv-per-query scores each
  ``sigma`` by the meta-weighted mean ``sum_v M_v(u*) table[s, v]`` with RBF meta-weights at
  ``0.5 x med`` (:func:`cv_global`, :func:`cv_per_query`). A ``sigma`` whose weights vanish for
  a pseudo-query is excluded from that pseudo-query's column (NaN).

The fraction grids follow the routing experiments of the dkps repository (``qa-{f}x``).
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from scipy.spatial.distance import pdist

from ..threads import single_blas_thread
from .localized_geometry import localized_distances, query_sq_distances, rbf_weights
from .rules import nearest_for_all_targets

__all__ = [
    "FRACTIONS",
    "CV_FRACTIONS",
    "median_anchor_distance",
    "median_row_distance",
    "check_sigma",
    "check_fractions",
    "pseudo_picks",
    "cv_table",
    "cv_global",
    "cv_per_query",
]

#: bandwidth fractions of the mimicry tables (``qa-{f}x``)
FRACTIONS = (0.125, 0.25, 0.5, 1.0, 2.0)
#: the CV grid
CV_FRACTIONS = (0.06, 0.09, 0.125, 0.18, 0.25, 0.35, 0.5, 0.75, 1.0)


def median_anchor_distance(U_anchor) -> float:
    """Exact median of ``||u_j - u_l||`` over all unordered pairs ``j < l`` of anchor queries.

    Raises
    ------
    ValueError
        With fewer than two anchors, or if every pair coincides (median 0).
    """
    U = np.asarray(U_anchor, dtype=np.float64)
    if U.ndim != 2 or U.shape[0] < 2:
        raise ValueError(f"the bandwidth median needs at least 2 anchor queries, got shape {U.shape}")
    med = float(np.median(pdist(U)))
    if not med > 0:
        raise ValueError("all anchor query embeddings coincide: the median distance is 0, so no bandwidth")
    return med


def median_row_distance(U_rows, rng: np.random.Generator, *, n_pairs: int = 20000) -> float:
    """Median over ``n_pairs`` random ordered pairs of distinct anchor *rows* (unpaired data)."""
    U = np.asarray(U_rows, dtype=np.float64)
    R = U.shape[0]
    if R < 2:
        raise ValueError("the bandwidth median needs at least 2 anchor rows")
    i = rng.integers(0, R, n_pairs)
    k = rng.integers(0, R, n_pairs)
    keep = i != k
    d = np.linalg.norm(U[i[keep]] - U[k[keep]], axis=1)
    return float(np.median(d))


def check_sigma(sigma) -> float:
    """A bandwidth must be a positive number (``inf`` allowed), never a bool.

    Parameters
    ----------
    sigma : float
        The bandwidth, or its multiple of the median.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        A bool, a value that is not a number, or one that is not > 0 (NaN included).
    """
    if isinstance(sigma, (bool, np.bool_)):
        raise ValueError(f"bandwidth must be a positive number or 'cv', not the bool {sigma!r}")
    try:
        s = float(sigma)
    except (TypeError, ValueError):
        raise ValueError(f"bandwidth must be a positive number or 'cv', got {sigma!r}") from None
    if not s > 0:
        raise ValueError(f"bandwidth must be > 0, got {sigma!r}")
    return s


def check_fractions(fractions) -> np.ndarray:
    """A bandwidth grid: at least one fraction of the median, each a finite number > 0.

    Parameters
    ----------
    fractions : sequence of float
        Multiples of the median anchor distance.

    Returns
    -------
    ndarray of shape (S,)

    Raises
    ------
    ValueError
        An empty grid, a bool, or a fraction that is not a finite number > 0.
    """
    vals = list(np.atleast_1d(np.asarray(fractions, dtype=object)).ravel())
    if not vals:
        raise ValueError(
            "the bandwidth grid needs at least one bandwidth fraction of the median (e.g. (0.25, 0.5, 1.0))"
        )
    out = []
    for f in vals:
        if isinstance(f, (bool, np.bool_)):
            raise ValueError(f"a bandwidth fraction must be a number > 0, not the bool {f!r}")
        try:
            v = float(f)
        except (TypeError, ValueError):
            raise ValueError(f"a bandwidth fraction must be a number > 0, got {f!r}") from None
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"every bandwidth fraction must be a finite number > 0, got {f!r}")
        out.append(v)
    return np.asarray(out)


def pseudo_picks(P, d2_row: np.ndarray, v: int, sigmas) -> np.ndarray:
    """Every target's pick at pseudo-query ``v`` (anchor position) for each bandwidth, ``(S, n)``.

    ``v``'s own weight is zero and the minimum shift is taken over the other anchors, so ``v``'s
    responses never enter its own geometry; a bandwidth whose weights all vanish gives ``-1``.
    """
    d2 = np.array(d2_row, dtype=np.float64)
    d2[v] = np.inf  # self-exclusion: the pseudo-query's own responses never localise its geometry
    n = P.shape[1]
    W = np.stack([rbf_weights(d2, s, normalize=False) for s in sigmas])  # (S, m)
    W[:, v] = 0.0
    out = np.full((len(sigmas), n), -1, dtype=np.int64)
    ok = W.sum(1) > 0
    if ok.any():
        out[ok] = nearest_for_all_targets(localized_distances(P, W[ok]))[0]
    return out


@single_blas_thread
def cv_table(
    P_anchor,
    U_anchor,
    fractions=CV_FRACTIONS,
    *,
    med: float | None = None,
    rng: np.random.Generator,
    n_pseudo: int = 200,
    n_jobs: int | None = None,
    batch_size: int = 64,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Pseudo-error table of the anchor pseudo-evaluation.

    All (pseudo-query, bandwidth) weight rows go through one batched contraction
    (:func:`dkps.routing.localized_geometry.localized_distances`), ``batch_size`` pseudo-queries at a time;
    each row is what :func:`pseudo_picks` computes for one pseudo-query.

    Parameters
    ----------
    P_anchor : array (m, n, n)
        Distance tensor of the anchor queries only.
    U_anchor : array (m, d_q)
        Anchor query embeddings.
    fractions : sequence of float
        Bandwidths as multiples of ``med``.
    med : float, optional
        Median anchor distance (computed from ``U_anchor`` if not given).
    rng : numpy Generator
        Draws the ``min(n_pseudo, m)`` pseudo-queries without replacement.
    n_jobs : int or None
        joblib workers over batches of pseudo-queries.
    batch_size : int
        Pseudo-queries per contraction.

    Returns
    -------
    table : ndarray (len(fractions), V)
        Mean error over targets per (sigma, pseudo-query); NaN where sigma is unusable.
    pseudo : int array (V,)
        Anchor positions used as pseudo-queries.
    med : float
    """
    P = np.asarray(P_anchor, dtype=np.float64)
    U = np.asarray(U_anchor, dtype=np.float64)
    if P.ndim != 3 or P.shape[1] != P.shape[2]:
        raise ValueError(f"P_anchor must have shape (n_anchors, n_models, n_models), got {P.shape}")
    if U.ndim != 2 or P.shape[0] != U.shape[0]:
        raise ValueError(f"P_anchor has {P.shape[0]} anchors but U_anchor has shape {U.shape}")
    if isinstance(n_pseudo, (bool, np.bool_)) or not isinstance(n_pseudo, (int, np.integer)) or n_pseudo < 1:
        raise ValueError(f"n_pseudo must be an integer >= 1 (pseudo-queries drawn from the anchors), got {n_pseudo!r}")
    fractions = check_fractions(fractions)
    med = median_anchor_distance(U) if med is None else float(med)
    m, n = U.shape[0], P.shape[1]
    pseudo = np.sort(rng.choice(m, size=min(n_pseudo, m), replace=False))
    d2 = query_sq_distances(U[pseudo], U)
    d2[np.arange(pseudo.size), pseudo] = np.inf  # self-exclusion: weight 0, and the shift skips it
    sigmas = [f * med for f in fractions]
    S = len(sigmas)

    def block(sl: slice) -> np.ndarray:
        W = np.concatenate([rbf_weights(d2[sl], s, normalize=False) for s in sigmas])  # (S*b, m), sigma-major
        ok = W.sum(1) > 0
        out = np.full(W.shape[0], np.nan)
        if ok.any():
            picks, _ = nearest_for_all_targets(localized_distances(P, W[ok]))
            v = np.tile(pseudo[sl], S)[ok]
            err = np.sqrt(P[v[:, None], np.arange(n)[None, :], picks])  # (k, n): target t's error at v
            out[ok] = err.mean(axis=1)
        return out.reshape(S, -1)

    slices = [slice(i, min(i + batch_size, pseudo.size)) for i in range(0, pseudo.size, batch_size)]
    if n_jobs in (None, 1) or len(slices) == 1:
        cols = [block(sl) for sl in slices]
    else:
        cols = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(block)(sl) for sl in slices)
    return np.concatenate(cols, axis=1), pseudo, med


def _check_table(table) -> np.ndarray:
    T = np.asarray(table, dtype=np.float64)
    if T.ndim != 2 or T.shape[0] == 0 or T.shape[1] == 0:
        raise ValueError(
            f"the CV table must be a non-empty 2-D array (bandwidths x pseudo-queries, as cv_table returns), "
            f"got shape {T.shape}"
        )
    return T


def cv_global(table) -> int:
    """Index of the fraction with the lowest mean pseudo-error (NaN entries skipped).

    Parameters
    ----------
    table : array of shape (S, V)
        :func:`cv_table`'s pseudo-error table.

    Returns
    -------
    int
        ``argmin_s nanmean_v table[s, v]``.

    Raises
    ------
    ValueError
        A table that is not a non-empty 2-D array, or one where no bandwidth is usable on any pseudo-query.
    """
    T = _check_table(table)
    usable = np.isfinite(T).any(axis=1)
    if not usable.any():
        raise ValueError("no bandwidth in the grid is usable on any pseudo-query; widen the grid")
    means = np.full(T.shape[0], np.inf)
    means[usable] = np.nanmean(T[usable], axis=1)
    return int(np.argmin(means))


def cv_per_query(table, U_pseudo, U_query, med: float, *, meta_fraction: float = 0.5) -> np.ndarray:
    """Per-query bandwidth index: ``argmin_s sum_v M_v(u*) table[s, v]``.

    ``M`` are normalised RBF weights of the pseudo-queries around ``u*`` at
    ``meta_fraction x med``; an unusable (NaN) entry is dropped and the remaining meta-weights
    renormalised.

    Returns
    -------
    int array (Q,)
    """
    T = _check_table(table)
    Up = np.asarray(U_pseudo, dtype=np.float64)
    if Up.ndim != 2 or Up.shape[0] != T.shape[1]:
        raise ValueError(
            f"the CV table has {T.shape[1]} pseudo-queries but {Up.shape[0] if Up.ndim == 2 else Up.shape} "
            "pseudo-query embeddings were given (pass U_anchor[pseudo] from cv_table)"
        )
    M = rbf_weights(query_sq_distances(U_query, U_pseudo), meta_fraction * med, normalize=False)  # (Q, V)
    have = np.isfinite(T)  # (S, V)
    num = M @ np.where(have, T, 0.0).T  # (Q, S)
    den = M @ have.T.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(den > 0, num / den, np.inf)
    return score.argmin(axis=1)
