"""Theorem 2: how far apart two convex bodies with (nearly) equal widths on m directions can be
(the paper's main text; proofs in App. C).

A convex body K is given by a point cloud (its convex hull); its support function is
h_K(u) = max_{x in K} <x, u>, its width w_K(u) = h_K(u) + h_K(-u), and for convex bodies the
Hausdorff distance is delta_H(K, L) = sup_{|u| = 1} |h_K(u) - h_L(u)|.

Statements (the main text and App. C; the displayed formulas as in the paper's LaTeX source):

(a) visible part:  delta_H^vis <= eps + 2 R omega_m  <= eps + C R m^{-1/(d-1)},
    where omega_m is the (projective) covering radius of the m benchmark directions, eps bounds
    the width (support) mismatch on them and K, L lie in the ball B_R. The first inequality is
    the proven one; the second needs quasi-uniform directions.
(b) delta_H = max(delta_H^vis, delta_H^perp) with delta_H^perp <= 2R; trivially delta_H <= 2R.
(c) if h_K, h_L are C^{1,alpha}: delta_H^vis <= eps log m + C_alpha R m^{-(1+alpha)/(d-1)}.
(d) tightness: there are K, L with equal widths on every u_i and delta_H >= c_d R m^{-1/(d-1)};
    :func:`lipschitz_witness` builds them with delta_H = R min(tan omega, 1).

Minimum number of benchmarks for a target delta: m >= (C R / (delta - eps))^{d-1}; planar
(App. C.1): m >= pi R / (delta - eps). Halving delta multiplies m by 2^{d-1} ("curse" table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special

from blindspot.core.covering import covering_radius, min_norm_point, random_directions, unit_directions

__all__ = [
    "support",
    "width",
    "hausdorff_on_directions",
    "hausdorff_convex",
    "IndistinguishabilityBound",
    "visible_bound",
    "rate_bound",
    "smooth_bound",
    "min_benchmarks",
    "min_benchmarks_planar",
    "curse_factor",
    "smooth_benchmarks",
    "LipschitzWitness",
    "lipschitz_witness",
    "rogers_estimate_sqrt_d",
    "rogers_estimate_d_over_m",
    "covering_radius_stated",
    "random_symmetric_polytope",
    "check_visible_bound",
    "clustered_directions",
    "cap_fraction",
    "covering_lower_bound",
    "CoveringSearch",
    "covering_search",
    "RandomComparison",
    "compare_with_random",
]


def _points(P: np.ndarray, name: str = "points") -> np.ndarray:
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] < 1:
        raise ValueError(f"{name} must be a non-empty 2-D array (N points x D coordinates), got shape {P.shape}")
    if not np.isfinite(P).all():
        raise ValueError(f"{name} contain NaN or infinite coordinates")
    return P


def support(P: np.ndarray, U: np.ndarray) -> np.ndarray:
    """h_K(u) = max_{x in conv P} <x, u> for each row u of U (directions are normalised first)."""
    P = _points(P)
    U = unit_directions(U)
    if P.shape[1] != U.shape[1]:
        raise ValueError(f"points live in R^{P.shape[1]} but directions in R^{U.shape[1]}")
    return (P @ U.T).max(axis=0)


def width(P: np.ndarray, U: np.ndarray) -> np.ndarray:
    """w_K(u) = h_K(u) + h_K(-u) for each row u of U."""
    U = unit_directions(U)
    return support(P, U) + support(P, -U)


def hausdorff_on_directions(P: np.ndarray, Q: np.ndarray, U: np.ndarray) -> float:
    """max_u |h_P(u) - h_Q(u)| over the given directions: a LOWER estimate of delta_H(conv P, conv Q)."""
    return float(np.abs(support(P, U) - support(Q, U)).max())


def hausdorff_convex(P: np.ndarray, Q: np.ndarray) -> float:
    """Exact Hausdorff distance between the polytopes conv(P) and conv(Q).

    The distance to a convex set is a convex function, so its maximum over conv(P) is attained at
    a point of P: delta_H = max(max_{p in P} dist(p, conv Q), max_{q in Q} dist(q, conv P)), each
    distance a min-norm-point problem (:func:`blindspot.core.covering.min_norm_point`).
    """
    P, Q = _points(P, "P"), _points(Q, "Q")
    if P.shape[1] != Q.shape[1]:
        raise ValueError(f"P lives in R^{P.shape[1]} but Q in R^{Q.shape[1]}")

    def one_side(A: np.ndarray, B: np.ndarray) -> float:
        return max(float(np.linalg.norm(min_norm_point(B - a)[0])) for a in A)

    return max(one_side(P, Q), one_side(Q, P))


@dataclass(frozen=True)
class IndistinguishabilityBound:
    """Theorem 2(a),(b) for given eps, R and covering radius omega.

    Attributes
    ----------
    visible : float
        eps + 2 R omega (Theorem 2(a), first inequality).
    trivial : float
        2 R: any two bodies in B_R are within 2R (Theorem 2(b)).
    bound : float
        min(visible, trivial + eps): what the theorem actually guarantees.
    vacuous : bool
        True when the visible bound exceeds the trivial one (omega > 1 rad when eps = 0).
    """

    eps: float
    R: float
    omega: float
    visible: float
    trivial: float
    bound: float
    vacuous: bool


def _check_nonneg(**kw: float) -> None:
    for name, v in kw.items():
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {v}")


def visible_bound(eps: float, R: float, omega: float) -> IndistinguishabilityBound:
    """delta_H^vis <= eps + 2 R omega, beside the trivial 2R (Theorem 2(a),(b))."""
    _check_nonneg(eps=eps, R=R, omega=omega)
    if omega > np.pi:
        raise ValueError(f"a covering radius is at most pi (pi/2 projective), got {omega}")
    vis = eps + 2.0 * R * omega
    triv = 2.0 * R
    return IndistinguishabilityBound(eps, R, omega, vis, triv, min(vis, triv + eps), bool(vis > triv + eps))


def _check_md(m: float, d: float) -> None:
    if m < 1:
        raise ValueError(f"the number of benchmarks m must be at least 1, got {m}")
    if d < 2:
        raise ValueError(f"the rate m^(-1/(d-1)) needs d >= 2 (one direction has no covering radius), got d = {d}")


def rate_bound(eps: float, R: float, m: float, d: float, C: float) -> float:
    """eps + C R m^{-1/(d-1)}: Theorem 2(a)'s rate form (valid for quasi-uniform directions only)."""
    _check_nonneg(eps=eps, R=R, C=C)
    _check_md(m, d)
    return float(eps + C * R * m ** (-1.0 / (d - 1)))


