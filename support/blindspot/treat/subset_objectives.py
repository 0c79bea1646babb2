"""Other ways to pick r benchmarks, and how well a subset preserves the ranking (App. H.4, H.5, H.45).

Orders over the k benchmarks of a correlation matrix Sigma (each a permutation of 0..k-1; a
subset of size r is its first r entries), as the paper's code defines them (validation_v5.py ``p7``):

* ``spectral_greedy``  — Theorem 4's greedy on f(T) = tr(P_T Sigma)/tr Sigma (:mod:`blindspot.core.coverage`);
* ``facility_location`` — greedy on F(T) = sum_i max_{j in T} |Sigma_ij|;
* ``max_diversity``    — start at argmax diag Sigma, then add argmax_r min_{s in T} (1 - |Sigma_rs|);
* ``pca_greedy``       — for eigenvectors i = 1..k (eigenvalues descending), add the unused
  benchmark with the largest |loading|;
* ``max_uncorrelated`` — start at argmax diag Sigma, then add argmin_j max_{i in T} |Sigma_ji|;
* ``random``           — n random subsets per r (mean and sd reported).

Note: max_diversity and max_uncorrelated are the same rule (argmax_r min_s (1 - |x_rs|) =
argmin_r max_s |x_rs|); the paper lists them separately, and so does this module, but they return
the same order (tested). All ties go to the lowest index.

Rank preservation of a subset T: Kendall tau_b between the aggregate over all benchmarks,
agg(S) = zscore(S).mean(1), and the aggregate over T (z-scores per column, so re-standardising
the subset changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core.conventions import ArrayLike, as_matrix, zscore
from blindspot.core.coverage import benchmark_names, coverage, coverage_many, greedy_select, validate_sigma
from blindspot.core.spectrum import correlation

__all__ = [
    "METHODS",
    "facility_location_order",
    "max_diversity_order",
    "pca_greedy_order",
    "max_uncorrelated_order",
    "spectral_greedy_order",
    "subset_method_orders",
    "subset_tau",
    "kendall_tau_b_many",
    "random_subsets",
    "ObjectiveComparison",
    "compare_objectives",
    "CoverageTau",
    "coverage_vs_tau",
]

METHODS = ("spectral_greedy", "facility_location", "max_diversity", "pca_greedy", "max_uncorrelated")


def _sigma(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    return validate_sigma(Sigma).sigma


def spectral_greedy_order(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    """The full greedy order of Theorem 4 (coverage maximisation)."""
    return greedy_select(Sigma, r=validate_sigma(Sigma).k).order


def facility_location_order(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    """Greedy on F(T) = sum_i max_{j in T} |Sigma_ij|, ties to the lowest index."""
    A = np.abs(_sigma(Sigma))
    k = A.shape[0]
    best = np.zeros(k)  # max_{j in T} |Sigma_ij| for each row i
    order, left = [], np.ones(k, bool)
    for _ in range(k):
        gains = np.maximum(A, best[:, None]).sum(axis=0)  # F(T + j) for each column j
        gains = np.where(left, gains, -np.inf)
        j = int(np.argmax(gains >= gains.max() - 1e-12))
        order.append(j)
        left[j] = False
        best = np.maximum(best, A[:, j])
    return np.array(order)


def _farthest_first(Sigma: np.ndarray | pd.DataFrame, score: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    S = _sigma(Sigma)
    k = S.shape[0]
    A = np.abs(S)
    order = [int(np.argmax(np.diag(S)))]
    left = np.ones(k, bool)
    left[order[0]] = False
    for _ in range(k - 1):
        sc = np.where(left, score(A[:, order]), -np.inf)
        j = int(np.argmax(sc >= sc.max() - 1e-12))
        order.append(j)
        left[j] = False
    return np.array(order)


def max_diversity_order(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    """Start at argmax diag Sigma; add argmax_r min_{s in T} (1 - |Sigma_rs|)."""
    return _farthest_first(Sigma, lambda AT: (1.0 - AT).min(axis=1))


def max_uncorrelated_order(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    """Start at argmax diag Sigma; add argmin_j max_{i in T} |Sigma_ji|."""
    return _farthest_first(Sigma, lambda AT: -AT.max(axis=1))


def pca_greedy_order(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    """For eigenvectors i = 1..k (eigenvalues descending), add the unused benchmark with the largest
    |loading| on it. The sign of an eigenvector does not matter (absolute loadings)."""
    S = _sigma(Sigma)
    lam, V = np.linalg.eigh(S)
    V = V[:, np.argsort(-lam, kind="stable")]
    k = S.shape[0]
    order, used = [], np.zeros(k, bool)
    for i in range(k):
        comp = np.where(used, -np.inf, np.abs(V[:, i]))
        j = int(np.argmax(comp >= comp.max() - 1e-12))
        order.append(j)
        used[j] = True
    return np.array(order)


def subset_method_orders(Sigma: np.ndarray | pd.DataFrame) -> dict[str, np.ndarray]:
    """Every deterministic method's full order: {name: permutation of 0..k-1}."""
    return {
        "spectral_greedy": spectral_greedy_order(Sigma),
        "facility_location": facility_location_order(Sigma),
        "max_diversity": max_diversity_order(Sigma),
        "pca_greedy": pca_greedy_order(Sigma),
        "max_uncorrelated": max_uncorrelated_order(Sigma),
    }


