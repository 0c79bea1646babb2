"""Widths on the sphere, read by a least-squares spherical-harmonic fit (Theorem 3 in D = 3, C^{1,α} bodies).

An origin-symmetric body K in R^3 has support function h = w/2 (half its widths) and h(-u) = h(u), so
m widths at unit directions u_1..u_m give m samples of an even function on S². This module fits them by
real spherical harmonics of even degree at most L, by least squares, and measures the error
sup_u |ĥ(u) - h(u)| on a dense set of directions.

Rate. Theorem 3's C^{1,α} bound in the paper's appendix, δ_H <= C_D (ε + M m^{-(1+α)/(D-1)}), is for
D = 3 (no noise, ε = 0) m^{-(1+α)/2}. The best approximation of a C^{1,α} function on S² by spherical
harmonics of degree L is O(L^{-(1+α)}) (Jackson's theorem on the sphere; Ragozin 1971), and m points
determine a fit of degree L ~ sqrt(m): hence the exponent -(1+α)/2 in m.

Test bodies (:class:`ZonalPowerBody`): h(u) = 1 + c |<u, e>|^{1+α}, which is C^{1,α} and no smoother on
the great circle orthogonal to the axis e. For a body of revolution with support function h(θ) (θ the
angle to the axis) the principal radii of curvature are h + h'' (meridian) and h + h' cot θ (parallel);
here they are 1 - cα|cos θ|^{1+α} + c(1+α)α|cos θ|^{α-1} sin²θ and 1 - cα|cos θ|^{1+α}, both >= 1 - cα,
so the body is convex for cα < 1.

The harmonics are scipy's (:func:`scipy.special.sph_harm_y`); the real basis is the usual one:
Y_n^0, sqrt(2) Re Y_n^k and sqrt(2) Im Y_n^k (k = 1..n), orthonormal on S².
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import sph_harm_y

from blindspot.core.convex_bodies import check_unit_vectors
from blindspot.tomography.reconstruction import ErrorCurve, fibonacci_sphere

__all__ = [
    "n_even_harmonics",
    "real_even_harmonics",
    "ZonalPowerBody",
    "HarmonicFit",
    "harmonic_fit",
    "harmonic_recovery_error",
    "harmonic_error_curves",
    "DEFAULT_EVAL_POINTS",
]

#: Directions on which the fitted support function is compared with the true one (Fibonacci points).
DEFAULT_EVAL_POINTS = 4000


def _check_degree(degree: int) -> int:
    if int(degree) != degree or degree < 0 or degree % 2:
        raise ValueError(f"the degree must be an even integer >= 0 (an even support function), got {degree!r}")
    return int(degree)


def n_even_harmonics(degree: int) -> int:
    """Number of real spherical harmonics of even degree <= L: sum over even n of (2n + 1) = (L + 1)(L + 2)/2."""
    L = _check_degree(degree)
    return (L + 1) * (L + 2) // 2


def real_even_harmonics(u: np.ndarray, degree: int) -> np.ndarray:
    """The real orthonormal spherical harmonics of even degree <= L at unit vectors u: an (N, (L+1)(L+2)/2) matrix.

    Columns per degree n: Y_n^0, then sqrt(2) Re Y_n^k and sqrt(2) Im Y_n^k for k = 1..n
    (:func:`scipy.special.sph_harm_y`, polar angle first).
    """
    uu = check_unit_vectors(u, 3)
    L = _check_degree(degree)
    theta = np.arccos(np.clip(uu[:, 2], -1.0, 1.0))
    phi = np.arctan2(uu[:, 1], uu[:, 0])
    cols = []
    for n in range(0, L + 1, 2):
        Y = sph_harm_y(n, np.arange(n + 1)[:, None], theta[None, :], phi[None, :])  # (n + 1, N)
        cols += [Y[:1].real, np.sqrt(2.0) * Y[1:].real, np.sqrt(2.0) * Y[1:].imag]
    return np.vstack(cols).T


@dataclass(frozen=True)
class ZonalPowerBody:
    """The origin-symmetric body with h(u) = 1 + c |<u, axis>|^{1+α} (C^{1,α} on the axis' equator).

    Convex for c α < 1: its smallest principal radius of curvature is 1 - c α (module docstring).
    """

    alpha: float
    c: float = 0.3
    axis: tuple[float, float, float] = (0.0, 0.0, 1.0)

    def __post_init__(self) -> None:
        if not 0 < self.alpha <= 1:
            raise ValueError(f"alpha must lie in (0, 1], got {self.alpha}")
        if not 0 <= self.c < 1 / self.alpha:
            raise ValueError(f"c must lie in [0, 1/alpha) = [0, {1 / self.alpha:.3g}) for a convex body, got {self.c}")
        if abs(np.linalg.norm(self.axis) - 1) > 1e-9:
            raise ValueError(f"axis must be a unit vector, got {self.axis}")

    @property
    def name(self) -> str:
        return f"h = 1 + {self.c:g}|u3|^{1 + self.alpha:g}"

    @property
    def min_radius(self) -> float:
        """Smallest principal radius of curvature, 1 - c α (> 0: the body is convex)."""
        return 1.0 - self.c * self.alpha

    def support(self, u: np.ndarray) -> np.ndarray:
        uu = check_unit_vectors(u, 3)
        return 1.0 + self.c * np.abs(uu @ np.asarray(self.axis)) ** (1.0 + self.alpha)

    def width(self, u: np.ndarray) -> np.ndarray:
        """w(u) = h(u) + h(-u) = 2 h(u)."""
        return 2.0 * self.support(u)


@dataclass(frozen=True, eq=False)
class HarmonicFit:
    """A least-squares fit of even real spherical harmonics to support values h = w/2."""

    degree: int
    coefficients: np.ndarray
    n_directions: int
    rank: int

    def support(self, u: np.ndarray) -> np.ndarray:
        """The fitted support function ĥ at unit vectors u."""
        return real_even_harmonics(u, self.degree) @ self.coefficients


def harmonic_fit(directions: np.ndarray, widths: np.ndarray, degree: int) -> HarmonicFit:
    """Fit ĥ = sum_j c_j Y_j (even degrees <= L) to h = w/2 at the m directions by least squares.

    Raises
    ------
    ValueError
        When m is smaller than the number of coefficients (L + 1)(L + 2)/2: choose a smaller degree
        (the fit needs more widths than unknowns).
    """
    u = check_unit_vectors(directions, 3)
    w = np.asarray(widths, dtype=float).ravel()
    if w.shape != (u.shape[0],) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"widths must be {u.shape[0]} finite non-negative numbers, one per direction")
    p = n_even_harmonics(degree)
    if u.shape[0] < p:
        raise ValueError(
            f"{u.shape[0]} widths cannot determine {p} coefficients of degree {degree}; "
            f"use at least {p} directions or a smaller degree"
        )
    coef, _, rank, _ = np.linalg.lstsq(real_even_harmonics(u, degree), w / 2.0, rcond=None)
    return HarmonicFit(int(degree), coef, int(u.shape[0]), int(rank))


def harmonic_recovery_error(body: ZonalPowerBody, m: int, degree: int, eval_points: int = DEFAULT_EVAL_POINTS) -> float:
    """sup over ``eval_points`` Fibonacci directions of |ĥ - h|, ĥ fitted to the widths at m Fibonacci directions."""
    u = fibonacci_sphere(m)
    fit = harmonic_fit(u, body.width(u), degree)
    g = fibonacci_sphere(eval_points)
    return float(np.max(np.abs(fit.support(g) - body.support(g))))


def harmonic_error_curves(
    bodies: Sequence[ZonalPowerBody],
    degrees: Sequence[int],
    points_per_degree2: float = 4.0,
    eval_points: int = DEFAULT_EVAL_POINTS,
) -> list[ErrorCurve]:
    """:func:`harmonic_recovery_error` of each body for each even degree L of ``degrees``, from
    m = ceil(points_per_degree2 · L²) widths at Fibonacci directions.

    With the default 4, L = sqrt(m)/2: about 8 widths per coefficient, so the least-squares fit stays
    well conditioned. The bodies share the harmonics matrices (they are the expensive part). Returns one
    :class:`~blindspot.tomography.reconstruction.ErrorCurve` per body (method 'harmonic', dim 3) whose
    ``ms`` are the numbers of widths.
    """
    if points_per_degree2 <= 0.5:
        raise ValueError(
            f"points_per_degree2 must exceed 1/2 (more widths than coefficients), got {points_per_degree2}"
        )
    Ls = [_check_degree(L) for L in degrees]
    if not Ls or min(Ls) < 2:
        raise ValueError(f"degrees must be even integers >= 2, got {list(degrees)}")
    if not bodies:
        raise ValueError("give at least one body")
    ms = np.array([int(np.ceil(points_per_degree2 * L * L)) for L in Ls])
    g = fibonacci_sphere(eval_points)
    errs = np.zeros((len(bodies), len(Ls)))
    for j, (m, L) in enumerate(zip(ms, Ls)):
        u = fibonacci_sphere(int(m))
        A, B = real_even_harmonics(u, L), real_even_harmonics(g, L)
        H = np.column_stack([b.width(u) / 2.0 for b in bodies])
        coef, *_ = np.linalg.lstsq(A, H, rcond=None)
        truth = np.column_stack([b.support(g) for b in bodies])
        errs[:, j] = np.max(np.abs(B @ coef - truth), axis=0)
    return [ErrorCurve(b.name, "harmonic", ms.copy(), errs[i], 1, dim=3) for i, b in enumerate(bodies)]