def smooth_bound(eps: float, R: float, m: float, d: float, alpha: float, C_alpha: float) -> float:
    """eps log m + C_alpha R m^{-(1+alpha)/(d-1)} for C^{1,alpha} support functions (Theorem 2(c))."""
    _check_nonneg(eps=eps, R=R, C_alpha=C_alpha)
    _check_md(m, d)
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha must be in (0, 1], got {alpha}")
    return float(eps * math.log(m) + C_alpha * R * m ** (-(1.0 + alpha) / (d - 1)))


def min_benchmarks(delta: float, eps: float, R: float, d: float, C: float) -> int:
    """m >= (C R / (delta - eps))^{d-1}: benchmarks needed for a visible radius delta (Theorem 2).

    Raises
    ------
    ValueError
        delta <= eps (no number of benchmarks beats the measurement error), or bad arguments.
    """
    _check_nonneg(eps=eps, R=R, C=C)
    if d < 2:
        raise ValueError(f"d must be at least 2, got {d}")
    if not delta > eps:
        raise ValueError(
            f"the target delta = {delta} must exceed the width error eps = {eps}: no number of benchmarks reaches it"
        )
    return int(math.ceil((C * R / (delta - eps)) ** (d - 1) - 1e-9))


def min_benchmarks_planar(delta: float, eps: float, R: float) -> int:
    """m >= pi R / (delta - eps): the planar bound of App. C.1 (the paper's code: ceil(pi R / (delta - eps)))."""
    _check_nonneg(eps=eps, R=R)
    if not delta > eps:
        raise ValueError(f"the target delta = {delta} must exceed the width error eps = {eps}")
    return int(math.ceil(math.pi * R / (delta - eps) - 1e-9))


def curse_factor(d: float) -> float:
    """2^{d-1}: how many times more benchmarks halving delta costs (the paper's 'curse' table)."""
    if d < 2:
        raise ValueError(f"d must be at least 2, got {d}")
    return float(2.0 ** (d - 1))


