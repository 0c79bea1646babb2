"""Standardisation sensitivity of the visible-radius ratio delta_vis / Delta_2 (the paper's App. H.23 and H.41).

The paper reports the ratio of Table 2 under four representations of the scores (z-score, min-max,
rank, raw) twice, with two different computations:

App. H.23 (the paper's code, validation_v8.py ``exp1c``), on the Extended frontier as given:

1. M = the representation of S: ``zscore(S)``; ``(S - min)/(max - min)``; the z-score of the
   column ranks (``scipy.stats.rankdata``, ties averaged); S itself.
2. R = max_i ||M_i||, the norm of the *uncentred* rows of M (for min-max and raw this is not a
   radius about the population's centre).
3. d = max(round(d_eff(corr M)), 2); directions = rows of the top-d right singular vectors of the
   centred M, normalised; omega = the SIGNED Monte Carlo max-min over 5,000 Gaussian queries on
   S^{d-1}. One ``default_rng(seed)`` serves the whole table: it first draws 10,000 k-dimensional
   queries that the code never uses, then 5,000 d-dimensional ones per representation, in the order
   above.
4. delta_vis = 2 R omega; Delta_2 = the gap between the two largest row means of the centred M;
   ratio = delta_vis / Delta_2.

App. H.41 (the paper's code, reviewer_fixes.py ``Q7``), on the matrix it is given:

1. The frontier of that matrix (mean score >= its median) -- the script is handed the Extended
   *frontier*, so its Extended column is the frontier of the frontier (the top quarter).
2. M = zscore, min-max (+1e-10 in the denominator), ordinal ranks ``argsort(argsort(col)) / n``, raw.
3. R = max_i ||M_i - mean(M)||; **omega = 1.57, a constant** (the "1.57 x Rogers" ratio of App.
   H.11, not a radius); delta_vis = 2 R omega; ratio = delta_vis / (Delta_2 + 1e-10).

The formula as the main text states it (:func:`blindspot.prognose.visible_radius.visible_radius`)
z-scores every column first, so its ratio is the same for every positive affine change of a
benchmark's scale: z-score, min-max and raw give one number and only the rank transform changes it
(:func:`stated_ratios`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from blindspot.core.conventions import ArrayLike, as_matrix, frontier_mask, zscore
from blindspot.core.spectrum import correlation, participation_ratio
from blindspot.prognose.visible_radius import visible_radius

__all__ = ["REPRESENTATIONS", "representation", "ratios_h23", "ratios_h41", "stated_ratios", "H41_OMEGA"]

#: The four representations, in the order the paper's tables list them.
REPRESENTATIONS: tuple[str, ...] = ("z-score", "min-max", "rank", "raw")

#: The covering radius App. H.41's script uses for every representation and suite (a constant).
H41_OMEGA = 1.57

Ranks = Literal["average-z", "ordinal"]


def representation(S: ArrayLike, method: str, ranks: Ranks = "average-z") -> np.ndarray:
    """The scores under one of :data:`REPRESENTATIONS`.

    ``rank`` is the z-score of the column ranks with ties averaged (``ranks='average-z'``, App. H.23)
    or the ordinal ranks ``argsort(argsort(col)) / n`` (``ranks='ordinal'``, App. H.41).

    Raises
    ------
    ValueError
        An unknown representation or rank convention, or a constant column (min-max is undefined).
    """
    X = as_matrix(S)
    if method == "z-score":
        return zscore(X)
    if method == "min-max":
        span = X.max(axis=0) - X.min(axis=0)
        if np.any(span <= 0):
            raise ValueError("a constant benchmark has no min-max scaling; drop it first")
        return (X - X.min(axis=0)) / span
    if method == "rank":
        if ranks == "average-z":
            return zscore(rankdata(X, axis=0))
        if ranks == "ordinal":
            return np.argsort(np.argsort(X, axis=0), axis=0).astype(float) / X.shape[0]
        raise ValueError(f"ranks must be 'average-z' or 'ordinal', got {ranks!r}")
    if method == "raw":
        return X.copy()
    raise ValueError(f"unknown representation {method!r}; choose one of {REPRESENTATIONS}")


def _top_gap(agg: np.ndarray) -> float:
    a = np.sort(agg)[::-1]
    return float(a[0] - a[1])


def ratios_h23(S: ArrayLike, n_queries: int = 5000, seed: int = 0) -> pd.DataFrame:
    """App. H.23's table as the paper's code computes it, on the population ``S`` (not cut again).

    Returns one row per representation (index ``method``) with columns ``n``, ``d``, ``R``,
    ``omega``, ``delta_vis``, ``delta2`` and ``ratio`` (steps 1-4 of the module docstring).

    Raises
    ------
    ValueError
        Bad scores (NaN, fewer than 3 models), n_queries < 1, or two top models tied (Delta_2 = 0).
    """
    X = as_matrix(S)
    n, k = X.shape
    if n_queries < 1:
        raise ValueError(f"n_queries must be at least 1, got {n_queries}")
    rng = np.random.default_rng(seed)
    rng.normal(size=(10_000, k))  # drawn and never used by the paper's code; drawn here to keep its stream
    rows = []
    for method in REPRESENTATIONS:
        M = representation(X, method, ranks="average-z")
        R = float(np.linalg.norm(M, axis=1).max())
        d = max(int(round(float(participation_ratio(np.linalg.eigvalsh(correlation(M))[::-1])))), 2)
        Mc = M - M.mean(axis=0)
        _, _, Vt = np.linalg.svd(Mc, full_matrices=False)
        L = Vt[:d].T
        L = L / (np.linalg.norm(L, axis=1, keepdims=True) + 1e-12)
        Q = rng.normal(size=(n_queries, d))
        Q /= np.linalg.norm(Q, axis=1, keepdims=True)
        omega = float(np.arccos(np.clip((Q @ L.T).max(axis=1), -1.0, 1.0)).max())
        gap = _top_gap(Mc.mean(axis=1))
        if gap <= 0:
            raise ValueError(f"{method}: the two best models tie (Delta_2 = 0), so the ratio is infinite")
        rows.append(
            {
                "method": method,
                "n": n,
                "d": d,
                "R": R,
                "omega": omega,
                "delta_vis": 2 * R * omega,
                "delta2": gap,
                "ratio": 2 * R * omega / gap,
            }
        )
    return pd.DataFrame(rows).set_index("method")


def ratios_h41(S: ArrayLike, omega: float = H41_OMEGA) -> pd.DataFrame:
    """App. H.41's ratios as the paper's code computes them: frontier of ``S``, then a fixed ``omega``.

    Pass the matrix the paper's script was given (the full OLLM v2 matrix; the Extended *frontier*)
    to reproduce its two columns. Returns one row per representation with ``n`` (the frontier it
    used), ``R``, ``omega``, ``delta_vis``, ``delta2`` and ``ratio``.

    Raises
    ------
    ValueError
        Bad scores, a frontier of fewer than 3 models, or omega <= 0.
    """
    X = as_matrix(S)
    if not omega > 0:
        raise ValueError(f"omega must be positive, got {omega}")
    F = X[frontier_mask(S, 0.5)]  # the table's own rule (a reader's file: the standardised one)
    if F.shape[0] < 3:
        raise ValueError(f"the frontier keeps {F.shape[0]} model(s); the H.41 ratios need at least 3")
    rows = []
    for method in REPRESENTATIONS:
        if method == "min-max":
            M = (F - F.min(axis=0)) / (F.max(axis=0) - F.min(axis=0) + 1e-10)  # the script's +1e-10
        else:
            M = representation(F, method, ranks="ordinal")
        R = float(np.linalg.norm(M - M.mean(axis=0), axis=1).max())
        gap = _top_gap(M.mean(axis=1))
        rows.append(
            {
                "method": method,
                "n": F.shape[0],
                "R": R,
                "omega": float(omega),
                "delta_vis": 2 * R * omega,
                "delta2": gap,
                "ratio": 2 * R * omega / (gap + 1e-10),
            }
        )
    return pd.DataFrame(rows).set_index("method")


def stated_ratios(S: ArrayLike) -> pd.DataFrame:
    """The practitioner formula as stated (exact projective omega, paper loadings), on each representation.

    Columns: ``R``, ``omega``, ``delta_vis``, ``delta2``, ``ratio``, ``trivial_cap`` (2R) and
    ``capped_ratio`` = min(2 R omega, 2R) / Delta_2. Because the formula z-scores its input, z-score,
    min-max and raw rows coincide (a benchmark's positive affine rescaling changes nothing).
    """
    X = as_matrix(S)
    rows = []
    for method in REPRESENTATIONS:
        v = visible_radius(representation(X, method, ranks="average-z"))
        rows.append(
            {
                "method": method,
                "R": v.R,
                "omega": v.omega,
                "delta_vis": v.delta_vis,
                "delta2": v.delta2,
                "ratio": v.ratio,
                "trivial_cap": v.trivial_cap,
                "capped_ratio": v.capped_ratio,
            }
        )
    return pd.DataFrame(rows).set_index("method")
