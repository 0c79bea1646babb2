"""Proposition 5 (coverage stability) and Theorem 5 (iterative closure) — stated, checked, corrected.

Proposition 5 as stated in the paper:

    f_{Sigma'}(T) >= f_Sigma(T) - ||P_T (Sigma - Sigma') P_T||_op / tr Sigma.            (paper)

It is false (random correlation pairs violate it: :func:`stability_violations`): the proof derives
a factor rank(P_T) = |T| and drops it, and the statement does not say whether f_{Sigma'} uses
Sigma's projector ('fixed') or its own ('own'). With a fixed projector and tr Sigma = tr Sigma'
(correlation matrices) what holds is

    |f_{Sigma'}(T) - f_Sigma(T)| = |tr(P_T (Sigma' - Sigma))| / tr Sigma
                                 <= rank(P_T) ||P_T (Sigma' - Sigma) P_T||_op / tr Sigma    (corrected)
                                 and <= ||P_T (Sigma' - Sigma) P_T||_* / tr Sigma           (nuclear)

(the trace of a symmetric matrix of rank <= m is at most m times its operator norm, and at most
its nuclear norm).

Theorem 5 as stated: under greedy expansion f(T_t) >= 1 - (1 - d_eff/k)^t. It is false
(already at t = 1 on Sigma = I). What holds: f(T_t) is non-decreasing, equals 1 at
t = rank(Sigma), and with the submodularity ratio gamma (Das & Kempe 2011) and OPT_k = f([k]) = 1,

    f(T_t) >= 1 - exp(-gamma t / k).                                                     (valid)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.linalg import qr

from blindspot.core.coverage import _coverage_of_columns, _subset_indices, validate_sigma
from blindspot.data.synthetic import random_correlations

__all__ = [
    "Projector",
    "BoundKind",
    "StabilityCheck",
    "stability_check",
    "StabilityViolations",
    "random_stability_pairs",
    "stability_violations",
]


Projector = Literal["fixed", "own"]


BoundKind = Literal["paper", "rank", "nuclear"]


def _projector(S: np.ndarray, idx: np.ndarray) -> np.ndarray:

    if idx.size == 0:
        return np.zeros_like(S)
    Q, R, _ = qr(S[:, idx], mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int((d > 1e-5 * d[0]).sum()) if d[0] > 0 else 0
    Q = Q[:, :rank]
    return Q @ Q.T


@dataclass(frozen=True)
class StabilityCheck:
    """One evaluation of Proposition 5 (or its correction) on (Sigma, Sigma', T).

    ``f`` = f_Sigma(T); ``f_prime`` = f_{Sigma'}(T) with the chosen projector; ``perturbation`` the
    norm used (operator or nuclear) of P_T (Sigma - Sigma') P_T; ``rhs`` the lower bound;
    ``holds`` = f_prime >= rhs, the claim's direction; ``holds_two_sided`` = |f' - f| <= margin.
    """

    f: float
    f_prime: float
    perturbation: float
    margin: float
    rhs: float
    holds: bool
    holds_two_sided: bool
    projector: str
    bound: str

    @property
    def violation(self) -> float:
        """How far f' falls below the bound (0 when it holds)."""
        return max(0.0, self.rhs - self.f_prime)


def stability_check(
    Sigma: np.ndarray | pd.DataFrame,
    Sigma_prime: np.ndarray | pd.DataFrame,
    T: Sequence[int] | Sequence[str],
    projector: Projector = "fixed",
    bound: BoundKind = "paper",
) -> StabilityCheck:
    """Evaluate Proposition 5 on one pair.

    Parameters
    ----------
    projector : 'fixed' (P_T from Sigma's columns, used for both f and f') or 'own' (f' uses the
        span of Sigma''s columns, i.e. f' = coverage(Sigma', T)).
    bound : 'paper' (||.||_op / tr Sigma, the stated Prop. 5), 'rank' (rank(P_T) ||.||_op / tr Sigma,
        the corrected bound) or 'nuclear' (||.||_* / tr Sigma).

    Raises
    ------
    ValueError
        Unknown projector/bound, different sizes, or (for 'rank'/'nuclear') different traces: the
        corrected bound is for matrices of equal trace, e.g. two correlation matrices.
    """
    if projector not in ("fixed", "own"):
        raise ValueError(f"projector must be 'fixed' or 'own', got {projector!r}")
    if bound not in ("paper", "rank", "nuclear"):
        raise ValueError(f"bound must be 'paper', 'rank' or 'nuclear', got {bound!r}")
    a, b = validate_sigma(Sigma), validate_sigma(Sigma_prime)
    if a.k != b.k:
        raise ValueError(f"Sigma is {a.k} x {a.k} and Sigma' is {b.k} x {b.k}; they must describe the same benchmarks")
    S, Sp = a.sigma, b.sigma
    tr, trp = np.trace(S), np.trace(Sp)
    if bound != "paper" and not math.isclose(tr, trp, rel_tol=1e-9):
        raise ValueError(
            f"the corrected bound assumes tr Sigma = tr Sigma' (e.g. correlation matrices); got {tr:.6g} and {trp:.6g}"
        )
    idx = np.unique(_subset_indices(T, a.names))
    P = _projector(S, idx)
    f = float(np.trace(P @ S) / tr)
    f_prime = float(np.trace(P @ Sp) / trp) if projector == "fixed" else _coverage_of_columns(Sp, idx)
    D = P @ (S - Sp) @ P
    if bound == "nuclear":
        pert = float(np.abs(np.linalg.eigvalsh(D)).sum())
        margin = pert / tr
    else:
        pert = float(np.linalg.norm(D, 2))
        rank = int(round(np.trace(P)))
        margin = (rank if bound == "rank" else 1) * pert / tr
    rhs = f - margin
    holds = f_prime >= rhs - 1e-12
    two = holds and f_prime <= f + margin + 1e-12
    return StabilityCheck(f, f_prime, pert, margin, rhs, bool(holds), bool(two), projector, bound)


def random_stability_pairs(
    n: int,
    k: int,
    rng: np.random.Generator,
    kind: Literal["independent", "sample"] = "independent",
    n_obs: int = 30,
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Random (Sigma, Sigma', T) triples for the violation counts.

    ``kind='independent'``: two independent :func:`~blindspot.treat.synthetic.random_correlations`.
    ``kind='sample'``: Sigma' is the sample correlation of ``n_obs`` Gaussian draws with correlation
    Sigma (a realistic estimation perturbation). T is a uniformly random subset of size 1..k-1.
    """
    if n < 1 or k < 2:
        raise ValueError(f"need n >= 1 and k >= 2, got n={n}, k={k}")
    A = random_correlations(n, k, rng)
    if kind == "independent":
        B = random_correlations(n, k, rng)
    elif kind == "sample":
        if n_obs < k + 2:
            raise ValueError(f"n_obs must be at least k + 2 = {k + 2} for a full-rank sample correlation, got {n_obs}")
        L = np.linalg.cholesky(A + 1e-12 * np.eye(k))
        X = rng.standard_normal((n, n_obs, k)) @ np.swapaxes(L, 1, 2)
        Xc = X - X.mean(axis=1, keepdims=True)
        C = np.swapaxes(Xc, 1, 2) @ Xc
        d = np.sqrt(np.einsum("bii->bi", C))
        B = C / d[:, :, None] / d[:, None, :]
        B = (B + np.swapaxes(B, 1, 2)) / 2
    else:
        raise ValueError(f"kind must be 'independent' or 'sample', got {kind!r}")
    sizes = rng.integers(1, k, size=n)
    Ts = [np.sort(rng.choice(k, size=m, replace=False)) for m in sizes]
    return A, B, Ts


@dataclass(frozen=True)
class StabilityViolations:
    """Violation counts of Proposition 5 and its corrections over random triples.

    ``table`` has one row per (projector, bound): n_violations of the claimed direction
    f' >= f - margin, n, fraction, max_violation, and n_two_sided, the pairs that break
    |f' - f| <= margin on either side (the corrected statement is two-sided).
    """

    table: pd.DataFrame
    n: int
    k: int
    kind: str

    def fraction(self, projector: str, bound: str) -> float:
        return float(self.table.loc[(projector, bound), "fraction"])

    def count(self, projector: str, bound: str) -> int:
        return int(self.table.loc[(projector, bound), "n_violations"])


def stability_violations(
    n: int = 2000, k: int = 6, seed: int = 0, kind: Literal["independent", "sample"] = "independent"
) -> StabilityViolations:
    """Count how often each form of Proposition 5 fails on ``n`` random correlation pairs.

    Batched over the pairs: projectors, norms and traces are computed for stacks grouped by |T|.
    """
    rng = np.random.default_rng(seed)
    A, B, Ts = random_stability_pairs(n, k, rng, kind)
    sizes = np.array([t.size for t in Ts])
    f = np.empty(n)
    f_fixed = np.empty(n)
    f_own = np.empty(n)
    op = np.empty(n)
    nuc = np.empty(n)
    for m in np.unique(sizes):
        ii = np.flatnonzero(sizes == m)
        idx = np.stack([Ts[i] for i in ii])  # (b, m)
        Aa, Bb = A[ii], B[ii]
        cols = np.arange(len(ii))[:, None]
        Q, _ = np.linalg.qr(np.swapaxes(Aa[cols, idx], 1, 2))  # basis of span(Sigma[:, T]), (b, k, m)
        Qp, _ = np.linalg.qr(np.swapaxes(Bb[cols, idx], 1, 2))  # basis of span(Sigma'[:, T])
        P = Q @ np.swapaxes(Q, 1, 2)
        f[ii] = np.einsum("bij,bji->b", P, Aa) / k
        f_fixed[ii] = np.einsum("bij,bji->b", P, Bb) / k
        f_own[ii] = np.einsum("bka,bkl,bla->b", Qp, Bb, Qp) / k
        ev = np.linalg.eigvalsh(P @ (Aa - Bb) @ P)
        op[ii] = np.abs(ev).max(axis=1)
        nuc[ii] = np.abs(ev).sum(axis=1)
    rows = []
    for proj, fp in (("fixed", f_fixed), ("own", f_own)):
        for bound, margin in (("paper", op / k), ("rank", sizes * op / k), ("nuclear", nuc / k)):
            below = np.maximum((f - margin) - fp, 0.0)  # the claim's direction: f' >= f - margin
            above = np.maximum(fp - (f + margin), 0.0)  # the other side of |f' - f| <= margin
            rows.append(
                {
                    "projector": proj,
                    "bound": bound,
                    "n_violations": int((below > 1e-12).sum()),
                    "n": n,
                    "fraction": float((below > 1e-12).mean()),
                    "max_violation": float(below.max()),
                    "n_two_sided": int(((below > 1e-12) | (above > 1e-12)).sum()),
                }
            )
    return StabilityViolations(pd.DataFrame(rows).set_index(["projector", "bound"]), n, k, kind)