def smooth_benchmarks(m_lipschitz: float, alpha: float) -> float:
    """m_smooth = m_Lip^{1/(1+alpha)} (the paper's "square root" holds only for alpha = 1)."""
    if m_lipschitz < 1:
        raise ValueError(f"m_lipschitz must be at least 1, got {m_lipschitz}")
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha must be in (0, 1], got {alpha}")
    return float(m_lipschitz ** (1.0 / (1.0 + alpha)))


@dataclass(frozen=True)
class LipschitzWitness:
    """Two origin-symmetric bodies with equal widths on every benchmark direction (Theorem 2(d)).

    K is the (d-1)-ball of radius R in v0^perp; L = conv(K u {+-t v0}) with t = R min(tan omega, 1),
    v0 a direction at the covering radius omega. Support functions:
    h_K(u) = R ||P_perp u||,  h_L(u) = max(h_K(u), t |<u, v0>|),  and delta_H(K, L) = t.

    Attributes
    ----------
    U : ndarray (m, d)
        The unit benchmark directions.
    R, omega, t : float
    v0 : ndarray (d,)
        Unit direction at angle omega from every +-u_i.
    basis : ndarray (d-1, d)
        Orthonormal basis of v0^perp.
    """

    U: np.ndarray
    R: float
    omega: float
    t: float
    v0: np.ndarray
    basis: np.ndarray

    @property
    def delta_H(self) -> float:
        return self.t

    def support_K(self, V: np.ndarray) -> np.ndarray:
        V = np.atleast_2d(np.asarray(V, dtype=float))
        return self.R * np.linalg.norm(V @ self.basis.T, axis=1)

    def support_L(self, V: np.ndarray) -> np.ndarray:
        V = np.atleast_2d(np.asarray(V, dtype=float))
        return np.maximum(self.support_K(V), self.t * np.abs(V @ self.v0))

    def width_residuals(self) -> np.ndarray:
        """w_L(u_i) - w_K(u_i) on the benchmark directions (zero by construction)."""
        return 2.0 * (self.support_L(self.U) - self.support_K(self.U))

    def points_K(self, n: int = 64) -> np.ndarray:
        """Points on the boundary of K (exact for d = 2: the segment's two ends; a circle for d = 3)."""
        d = self.v0.size
        if d == 2:
            return np.vstack([self.R * self.basis[0], -self.R * self.basis[0]])
        rng = np.random.default_rng(0)
        if d == 3:
            th = np.linspace(0, 2 * np.pi, n, endpoint=False)
            c = np.c_[np.cos(th), np.sin(th)]
        else:
            c = rng.standard_normal((n, d - 1))
            c /= np.linalg.norm(c, axis=1, keepdims=True)
        return self.R * c @ self.basis

    def points_L(self, n: int = 64) -> np.ndarray:
        """Points of L: those of K plus the two apexes +-t v0."""
        return np.vstack([self.points_K(n), self.t * self.v0, -self.t * self.v0])


def lipschitz_witness(U: np.ndarray, R: float = 1.0) -> LipschitzWitness:
    """A tightness construction for Theorem 2(d) on the directions U (the book's, not the paper's).

    Both bodies lie in B_R, are origin-symmetric, have identical widths on every u_i, and their
    Hausdorff distance is t = R min(tan omega, 1), omega the projective covering radius of U.

    Raises
    ------
    ValueError
        R <= 0 or directions that do not span R^d.
    """
    if not R > 0:
        raise ValueError(f"R must be positive, got {R}")
    Uu = unit_directions(U)
    cov = covering_radius(Uu, projective=True)
    v0 = cov.direction / np.linalg.norm(cov.direction)
    # orthonormal basis of v0^perp
    _, _, Vt = np.linalg.svd(v0[None, :], full_matrices=True)
    basis = Vt[1:]
    t = R * min(math.tan(cov.omega), 1.0) if cov.omega < np.pi / 2 else R
    return LipschitzWitness(Uu, float(R), cov.omega, float(t), v0, basis)


def rogers_estimate_sqrt_d(d: int, m: int) -> float:
    """sqrt(d) m^{-1/(d-1)}: the 'Rogers optimum' of the paper's code and H.11 (not a proven bound)."""
    _check_md(m, d)
    return float(math.sqrt(d) * m ** (-1.0 / (d - 1)))


def rogers_estimate_d_over_m(d: int, m: int) -> float:
    """(d/m)^{1/(d-1)}: the 'Rogers optimum' of the H.46 script (not a proven bound)."""
    _check_md(m, d)
    return float((d / m) ** (1.0 / (d - 1)))


