"""Is the linear width model accurate enough to resolve the top pair? In time linear in the models.

The quantities of :func:`blindspot.prognose.width_model.gap_vs_delta2` (Proposition 1 and the
linearisation diagnostics of the paper's App. H.15), computed so that a leaderboard of 100,000
models costs O(n k) rather than O(n^2):

* the R^2 of each z-scored benchmark on the top ``n_pc`` principal components (from the Gram
  matrix's eigenvectors, :func:`_pc_scores`), linear and with
  the quadratic terms of the top ``n_quad_pc`` (one least-squares solve for all benchmarks);
* the linear model's error on the top pair, max_b |r_(1)b - r_(2)b| (r the linear residuals),
  beside their aggregate gap Delta_2: only when it is smaller does the width picture resolve them;
* the smoothness constant eta = max_{i<i'} |r_i - r_i'| / ||pc_i - pc_i'||^2, over the pairs
  among the top ``top`` models and a seeded sample of at most ``max_pairs`` other pairs (all pairs
  when there are no more than that): a lower bound of the all-pairs maximum, exact for small n.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np

from blindspot.core.conventions import as_matrix, zscore

__all__ = ["WidthRegime", "width_regime", "min_models_width"]


@dataclass(frozen=True)
class WidthRegime:
    """Linear vs quadratic fit on the top PCs and the top pair, for one population.

    Attributes
    ----------
    gap_max : float
        Largest quadratic - linear R^2 gap over the benchmarks (a variance fraction).
    gap_max_benchmark : str
    delta2 : float
        Aggregate gap between the two best models (z-units).
    top_pair_residual : float
        max_b |r_(1)b - r_(2)b|: the linear model's worst error on the top pair's difference (z-units).
    top_pair_benchmark : str
        The benchmark where it is largest.
    resolves_top_pair : bool
        top_pair_residual < delta2.
    eta_max : float
        Largest |r_i - r_i'| / ||pc_i - pc_i'||^2 over the pairs examined.
    n_pairs : int
        Pairs examined; ``all_pairs`` says whether that was every pair.
    all_pairs : bool
    top_pair_bound : float
        eta_max ||pc_(1) - pc_(2)||^2, the error the fitted smoothness allows the top pair.
    """

    gap_max: float
    gap_max_benchmark: str
    delta2: float
    top_pair_residual: float
    top_pair_benchmark: str
    resolves_top_pair: bool
    eta_max: float
    n_pairs: int
    all_pairs: bool
    top_pair_bound: float


def _n_pc(k: int) -> tuple[int, int]:
    n_pc = int(min(5, k - 1))
    return n_pc, int(min(3, n_pc))


def min_models_width(k: int) -> int:
    """Fewest models the fit needs: more rows than 1 + n_pc + n_quad (n_quad + 1) / 2 coefficients."""
    n_pc, n_quad = _n_pc(k)
    return 2 + n_pc + n_quad * (n_quad + 1) // 2


def _pc_scores(Z: np.ndarray, n_pc: int) -> np.ndarray:
    """Principal-component scores Z V[:, :n_pc] (= U s of the SVD, up to the sign of each column).

    From the eigenvectors of the k x k (or, with more columns than rows, the n x n) Gram matrix:
    O(n k min(n, k)) with BLAS, against an SVD of the n x k matrix. Signs do not matter here: the
    fits, the quadratic terms' R^2 and the distances between models are unchanged by them.
    """
    n, k = Z.shape
    if k <= n:
        lam, V = np.linalg.eigh(Z.T @ Z)
        return Z @ V[:, ::-1][:, :n_pc]
    lam, U = np.linalg.eigh(Z @ Z.T)
    return U[:, ::-1][:, :n_pc] * np.sqrt(np.clip(lam[::-1][:n_pc], 0.0, None))


def _r2(Y: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    beta, *_ = np.linalg.lstsq(A, Y, rcond=None)
    R = Y - A @ beta
    ss = ((Y - Y.mean(axis=0)) ** 2).sum(axis=0)
    return 1.0 - (R**2).sum(axis=0) / np.maximum(ss, 1e-12), R


def _pairs(n: int, top: np.ndarray, max_pairs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, bool]:
    if n * (n - 1) // 2 <= max_pairs:
        i, j = np.triu_indices(n, 1)
        return i, j, True
    a, b = np.triu_indices(top.size, 1)
    i = rng.integers(0, n, max_pairs)
    j = rng.integers(0, n - 1, max_pairs)
    j = j + (j >= i)  # j != i
    return np.concatenate([top[a], i]), np.concatenate([top[b], j]), False


def width_regime(
    S: np.ndarray,
    names: list[str] | None = None,
    top: int = 50,
    max_pairs: int = 200_000,
    seed: int = 0,
) -> WidthRegime:
    """The width-model regime of a score matrix in O(n k (n_pc + k) + max_pairs k) time.

    Raises
    ------
    ValueError
        Fewer models than :func:`min_models_width` needs, or fewer than 2 benchmarks.
    """
    X = as_matrix(S)
    n, k = X.shape
    need = min_models_width(k)
    if n < need:
        raise ValueError(f"the width-model fit on {k} benchmarks needs at least {need} models, got {n}")
    names = names or [f"b{j}" for j in range(k)]
    n_pc, n_quad = _n_pc(k)
    Z = zscore(X)
    pcs = _pc_scores(Z, n_pc)
    A = np.hstack([np.ones((n, 1)), pcs])
    quad = [pcs[:, a] * pcs[:, b] for a, b in combinations_with_replacement(range(n_quad), 2)]
    r2_lin, R = _r2(Z, A)
    r2_quad, _ = _r2(Z, np.hstack([A, np.column_stack(quad)]))
    gap = r2_quad - r2_lin
    order = np.argsort(-Z.mean(axis=1), kind="stable")
    a = Z.mean(axis=1)
    delta2 = float(a[order[0]] - a[order[1]])
    by_b = np.abs(R[order[0]] - R[order[1]])
    i, j, every = _pairs(n, order[: min(top, n)], max_pairs, np.random.default_rng(seed))
    d2 = ((pcs[i] - pcs[j]) ** 2).sum(axis=1)
    ok = d2 > 1e-9
    eta = 0.0
    step = max(1, 4_000_000 // max(k, 1))
    ii, jj, dd = i[ok], j[ok], d2[ok]
    for s in range(0, ii.size, step):
        sl = slice(s, s + step)
        eta = max(eta, float((np.abs(R[ii[sl]] - R[jj[sl]]) / dd[sl, None]).max(initial=0.0)))
    dist2 = float(((pcs[order[0]] - pcs[order[1]]) ** 2).sum())
    resid = float(by_b.max())
    return WidthRegime(
        float(gap.max()),
        names[int(np.argmax(gap))],
        delta2,
        resid,
        names[int(np.argmax(by_b))],
        bool(resid < delta2),
        eta,
        int(ii.size),
        every,
        eta * dist2,
    )
