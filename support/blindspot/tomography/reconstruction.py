"""Recovering a convex body from m widths: Theorem 3 (Problem 1.5 of Gardner's *Geometric Tomography*).

Setting.  K is origin-symmetric, so its support function is h = w/2 and the m widths
w(θ_j) at equally spaced directions θ_j = ψ + πj/m give h at 2m equally spaced normals (±u_j).
Two reconstructions:

* **half-plane (polygonal)**: the outer polygon P = ∩_j {x : |<x, u_j>| <= w_j/2}
  (``scipy.spatial.HalfspaceIntersection``).  P ⊇ K and, with Δ = π/m,
  δ_H(P, K) <= R tan(Δ/2) for every K in the disc of radius R (Lipschitz class; the paper's
  planar bound πR/m of App. C.1 is weaker), and δ_H(P, K) <= Δ tan(Δ/2) / (2κ) ≈ π²/(4κm²) when the
  curvature of K is >= κ (radius of curvature <= 1/κ).  Derivation (the book's): the vertex x_j of P
  between the support points p_j, p_{j+1} sees them under the angle π - Δ, so its distance to
  the segment [p_j, p_{j+1}] ⊂ K is at most |p_j - p_{j+1}| tan(Δ/2)/2, and |p_j - p_{j+1}| is
  at most 2R (any body) or the arc length Δ/κ (curvature >= κ).
* **trigonometric interpolation**: h(θ) is π-periodic, so in φ = 2(θ - ψ) the samples h_j
  are equally spaced on [0, 2π) and the degree-⌊m/2⌋ trigonometric interpolant (Nyquist term
  split for even m) is evaluated by zero-padded FFT.

Rates (D = 2): Lipschitz bodies (polygons) Θ(1/m); curvature >= κ: Θ(1/(κm²)); C^{1,α}
support functions (the β-rate of the paper's proof): Θ(m^{-(1+α)}).  General D with quasi-uniform directions:
m^{-2/(D-1)} (curvature bounded below) and m^{-1/(D-1)} (polytopes), checked here on S² with a
Fibonacci point set and the outer polytope.

Lower bound: the disc witness (the book's construction).  g(θ) = ε sin(2mθ) vanishes at every θ_j and is
π-periodic, so the disc of radius r and the body with support function r + g have the same m
widths; r + g is convex iff ε(4m² - 1) <= r, and δ_H = ε.  With r = 1/(2κ) both bodies have
curvature >= κ, so every estimator errs by at least 1/(4κ(4m² - 1)) on one of them.

Side claims of the paper's Theorem 3 that do not hold, each with a numeric check here:
the paper's rate R/(κ m^{2/(D-1)}) is not 1-homogeneous under dilation
(:func:`homogeneity_check`); "X-rays give the same rate" contradicts Gardner–McMullen
(:func:`xray_parity_example`: two bodies with equal widths but different X-rays).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats
from scipy.fft import irfft, rfft
from scipy.spatial import ConvexHull, HalfspaceIntersection, QhullError
from scipy.spatial.transform import Rotation

from blindspot.core.convex_bodies import (
    Body3D,
    Disc,
    PlanarBody,
    TrigBody,
    check_unit_vectors,
    discrete_convexity_slack,
    polygon_support,
    unit_vectors,
)

__all__ = [
    "equally_spaced_angles",
    "measure_widths",
    "PolygonReconstruction",
    "halfplane_reconstruction",
    "TrigReconstruction",
    "trig_reconstruction",
    "WidthPicture",
    "width_picture",
    "recovery_error",
    "ErrorCurve",
    "error_curve",
    "RateFit",
    "fit_rate",
    "lipschitz_bound_paper",
    "halfplane_bound_lipschitz",
    "halfplane_bound_curvature",
    "minimax_lower_bound",
    "paper_rate",
    "theoretical_exponent",
    "radius_of_curvature",
    "DiscWitness",
    "disc_witness",
    "HomogeneityCheck",
    "homogeneity_check",
    "xray",
    "XrayParity",
    "xray_parity_example",
    "fibonacci_sphere",
    "PolytopeReconstruction",
    "halfspace_reconstruction_3d",
    "recovery_error_3d",
    "error_curve_3d",
    "METHODS",
]

METHODS = ("halfplane", "trig")
#: Default number of evaluation directions per half-turn (spacing π/10000: a 20,001-point grid per turn).
DEFAULT_HALF_GRID = 10_000


# --------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------


def _check_m(m: int) -> int:
    if isinstance(m, bool) or int(m) != m:
        raise ValueError(f"m (the number of widths) must be an integer, got {m!r}")
    if m < 3:
        raise ValueError(
            f"need at least m = 3 widths, got m = {m}: one width leaves the body unbounded and two only "
            "give a parallelogram, so no rate can be measured"
        )
    return int(m)


def _parse_directions(directions: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Angles (m,) or unit vectors (m, 2) -> (angles, unit vectors)."""
    d = np.asarray(directions, dtype=float)
    if d.ndim == 1:
        if not np.all(np.isfinite(d)):
            raise ValueError("direction angles must be finite")
        return d, unit_vectors(d)
    if d.ndim == 2 and d.shape[1] == 2:
        u = check_unit_vectors(d, 2)
        return np.arctan2(u[:, 1], u[:, 0]), u
    raise ValueError(f"directions must be angles of shape (m,) or unit vectors of shape (m, 2), got {d.shape}")