def covering_radius_stated(d: int, m: int, C_d: float) -> float:
    """C_d ((d-1) log m / m)^{1/(d-1)}: App. C's covering-radius formula.

    App. C prints 0.690, 0.918 and 1.060 for m = 12, d = 3, 4, 5; the formula gives other values with
    C_d = sqrt(2d) and with C_d = 1 (the Theorem 2 chapter tabulates them).
    """
    _check_md(m, d)
    if m < 2:
        raise ValueError("log m needs m >= 2")
    return float(C_d * ((d - 1) * math.log(m) / m) ** (1.0 / (d - 1)))


def random_symmetric_polytope(d: int, n_points: int, R: float, rng: np.random.Generator) -> np.ndarray:
    """Points +-x_i with random directions and radii in [0.2 R, R]: an origin-symmetric polytope in B_R."""
    if d < 2 or n_points < 1 or not R > 0:
        raise ValueError(f"need d >= 2, n_points >= 1 and R > 0, got {d}, {n_points}, {R}")
    X = rng.standard_normal((n_points, d))
    X *= R * rng.uniform(0.2, 1.0, size=(n_points, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
    return np.vstack([X, -X])


def check_visible_bound(
    d: int, m: int, R: float = 1.0, n_pairs: int = 40, n_points: int = 12, seed: int = 0
) -> pd.DataFrame:
    """Theorem 2(a) on random pairs of origin-symmetric polytopes in B_R and m random directions.

    For each pair: eps = max_i |h_K(u_i) - h_L(u_i)|, omega = the exact projective covering radius,
    the bound eps + 2 R omega, the trivial 2R and the exact Hausdorff distance. Returns one row per pair.
    """

    if n_pairs < 1:
        raise ValueError(f"n_pairs must be at least 1, got {n_pairs}")
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n_pairs):
        K = random_symmetric_polytope(d, n_points, R, rng)
        L = random_symmetric_polytope(d, n_points, R, rng)
        U = random_directions(m, d, rng)
        eps = float(np.abs(support(K, U) - support(L, U)).max())
        omega = covering_radius(U).omega
        b = visible_bound(eps, R, omega)
        rows.append(
            {"eps": eps, "omega": omega, "bound": b.visible, "trivial": b.trivial, "delta_H": hausdorff_convex(K, L)}
        )
    return pd.DataFrame(rows)


def clustered_directions(m: int, d: int, half_angle: float, rng: np.random.Generator) -> np.ndarray:
    """m directions within angle ``half_angle`` of e_1 (a spherical cap): benchmarks that all measure one thing.

    Their projective covering radius is at least pi/2 - half_angle for every m, so Theorem 2(a)'s
    rate C R m^{-1/(d-1)} -> 0 cannot bound it: the rate needs quasi-uniform directions, though (a) is
    stated for any m directions.
    """
    if not 0 < half_angle < np.pi / 2:
        raise ValueError(f"half_angle must be in (0, pi/2), got {half_angle}")
    if m < d or d < 2:
        raise ValueError(f"need d >= 2 and m >= d directions, got m={m}, d={d}")
    T = rng.standard_normal((m, d - 1))
    T /= np.linalg.norm(T, axis=1, keepdims=True)
    ang = half_angle * rng.uniform(0.2, 1.0, size=(m, 1))
    return np.c_[np.cos(ang), np.sin(ang) * T]


def cap_fraction(theta: float, d: int) -> float:
    """The share of the sphere S^{d-1} within angle ``theta`` of a point (a spherical cap).

    For theta <= pi/2 it is I_{sin^2 theta}((d-1)/2, 1/2) / 2 (regularised incomplete beta, see
    Li 2011, "Concise formulas for the area and volume of a hyperspherical cap"); by symmetry
    1 - that of pi - theta above pi/2.
    """
    if d < 2:
        raise ValueError(f"d must be at least 2, got {d}")
    if not 0 <= theta <= np.pi:
        raise ValueError(f"theta must be in [0, pi], got {theta}")
    half = 0.5 * float(special.betainc((d - 1) / 2.0, 0.5, math.sin(min(theta, np.pi - theta)) ** 2))
    return half if theta <= np.pi / 2 else 1.0 - half


def covering_lower_bound(m: int, d: int, projective: bool = True) -> float:
    """A volumetric lower bound on the optimal covering radius of m directions on S^{d-1}.

    Caps of angle omega around the m points (2m for lines, +-u_i) must cover the sphere, so
    N * cap_fraction(omega) >= 1: omega* is at least the omega where equality holds (Rogers 1963
    gives the matching upper bound up to a factor that grows with d).
    """
    _check_md(m, d)
    caps = 2 * m if projective else m
    top = np.pi / 2 if projective else np.pi
    if caps * cap_fraction(top, d) < 1.0:
        return float(top)
    return float(optimize.brentq(lambda w: caps * cap_fraction(w, d) - 1.0, 0.0, top, xtol=1e-12))


@dataclass(frozen=True)
class CoveringSearch:
    """A configuration of m directions found by :func:`covering_search` and its exact covering radius
    (an upper bound on the optimum omega*_m)."""

    U: np.ndarray
    omega: float
    start_omega: float
    projective: bool
    n_iter: int
    seed: int


def covering_search(m: int, d: int, projective: bool = True, n_iter: int = 400, seed: int = 0) -> CoveringSearch:
    """Look for m directions on S^{d-1} with a small exact covering radius (a seeded random local search).

    Start from m random directions; each step moves about a third of them by a Gaussian step and
    keeps the move when the exact covering radius falls (the step shrinks slowly otherwise). The
    result's covering radius is an upper bound on the optimum omega*_m; it is not the optimum.

    Raises
    ------
    ValueError
        d < 2, m < d (the directions could not span) or n_iter < 0.
    """
    _check_md(m, d)
    if m < d:
        raise ValueError(f"m = {m} directions cannot span R^{d}; need m >= d")
    if n_iter < 0:
        raise ValueError(f"n_iter must be >= 0, got {n_iter}")
    rng = np.random.default_rng(seed)
    U = random_directions(m, d, rng)
    start = cur = covering_radius(U, projective=projective, rank_deficient="value").omega
    step = 0.3
    for _ in range(n_iter):
        move = rng.random((m, 1)) < 0.3
        V = unit_directions(U + step * rng.normal(size=U.shape) * move)
        w = covering_radius(V, projective=projective, rank_deficient="value").omega
        if w < cur:
            U, cur = V, w
        else:
            step *= 0.998
    return CoveringSearch(U, float(cur), float(start), projective, int(n_iter), int(seed))


@dataclass(frozen=True)
class RandomComparison:
    """The covering radius of given directions against that of random directions of the same size.

    Attributes
    ----------
    omega : float
        Exact projective covering radius of the given directions.
    random_omegas : ndarray
        The same for ``n_random`` sets of m uniform random directions in the same dimension.
    share_random_worse : float
        Share of the random sets whose radius is at least ``omega`` (near 0: the given directions cover
        worse than random ones, i.e. they cluster; near 1: better than random).
    """

    omega: float
    random_omegas: np.ndarray
    m: int
    d: int

    @property
    def share_random_worse(self) -> float:
        return float(np.mean(self.random_omegas >= self.omega))

    def table(self, name: str) -> pd.DataFrame:
        """One row, indexed by ``name``: m, d, the suite's omega, the random radii's 5%, median and 95%, and
        the share of random sets covering worse."""
        return pd.DataFrame(
            {
                "m": [self.m],
                "d": [self.d],
                "omega, suite": [self.omega],
                "omega, random 5%": [np.percentile(self.random_omegas, 5)],
                "median": [np.median(self.random_omegas)],
                "95%": [np.percentile(self.random_omegas, 95)],
                "random sets covering worse": [self.share_random_worse],
            },
            index=[name],
        )


def compare_with_random(U: np.ndarray, n_random: int = 100, seed: int = 0) -> RandomComparison:
    """Is a suite's set of benchmark directions as spread out as random directions? (the quasi-uniformity
    that Theorem 2(a)'s rate needs, checked against i.i.d. uniform directions of the same m and d).

    Raises
    ------
    ValueError
        Directions that do not span R^d, or n_random < 1.
    """
    Uu = unit_directions(U)
    if n_random < 1:
        raise ValueError(f"n_random must be at least 1, got {n_random}")
    m, d = Uu.shape
    omega = covering_radius(Uu).omega
    rng = np.random.default_rng(seed)
    rand = np.array([covering_radius(random_directions(m, d, rng)).omega for _ in range(n_random)])
    return RandomComparison(float(omega), rand, m, d)