def kendall_tau_b_many(x: np.ndarray, Y: np.ndarray, batch: int = 64) -> np.ndarray:
    """Kendall tau_b between ``x`` (n,) and each column of ``Y`` (n, m), vectorised.

    tau_b = sum_{i<j} sgn(x_i - x_j) sgn(y_i - y_j) / sqrt(sum sgn(x_i - x_j)^2 * sum sgn(y_i - y_j)^2),
    which is scipy.stats.kendalltau's tau-b (ties handled by the zero signs). O(n^2 m) memory in
    batches of ``batch`` columns.
    """
    x = np.asarray(x, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if Y.ndim == 1:
        Y = Y[:, None]
    n = x.size
    if Y.shape[0] != n or n < 2:
        raise ValueError(f"x has {n} entries and Y {Y.shape[0]} rows; they must match and be at least 2")
    iu = np.triu_indices(n, 1)
    sx = np.sign(x[iu[0]] - x[iu[1]])  # (pairs,)
    out = np.empty(Y.shape[1])
    for b0 in range(0, Y.shape[1], batch):
        Yb = Y[:, b0 : b0 + batch]
        sy = np.sign(Yb[iu[0]] - Yb[iu[1]])  # (pairs, b)
        den = np.sqrt((sx**2).sum() * (sy**2).sum(axis=0))
        if np.any(den == 0):
            raise ValueError("Kendall tau is undefined for a constant ranking")
        out[b0 : b0 + batch] = (sx @ sy) / den
    return out


def _taus(full: np.ndarray, subs: np.ndarray) -> np.ndarray:
    """Kendall tau_b between ``full`` (n,) and each column of ``subs`` (n, m)."""
    return kendall_tau_b_many(full, subs)


def subset_tau(S: ArrayLike, subset: Sequence[int]) -> float:
    """Kendall tau_b between agg over all benchmarks and agg over ``subset``.

    Raises ValueError for an empty subset or an index out of range.
    """
    Z = zscore(as_matrix(S))
    idx = np.asarray(subset, dtype=int)
    if idx.size == 0:
        raise ValueError("the subset is empty: its aggregate is undefined")
    if idx.min() < 0 or idx.max() >= Z.shape[1]:
        raise ValueError(f"subset indices must be in [0, {Z.shape[1] - 1}], got {idx.tolist()}")
    return float(stats.kendalltau(Z.mean(axis=1), Z[:, idx].mean(axis=1)).statistic)


def random_subsets(k: int, r: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n random r-subsets of 0..k-1, drawn as ``rng.choice(k, r, replace=False)`` one after another."""
    if not 1 <= r <= k:
        raise ValueError(f"need 1 <= r <= k, got r={r}, k={k}")
    return np.stack([rng.choice(k, size=r, replace=False) for _ in range(n)])


@dataclass(frozen=True)
class ObjectiveComparison:
    """Coverage and Kendall tau of each method's first r benchmarks, for r = 1..k.

    ``table`` is long: one row per (method, r) with columns coverage, tau and, for ``random``,
    coverage_sd and tau_sd (population sd over the random subsets). ``orders`` holds each method's order.
    """

    table: pd.DataFrame
    orders: dict[str, np.ndarray]
    names: list[str]
    n_random: int
    seed: int

    def wide(self, metric: str) -> pd.DataFrame:
        """r x method table of ``metric`` ('coverage' or 'tau')."""
        if metric not in ("coverage", "tau"):
            raise ValueError(f"metric must be 'coverage' or 'tau', got {metric!r}")
        return self.table.pivot(index="r", columns="method", values=metric)

    def beaten(self, metric: str, by: str = "spectral_greedy", tol: float = 1e-9) -> pd.DataFrame:
        """The (method, r) cells where another method is strictly better than ``by`` on ``metric``."""
        w = self.wide(metric)
        rows = [
            (m, r, w.loc[r, m], w.loc[r, by])
            for m in w.columns
            if m != by
            for r in w.index
            if w.loc[r, m] > w.loc[r, by] + tol
        ]
        return pd.DataFrame(rows, columns=["method", "r", metric, f"{metric}_{by}"])


def compare_objectives(
    S: ArrayLike, n_random: int = 200, seed: int = 0, names: Sequence[str] | None = None
) -> ObjectiveComparison:
    """Coverage f(T_r) and Kendall tau(T_r) for every method and r = 1..k (App. H.4, H.5).

    Sigma is the Pearson correlation of S; random subsets are drawn with ``default_rng(seed)``,
    ``n_random`` per r, for r = 1..k in turn.
    """
    X = as_matrix(S)
    k = X.shape[1]
    names = benchmark_names(S, names, k)
    if n_random < 2:
        raise ValueError(f"n_random must be at least 2, got {n_random}")
    Sigma = correlation(X)
    orders = subset_method_orders(Sigma)
    Z = zscore(X)
    full = Z.mean(axis=1)
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(1, k + 1):
        for m, order in orders.items():
            T = order[:r]
            rows.append(
                {
                    "method": m,
                    "r": r,
                    "coverage": coverage(Sigma, T),
                    "tau": float(stats.kendalltau(full, Z[:, T].mean(axis=1)).statistic),
                }
            )
        subs = random_subsets(k, r, n_random, rng)
        covs = coverage_many(Sigma, subs)
        taus = _taus(full, Z[:, subs].mean(axis=2))
        rows.append(
            {
                "method": "random",
                "r": r,
                "coverage": covs.mean(),
                "tau": taus.mean(),
                "coverage_sd": covs.std(),
                "tau_sd": taus.std(),
            }
        )
    return ObjectiveComparison(pd.DataFrame(rows), orders, names, n_random, seed)


@dataclass(frozen=True)
class CoverageTau:
    """Spearman correlation between coverage f(T) and Kendall tau(T) over random r-subsets (H.45)."""

    rho: float
    p: float
    coverages: np.ndarray
    taus: np.ndarray
    r: int


def coverage_vs_tau(S: ArrayLike, r: int = 6, n: int = 200, seed: int = 0) -> CoverageTau:
    """Does higher spectral coverage mean better rank preservation? Spearman rho over n random r-subsets."""
    X = as_matrix(S)
    k = X.shape[1]
    Sigma = correlation(X)
    subs = random_subsets(k, r, n, np.random.default_rng(seed))
    Z = zscore(X)
    covs = coverage_many(Sigma, subs)
    taus = _taus(Z.mean(axis=1), Z[:, subs].mean(axis=2))
    res = stats.spearmanr(covs, taus)
    return CoverageTau(float(res.statistic), float(res.pvalue), covs, taus, r)
