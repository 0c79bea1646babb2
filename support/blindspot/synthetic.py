"""A seeded latent-factor model of a leaderboard, used when no real data are available.

Scores follow S = 50 + 15 * (Z L^T + E) with Z ~ N(0, I_f) abilities (rows = models), L a k x f
loading matrix whose first column (a general factor) is positive and dominant, and E ~ N(0, s^2)
benchmark noise. This reproduces the qualitative shape of real leaderboards (one strong general
factor, a few weaker ones) and nothing more: every page that uses it says so.
"""

from __future__ import annotations

import numpy as np

__all__ = ["synthetic_scores", "factor_loadings"]


def factor_loadings(n_benchmarks: int, n_factors: int, rng: np.random.Generator) -> np.ndarray:
    """Loadings L (k x f): a general factor of 0.6-0.9 and weaker signed factors of scale 0.35/j."""
    if n_factors < 1 or n_benchmarks < 2:
        raise ValueError(f"need n_factors >= 1 and n_benchmarks >= 2, got {n_factors} and {n_benchmarks}")
    L = np.empty((n_benchmarks, n_factors))
    L[:, 0] = rng.uniform(0.6, 0.9, n_benchmarks)
    for j in range(1, n_factors):
        L[:, j] = rng.normal(0.0, 0.35 / j, n_benchmarks)
    return L


def synthetic_scores(
    n_models: int = 300, n_benchmarks: int = 12, n_factors: int = 3, noise: float = 0.45, seed: int = 0
) -> tuple[np.ndarray, list[str]]:
    """Scores (n_models x n_benchmarks) of the latent-factor model and the benchmark names."""
    if n_models < 3:
        raise ValueError(f"n_models must be at least 3, got {n_models}")
    if noise < 0:
        raise ValueError(f"noise must be non-negative, got {noise}")
    rng = np.random.default_rng(seed)
    L = factor_loadings(n_benchmarks, n_factors, rng)
    Z = rng.standard_normal((n_models, n_factors))
    E = noise * rng.standard_normal((n_models, n_benchmarks))
    S = 50.0 + 15.0 * (Z @ L.T + E)
    return S, [f"bench_{j + 1:02d}" for j in range(n_benchmarks)]
