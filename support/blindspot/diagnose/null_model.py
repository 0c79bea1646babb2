"""The one-factor null model: what d_eff and the swap statistics look like with ONE latent ability
(not in the paper, which gives d_eff and the swap statistics no null reference; it also shows the
range restriction behind the rise of d_eff on the frontier, App. H.16).

Model: X_ij = a g_i + s e_ij with g_i, e_ij i.i.d. N(0, 1) (a = loading, s = noise; the book's
default a = 0.8, s = 0.6 gives unit-variance columns with correlation a^2 = 0.64).

Selecting the frontier on the row mean is selecting on the general factor, which flattens the
spectrum. For a multivariate normal X ~ N(0, Sigma) selected on a linear score w^T X, the
Pearson–Lawley formula gives the covariance after selection,

    Sigma_sel = Sigma - (1 - v) Sigma w w^T Sigma / (w^T Sigma w),

where v = Var(w^T X | selected) / Var(w^T X). For the top (1 - q) fraction (truncation at
z = Phi^{-1}(q)), v = 1 + z lam - lam^2 with lam = phi(z)/(1 - Phi(z)). Here Sigma w = c 1 with
c = a^2 + s^2/k, so Sigma_sel stays equicorrelated with

    rho(q) = (a^2 - (1 - v) c) / (a^2 + s^2 - (1 - v) c),   d_eff(q) = k / (1 + (k - 1) rho^2),

the population-limit d_eff of the top (1 - q) fraction: it rises with q although the model has
one factor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from blindspot.core.conventions import frontier_mask
from blindspot.core.coverage import greedy_select
from blindspot.core.halfsplit import half_split
from blindspot.core.spectrum import correlation, d_eff, mp_correction
from blindspot.diagnose.ambient_dimension import horn_nsignal

__all__ = [
    "one_factor_scores",
    "truncation_variance_ratio",
    "one_factor_rho",
    "one_factor_deff",
    "NullModelRun",
    "one_factor_null",
    "one_factor_fit",
]


def _check_model(k: int, loading: float, noise: float) -> None:
    if k < 2:
        raise ValueError(f"k must be at least 2, got {k}")
    if loading <= 0 or noise <= 0:
        raise ValueError(f"loading and noise must be positive, got loading={loading}, noise={noise}")


def one_factor_scores(
    n: int,
    k: int,
    loading: float = 0.8,
    noise: float = 0.6,
    rng: np.random.Generator | None = None,
    reps: int | None = None,
) -> np.ndarray:
    """Draw X = loading g 1^T + noise E: shape (n, k), or (reps, n, k) when ``reps`` is given."""
    _check_model(k, loading, noise)
    if n < 3:
        raise ValueError(f"n must be at least 3, got {n}")
    rng = np.random.default_rng(0) if rng is None else rng
    shape = (n,) if reps is None else (reps, n)
    g = rng.standard_normal(shape + (1,))
    e = rng.standard_normal(shape + (k,))
    return loading * g + noise * e


def truncation_variance_ratio(q: float | np.ndarray) -> float | np.ndarray:
    """Var(z | z >= Phi^{-1}(q)) / Var(z) for a standard normal z: 1 + z lam - lam^2, lam = phi(z)/(1 - Phi(z))."""
    q = np.asarray(q, dtype=float)
    if np.any((q < 0) | (q >= 1)):
        raise ValueError("q must be in [0, 1)")
    z = stats.norm.ppf(q)
    zf = np.where(np.isfinite(z), z, 0.0)  # q = 0: no truncation (z = -inf, lam = 0, z lam -> 0)
    lam = np.where(np.isfinite(z), np.exp(stats.norm.logpdf(zf) - stats.norm.logsf(zf)), 0.0)
    v = 1.0 + zf * lam - lam**2
    return float(v) if v.ndim == 0 else v


def one_factor_rho(q: float | np.ndarray, k: int, loading: float = 0.8, noise: float = 0.6) -> float | np.ndarray:
    """Correlation of two benchmarks within the top (1 - q) fraction by row mean (Pearson–Lawley)."""
    _check_model(k, loading, noise)
    v = truncation_variance_ratio(q)
    c = loading**2 + noise**2 / k
    a2 = loading**2
    return (a2 - (1 - v) * c) / (a2 + noise**2 - (1 - v) * c)


def one_factor_deff(q: float | np.ndarray, k: int, loading: float = 0.8, noise: float = 0.6) -> float | np.ndarray:
    """Population-limit d_eff = k / (1 + (k - 1) rho(q)^2) of the one-factor frontier at quantile q."""
    rho = one_factor_rho(q, k, loading, noise)
    out = k / (1 + (k - 1) * np.asarray(rho) ** 2)
    return float(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True)
class NullModelRun:
    """Per-replicate statistics of the one-factor null on a population and its frontier.

    Arrays have one entry per replicate. ``horn_frontier`` is empty when Horn was not run.
    """

    n: int
    k: int
    loading: float
    noise: float
    q: float
    deff_full: np.ndarray
    deff_frontier: np.ndarray
    n_frontier: np.ndarray
    n_sig_frontier: np.ndarray
    horn_frontier: np.ndarray
    swap_top1_frontier: np.ndarray
    r90_frontier: np.ndarray

    def summary(self) -> dict[str, float]:
        out = {
            "d_eff full": float(self.deff_full.mean()),
            "d_eff frontier": float(self.deff_frontier.mean()),
            "d_eff frontier sd": float(self.deff_frontier.std()),
            "frontier models": float(self.n_frontier.mean()),
            "n_sig frontier": float(self.n_sig_frontier.mean()),
            "half-split top-1 swap": float(self.swap_top1_frontier.mean()),
            "greedy r90 frontier": float(self.r90_frontier.mean()),
        }
        if self.horn_frontier.size:
            out["Horn n_signal frontier"] = float(self.horn_frontier.mean())
        return out


def one_factor_null(
    n: int = 296,
    k: int = 12,
    loading: float = 0.8,
    noise: float = 0.6,
    reps: int = 20,
    seed: int = 0,
    q: float = 0.5,
    n_trials: int = 500,
    horn_perm: int = 0,
) -> NullModelRun:
    """d_eff (full, frontier), n_sig, Horn, greedy r90 and the half-split top-1 swap rate under one factor.

    Each replicate draws a fresh population from ``default_rng(seed)`` (all replicates in one
    array), takes its frontier (row mean >= q-quantile, :func:`blindspot.core.conventions.frontier_mask`)
    and computes the statistics the paper reports for real leaderboards. r90 is the number of
    benchmarks greedy coverage selection needs to reach 90% coverage
    (:func:`blindspot.core.coverage.greedy_select`, Theorem 4).
    """

    if reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}")
    rng = np.random.default_rng(seed)
    Xs = one_factor_scores(n, k, loading, noise, rng, reps=reps)
    full, front, nf, nsig, horn, swap, r90 = [], [], [], [], [], [], []
    for X in Xs:
        F = X[frontier_mask(X, q)]
        full.append(d_eff(X))
        front.append(d_eff(F))
        nf.append(F.shape[0])
        nsig.append(mp_correction(F).n_sig)
        if horn_perm:
            horn.append(horn_nsignal(F, n_perm=horn_perm, seed=seed + 1).n_signal)
        swap.append(half_split(F, n_trials=n_trials, seed=seed).top1_swap_rate)
        r90.append(greedy_select(correlation(F), target=0.9).r_target)
    return NullModelRun(
        n,
        k,
        float(loading),
        float(noise),
        float(q),
        np.array(full),
        np.array(front),
        np.array(nf),
        np.array(nsig),
        np.array(horn, dtype=float),
        np.array(swap),
        np.array(r90),
    )


def one_factor_fit(S: np.ndarray | object) -> tuple[float, float]:
    """Loading and noise of the one-factor model matched to a population: a = sqrt(mean off-diagonal r).

    The one-factor model with unit-variance columns has every correlation equal to a^2, so the
    mean off-diagonal correlation fixes a and s = sqrt(1 - a^2). Used to overlay the
    range-restriction curve :func:`one_factor_deff` on a real leaderboard.

    Raises
    ------
    ValueError
        If the mean off-diagonal correlation is not in (0, 1).
    """

    C = correlation(S)
    k = C.shape[0]
    r = float(C[np.triu_indices(k, 1)].mean())
    if not 0 < r < 1:
        raise ValueError(f"the mean correlation {r:.3f} is not in (0, 1): no one-factor model matches it")
    return float(np.sqrt(r)), float(np.sqrt(1 - r))
