"""Convex bodies given by their support functions (Theorem 3).

A convex body K is described by its support function h_K(u) = max_{x in K} <x, u> on unit
vectors u.  In the plane u = u(θ) = (cos θ, sin θ) and we write h(θ).  The facts used
throughout this module (Schneider, *Convex Bodies*, §1.7 and §2.5):

* width in direction u: w_K(u) = h_K(u) + h_K(-u);
* Hausdorff distance: δ_H(K, L) = sup_{|u|=1} |h_K(u) - h_L(u)|;
* a 2π-periodic function h is the support function of a planar convex body iff
  h + h'' >= 0 in the sense of measures; h + h'' = ρ(θ) is the radius of curvature at the
  boundary point with outer normal u(θ), so "curvature >= κ" means ρ <= 1/κ;
* the boundary point with normal u(θ) is x(θ) = h(θ) u(θ) + h'(θ) u'(θ) (smooth h);
* dilation by t multiplies h by t; rotation by ψ maps h(θ) to h(θ - ψ).

Planar bodies: :class:`Polygon`, :class:`Disc`, :class:`Ellipse`, :class:`TrigBody` (support
function a trigonometric polynomial), :class:`ArcBody` (piecewise constant radius of
curvature: circular arcs and corners; :func:`reuleaux_triangle`, :func:`arc_oval`),
:class:`SupportFunctionBody` (any callable, checked for convexity) and
:class:`TransformedBody` (dilated / rotated / translated copies).

Bodies in R^3: :class:`Ball`, :class:`Ellipsoid`, :class:`Box`, each with an exact
Euclidean distance ``distance(points)`` used to measure Hausdorff errors of outer polytopes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial import ConvexHull, QhullError

__all__ = [
    "PlanarBody",
    "Polygon",
    "Disc",
    "Ellipse",
    "TrigBody",
    "ArcBody",
    "SupportFunctionBody",
    "TransformedBody",
    "reuleaux_triangle",
    "arc_oval",
    "power_body",
    "square",
    "regular_polygon",
    "random_symmetric_polygon",
    "central_symmetral",
    "unit_vectors",
    "check_unit_vectors",
    "polygon_support",
    "support_values",
    "hausdorff_distance",
    "discrete_convexity_slack",
    "check_support_values",
    "Body3D",
    "Ball",
    "Ellipsoid",
    "Box",
    "DEFAULT_GRID",
]

TWO_PI = 2.0 * np.pi
#: Default number of equally spaced directions on the full circle for sup-norm computations.
DEFAULT_GRID = 20_000


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def unit_vectors(theta: ArrayLike) -> np.ndarray:
    """Unit vectors u(θ) = (cos θ, sin θ); shape ``theta.shape + (2,)``."""
    t = np.asarray(theta, dtype=float)
    return np.stack([np.cos(t), np.sin(t)], axis=-1)


def _as_angles(theta: ArrayLike) -> np.ndarray:
    t = np.asarray(theta, dtype=float)
    if not np.all(np.isfinite(t)):
        raise ValueError("angles must be finite numbers (radians); got NaN or inf")
    return t


def _full_circle(n_grid: int) -> np.ndarray:
    if int(n_grid) != n_grid or n_grid < 16:
        raise ValueError(f"n_grid must be an integer >= 16, got {n_grid!r}")
    return np.arange(int(n_grid)) * (TWO_PI / int(n_grid))


def polygon_support(vertices: ArrayLike, theta: ArrayLike) -> np.ndarray:
    """Support function of a convex polygon, h(θ) = max_i <v_i, u(θ)>.

    Parameters
    ----------
    vertices : array (k, 2)
        Vertices of a convex polygon in counter-clockwise order (as returned by
        ``scipy.spatial.ConvexHull(...).vertices``), k >= 3.
    theta : array
        Angles in radians.

    Notes
    -----
    Vertex v_i is the support point for every direction in its normal cone, which lies between
    the outer normals of its two edges.  The edge normals of a CCW polygon increase cyclically,
    so the support vertex is found by ``np.searchsorted`` in O(log k) per angle instead of the
    O(k) brute-force maximum (the tests check both agree).
    """
    v = np.asarray(vertices, dtype=float)
    t = _as_angles(theta)
    if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
        raise ValueError(f"vertices must have shape (k, 2) with k >= 3, got {v.shape}")
    d = np.roll(v, -1, axis=0) - v  # edge i: v_i -> v_{i+1}
    alpha = np.mod(np.arctan2(-d[:, 0], d[:, 1]), TWO_PI)  # outer normal (d_y, -d_x) of a CCW polygon
    start = int(np.argmin(alpha))
    order = (start + np.arange(len(v))) % len(v)
    alpha_sorted = alpha[order]
    if np.any(np.diff(alpha_sorted) < -1e-12):
        raise ValueError(
            "vertices are not a convex polygon in counter-clockwise order; pass ConvexHull(points).vertices order"
        )
    tt = np.mod(t, TWO_PI)
    # edges order[j] and order[j+1] share vertex order[j]+1 whose cone is [alpha_sorted[j], alpha_sorted[j+1]).
    j = np.searchsorted(alpha_sorted, tt, side="right") - 1
    j = np.where(j < 0, len(v) - 1, j)
    idx = (order[j] + 1) % len(v)
    p = v[idx]
    return p[..., 0] * np.cos(tt) + p[..., 1] * np.sin(tt)


def discrete_convexity_slack(h_values: ArrayLike) -> np.ndarray:
    """Discrete form of h + h'' >= 0 on n equally spaced directions of the full circle.

    For directions θ_i = 2πi/n (spacing Δ) the sampled h is the support function of a convex
    polygon with those outer normals iff, for every i,

        s_i = (h_{i-1} + h_{i+1}) / (2 cos Δ) - h_i >= 0,

    which is convexity of the 1-homogeneous extension across the ray u_i (u_i is the positive
    combination (u_{i-1} + u_{i+1}) / (2 cos Δ)).  For smooth h, s_i = ρ(θ_i) Δ²/2 + O(Δ⁴), where
    ρ = h + h'' is the radius of curvature.  Returns s (length n); needs n >= 5.
    """
    h = np.asarray(h_values, dtype=float)
    if h.ndim != 1 or h.size < 5:
        raise ValueError(f"h_values must be a 1-D array of >= 5 samples on the full circle, got shape {h.shape}")
    delta = TWO_PI / h.size
    return (np.roll(h, 1) + np.roll(h, -1)) / (2.0 * np.cos(delta)) - h


def check_support_values(h_values: ArrayLike, name: str = "h", rtol: float = 1e-9) -> None:
    """Raise ``ValueError`` unless equally spaced samples of ``h`` on the full circle are convex.

    Uses :func:`discrete_convexity_slack`; a slack below ``-rtol * max|h|`` means h + h'' < 0 near
    that direction, i.e. ``h`` is not the support function of any convex body.
    """
    h = np.asarray(h_values, dtype=float)
    if not np.all(np.isfinite(h)):
        raise ValueError(f"{name} returned NaN or inf; a support function must be finite in every direction")
    s = discrete_convexity_slack(h)
    scale = max(float(np.max(np.abs(h))), 1e-300)
    i = int(np.argmin(s))
    if s[i] < -rtol * scale:
        theta = TWO_PI * i / h.size
        raise ValueError(
            f"{name} is not a support function of a convex body: h + h'' < 0 near θ = {theta:.4f} rad "
            f"(discrete slack {s[i]:.3e}; the radius of curvature would be negative there). "
            "A support function must satisfy h + h'' >= 0 everywhere; check signs and the size of "
            "higher harmonics (a term c·cos(kθ) adds (1 - k²)c to h + h'')."
        )


# --------------------------------------------------------------------------------------
# planar bodies
# --------------------------------------------------------------------------------------


class PlanarBody(ABC):
    """A planar convex body given by its support function h(θ).

    Subclasses implement :meth:`support`; the rest (width, boundary, circumradius, symmetry,
    transforms) follows from the support function.
    """

    name: str

    @abstractmethod
    def support(self, theta: ArrayLike) -> np.ndarray:
        """Support function h(θ) = max_{x in K} <x, u(θ)>."""

    @property
    @abstractmethod
    def kappa(self) -> float:
        """Lower bound κ on the curvature (= 1 / max radius of curvature); 0 if K has flat sides."""

    def width(self, theta: ArrayLike) -> np.ndarray:
        """Width w(θ) = h(θ) + h(θ + π): the distance between the two support lines normal to u(θ)."""
        t = _as_angles(theta)
        return self.support(t) + self.support(t + np.pi)

    def boundary(self, n: int = 720) -> np.ndarray:
        """Boundary points (n, 2), counter-clockwise.

        Generic version: vertices of the outer polygon {x : <x, u_i> <= h(θ_i)} for n equally
        spaced normals (intersection of consecutive support lines); it converges to ∂K as n grows.
        """
        t = _full_circle(n)
        h = self.support(t)
        t1, h1 = np.roll(t, -1), np.roll(h, -1)
        det = np.sin(t1 - t)
        x = (h * np.sin(t1) - h1 * np.sin(t)) / det
        y = (h1 * np.cos(t) - h * np.cos(t1)) / det
        return np.column_stack([x, y])

    def circumradius(self, n_grid: int = DEFAULT_GRID) -> float:
        """R = max_{x in K} |x| = max_θ h(θ) (radius of the smallest origin-centred disc containing K)."""
        return float(np.max(self.support(_full_circle(n_grid))))

    def is_origin_symmetric(self, n_grid: int = 4096, atol: float = 1e-10) -> bool:
        """True if h(θ + π) = h(θ) on a grid (K = -K)."""
        t = _full_circle(n_grid)
        h0, h1 = self.support(t), self.support(t + np.pi)
        return bool(np.max(np.abs(h0 - h1)) <= atol * max(1.0, float(np.max(np.abs(h0)))))

    def dilate(self, t: float) -> TransformedBody:
        """The body t·K (t > 0): support function t·h."""
        return TransformedBody(self, scale=t)

    def rotate(self, psi: float) -> TransformedBody:
        """The body rotated by ψ radians: support function h(θ - ψ)."""
        return TransformedBody(self, angle=psi)

    def translate(self, shift: ArrayLike) -> TransformedBody:
        """The body K + c: support function h(θ) + <c, u(θ)>."""
        return TransformedBody(self, shift=tuple(np.asarray(shift, dtype=float)))


@dataclass(frozen=True, eq=False)
class Polygon(PlanarBody):
    """Convex polygon, the convex hull of the given points.

    h(θ) = max_i <v_i, u(θ)> is only Lipschitz (it has a kink at each edge normal); polygons have
    flat sides, so κ = 0 (a polytope is in the Lipschitz class, not in C^{1,1} as case (iv) of the
    lemma behind the paper's Theorem 3 puts it).
    """

    points: np.ndarray
    name: str = "polygon"
    vertices: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        p = np.asarray(self.points, dtype=float)
        if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] < 3:
            raise ValueError(f"a polygon needs points of shape (k, 2) with k >= 3, got {p.shape}")
        if not np.all(np.isfinite(p)):
            raise ValueError("polygon points must be finite")
        try:
            hull = ConvexHull(p)
        except QhullError as exc:
            raise ValueError("polygon points are collinear (or repeated): their convex hull has no interior") from exc
        object.__setattr__(self, "vertices", p[hull.vertices])  # CCW in 2-D

    def support(self, theta: ArrayLike) -> np.ndarray:
        return polygon_support(self.vertices, theta)

    @property
    def kappa(self) -> float:
        return 0.0

    def boundary(self, n: int = 720) -> np.ndarray:
        return self.vertices.copy()


def square(a: float = 1.0, angle: float = 0.0) -> Polygon:
    """Square [-a, a]² rotated by ``angle``; h(θ) = a(|cos(θ-angle)| + |sin(θ-angle)|)."""
    if not a > 0:
        raise ValueError(f"half side a must be positive, got {a}")
    c = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], dtype=float) * a
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return Polygon(c @ rot.T, name="square")


def regular_polygon(k: int, circumradius: float = 1.0, phase: float = 0.0) -> Polygon:
    """Regular k-gon with vertices R·u(phase + 2πi/k)."""
    if int(k) != k or k < 3:
        raise ValueError(f"a regular polygon needs k >= 3 vertices, got {k!r}")
    if not circumradius > 0:
        raise ValueError(f"circumradius must be positive, got {circumradius}")
    return Polygon(circumradius * unit_vectors(phase + TWO_PI * np.arange(k) / k), name=f"regular {k}-gon")


def random_symmetric_polygon(n_pairs: int, rng: np.random.Generator, radius: float = 1.0) -> Polygon:
    """Origin-symmetric random polygon: hull of ±x_i for n_pairs points x_i uniform in the disc."""
    if int(n_pairs) != n_pairs or n_pairs < 2:
        raise ValueError(f"n_pairs must be an integer >= 2, got {n_pairs!r}")
    ang = rng.uniform(0, np.pi, n_pairs)
    r = radius * np.sqrt(rng.uniform(0.3, 1.0, n_pairs))
    x = r[:, None] * unit_vectors(ang)
    return Polygon(np.vstack([x, -x]), name="random symmetric polygon")


@dataclass(frozen=True, eq=False)
class Disc(PlanarBody):
    """Disc of radius r centred at c: h(θ) = r + <c, u(θ)>; curvature 1/r."""

    radius: float = 1.0
    center: tuple[float, float] = (0.0, 0.0)
    name: str = "disc"

    def __post_init__(self) -> None:
        if not (np.isfinite(self.radius) and self.radius > 0):
            raise ValueError(f"disc radius must be positive and finite, got {self.radius}")

    def support(self, theta: ArrayLike) -> np.ndarray:
        t = _as_angles(theta)
        return self.radius + self.center[0] * np.cos(t) + self.center[1] * np.sin(t)

    @property
    def kappa(self) -> float:
        return 1.0 / self.radius

    def boundary(self, n: int = 720) -> np.ndarray:
        return np.asarray(self.center) + self.radius * unit_vectors(_full_circle(n))


@dataclass(frozen=True, eq=False)
class Ellipse(PlanarBody):
    """Ellipse with semi-axes a, b, rotated by ``angle``, centred at ``center``.

    h(θ) = sqrt(a² cos²(θ-φ) + b² sin²(θ-φ)) + <c, u(θ)>; radius of curvature ρ = a²b²/h_0³
    ranges over [b²/a, a²/b] (a >= b), so κ = b/a².  Its support function is analytic, so
    trigonometric interpolation converges geometrically (faster than any power of 1/m).
    """

    a: float = 1.0
    b: float = 0.6
    angle: float = 0.0
    center: tuple[float, float] = (0.0, 0.0)
    name: str = "ellipse"

    def __post_init__(self) -> None:
        if not (self.a > 0 and self.b > 0 and np.isfinite(self.a) and np.isfinite(self.b)):
            raise ValueError(f"ellipse semi-axes must be positive and finite, got a={self.a}, b={self.b}")

    def support(self, theta: ArrayLike) -> np.ndarray:
        t = _as_angles(theta) - self.angle
        h0 = np.sqrt((self.a * np.cos(t)) ** 2 + (self.b * np.sin(t)) ** 2)
        tt = t + self.angle
        return h0 + self.center[0] * np.cos(tt) + self.center[1] * np.sin(tt)

    @property
    def kappa(self) -> float:
        lo, hi = sorted((self.a, self.b))
        return lo / hi**2

    def boundary(self, n: int = 720) -> np.ndarray:
        s = _full_circle(n)
        e = np.column_stack([self.a * np.cos(s), self.b * np.sin(s)])
        rot = np.array([[np.cos(self.angle), -np.sin(self.angle)], [np.sin(self.angle), np.cos(self.angle)]])
        return e @ rot.T + np.asarray(self.center)


@dataclass(frozen=True, eq=False)
class TrigBody(PlanarBody):
    """Body whose support function is a trigonometric polynomial.

    h(θ) = a0 + Σ_{k=1}^N (a_k cos kθ + b_k sin kθ), so ρ(θ) = h + h'' = a0 + Σ (1 - k²)(a_k cos kθ +
    b_k sin kθ).  The body exists iff ρ >= 0 (checked on a grid fine enough for degree N; a ρ
    below ``-1e-9·a0`` raises).  κ = 1 / max ρ.  Only even k (b_k = a_k = 0 for odd k) gives an
    origin-symmetric body.  ``cos_coeffs[k-1] = a_k``, ``sin_coeffs[k-1] = b_k``.
    """

    a0: float
    cos_coeffs: tuple[float, ...] = ()
    sin_coeffs: tuple[float, ...] = ()
    name: str = "trigonometric body"
    _rho_range: tuple[float, float] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        a = np.asarray(self.cos_coeffs, dtype=float).ravel()
        b = np.asarray(self.sin_coeffs, dtype=float).ravel()
        if not (np.isfinite(self.a0) and np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError("TrigBody coefficients must be finite")
        n = max(a.size, b.size)
        a = np.pad(a, (0, n - a.size))
        b = np.pad(b, (0, n - b.size))
        object.__setattr__(self, "cos_coeffs", tuple(a))
        object.__setattr__(self, "sin_coeffs", tuple(b))
        t = _full_circle(max(4096, 32 * (n + 1)))
        rho = self.radius_of_curvature(t)
        lo, hi = float(rho.min()), float(rho.max())
        if lo < -1e-9 * max(abs(self.a0), 1e-300):
            i = int(np.argmin(rho))
            raise ValueError(
                f"TrigBody is not convex: h + h'' = {lo:.4g} < 0 near θ = {t[i]:.4f} rad. "
                "A support function needs h + h'' >= 0; the term c·cos(kθ) contributes (1 - k²)c, so "
                "shrink the higher coefficients or raise a0."
            )
        object.__setattr__(self, "_rho_range", (max(lo, 0.0), hi))

    def _eval(self, theta: ArrayLike, deriv: int) -> np.ndarray:
        t = _as_angles(theta)
        a = np.asarray(self.cos_coeffs)
        b = np.asarray(self.sin_coeffs)
        out = np.full(t.shape, self.a0 if deriv == 0 else 0.0, dtype=float)
        for k in range(1, a.size + 1):
            ak, bk = a[k - 1], b[k - 1]
            if ak == 0.0 and bk == 0.0:
                continue
            c, s = np.cos(k * t), np.sin(k * t)
            if deriv == 0:
                out += ak * c + bk * s
            elif deriv == 1:
                out += k * (-ak * s + bk * c)
            else:  # ρ = h + h''
                out += (1 - k * k) * (ak * c + bk * s)
        if deriv == 2:
            out += self.a0
        return out

    def support(self, theta: ArrayLike) -> np.ndarray:
        return self._eval(theta, 0)

    def radius_of_curvature(self, theta: ArrayLike) -> np.ndarray:
        """ρ(θ) = h(θ) + h''(θ)."""
        return self._eval(theta, 2)

    @property
    def kappa(self) -> float:
        return 1.0 / self._rho_range[1] if self._rho_range[1] > 0 else np.inf

    def boundary(self, n: int = 720) -> np.ndarray:
        t = _full_circle(n)
        h, dh = self._eval(t, 0), self._eval(t, 1)
        return h[:, None] * unit_vectors(t) + dh[:, None] * unit_vectors(t + np.pi / 2)


@dataclass(frozen=True, eq=False)
class ArcBody(PlanarBody):
    """Body with piecewise constant radius of curvature: circular arcs (ρ = r_i > 0) and corners (ρ = 0).

    On the normal-angle interval [θ_i, θ_{i+1}) the boundary is the arc x(θ) = c_i + r_i u(θ), so
    h(θ) = <c_i, u(θ)> + r_i there.  The centres follow from x' = ρ u' (u' = u(θ + π/2)):
    c_{i+1} = c_i + (r_i - r_{i+1}) u(θ_{i+1}).  The curve closes iff Σ r_i (u(θ_{i+1}) - u(θ_i)) = 0,
    which holds automatically when the radii are π-periodic (origin-symmetric bodies).  The body is
    translated so that its Steiner point (1/π)∫h(θ)u(θ)dθ is ``center``.

    h is C^{1,1} when every r_i > 0 (h'' jumps at the breaks), so the body has curvature >= κ =
    1/max r_i but no C² support function: the class on which 1/m² is the sharp rate.
    """

    breaks: tuple[float, ...]
    radii: tuple[float, ...]
    center: tuple[float, float] = (0.0, 0.0)
    name: str = "arc body"
    _centers: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        br = np.asarray(self.breaks, dtype=float).ravel()
        r = np.asarray(self.radii, dtype=float).ravel()
        if br.size < 2 or br.size != r.size:
            raise ValueError(f"need as many breaks as radii (>= 2 each), got {br.size} breaks and {r.size} radii")
        if not (np.all(np.isfinite(br)) and np.all(np.isfinite(r))):
            raise ValueError("breaks and radii must be finite")
        if np.any(np.diff(br) <= 0) or br[-1] - br[0] >= TWO_PI:
            raise ValueError("breaks must be strictly increasing and span less than 2π")
        if np.any(r < 0):
            raise ValueError("radii of curvature must be >= 0 (0 makes a corner); a negative radius is not convex")
        if not np.any(r > 0):
            raise ValueError("at least one radius must be positive")
        nxt = np.append(br[1:], br[0] + TWO_PI)
        gap = np.sum(r[:, None] * (unit_vectors(nxt) - unit_vectors(br)), axis=0)
        scale = float(np.sum(r))
        if np.linalg.norm(gap) > 1e-9 * scale:
            raise ValueError(
                f"the radii do not close the boundary: it would end {gap.round(6)} away from its start. "
                "Choose radii with Σ r_i (u(θ_(i+1)) - u(θ_i)) = 0, e.g. π-periodic radii (an origin-symmetric body)."
            )
        c = np.zeros((br.size, 2))
        for i in range(1, br.size):
            c[i] = c[i - 1] + (r[i - 1] - r[i]) * unit_vectors(br[i])
        # Steiner point s = (1/π) Σ_i ∫_{θ_i}^{θ_{i+1}} (<c_i, u> + r_i) u dθ, in closed form.
        a, b = br, nxt
        icc = 0.5 * (b - a) + 0.25 * (np.sin(2 * b) - np.sin(2 * a))
        iss = 0.5 * (b - a) - 0.25 * (np.sin(2 * b) - np.sin(2 * a))
        ics = 0.5 * (np.sin(b) ** 2 - np.sin(a) ** 2)
        ic = np.sin(b) - np.sin(a)
        is_ = np.cos(a) - np.cos(b)
        sx = np.sum(icc * c[:, 0] + ics * c[:, 1] + r * ic) / np.pi
        sy = np.sum(ics * c[:, 0] + iss * c[:, 1] + r * is_) / np.pi
        c = c - np.array([sx, sy]) + np.asarray(self.center, dtype=float)
        object.__setattr__(self, "breaks", tuple(br))
        object.__setattr__(self, "radii", tuple(r))
        object.__setattr__(self, "_centers", c)

    def _piece(self, theta: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        t = _as_angles(theta)
        br = np.asarray(self.breaks)
        tt = br[0] + np.mod(t - br[0], TWO_PI)
        i = np.searchsorted(br, tt, side="right") - 1
        return tt, i

    def support(self, theta: ArrayLike) -> np.ndarray:
        tt, i = self._piece(theta)
        c = self._centers[i]
        return c[..., 0] * np.cos(tt) + c[..., 1] * np.sin(tt) + np.asarray(self.radii)[i]

    def radius_of_curvature(self, theta: ArrayLike) -> np.ndarray:
        """ρ(θ) = r_i on [θ_i, θ_{i+1})."""
        _, i = self._piece(theta)
        return np.asarray(self.radii)[i]

    @property
    def kappa(self) -> float:
        return 1.0 / max(self.radii)

    def boundary(self, n: int = 720) -> np.ndarray:
        t = _full_circle(n)
        tt, i = self._piece(t)
        return self._centers[i] + np.asarray(self.radii)[i][:, None] * unit_vectors(tt)


def reuleaux_triangle(width: float = 1.0, angle: float = 0.0) -> ArcBody:
    """Reuleaux triangle of constant width ``width``, centred at the origin.

    Radius of curvature alternates between ``width`` (arcs) and 0 (corners) on six normal-angle
    intervals of length π/3.  w(θ) = width for every θ, yet K is not a disc: widths cannot tell it
    from the disc of radius width/2 (its central symmetral); δ_H = width·(1/√3 - 1/2).
    """
    if not width > 0:
        raise ValueError(f"width must be positive, got {width}")
    br = angle + np.arange(6) * np.pi / 3
    return ArcBody(tuple(br), (width, 0.0) * 3, name="Reuleaux triangle")


def arc_oval(
    radii: tuple[float, ...] = (1.0, 0.35, 0.7), breaks: tuple[float, ...] = (0.2, 1.1, 2.0), name: str = "arc oval"
) -> ArcBody:
    """Origin-symmetric body made of circular arcs: ρ is π-periodic, r_i on [θ_i, θ_{i+1}) (mod π).

    ``breaks`` lie in [0, π) and are repeated at +π.  Every radius positive gives curvature between
    1/max r and 1/min r with jumps in h'' — a body in the class "curvature >= κ" whose support
    function is C^{1,1} but not C².
    """
    br = np.asarray(breaks, dtype=float)
    if np.any(br < 0) or np.any(br >= np.pi):
        raise ValueError("arc_oval breaks must lie in [0, π)")
    return ArcBody(tuple(np.concatenate([br, br + np.pi])), tuple(radii) * 2, name=name)


@dataclass(frozen=True, eq=False)
class SupportFunctionBody(PlanarBody):
    """A body given by any vectorised callable h(θ), checked for convexity at construction.

    ``kappa`` is the declared curvature lower bound (default 0: no claim).  Construction raises
    ``ValueError`` if h is not finite or the discrete convexity test (:func:`check_support_values`)
    fails on ``n_check`` directions, i.e. if h is not the support function of a convex body.
    """

    h: Callable[[np.ndarray], np.ndarray]
    name: str = "support-function body"
    declared_kappa: float = 0.0
    n_check: int = 8192

    def __post_init__(self) -> None:
        if not callable(self.h):
            raise ValueError("h must be a callable mapping an array of angles to support values")
        t = _full_circle(self.n_check)
        vals = np.asarray(self.h(t), dtype=float)
        if vals.shape != t.shape:
            raise ValueError(f"h must be vectorised: h(theta) returned shape {vals.shape} for input shape {t.shape}")
        check_support_values(vals, name=self.name)

    def support(self, theta: ArrayLike) -> np.ndarray:
        return np.asarray(self.h(_as_angles(theta)), dtype=float)

    @property
    def kappa(self) -> float:
        return float(self.declared_kappa)


def power_body(alpha: float, c: float = 0.3) -> SupportFunctionBody:
    """h(θ) = 1 + c|sin θ|^{1+α} (a test body for the Theorem 3 rates): h ∈ C^{1,α} only, origin-symmetric.

    The β-rate in the paper's proof of Theorem 3 predicts trigonometric-interpolation error Θ(m^{-(1+α)}).
    Convex for c = 0.3 and α in (0, 1): min(h + h'') = 1 - 0.3α.
    """
    if not 0 < alpha <= 1:
        raise ValueError(f"alpha must lie in (0, 1], got {alpha}")
    p = 1.0 + alpha
    return SupportFunctionBody(lambda t: 1.0 + c * np.abs(np.sin(t)) ** p, name=f"|sin θ|^{p:g} body")


@dataclass(frozen=True, eq=False)
class TransformedBody(PlanarBody):
    """t·R_ψ K + c: support function t·h_K(θ - ψ) + <c, u(θ)>; curvature bound κ/t."""

    base: PlanarBody
    scale: float = 1.0
    angle: float = 0.0
    shift: tuple[float, float] = (0.0, 0.0)
    name: str = ""

    def __post_init__(self) -> None:
        if not (np.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"dilation factor must be positive and finite, got {self.scale}")
        if not self.name:
            object.__setattr__(self, "name", self.base.name)

    def support(self, theta: ArrayLike) -> np.ndarray:
        t = _as_angles(theta)
        return self.scale * self.base.support(t - self.angle) + self.shift[0] * np.cos(t) + self.shift[1] * np.sin(t)

    @property
    def kappa(self) -> float:
        return self.base.kappa / self.scale

    def boundary(self, n: int = 720) -> np.ndarray:
        rot = np.array([[np.cos(self.angle), -np.sin(self.angle)], [np.sin(self.angle), np.cos(self.angle)]])
        return self.scale * self.base.boundary(n) @ rot.T + np.asarray(self.shift)


def central_symmetral(body: PlanarBody) -> SupportFunctionBody:
    """The central symmetral ½(K - K): support function w(θ)/2 = (h(θ) + h(θ + π))/2.

    Widths determine exactly this body; for an origin-symmetric K it is K itself.
    """
    return SupportFunctionBody(
        lambda t: 0.5 * body.width(t), name=f"central symmetral of {body.name}", declared_kappa=body.kappa
    )


# --------------------------------------------------------------------------------------
# distances
# --------------------------------------------------------------------------------------


def support_values(body: PlanarBody | Callable[[np.ndarray], np.ndarray], theta: np.ndarray) -> np.ndarray:
    """h(θ) for a :class:`PlanarBody` or a vectorised callable."""
    if isinstance(body, PlanarBody):
        return body.support(theta)
    if callable(body):
        vals = np.asarray(body(theta), dtype=float)
        if vals.shape != np.shape(theta):
            raise ValueError(f"support callable must be vectorised; returned shape {vals.shape} for {np.shape(theta)}")
        return vals
    raise ValueError(f"expected a PlanarBody or a callable support function, got {type(body).__name__}")


def hausdorff_distance(a: PlanarBody | Callable, b: PlanarBody | Callable, n_grid: int = DEFAULT_GRID) -> float:
    """δ_H(K, L) = sup_θ |h_K(θ) - h_L(θ)|, evaluated on n_grid equally spaced directions.

    For support functions with bounded second derivative the grid maximum is within
    max|h_K'' - h_L''|·(π/n_grid)²/2 of the true supremum (a maximum at a kink is hit to O(π/n_grid)).
    """
    t = _full_circle(n_grid)
    d = support_values(a, t) - support_values(b, t)
    if not np.all(np.isfinite(d)):
        raise ValueError("support functions returned NaN or inf")
    return float(np.max(np.abs(d)))


# --------------------------------------------------------------------------------------
# bodies in R^3
# --------------------------------------------------------------------------------------


def check_unit_vectors(u: ArrayLike, dim: int, what: str = "directions") -> np.ndarray:
    a = np.asarray(u, dtype=float)
    if a.ndim != 2 or a.shape[1] != dim:
        raise ValueError(f"{what} must have shape (m, {dim}), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what} must be finite")
    norms = np.linalg.norm(a, axis=1)
    bad = np.flatnonzero(np.abs(norms - 1.0) > 1e-9)
    if bad.size:
        raise ValueError(
            f"{what} must be unit vectors: row {bad[0]} has norm {norms[bad[0]]:.6g} "
            f"({bad.size} rows off). Normalise with u / np.linalg.norm(u, axis=1, keepdims=True)."
        )
    return a


class Body3D(ABC):
    """A convex body in R^3 with support function h(u) and exact Euclidean distance d(x, K)."""

    name: str

    @abstractmethod
    def support(self, u: ArrayLike) -> np.ndarray:
        """h(u) for unit vectors u of shape (n, 3)."""

    @abstractmethod
    def distance(self, points: ArrayLike) -> np.ndarray:
        """Euclidean distance from each point (n, 3) to K (0 inside)."""

    @property
    @abstractmethod
    def max_radius_of_curvature(self) -> float:
        """Largest principal radius of curvature (inf for bodies with flat faces)."""

    def width(self, u: ArrayLike) -> np.ndarray:
        """w(u) = h(u) + h(-u)."""
        uu = check_unit_vectors(u, 3)
        return self.support(uu) + self.support(-uu)


@dataclass(frozen=True, eq=False)
class Ball(Body3D):
    """Ball of radius r at the origin: h = r, d(x) = max(|x| - r, 0)."""

    radius: float = 1.0
    name: str = "ball"

    def __post_init__(self) -> None:
        if not self.radius > 0:
            raise ValueError(f"radius must be positive, got {self.radius}")

    def support(self, u: ArrayLike) -> np.ndarray:
        return np.full(check_unit_vectors(u, 3).shape[0], float(self.radius))

    def distance(self, points: ArrayLike) -> np.ndarray:
        p = np.asarray(points, dtype=float)
        return np.maximum(np.linalg.norm(p, axis=1) - self.radius, 0.0)

    @property
    def max_radius_of_curvature(self) -> float:
        return float(self.radius)


def _axes_and_rotation(lengths: tuple[float, float, float], rotation: np.ndarray | None, what: str) -> np.ndarray:
    """Validate three positive axis lengths and return the 3x3 orthogonal rotation (identity when None)."""
    a = np.asarray(lengths, dtype=float)
    if a.shape != (3,) or not np.all(a > 0):
        raise ValueError(f"{what} must be three positive numbers, got {lengths}")
    q = np.eye(3) if rotation is None else np.asarray(rotation, dtype=float)
    if q.shape != (3, 3) or not np.allclose(q.T @ q, np.eye(3), atol=1e-10):
        raise ValueError("rotation must be a 3x3 orthogonal matrix")
    return q


@dataclass(frozen=True, eq=False)
class Ellipsoid(Body3D):
    """Origin-centred ellipsoid {x : Σ (Qᵀx)_i² / a_i² <= 1} with semi-axes a and rotation Q.

    h(u) = |diag(a) Qᵀ u|.  Principal radii of curvature lie in [a_min²/a_max, a_max²/a_min].
    Distance: the nearest point is y_i a_i²/(a_i² + t) (body frame) with t >= 0 the root of
    F(t) = Σ a_i² y_i² / (a_i² + t)² - 1, found by Newton's method, which from t = 0 increases
    monotonically to the root because F is convex and decreasing.
    """

    semi_axes: tuple[float, float, float] = (1.0, 0.8, 0.6)
    rotation: np.ndarray | None = None
    name: str = "ellipsoid"

    def __post_init__(self) -> None:
        object.__setattr__(self, "rotation", _axes_and_rotation(self.semi_axes, self.rotation, "semi_axes"))

    def support(self, u: ArrayLike) -> np.ndarray:
        uu = check_unit_vectors(u, 3)
        return np.linalg.norm((uu @ self.rotation) * np.asarray(self.semi_axes), axis=1)

    def distance(self, points: ArrayLike) -> np.ndarray:
        y = np.asarray(points, dtype=float) @ self.rotation  # body frame
        a2 = np.asarray(self.semi_axes) ** 2
        inside = np.sum(y**2 / a2, axis=1) <= 1.0
        t = np.zeros(y.shape[0])
        num = a2 * y**2
        for _ in range(200):
            den = a2 + t[:, None]
            f = np.sum(num / den**2, axis=1) - 1.0
            fp = -2.0 * np.sum(num / den**3, axis=1)
            step = np.where(inside, 0.0, -f / fp)
            t = t + step
            if np.all(np.abs(step) <= 1e-15 * (1.0 + t)):
                break
        x = a2 * y / (a2 + t[:, None])
        return np.where(inside, 0.0, np.linalg.norm(y - x, axis=1))

    @property
    def max_radius_of_curvature(self) -> float:
        a = np.asarray(self.semi_axes)
        return float(a.max() ** 2 / a.min())


@dataclass(frozen=True, eq=False)
class Box(Body3D):
    """Box Q·[-a_1, a_1]×[-a_2, a_2]×[-a_3, a_3]: h(u) = Σ a_i |(Qᵀu)_i|; a polytope (Lipschitz class)."""

    half_sides: tuple[float, float, float] = (1.0, 1.0, 1.0)
    rotation: np.ndarray | None = None
    name: str = "cube"

    def __post_init__(self) -> None:
        object.__setattr__(self, "rotation", _axes_and_rotation(self.half_sides, self.rotation, "half_sides"))

    def support(self, u: ArrayLike) -> np.ndarray:
        uu = check_unit_vectors(u, 3)
        return np.abs(uu @ self.rotation) @ np.asarray(self.half_sides)

    def distance(self, points: ArrayLike) -> np.ndarray:
        y = np.asarray(points, dtype=float) @ self.rotation
        excess = np.maximum(np.abs(y) - np.asarray(self.half_sides), 0.0)
        return np.linalg.norm(excess, axis=1)

    @property
    def max_radius_of_curvature(self) -> float:
        return float("inf")
