"""A seeded latent-factor model of a leaderboard, used when no real data are available.

Scores follow S = 50 + 15 * (Z L^T + E) with Z ~ N(0, I_f) abilities (rows = models), L a k x f
loading matrix whose first column (a general factor) is positive and dominant, and E ~ N(0, s^2)
benchmark noise. This reproduces the qualitative shape of real leaderboards (one strong general
factor, a few weaker ones) and nothing more: every page that uses it says so.
"""

from __future__ import annotations

import numpy as np

__all__ = ["synthetic_scores", "factor_loadings", "random_correlations"]


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


def random_correlations(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """A stack (n, k, k) of random correlation matrices with a spread of effective dimensions.

    Each is W = A A^T + diag(u) normalised to a unit diagonal, with A a k x m standard normal
    matrix, m uniform on {1, ..., k} (few factors = strongly correlated benchmarks) and u uniform
    on (0.05, 1) times the mean diagonal of A A^T (benchmark-specific noise, so W is positive definite).
    """
    if n < 1 or k < 2:
        raise ValueError(f"need n >= 1 matrices of size k >= 2, got n={n}, k={k}")
    m = rng.integers(1, k + 1, size=n)
    A = rng.standard_normal((n, k, k)) * (np.arange(k)[None, None, :] < m[:, None, None])
    W = A @ np.swapaxes(A, 1, 2)
    scale = np.einsum("bii->b", W) / k
    W = W + np.einsum("bi,ij->bij", rng.uniform(0.05, 1.0, size=(n, k)) * scale[:, None], np.eye(k))
    d = np.sqrt(np.einsum("bii->bi", W))
    C = W / d[:, :, None] / d[:, None, :]
    return (C + np.swapaxes(C, 1, 2)) / 2
