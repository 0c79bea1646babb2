"""Proposition 3: the coverage–indistinguishability "bridge" and the anisotropy remark.

The paper bounds the Hausdorff indistinguishability radius by

    delta_H <= max(eps + C R omega_within(T), 2 R sqrt(1 - tau)),   tau = f(T),          (Prop. 3)

and calls 2R sqrt(1 - tau) the "isotropy approximation", to be refined to the anisotropic
2R sqrt((1 - tau) kappa_orth), kappa_orth = lambda_max(Sigma_orth) / tr(Sigma_orth).

What the book implements and what it finds:

1. The bridge has no valid derivation; the orthogonal term is computed here as the heuristic
   index it is (:func:`orth_term`), not as a bound.
2. The labels are reversed: kappa_orth = 1 (all uncovered variance in one direction) is the *most*
   anisotropic case, and it gives 2R sqrt(1 - tau); the isotropic case is kappa_orth = 1/dim,
   giving 2R sqrt((1 - tau)/dim). kappa_orth lies in [1/dim, 1] (:func:`kappa_orth`).
3. "Sigma_orth" is not defined; three readings are implemented (``variant``).
4. The "within-span covering radius" of the paper's code is data-independent: it uses rows of an
   orthogonal matrix, whose signed covering radius is exactly pi - arccos(1/sqrt(r))
   (:func:`orthonormal_covering_radius`); the Monte Carlo estimate (:func:`covering_radius_mc`)
   only approaches it from below.
5. The orthogonal term is not a bound on the orthogonal part of delta_H: two caps of the ball, on
   either side of an uncovered direction, have identical widths in every direction of the span
   yet are almost 2R apart (:func:`uncovered_caps`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.linalg import qr

from blindspot.core.coverage import _subset_indices, coverage, validate_sigma

__all__ = [
    "KappaVariant",
    "KAPPA_VARIANTS",
    "orth_term",
    "kappa_orth",
    "KappaOrth",
    "bridge_path",
    "orthonormal_covering_radius",
    "covering_radius_mc",
    "code_within_span_radius",
    "rogers_optimum",
    "CapPair",
    "cap_support",
    "uncovered_caps",
]

KappaVariant = Literal["residual", "schur", "unselected_block"]
KAPPA_VARIANTS: tuple[str, ...] = ("residual", "schur", "unselected_block")


def orth_term(R: float, tau: float, kappa: float = 1.0) -> float:
    """2 R sqrt((1 - tau) kappa): the orthogonal term of Proposition 3 (kappa = 1: the paper's default).

    kappa = 1 is the single-direction (most anisotropic) case; kappa = 1/dim the isotropic one.
    """
    if R < 0:
        raise ValueError(f"the radius R must be non-negative, got {R}")
    if not 0.0 <= tau <= 1.0 + 1e-12:
        raise ValueError(f"tau is a coverage in [0, 1], got {tau}")
    if not 0.0 < kappa <= 1.0 + 1e-12:
        raise ValueError(f"kappa_orth = lambda_max / trace is in (0, 1], got {kappa}")
    return float(2.0 * R * math.sqrt(max(0.0, 1.0 - tau) * kappa))


@dataclass(frozen=True)
class KappaOrth:
    """kappa_orth = lambda_max / trace of the uncovered covariance, with its dimension.

    ``dim`` is the number of uncovered directions (k - rank of the selected span for 'residual',
    the number of unselected benchmarks otherwise); kappa lies in [1/dim, 1].
    """

    kappa: float
    dim: int
    variant: str
    eigenvalues: np.ndarray


def kappa_orth(
    Sigma: np.ndarray | pd.DataFrame, T: Sequence[int] | Sequence[str], variant: KappaVariant = "unselected_block"
) -> KappaOrth:
    """kappa_orth of the variance left uncovered by T, under one of three readings of Sigma_orth.

    The paper does not define Sigma_orth.

    * ``'residual'``: P_T^perp Sigma P_T^perp, P_T the projector of Theorem 4 (span of Sigma's T columns);
    * ``'schur'``: the Schur complement Sigma_UU - Sigma_UT Sigma_TT^+ Sigma_TU of the unselected U given T;
    * ``'unselected_block'``: the correlation sub-block Sigma_UU of the unselected benchmarks (the
      reading that reproduces the paper's 0.48 on the EXT frontier at r = 7).

    Raises
    ------
    ValueError
        Unknown variant, or T covering everything (no uncovered directions).
    """
    if variant not in KAPPA_VARIANTS:
        raise ValueError(f"variant must be one of {KAPPA_VARIANTS}, got {variant!r}")
    inp = validate_sigma(Sigma)
    S, k = inp.sigma, inp.k
    Tidx = np.unique(_subset_indices(T, inp.names))
    U = np.setdiff1d(np.arange(k), Tidx)
    if U.size == 0:
        raise ValueError("T contains every benchmark: nothing is left uncovered, kappa_orth is undefined")
    if variant == "residual":
        if Tidx.size:
            Q, Rr, _ = qr(S[:, Tidx], mode="economic", pivoting=True)
            d = np.abs(np.diag(Rr))
            Q = Q[:, : int((d > 1e-5 * d[0]).sum())]
            Pp = np.eye(k) - Q @ Q.T
        else:
            Pp = np.eye(k)
        M = Pp @ S @ Pp
        dim = k - int(round(np.trace(np.eye(k) - Pp)))
    elif variant == "schur":
        M = (
            S[np.ix_(U, U)]
            - S[np.ix_(U, Tidx)] @ np.linalg.pinv(S[np.ix_(Tidx, Tidx)], hermitian=True) @ S[np.ix_(Tidx, U)]
            if Tidx.size
            else S[np.ix_(U, U)]
        )
        dim = U.size
    else:
        M = S[np.ix_(U, U)]
        dim = U.size
    lam = np.clip(np.linalg.eigvalsh((M + M.T) / 2)[::-1], 0.0, None)
    if lam.sum() <= 0:
        raise ValueError("the uncovered covariance is zero (T already spans everything): kappa_orth is undefined")
    return KappaOrth(float(lam[0] / lam.sum()), int(dim), variant, lam)


def bridge_path(Sigma: np.ndarray | pd.DataFrame, order: Sequence[int], R: float = 1.0) -> pd.DataFrame:
    """Along a selection order, for r = 1..k: tau = f(T_r), the orthogonal term for kappa = 1, each
    kappa_orth variant, the anisotropic terms 2R sqrt((1 - tau) kappa) and the isotropic 2R sqrt((1-tau)/dim).

    In units of R when R = 1. Rows where nothing is left uncovered get kappa = 1 and term 0.
    """
    inp = validate_sigma(Sigma)
    order = list(order)
    rows = []
    for r in range(1, len(order) + 1):
        T = order[:r]
        tau = coverage(inp.sigma, T)
        row = {"r": r, "tau": tau, "term_kappa1": orth_term(R, min(tau, 1.0))}
        for v in KAPPA_VARIANTS:
            if r < inp.k:
                ko = kappa_orth(inp.sigma, T, v)
                row[f"kappa_{v}"] = ko.kappa
                row[f"term_{v}"] = orth_term(R, min(tau, 1.0), ko.kappa)
                if v == "unselected_block":
                    row["term_isotropic"] = orth_term(R, min(tau, 1.0), 1.0 / ko.dim)
            else:
                row[f"kappa_{v}"] = 1.0
                row[f"term_{v}"] = 0.0
                row["term_isotropic"] = 0.0
        rows.append(row)
    return pd.DataFrame(rows).set_index("r")


def orthonormal_covering_radius(r: int) -> float:
    """pi - arccos(1/sqrt(r)): the signed covering radius of r orthonormal vectors in their span.

    The direction farthest (in angle) from every e_j is -(1, ..., 1)/sqrt(r), at angle
    arccos(-1/sqrt(r)) from each.
    """
    if r < 1:
        raise ValueError(f"r must be at least 1, got {r}")
    return float(math.pi - math.acos(1.0 / math.sqrt(r)))


def covering_radius_mc(L: np.ndarray, n_dirs: int, rng: np.random.Generator) -> float:
    """Monte Carlo signed covering radius of the rows of L within their span: max over ``n_dirs``
    random unit directions u of the span of min_j angle(u, l_j). A lower bound of the true radius.
    """
    L = np.asarray(L, dtype=float)
    if L.ndim != 2 or L.shape[0] < 1:
        raise ValueError(f"L must be a 2-D array of loading rows, got shape {L.shape}")
    if n_dirs < 1:
        raise ValueError(f"n_dirs must be positive, got {n_dirs}")
    U, s, Vt = np.linalg.svd(L, full_matrices=False)
    rank = int((s > 1e-10 * s[0]).sum())
    B = Vt[:rank]  # orthonormal basis of the span (rows)
    coords = L @ B.T
    coords /= np.linalg.norm(coords, axis=1, keepdims=True)
    u = rng.standard_normal((n_dirs, rank))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    cos = np.clip(u @ coords.T, -1.0, 1.0)
    return float(np.arccos(cos.max(axis=1)).max())


def code_within_span_radius(Sigma: np.ndarray | pd.DataFrame, T: Sequence[int], n_dirs: int, seed: int = 0) -> float:
    """The paper's omega_within as its code computes it (App. H.17), by Monte Carlo.

    It takes the rows of the k x k right-singular-vector matrix of Sigma for the selected
    benchmarks: orthonormal rows, so the answer depends on r = |T| and the random directions only.
    """
    inp = validate_sigma(Sigma)
    _, _, Vt = np.linalg.svd(inp.sigma)
    V = Vt.T
    idx = _subset_indices(T, inp.names)
    return covering_radius_mc(V[idx], n_dirs, np.random.default_rng(seed))


def rogers_optimum(r: int) -> float:
    """The "Rogers optimum" sqrt(r) r^{-1/(r-1)} used in App. H.17; it exceeds pi/2 for r >= 6,
    although no covering radius of a spanning set on a sphere exceeds pi/2 when antipodes count."""
    if r < 2:
        raise ValueError(f"r must be at least 2, got {r}")
    return float(math.sqrt(r) * r ** (-1.0 / (r - 1)))


def cap_support(V: np.ndarray, u: np.ndarray, eta: float) -> np.ndarray:
    """Support function h(v) of the cap {x : |x| <= 1, <x, u> >= 1 - eta} at the unit rows v of V.

    With a = <v, u>, c = 1 - eta and s = sqrt(1 - c^2): h(v) = 1 when a >= c (the ball's own maximiser
    v lies in the cap), else the maximum is on the cap's rim, h(v) = c a + s sqrt(1 - a^2).
    """
    if not 0.0 < eta <= 1.0:
        raise ValueError(f"the cap depth eta must be in (0, 1], got {eta}")
    V = np.atleast_2d(np.asarray(V, dtype=float))
    a = np.clip(V @ np.asarray(u, dtype=float), -1.0, 1.0)
    c = 1.0 - eta
    s = math.sqrt(1.0 - c * c)
    return np.where(a >= c, 1.0, c * a + s * np.sqrt(1.0 - a * a))


@dataclass(frozen=True)
class CapPair:
    """Two convex bodies that Proposition 3's orthogonal term cannot bound (in units of R).

    K = {x in B_1 : <x, u> >= 1 - eta} and L = -K for a unit u orthogonal to the span of the selected
    benchmarks' loadings (the direction of most uncovered variance). ``visible_gap`` is
    max |h_K - h_L| over the selected loading directions (0: the benchmarks cannot tell K from L);
    ``hausdorff`` = h_K(u) - h_L(u) = 2 - eta is their Hausdorff distance; ``term`` = 2 sqrt(1 - tau),
    the orthogonal term of Proposition 3 for the subset's coverage tau. ``holds`` is hausdorff <= term.
    """

    tau: float
    eta: float
    u: np.ndarray
    visible_gap: float
    hausdorff: float
    term: float

    @property
    def holds(self) -> bool:
        return bool(self.hausdorff <= self.term + 1e-12)


def uncovered_caps(Sigma: np.ndarray | pd.DataFrame, T: Sequence[int] | Sequence[str], eta: float = 0.05) -> CapPair:
    """The cap pair of :class:`CapPair` for the subset T of Sigma's benchmarks.

    The loadings are Sigma's columns (Theorem 4's span); u is the top eigenvector of the residual
    covariance P_T^perp Sigma P_T^perp. The Hausdorff distance of two convex bodies is the largest
    gap between their support functions over unit directions; for K and L = -K it is reached at u.

    Raises
    ------
    ValueError
        If T's loadings already span every direction (nothing is uncovered).
    """
    inp = validate_sigma(Sigma)
    S, k = inp.sigma, inp.k
    idx = np.unique(_subset_indices(T, inp.names))
    if idx.size == 0:
        raise ValueError("T is empty: choose at least one benchmark")
    Q, Rr, _ = qr(S[:, idx], mode="economic", pivoting=True)
    d = np.abs(np.diag(Rr))
    Q = Q[:, : int((d > 1e-5 * d[0]).sum())]
    if Q.shape[1] >= k:
        raise ValueError("the selected benchmarks span every direction: nothing is uncovered, no cap pair exists")
    Pp = np.eye(k) - Q @ Q.T
    lam, W = np.linalg.eigh(Pp @ S @ Pp)
    u = Pp @ W[:, -1] if lam[-1] > 1e-12 else Pp @ np.linalg.svd(Pp)[0][:, 0]
    u = u / np.linalg.norm(u)
    loads = S[:, idx].T
    loads = loads / np.linalg.norm(loads, axis=1, keepdims=True)
    visible = float(np.abs(cap_support(loads, u, eta) - cap_support(-loads, u, eta)).max())
    haus = float(cap_support(u[None, :], u, eta)[0] - cap_support(-u[None, :], u, eta)[0])
    tau = coverage(S, idx)
    return CapPair(float(tau), float(eta), u, visible, haus, orth_term(1.0, min(tau, 1.0)))
