"""Estimating the ambient dimension D of capability space (the paper's App. D.1 and G.3).

* Bounds: n_sig <= D <= n - 1 (n_sig = eigenvalues above the Marchenko–Pastur edge). The upper
  "bound" is a limit of what n models can identify, not a bound on D itself (the paper allows D to
  be infinite).
* Power law: OLS of log lambda_i on log i over all k correlation eigenvalues (clipped at 1e-9);
  alpha = -slope; D = ceil((lambda_1 / eps)^{1/alpha}) with eps = 1e-3. The answer moves as
  eps^{-1/alpha}, so the choice of eps decides it (App. G.3 takes eps = 1e-3).
* Swap cross-validation: emp = top-2 half-split swap rate over ``n_splits`` splits (k // 2
  visible, ``default_rng(seed)``); pred(D) = Phi(-Delta_2 / (2 sigma_obs sqrt((D - d)/d))) with
  Delta_2, sigma_obs and d = d_eff of the full matrix; D_cv = argmin_{D = ceil(d)+1..D_max-1}
  |pred(D) - emp|. When emp lies below the whole range of pred the argmin is the smallest
  admissible D: a corner solution, not an estimate (App. G.3's D_cv = 6 is one).
* Horn's parallel analysis: ``n_perm`` nulls that permute each column independently
  (``default_rng(seed)``, one ``permutation(n)`` per column per null); n_signal = #{i: lambda_i >
  95th percentile of null lambda_i}, compared position by position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from blindspot.core.conventions import ArrayLike, aggregate, as_matrix, top_gap, zscore
from blindspot.core.spectrum import correlation_stack, mp_correction, spectrum
from blindspot.core.swap import p_swap_rescaled

__all__ = ["DBounds", "PowerLaw", "SwapCV", "Horn", "d_bounds", "d_powerlaw", "d_cv", "horn_nsignal"]


@dataclass(frozen=True)
class DBounds:
    """n_sig <= D <= n - 1 (App. D.1)."""

    lower: int
    upper: int
    lambda_plus: float


@dataclass(frozen=True)
class PowerLaw:
    """Power-law fit lambda_i ~ i^{-alpha} and the extrapolated D at threshold eps."""

    alpha: float
    intercept: float
    D: int
    eps: float
    eigenvalues: np.ndarray


@dataclass(frozen=True)
class SwapCV:
    """Swap-rate cross-validation of D (App. G.3, as the paper's code computes it)."""

    D: int
    empirical: float
    Ds: np.ndarray
    predicted: np.ndarray
    corner: bool
    d_eff: float

    @property
    def pred_range(self) -> tuple[float, float]:
        return float(self.predicted.min()), float(self.predicted.max())


@dataclass(frozen=True)
class Horn:
    """Horn's parallel analysis: eigenvalues against the position-wise null percentile."""

    n_signal: int
    eigenvalues: np.ndarray
    null_percentile: np.ndarray
    percentile: float
    n_perm: int


def d_bounds(S: ArrayLike) -> DBounds:
    """n_sig (eigenvalues above the MP edge) <= D <= n - 1 (App. D.1)."""
    X = as_matrix(S)
    mp = mp_correction(X)
    return DBounds(int(mp.n_sig), int(X.shape[0] - 1), float(mp.lambda_plus))


def d_powerlaw(S: ArrayLike, eps: float = 1e-3) -> PowerLaw:
    """alpha from OLS of log lambda_i on log i; D = ceil((lambda_1/eps)^{1/alpha}) (App. D.1, G.3).

    Raises
    ------
    ValueError
        eps <= 0, or a non-decaying spectrum (alpha <= 0: no finite extrapolation).
    """
    if not eps > 0:
        raise ValueError(f"eps must be positive, got {eps}")
    lam = np.clip(spectrum(S).eigenvalues, 0, None)
    k = lam.size
    slope, intercept = np.polyfit(np.log(np.arange(1, k + 1)), np.log(np.maximum(lam, 1e-9)), 1)
    alpha = -float(slope)
    if alpha <= 0:
        raise ValueError(f"the eigenvalues do not decay (fitted alpha = {alpha:.3f}); a power-law D is undefined")
    D = int(math.ceil((lam[0] / eps) ** (1.0 / alpha)))
    return PowerLaw(alpha, float(intercept), D, float(eps), lam)


def d_cv(S: ArrayLike, n_splits: int = 200, seed: int = 0, D_max: int = 200) -> SwapCV:
    """The D whose rescaled chi-squared swap probability best matches the half-split swap rate.

    Raises
    ------
    ValueError
        Fewer than 4 benchmarks, n_splits < 1, or D_max too small to leave a candidate.
    """
    X = as_matrix(S)
    n, k = X.shape
    if k < 4:
        raise ValueError(f"swap cross-validation needs at least 4 benchmarks (2 visible, 2 held out), got {k}")
    if n_splits < 1:
        raise ValueError(f"n_splits must be at least 1, got {n_splits}")
    Z = zscore(X)
    r = k // 2
    rng = np.random.default_rng(seed)
    M = np.zeros((n_splits, k))
    for t in range(n_splits):
        M[t, rng.permutation(k)[:r]] = 1.0
    a_v = Z @ (M / r).T
    a_h = Z @ ((1 - M) / (k - r)).T
    order = np.argsort(-a_v, axis=0, kind="stable")
    tt = np.arange(n_splits)
    emp = float((a_h[order[1], tt] > a_h[order[0], tt]).mean())
    d = spectrum(X).d_eff
    gap = top_gap(X)
    sigma_obs = float(aggregate(X).std())
    Ds = np.arange(int(math.ceil(d)) + 1, int(D_max))
    if Ds.size == 0:
        raise ValueError(f"D_max = {D_max} leaves no candidate D above d_eff = {d:.2f}")
    pred = np.array([p_swap_rescaled(gap, d, float(D), sigma_obs) for D in Ds])
    j = int(np.argmin(np.abs(pred - emp)))
    corner = bool(emp < pred.min() or emp > pred.max())
    return SwapCV(int(Ds[j]), emp, Ds, pred, corner, float(d))


def horn_nsignal(S: ArrayLike, n_perm: int = 300, seed: int = 1, percentile: float = 95.0, batch: int = 500) -> Horn:
    """Horn's parallel analysis with column-permutation nulls (Horn 1965; App. G.3).

    The nulls keep each column's values and destroy the correlations; their correlation
    eigenvalues come from one batched ``eigvalsh`` per ``batch`` nulls.
    """
    X = as_matrix(S)
    n, k = X.shape
    if n_perm < 2:
        raise ValueError(f"n_perm must be at least 2, got {n_perm}")
    if not 0 < percentile < 100:
        raise ValueError(f"percentile must be in (0, 100), got {percentile}")
    lam = spectrum(X).eigenvalues
    rng = np.random.default_rng(seed)
    idx = np.empty((n_perm, n, k), dtype=np.intp)
    for b in range(n_perm):
        for j in range(k):
            idx[b, :, j] = rng.permutation(n)
    null = np.empty((n_perm, k))
    cols = np.arange(k)[None, None, :]
    for s in range(0, n_perm, batch):
        Xb = X[idx[s : s + batch], cols]
        null[s : s + batch] = np.linalg.eigvalsh(correlation_stack(Xb))[:, ::-1]
    p = np.percentile(null, percentile, axis=0)
    return Horn(int((lam > p).sum()), lam, p, float(percentile), int(n_perm))
