"""Variance capture by a subspace: Theorem 1(a),(b) and the claim of App. B.1.

For a capability covariance Sigma_C (D x D) and a d-dimensional subspace V with orthonormal basis
(D x d), the captured fraction is f(V) = tr(P_V Sigma_C) / tr(Sigma_C).

* (a) Ky Fan / Poincare separation: f(V) <= sum_{i<=d} mu_i / sum_i mu_i, with equality on the top-d
  eigenvectors.
* (b) For V Haar-distributed on Gr(d, D), E f(V) = d/D for every Sigma_C, and
  P(|f - d/D| > t) <= 2 exp(-D t^2 / (8 kappa^2)), kappa = mu_1 / mean(mu).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "capture_fraction",
    "kyfan_bound",
    "haar_subspaces",
    "concentration_bound",
    "concentration_tail",
    "capture_bound_stated",
]


def _check_cov(Sigma: np.ndarray) -> np.ndarray:
    S = np.asarray(Sigma, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"Sigma_C must be a square matrix, got shape {S.shape}")
    if not np.allclose(S, S.T, atol=1e-10):
        raise ValueError("Sigma_C must be symmetric")
    if np.trace(S) <= 0:
        raise ValueError("Sigma_C must have a positive trace")
    return S


def capture_fraction(Sigma_C: np.ndarray, V: np.ndarray) -> np.ndarray | float:
    """tr(P_V Sigma_C) / tr(Sigma_C) for an orthonormal basis V (D x d) or a stack (B, D, d).

    ``Sigma_C`` is a D x D covariance, or a 1-D array of D non-negative variances meaning the
    diagonal covariance diag(Sigma_C); then tr(V^T Sigma_C V) = sum_j Sigma_C[j] sum_a V[j, a]^2 costs
    O(D d) per basis instead of O(D^2 d).
    """
    diag = np.asarray(Sigma_C, dtype=float)
    if diag.ndim == 1:
        if np.any(diag < 0) or not np.all(np.isfinite(diag)) or diag.sum() <= 0:
            raise ValueError("a diagonal Sigma_C needs finite non-negative variances with a positive sum")
        D, trace = diag.size, diag.sum()
    else:
        S = _check_cov(Sigma_C)
        D, trace = S.shape[0], np.trace(S)
    V = np.asarray(V, dtype=float)
    if V.shape[-2] != D:
        raise ValueError(f"basis has {V.shape[-2]} rows; Sigma_C is {D} x {D}")
    if diag.ndim == 1:
        num = np.einsum("...ja,j->...", V**2, diag)
    else:
        num = np.einsum("...ia,ij,...ja->...", V, S, V)  # tr(V^T S V) for each basis in the stack
    out = num / trace
    return float(out) if np.ndim(out) == 0 else out


def kyfan_bound(mu: np.ndarray, d: int) -> float:
    """sum of the d largest eigenvalues over the trace (Theorem 1(a))."""
    mu = np.sort(np.asarray(mu, dtype=float))[::-1]
    if not 1 <= d <= mu.size:
        raise ValueError(f"d must be in [1, {mu.size}], got {d}")
    if mu.sum() <= 0:
        raise ValueError("eigenvalues must have a positive sum")
    return float(mu[:d].sum() / mu.sum())


def haar_subspaces(D: int, d: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n orthonormal bases (n, D, d) of Haar-random d-subspaces: QR of D x d Gaussian matrices.

    The sign of each column is fixed by the diagonal of R so the law is exactly Haar.
    """
    if not 1 <= d <= D:
        raise ValueError(f"need 1 <= d <= D, got d={d}, D={D}")
    G = rng.standard_normal((n, D, d))
    Q, R = np.linalg.qr(G)
    signs = np.sign(np.diagonal(R, axis1=-2, axis2=-1))
    return Q * np.where(signs == 0, 1.0, signs)[:, None, :]


def concentration_bound(D: int, t: float, kappa: float) -> float:
    """2 exp(-D t^2 / (8 kappa^2)), the tail bound of Theorem 1(b), with the factor 2
    of the paper's LaTeX source (App. B).

    It is vacuous (>= 1) unless D > 8 ln 2 kappa^2 / t^2.
    """
    if D < 1 or t <= 0 or kappa < 1:
        raise ValueError(f"need D >= 1, t > 0 and kappa >= 1 (kappa = mu_1/mean mu), got {D}, {t}, {kappa}")
    return float(2.0 * np.exp(-D * t**2 / (8.0 * kappa**2)))


def concentration_tail(f: np.ndarray, d: int, D: int, ts: Sequence[float], kappa: float) -> pd.DataFrame:
    """Theorem 1(b)'s tail bound beside the observed tail of simulated captured fractions.

    Parameters
    ----------
    f : array
        Captured fractions f(V) of Haar subspaces (:func:`capture_fraction` of :func:`haar_subspaces`).
    d, D : int
        Subspace and ambient dimension (the expectation is d/D).
    ts : sequence of float
        Deviations t at which to compare.
    kappa : float
        mu_1 / mean(mu) of the covariance the fractions were drawn for.

    Returns
    -------
    DataFrame
        Indexed by t: ``bound`` (:func:`concentration_bound`) and ``observed P(|f - d/D| > t)``.
    """
    f = np.asarray(f, dtype=float)
    return pd.DataFrame(
        [
            {
                "t": t,
                "bound": concentration_bound(D, t, kappa),
                "observed P(|f - d/D| > t)": float((np.abs(f - d / D) > t).mean()),
            }
            for t in ts
        ]
    ).set_index("t")


def capture_bound_stated(d: float, D: int) -> float:
    """The App. B.1 claim 'captured fraction <= d_eff / D'.

    False in general: Sigma_C = diag(1, 0, ..., 0) with e_1 in V captures 1 > d/D; the Ky Fan bound of
    Theorem 1(a), attained on the top-d eigenvectors, exceeds d/D for any spectrum that is not flat.
    """
    if D < 1 or d <= 0:
        raise ValueError(f"need D >= 1 and d > 0, got {d}, {D}")
    return float(d / D)
