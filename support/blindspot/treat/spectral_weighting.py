"""Proposition 4: is g(x) = x the right spectral weighting of coverage?

The family of objectives

    f_g(T) = tr(P_T g(Sigma)) / tr g(Sigma),   g(Sigma) = V g(Lambda) V^T,

with P_T still the projector onto span{Sigma e_j : j in T} (Theorem 4's). g(x) = x is the paper's
coverage; g = 1 gives tr(P_T)/k = rank(Sigma[:, T])/k, i.e. |T|/k for a nonsingular Sigma.

Proposition 4 claims g(x) = x (1) minimises worst-case uncovered variance, (2) is rotation
invariant, (3) is monotone submodular. (1) is not well posed (no map from capability covariances
to g(Sigma) is defined, and "uniform weights in lambda" is g = 1, not g(x) = x); (3) is false
(:mod:`blindspot.treat.guarantees`). What can be computed is an experiment (the book's; the paper has
none): greedy under each
g in {1, sqrt, x, x^2}, scored by the paper's coverage f_id and by Kendall tau.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats
from scipy.linalg import qr

from blindspot.core.conventions import ArrayLike, as_matrix, zscore
from blindspot.core.coverage import _subset_indices, coverage, validate_sigma
from blindspot.core.spectrum import correlation

__all__ = ["G_FAMILY", "g_matrix", "f_g", "greedy_g", "family_comparison"]

#: The four weightings of that experiment.
G_FAMILY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "g=1": lambda x: np.ones_like(x),
    "g=sqrt(x)": np.sqrt,
    "g=x": lambda x: x,
    "g=x^2": np.square,
}


def g_matrix(Sigma: np.ndarray, g: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """g(Sigma) = V g(Lambda) V^T for symmetric PSD Sigma (eigenvalues clipped at 0 first)."""
    lam, V = np.linalg.eigh(Sigma)
    lam = np.clip(lam, 0.0, None)
    G = (V * g(lam)) @ V.T
    return (G + G.T) / 2


def _proj_basis(S: np.ndarray, idx: np.ndarray) -> np.ndarray:

    if idx.size == 0:
        return np.zeros((S.shape[0], 0))
    Q, R, _ = qr(S[:, idx], mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    return Q[:, : int((d > 1e-5 * d[0]).sum())] if d[0] > 0 else Q[:, :0]


def f_g(
    Sigma: np.ndarray | pd.DataFrame, T: Sequence[int] | Sequence[str], g: Callable[[np.ndarray], np.ndarray]
) -> float:
    """tr(P_T g(Sigma)) / tr g(Sigma), P_T from Sigma's columns."""
    inp = validate_sigma(Sigma)
    G = g_matrix(inp.sigma, g)
    if np.trace(G) <= 0:
        raise ValueError("g(Sigma) has zero trace: choose a g that is positive on the spectrum")
    Q = _proj_basis(inp.sigma, np.unique(_subset_indices(T, inp.names)))
    return float(np.einsum("ia,ij,ja->", Q, G, Q) / np.trace(G))


def greedy_g(Sigma: np.ndarray | pd.DataFrame, g: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Greedy order maximising f_g (argmax of f_g(T + j), ties to the lowest index); k small."""
    inp = validate_sigma(Sigma)
    S, k = inp.sigma, inp.k
    G = g_matrix(S, g)
    trG = np.trace(G)
    if trG <= 0:
        raise ValueError("g(Sigma) has zero trace: choose a g that is positive on the spectrum")
    order: list[int] = []
    for _ in range(k):
        left = [j for j in range(k) if j not in order]
        vals = []
        for j in left:
            Q = _proj_basis(S, np.array(order + [j]))
            vals.append(np.einsum("ia,ij,ja->", Q, G, Q) / trG)
        vals = np.array(vals)
        order.append(left[int(np.argmax(vals >= vals.max() - 1e-12))])
    return np.array(order)


def family_comparison(
    S: ArrayLike, family: Mapping[str, Callable[[np.ndarray], np.ndarray]] | None = None
) -> pd.DataFrame:
    """For each g: the greedy_g order and, for r = 1..k, the paper's coverage f_id(T_r) and Kendall tau_b
    between agg over all benchmarks and agg over T_r (the module docstring's experiment). Long table."""

    X = as_matrix(S)
    Sigma = correlation(X)
    Z = zscore(X)
    full = Z.mean(axis=1)
    family = G_FAMILY if family is None else family
    rows = []
    for name, g in family.items():
        order = greedy_g(Sigma, g)
        for r in range(1, X.shape[1] + 1):
            T = order[:r]
            rows.append(
                {
                    "g": name,
                    "r": r,
                    "first": int(order[r - 1]),
                    "coverage": coverage(Sigma, T),
                    "f_g": f_g(Sigma, T, g),
                    "tau": float(stats.kendalltau(full, Z[:, T].mean(axis=1)).statistic),
                }
            )
    return pd.DataFrame(rows)