def _check_widths(widths: ArrayLike, m: int) -> np.ndarray:
    w = np.asarray(widths, dtype=float)
    if w.shape != (m,):
        raise ValueError(f"need one width per direction: {m} directions but widths has shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("widths must be positive and finite (a width is h(u) + h(-u) > 0 for a body with interior)")
    return w


def _check_symmetric(body: PlanarBody) -> None:
    if not body.is_origin_symmetric():
        raise ValueError(
            f"{body.name!r} is not origin-symmetric: widths determine only its central symmetral ½(K - K). "
            "Measure the error against central_symmetral(body), or centre a symmetric body at the origin."
        )


# --------------------------------------------------------------------------------------
# measurements and reconstructions (D = 2)
# --------------------------------------------------------------------------------------


def equally_spaced_angles(m: int, offset: float = 0.0) -> np.ndarray:
    """θ_j = offset + πj/m, j = 0..m-1: m equally spaced width directions (u and -u give the same width)."""
    m = _check_m(m)
    if not np.isfinite(offset):
        raise ValueError("offset must be finite")
    return offset + np.pi * np.arange(m) / m


def measure_widths(body: PlanarBody, directions: ArrayLike) -> np.ndarray:
    """w(θ_j) = h(θ_j) + h(θ_j + π) at angles (m,) or unit vectors (m, 2)."""
    theta, _ = _parse_directions(directions)
    return body.width(theta)


@dataclass(frozen=True, eq=False)
class PolygonReconstruction:
    """The outer polygon ∩_j {|<x, u_j>| <= w_j/2}; ``vertices`` counter-clockwise."""

    vertices: np.ndarray
    directions: np.ndarray
    widths: np.ndarray

    def support(self, theta: ArrayLike) -> np.ndarray:
        """h_P(θ) = max over vertices of <v, u(θ)>."""
        return polygon_support(self.vertices, theta)


def halfplane_reconstruction(directions: ArrayLike, widths: ArrayLike) -> PolygonReconstruction:
    """Polygonal reconstruction of an origin-symmetric body from m widths.

    P = ∩_{j} {x : <x, u_j> <= w_j/2} ∩ {x : <x, -u_j> <= w_j/2}, computed with
    ``scipy.spatial.HalfspaceIntersection`` (interior point: the origin).  Noisy or inconsistent
    widths are fine: the intersection is then the largest polygon compatible with all slabs.

    Parameters
    ----------
    directions : array (m,) of angles or (m, 2) of unit vectors, m >= 3, not all parallel.
    widths : array (m,), positive.
    """
    theta, u = _parse_directions(directions)
    m = _check_m(theta.size)
    w = _check_widths(widths, m)
    if np.max(np.abs(np.sin(theta - theta[0]))) < 1e-9:
        raise ValueError(
            "all directions are parallel: the slabs do not bound a polygon; use at least two different directions"
        )
    halfspaces = np.vstack([np.column_stack([u, -w / 2]), np.column_stack([-u, -w / 2])])
    try:
        hs = HalfspaceIntersection(halfspaces, np.zeros(2))
        hull = ConvexHull(hs.intersections)
    except QhullError as exc:  # pragma: no cover - guarded by the checks above
        raise ValueError(f"half-plane intersection failed ({exc}); check that the directions span the plane") from exc
    verts = hs.intersections[hull.vertices]
    return PolygonReconstruction(verts, u, w)


def _trig_coefficients(samples: np.ndarray) -> np.ndarray:
    """Coefficients c_k (k = 0..⌊m/2⌋) of the real trigonometric interpolant Re(c_0 + 2 Σ_{k>=1} c_k e^{ikφ}).

    c = rfft(samples)/m; for even m the Nyquist coefficient is halved so that the interpolant
    contains c_{m/2} cos(mφ/2) (the symmetric choice).
    """
    m = samples.size
    c = rfft(samples) / m
    if m % 2 == 0:
        c[-1] *= 0.5
    return c


def _trig_upsample(samples: np.ndarray, n_out: int) -> np.ndarray:
    """Interpolant at φ = 2πi/n_out (i < n_out), n_out a multiple of m with n_out >= 2m."""
    m = samples.size
    if n_out % m or n_out < 2 * m:
        raise ValueError("n_out must be a multiple of m with n_out >= 2m")
    c = _trig_coefficients(samples)
    big = np.zeros(n_out // 2 + 1, dtype=complex)
    big[: c.size] = c
    return irfft(big * n_out, n=n_out)


@dataclass(frozen=True, eq=False)
class TrigReconstruction:
    """Trigonometric interpolant of h = w/2 in φ = 2(θ - offset): h(θ) = Re(c_0 + 2 Σ c_k e^{ikφ})."""

    coefficients: np.ndarray
    offset: float
    m: int

    @staticmethod
    def _horner(coef: np.ndarray, z: np.ndarray) -> np.ndarray:
        """Σ_k coef_k z^k by Horner's rule (stable for |z| = 1, O(n·K) real work, no exp of a matrix)."""
        acc = np.full(z.shape, coef[-1], dtype=complex)
        for ck in coef[-2::-1]:
            acc = acc * z + ck
        return acc

    def support(self, theta: ArrayLike) -> np.ndarray:
        t = np.asarray(theta, dtype=float)
        z = np.exp(2j * (t - self.offset))
        return 2.0 * self._horner(self.coefficients, z).real - self.coefficients[0].real

    def derivative(self, theta: ArrayLike) -> np.ndarray:
        """ĥ'(θ) = Re(2 Σ_{k>=1} 2ik c_k e^{ikφ}), φ = 2(θ - offset)."""
        t = np.asarray(theta, dtype=float)
        z = np.exp(2j * (t - self.offset))
        k = np.arange(self.coefficients.size)
        return 2.0 * self._horner(2j * k * self.coefficients, z).real

    def boundary(self, n: int = 720) -> np.ndarray:
        """Envelope x(θ) = ĥ u + ĥ' u' of the support lines (n, 2); it has swallowtails where ĥ is not convex."""
        t = 2 * np.pi * np.arange(int(n)) / int(n)
        return self.support(t)[:, None] * unit_vectors(t) + self.derivative(t)[:, None] * unit_vectors(t + np.pi / 2)


def trig_reconstruction(widths: ArrayLike, offset: float = 0.0) -> TrigReconstruction:
    """Trigonometric interpolation of h = w/2 from widths at θ_j = offset + πj/m (equally spaced).

    The interpolant is exact for support functions that are trigonometric polynomials of
    degree < m (in θ, even harmonics only) and converges like the best approximation times the
    Lebesgue constant O(log m) otherwise (the log m of Theorem 2(c)'s ε log m).  It need not be convex.
    """
    w = np.asarray(widths, dtype=float)
    if w.ndim != 1:
        raise ValueError(f"widths must be a 1-D array, got shape {w.shape}")
    m = _check_m(w.size)
    w = _check_widths(w, m)
    if not np.isfinite(offset):
        raise ValueError("offset must be finite")
    return TrigReconstruction(_trig_coefficients(w / 2.0), float(offset), m)


def recovery_error(
    body: PlanarBody, m: int, method: str = "halfplane", n_rot: int = 1, n_grid: int = DEFAULT_HALF_GRID
) -> float:
    """Worst-case Hausdorff error of recovering ``body`` from m equally spaced widths.

    For each of ``n_rot`` offsets ψ_k = kπ/(m·n_rot) (equivalently, rotations of the body that
    sweep one sampling cell) the widths at ψ_k + πj/m are reconstructed with ``method``
    ('halfplane' or 'trig') and the error sup_θ |ĥ - h| is evaluated on ``n_grid`` (at least)
    equally spaced directions of a half-turn (both functions are π-periodic).  Returns the
    maximum over offsets: a worst case over a rotation family, which removes the aliasing
    oscillations of a single alignment.
    """
    m = _check_m(m)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if int(n_rot) != n_rot or n_rot < 1:
        raise ValueError(f"n_rot must be a positive integer, got {n_rot!r}")
    if int(n_grid) != n_grid or n_grid < 16:
        raise ValueError(f"n_grid must be an integer >= 16, got {n_grid!r}")
    _check_symmetric(body)
    worst = 0.0
    for k in range(int(n_rot)):
        psi = k * np.pi / (m * n_rot)
        theta = equally_spaced_angles(m, psi)
        w = body.width(theta)
        if method == "halfplane":
            n = int(n_grid)
            grid = psi + np.pi * np.arange(n) / n
            est = halfplane_reconstruction(theta, w).support(grid)
        else:
            n = m * max(2, -(-int(n_grid) // m))
            grid = psi + np.pi * np.arange(n) / n
            est = _trig_upsample(w / 2.0, n)
        worst = max(worst, float(np.max(np.abs(est - body.support(grid)))))
    return worst


@dataclass(frozen=True, eq=False)
class ErrorCurve:
    """Recovery errors of one body and method at several m."""

    body: str
    method: str
    ms: np.ndarray
    errors: np.ndarray
    n_rot: int
    dim: int = 2


def error_curve(
    body: PlanarBody, ms: Sequence[int], method: str = "halfplane", n_rot: int = 1, n_grid: int = DEFAULT_HALF_GRID
) -> ErrorCurve:
    """:func:`recovery_error` at each m of ``ms``."""
    ms_arr = np.asarray([_check_m(m) for m in ms], dtype=int)
    errs = np.array([recovery_error(body, int(m), method, n_rot, n_grid) for m in ms_arr])
    return ErrorCurve(body.name, method, ms_arr, errs, int(n_rot))


@dataclass(frozen=True, eq=False)
class WidthPicture:
    """Everything needed to draw a body, its m width slabs and both reconstructions (issue figure).

    ``error_halfplane`` and ``error_trig`` are δ_H to the body itself (full circle), so for a body
    that is not origin-symmetric they stay at the distance to its central symmetral.
    """

    body: str
    m: int
    theta: np.ndarray
    widths: np.ndarray
    body_boundary: np.ndarray
    polygon: np.ndarray
    trig_boundary: np.ndarray
    error_halfplane: float
    error_trig: float


def width_picture(body: PlanarBody, m: int, offset: float = 0.0, n_boundary: int = 720) -> WidthPicture:
    """Measure m widths of ``body`` at offset + πj/m and reconstruct it both ways."""
    theta = equally_spaced_angles(m, offset)
    w = body.width(theta)
    poly = halfplane_reconstruction(theta, w)
    trig = trig_reconstruction(w, offset)
    grid = 2 * np.pi * np.arange(2 * DEFAULT_HALF_GRID) / (2 * DEFAULT_HALF_GRID)
    h = body.support(grid)
    return WidthPicture(
        body.name,
        int(m),
        theta,
        w,
        body.boundary(n_boundary),
        poly.vertices,
        trig.boundary(n_boundary),
        float(np.max(np.abs(poly.support(grid) - h))),
        float(np.max(np.abs(trig.support(grid) - h))),
    )


# --------------------------------------------------------------------------------------
# rates
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RateFit:
    """OLS fit log(error) = intercept + slope·log(m) on m_min <= m <= m_max, with a t interval for the slope."""

    slope: float
    stderr: float
    ci_low: float
    ci_high: float
    intercept: float
    r_squared: float
    conf: float
    m_min: int
    m_max: int
    n_points: int

    def predict(self, m: ArrayLike) -> np.ndarray:
        """Fitted error exp(intercept)·m^slope."""
        return np.exp(self.intercept) * np.asarray(m, dtype=float) ** self.slope


def fit_rate(
    ms: ArrayLike, errors: ArrayLike, m_min: float | None = None, m_max: float | None = None, conf: float = 0.95
) -> RateFit:
    """Slope of log error against log m by ``scipy.stats.linregress`` with a Student-t interval.

    Only points with m_min <= m <= m_max enter (the asymptotic range).  The interval is
    slope ± t_{(1+conf)/2, n-2}·stderr; it measures scatter about the power law on this range,
    not the distance to the asymptote.
    """
    m = np.asarray(ms, dtype=float)
    e = np.asarray(errors, dtype=float)
    if m.shape != e.shape or m.ndim != 1:
        raise ValueError(f"ms and errors must be 1-D arrays of the same length, got {m.shape} and {e.shape}")
    if not 0 < conf < 1:
        raise ValueError(f"conf must lie in (0, 1), got {conf}")
    keep = np.ones(m.shape, dtype=bool)
    if m_min is not None:
        keep &= m >= m_min
    if m_max is not None:
        keep &= m <= m_max
    m, e = m[keep], e[keep]
    if m.size < 3:
        raise ValueError(f"need at least 3 points in the fit range [{m_min}, {m_max}], got {m.size}")
    if not np.all(np.isfinite(e)) or np.any(e <= 0):
        bad = m[~(np.isfinite(e) & (e > 0))]
        raise ValueError(
            f"errors must be positive and finite to fit a power law; m = {bad.astype(int).tolist()} "
            "give 0 (exact recovery) or a non-number: exclude them with m_max"
        )
    if np.unique(m).size < 3:
        raise ValueError("need at least 3 distinct m values")
    res = stats.linregress(np.log(m), np.log(e))
    tq = stats.t.ppf(0.5 + conf / 2, m.size - 2)
    return RateFit(
        slope=float(res.slope),
        stderr=float(res.stderr),
        ci_low=float(res.slope - tq * res.stderr),
        ci_high=float(res.slope + tq * res.stderr),
        intercept=float(res.intercept),
        r_squared=float(res.rvalue**2),
        conf=float(conf),
        m_min=int(m.min()),
        m_max=int(m.max()),
        n_points=int(m.size),
    )


def lipschitz_bound_paper(R: float, m: ArrayLike) -> np.ndarray:
    """The paper's planar Lipschitz bound (App. C.1) with noise ε = 0: δ_H <= πR/m."""
    return np.pi * R / np.asarray(m, dtype=float)


def halfplane_bound_lipschitz(R: float, m: ArrayLike) -> np.ndarray:
    """Half-plane reconstruction error bound for any body in the disc of radius R: R tan(π/(2m)) (the book's)."""
    return R * np.tan(np.pi / (2 * np.asarray(m, dtype=float)))


def halfplane_bound_curvature(kappa: float, m: ArrayLike) -> np.ndarray:
    """Half-plane error bound for curvature >= κ: (π/m) tan(π/(2m)) / (2κ) ≈ π²/(4κm²) (the book's)."""
    if not kappa > 0:
        raise ValueError(
            f"kappa must be positive (a body with flat sides has κ = 0: use the Lipschitz bound), got {kappa}"
        )
    mm = np.asarray(m, dtype=float)
    return (np.pi / mm) * np.tan(np.pi / (2 * mm)) / (2 * kappa)


def minimax_lower_bound(kappa: float, m: ArrayLike) -> np.ndarray:
    """Every estimator from m widths errs by >= 1/(4κ(4m² - 1)) somewhere on the class curvature >= κ.

    Half the Hausdorff distance of the disc witness with r = 1/(2κ) (:func:`disc_witness`).
    """
    if not kappa > 0:
        raise ValueError(f"kappa must be positive, got {kappa}")
    mm = np.asarray(m, dtype=float)
    return 1.0 / (4 * kappa * (4 * mm**2 - 1))


def paper_rate(R: float, kappa: float, m: ArrayLike, D: int = 2) -> np.ndarray:
    """The paper's stated rate R/(κ m^{2/(D-1)}) (Theorem 3 as the main text states it)."""
    if D < 2:
        raise ValueError(f"D must be >= 2, got {D}")
    return R / (kappa * np.asarray(m, dtype=float) ** (2.0 / (D - 1)))


def theoretical_exponent(D: int, body_class: str, beta: float | None = None) -> float:
    """Exponent of m in the minimax rate: 'curvature' -2/(D-1), 'polytope' -1/(D-1), 'beta' -(2-β)/(D-1)."""
    if int(D) != D or D < 2:
        raise ValueError(f"D must be an integer >= 2, got {D}")
    if body_class == "curvature":
        return -2.0 / (D - 1)
    if body_class == "polytope":
        return -1.0 / (D - 1)
    if body_class == "beta":
        if beta is None or not 0 <= beta <= 1:
            raise ValueError("beta-rate needs 0 <= beta <= 1 (beta > 1 is the polytope rate)")
        return -(2.0 - beta) / (D - 1)
    raise ValueError(f"body_class must be 'curvature', 'polytope' or 'beta', got {body_class!r}")


def radius_of_curvature(body: PlanarBody, n_grid: int = 4096) -> np.ndarray:
    """ρ(θ) = h(θ) + h''(θ) on n_grid equally spaced directions of the full circle, from the support function.

    Uses the discrete slack s_i of :func:`blindspot.core.convex_bodies.discrete_convexity_slack`,
    ρ(θ_i) ≈ 2 s_i / Δ² (error O(Δ²) for smooth h). The curvature of ∂K at the point with outer normal
    u(θ) is 1/ρ(θ): a radius of curvature is the reciprocal of a curvature.
    """
    if int(n_grid) != n_grid or n_grid < 8:
        raise ValueError(f"n_grid must be an integer >= 8, got {n_grid!r}")
    t = np.arange(int(n_grid)) * (2.0 * np.pi / n_grid)
    return 2.0 * discrete_convexity_slack(body.support(t)) / (2.0 * np.pi / n_grid) ** 2


# --------------------------------------------------------------------------------------
# lower-bound witness
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscWitness:
    """Disc of radius r and its perturbation r + ε sin(2mθ), equal at the m width directions πj/m."""

    radius: float
    m: int
    epsilon: float
    fraction: float

    def perturbation(self, theta: ArrayLike) -> np.ndarray:
        """g(θ) = ε sin(2mθ)."""
        return self.epsilon * np.sin(2 * self.m * np.asarray(theta, dtype=float))

    def radius_of_curvature(self, theta: ArrayLike) -> np.ndarray:
        """ρ = h + h'' of the perturbed body: r + ε(1 - 4m²) sin(2mθ)."""
        return self.radius + self.epsilon * (1 - 4 * self.m**2) * np.sin(2 * self.m * np.asarray(theta, dtype=float))

    @property
    def hausdorff(self) -> float:
        """δ_H(disc, perturbed) = sup |g| = ε."""
        return self.epsilon

    @property
    def kappa(self) -> float:
        """Curvature lower bound of both bodies: 1 / (r + ε(4m² - 1))."""
        return 1.0 / (self.radius + self.epsilon * (4 * self.m**2 - 1))

    def bodies(self) -> tuple[Disc, TrigBody]:
        """(disc, perturbed body) as :class:`PlanarBody` objects."""
        sin = np.zeros(2 * self.m)
        sin[-1] = self.epsilon
        return Disc(self.radius), TrigBody(self.radius, (), tuple(sin), name=f"disc + ε sin({2 * self.m}θ)")


def disc_witness(radius: float, m: int, fraction: float = 1.0) -> DiscWitness:
    """Lower-bound witness (the book's): ε = fraction · r/(4m² - 1), convex iff fraction <= 1.

    The two bodies have identical widths in the m directions πj/m and δ_H = ε, so no estimator
    can beat ε/2 on both.  With fraction = 1 and r = 1/(2κ) both have curvature >= κ.
    """
    m = _check_m(m)
    if not (np.isfinite(radius) and radius > 0):
        raise ValueError(f"radius must be positive, got {radius}")
    if not 0 < fraction <= 1:
        raise ValueError(
            f"fraction must lie in (0, 1]; above 1 the perturbed support function is not convex (got {fraction})"
        )
    return DiscWitness(float(radius), m, fraction * radius / (4 * m**2 - 1), float(fraction))


# --------------------------------------------------------------------------------------
# Theorem 3's side claims: dimensional homogeneity and X-ray parity
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class HomogeneityCheck:
    """Error of t·K against the paper's R/(κm²) and the corrected 1/(κm²) as the scale t varies.

    ``error_exponent`` is the fitted exponent of t in the measured error (1 for any valid rate);
    the paper's quantity has exponent 2, so error / paper_rate varies like 1/t.
    """

    body: str
    m: int
    method: str
    scales: np.ndarray
    errors: np.ndarray
    paper_rate: np.ndarray
    corrected_rate: np.ndarray
    error_exponent: float
    paper_exponent: float

    @property
    def paper_ratio(self) -> np.ndarray:
        """error / (R/(κm²)): constant if the paper's rate were right; it scales like 1/t."""
        return self.errors / self.paper_rate

    @property
    def corrected_ratio(self) -> np.ndarray:
        """error / (1/(κm²)): constant in t."""
        return self.errors / self.corrected_rate


def homogeneity_check(
    body: PlanarBody, m: int, scales: Sequence[float], method: str = "halfplane", n_rot: int = 4
) -> HomogeneityCheck:
    """Measure the recovery error of t·K for each t and compare with R/(κm²) (paper) and 1/(κm²).

    Dilation maps every reconstruction of K to that of t·K, so the error is exactly 1-homogeneous
    in t; R/κ is a length², so the paper's rate scales like t²: it is not
    dimensionally consistent.
    """
    m = _check_m(m)
    s = np.asarray(scales, dtype=float)
    if s.ndim != 1 or s.size < 2 or np.any(~np.isfinite(s)) or np.any(s <= 0):
        raise ValueError("scales must be at least two positive numbers")
    if not body.kappa > 0:
        raise ValueError(
            f"{body.name!r} has κ = 0 (flat sides); the homogeneity check needs a body with curvature >= κ > 0"
        )
    errs, pr, cr = [], [], []
    for t in s:
        b = body.dilate(float(t))
        errs.append(recovery_error(b, m, method, n_rot))
        pr.append(float(paper_rate(b.circumradius(), b.kappa, m)))
        cr.append(1.0 / (b.kappa * m**2))
    errs_a = np.asarray(errs)
    exp_err = float(np.polyfit(np.log(s), np.log(errs_a), 1)[0])
    exp_paper = float(np.polyfit(np.log(s), np.log(np.asarray(pr)), 1)[0])
    return HomogeneityCheck(body.name, m, method, s, errs_a, np.asarray(pr), np.asarray(cr), exp_err, exp_paper)


def xray(body: PlanarBody, angle: float, offsets: ArrayLike, n_normals: int = 8192) -> np.ndarray:
    """Parallel X-ray of K in direction u(angle): chord length of K ∩ {t·v + s·u : s ∈ R} for each offset t.

    v = u(angle + π/2).  K is replaced by its outer polygon with ``n_normals`` equally spaced
    normals (Hausdorff error O(R/n_normals²) for smooth bodies); the chord of a polygon
    {x : <a_i, x> <= b_i} is max(0, min upper - max lower) over the constraints s·<a_i, u> <= b_i - t<a_i, v>.
    """
    if int(n_normals) != n_normals or n_normals < 16:
        raise ValueError(f"n_normals must be an integer >= 16, got {n_normals!r}")
    t = np.asarray(offsets, dtype=float)
    normals_theta = 2 * np.pi * np.arange(int(n_normals)) / int(n_normals)
    a = unit_vectors(normals_theta)
    b = body.support(normals_theta)
    u, v = unit_vectors(angle), unit_vectors(angle + np.pi / 2)
    au, av = a @ u, a @ v
    pos, neg = au > 1e-12, au < -1e-12
    flat = ~(pos | neg)
    tf = t.ravel()
    out = np.empty(tf.size)
    step = max(1, 4_000_000 // int(n_normals))  # offsets per chunk: bounded memory
    for s in range(0, tf.size, step):
        rhs = b[None, :] - tf[s : s + step, None] * av[None, :]
        upper = np.min(rhs[:, pos] / au[pos], axis=1)
        lower = np.max(rhs[:, neg] / au[neg], axis=1)
        feasible = np.all(rhs[:, flat] >= 0, axis=1) if np.any(flat) else True
        out[s : s + step] = np.where(feasible, np.maximum(upper - lower, 0.0), 0.0)
    return out.reshape(t.shape)


@dataclass(frozen=True, eq=False)
class XrayParity:
    """Two bodies with identical widths in m directions whose X-rays in the same directions differ."""

    m: int
    epsilon: float
    width_gap: float
    xray_gaps: np.ndarray
    offsets: np.ndarray
    xray_disc: np.ndarray
    xray_perturbed: np.ndarray

    @property
    def min_xray_gap(self) -> float:
        """Smallest (over the m directions) sup-norm difference of the two X-rays."""
        return float(np.min(self.xray_gaps))


def xray_parity_example(
    m: int = 8, radius: float = 1.0, fraction: float = 0.5, n_offsets: int = 201, n_normals: int = 4096
) -> XrayParity:
    """Widths vs X-rays on the disc witness, against the paper's claim that X-rays give the same rate.

    The disc and the disc + ε sin(2mθ) have the same widths in the m directions πj/m (so widths
    cannot tell them apart), but their X-rays in those same directions differ: X-ray data carry
    strictly more information, and by Gardner–McMullen (1980) X-rays in suitable 4 (any 7)
    directions determine a planar convex body, so no Θ(m^{-2}) noiseless X-ray lower bound holds.
    Returns the width gap (~1e-16) and, per direction, sup_t |X_disc - X_perturbed|.
    """
    wit = disc_witness(radius, m, fraction)
    disc, pert = wit.bodies()
    theta = equally_spaced_angles(m)
    width_gap = float(np.max(np.abs(disc.width(theta) - pert.width(theta))))
    offsets = np.linspace(-radius, radius, int(n_offsets))
    xd = np.stack([xray(disc, th, offsets, n_normals) for th in theta])
    xp = np.stack([xray(pert, th, offsets, n_normals) for th in theta])
    return XrayParity(m, wit.epsilon, width_gap, np.max(np.abs(xd - xp), axis=1), offsets, xd, xp)


# --------------------------------------------------------------------------------------
# D = 3
# --------------------------------------------------------------------------------------


def fibonacci_sphere(m: int) -> np.ndarray:
    """m quasi-uniform unit vectors on S²: z_i = 1 - (2i + 1)/m, longitude i·π(3 - √5) (golden angle)."""
    m = _check_m(m)
    i = np.arange(m)
    z = 1.0 - (2 * i + 1) / m
    r = np.sqrt(1.0 - z * z)
    phi = i * np.pi * (3.0 - np.sqrt(5.0))
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


@dataclass(frozen=True, eq=False)
class PolytopeReconstruction:
    """Outer polytope ∩_j {|<x, u_j>| <= w_j/2} in R^3 (vertices only)."""

    vertices: np.ndarray
    directions: np.ndarray
    widths: np.ndarray

    def support(self, u: ArrayLike) -> np.ndarray:
        uu = check_unit_vectors(u, 3)
        return np.max(uu @ self.vertices.T, axis=1)


def halfspace_reconstruction_3d(directions: ArrayLike, widths: ArrayLike) -> PolytopeReconstruction:
    """Outer polytope of an origin-symmetric body in R^3 from widths in m unit directions (m >= 3, spanning R^3)."""
    u = check_unit_vectors(directions, 3)
    m = _check_m(u.shape[0])
    w = _check_widths(widths, m)
    if np.linalg.matrix_rank(u, tol=1e-9) < 3:
        raise ValueError("directions lie in a plane: the slabs do not bound a polytope; use directions spanning R^3")
    halfspaces = np.vstack([np.column_stack([u, -w / 2]), np.column_stack([-u, -w / 2])])
    hs = HalfspaceIntersection(halfspaces, np.zeros(3))
    return PolytopeReconstruction(hs.intersections, u, w)


def recovery_error_3d(body: Body3D, m: int, n_rot: int = 1, seed: int = 0) -> float:
    """Worst (over ``n_rot`` random rotations of the Fibonacci set) Hausdorff error of the outer polytope.

    Because P ⊇ K, δ_H(P, K) = max over vertices v of P of d(v, K), computed exactly with
    ``body.distance``.  Rotation k = 0 is the identity; the others are seeded uniform rotations.
    """
    m = _check_m(m)
    if int(n_rot) != n_rot or n_rot < 1:
        raise ValueError(f"n_rot must be a positive integer, got {n_rot!r}")
    base = fibonacci_sphere(m)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for k in range(int(n_rot)):
        q = np.eye(3) if k == 0 else Rotation.random(random_state=rng).as_matrix()
        u = base @ q.T
        rec = halfspace_reconstruction_3d(u, body.width(u))
        worst = max(worst, float(np.max(body.distance(rec.vertices))))
    return worst


def error_curve_3d(body: Body3D, ms: Sequence[int], n_rot: int = 1, seed: int = 0) -> ErrorCurve:
    """:func:`recovery_error_3d` at each m of ``ms`` (method 'halfspace', dim 3)."""
    ms_arr = np.asarray([_check_m(m) for m in ms], dtype=int)
    errs = np.array([recovery_error_3d(body, int(m), n_rot, seed) for m in ms_arr])
    return ErrorCurve(body.name, "halfspace", ms_arr, errs, int(n_rot), dim=3)
