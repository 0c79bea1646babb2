"""Geometric vs statistical radius: how the indistinguishability radius compares with the
bootstrap spread of the aggregate score (the paper's App. H.12 and its main-text figures).

Algorithm (as the paper's code computes it, validation_v6.py ``w11``):

1. Z = zscore(S), R = max_i ||Z_i||.
2. Geometric radius: delta_0 = pi R / k (the planar Theorem 2 radius with m = k), or, as the
   paper's main text seems to have used, delta_vis = 2 R omega from Table 2.
3. B resamples of the *benchmarks* (columns) with replacement, ``rng.choice(k, k, replace=True)``
   with ``rng = default_rng(seed)``; agg_b = Z[:, cols].mean(1).
4. Statistical radius sigma_boot = median over models of sd_b(agg_b) (ddof = 0).
5. ratio = geometric / sigma_boot.

The column bootstrap measures which-benchmark variability, not the item-level noise (finite items,
prompt variance) the paper's text describes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from blindspot.core.conventions import ArrayLike, as_matrix, population_radius, zscore

__all__ = ["NoiseRatio", "column_bootstrap_sd", "noise_ratio"]


@dataclass(frozen=True)
class NoiseRatio:
    """Geometric radius, bootstrap statistical radius and their ratio (App. H.12)."""

    numerator: str
    geom: float
    stat: float
    ratio: float
    R: float
    k: int
    n: int
    n_boot: int
    seed: int


def column_bootstrap_sd(S: ArrayLike, n_boot: int = 500, seed: int = 0) -> np.ndarray:
    """Per-model sd (ddof = 0) of the aggregate over ``n_boot`` column resamples (steps 3-4 above).

    Indices are drawn as the paper's code does, one ``rng.choice(k, k, replace=True)`` per resample;
    the aggregates are then computed in one batched product.
    """
    X = as_matrix(S)
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    Z = zscore(X)
    k = Z.shape[1]
    rng = np.random.default_rng(seed)
    idx = np.stack([rng.choice(k, size=k, replace=True) for _ in range(n_boot)])  # (B, k)
    counts = np.zeros((n_boot, k))
    np.add.at(counts, (np.repeat(np.arange(n_boot), k), idx.ravel()), 1.0)
    aggs = Z @ counts.T / k  # (n, B): agg_b = mean of the resampled columns
    return aggs.std(axis=1)


def noise_ratio(
    S: ArrayLike,
    n_boot: int = 500,
    seed: int = 0,
    numerator: Literal["piR_over_k", "delta_vis"] = "piR_over_k",
    delta_vis: float | None = None,
) -> NoiseRatio:
    """Geometric radius over the median column-bootstrap sd of the aggregate (App. H.12).

    Parameters
    ----------
    numerator : {'piR_over_k', 'delta_vis'}
        ``'piR_over_k'``: pi R / k (H.12, the paper's code). ``'delta_vis'``: the Table 2 radius
        2 R omega, which must then be given as ``delta_vis`` (the paper's main-text figures).

    Raises
    ------
    ValueError
        Unknown numerator, a missing or non-positive ``delta_vis``, or sigma_boot = 0 (all columns
        identical: the ratio would be infinite).
    """
    X = as_matrix(S)
    n, k = X.shape
    R = population_radius(X)
    if numerator == "piR_over_k":
        geom = math.pi * R / k
    elif numerator == "delta_vis":
        if delta_vis is None or not delta_vis > 0:
            raise ValueError("numerator='delta_vis' needs delta_vis = 2 R omega (> 0) from the practitioner formula")
        geom = float(delta_vis)
    else:
        raise ValueError(f"numerator must be 'piR_over_k' or 'delta_vis', got {numerator!r}")
    stat = float(np.median(column_bootstrap_sd(X, n_boot=n_boot, seed=seed)))
    if stat < 1e-12:
        raise ValueError(
            "the column-bootstrap sd of the aggregate is 0 (the benchmarks' z-scores are identical), so the "
            "geometric/statistical ratio is infinite"
        )
    return NoiseRatio(numerator, float(geom), stat, float(geom / stat), R, k, n, n_boot, seed)
