"""Angular covering radius of a set of benchmark directions (the omega_m of Theorem 2).

For unit directions U = {u_1, ..., u_m} on the sphere S^{d-1} the covering radius is the
largest angle at which some direction can sit from every benchmark:

* **projective** (the right one for widths, which are even: w(u) = w(-u))

      omega(U)  = max_v min_i arccos |<v, u_i>|   in [0, pi/2];

* **signed**

      omega+(U) = max_v min_i arccos  <v, u_i>    in [0, pi].

Exact computation (the book's; the paper's code estimates omega by Monte Carlo, a lower estimate):
when the origin is inside conv(P) the facets of the convex hull of P are the spherical Delaunay
cells of P, each facet plane
<a_F, x> = b_F (||a_F|| = 1) bounds an empty spherical cap of centre a_F and angular radius
arccos(b_F), and

      omega = max_F arccos(b_F).                                            (facet formula)

The projective radius is the facet formula on U u -U (always exact: the symmetric hull contains
the origin). The signed radius is the facet formula on U when 0 is inside conv(U); otherwise all
directions lie in an open hemisphere and

      omega+ = pi - arccos(dist(0, conv U)),                                 (min-norm formula)

attained at v = -p/||p|| for p the min-norm point of conv(U) (the facet formula would
underestimate). A Monte Carlo max-min over random query directions (the paper's code) is always
a *lower* estimate.

Directions that do not span R^d leave a unit vector orthogonal to all of them: its angle to
every +-u_i is pi/2, so the projective covering radius is pi/2 *by definition* (the largest
value it can take: a whole direction of capability is unmeasured and Theorem 2's visible bound
2 R omega becomes the trivial pi R). :func:`covering_radius` raises by default in that case and
returns that value only when asked (``rank_deficient="value"``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import optimize, stats
from scipy.spatial import ConvexHull, QhullError

__all__ = [
    "CoveringRadius",
    "CoveringRate",
    "unit_directions",
    "random_directions",
    "min_norm_point",
    "covering_radius",
    "covering_radius_exact",
    "covering_radius_mc",
    "covering_rate",
    "covering_rate_paper",
]

Method = Literal["exact", "mc"]
RankPolicy = Literal["raise", "value"]


@dataclass(frozen=True)
class CoveringRadius:
    """The covering radius of m directions in R^d and a direction that attains it.

    Attributes
    ----------
    omega : float
        The covering radius in radians (projective in [0, pi/2], signed in [0, pi]).
    direction : ndarray (d,)
        A unit vector at angle ``omega`` from every benchmark direction (the deepest hole);
        for ``method='mc'`` the best query found.
    projective : bool
        True for lines (+-u_i), False for signed directions.
    method : str
        ``'facets'`` (exact, facet formula), ``'min-norm'`` (exact, hemisphere case),
        ``'rank-deficient'`` (exact pi/2 case) or ``'mc'`` (sampled lower estimate).
    m, d : int
        Number of directions and dimension.
    n_samples : int or None
        Query directions used by ``'mc'``.
    n_facets : int or None
        Hull facets examined by ``'facets'``.
    seconds : float
        Wall time of the computation.
    """

    omega: float
    direction: np.ndarray
    projective: bool
    method: str
    m: int
    d: int
    n_samples: int | None = None
    n_facets: int | None = None
    seconds: float = 0.0

    @property
    def degrees(self) -> float:
        return float(np.degrees(self.omega))


@dataclass(frozen=True)
class CoveringRate:
    """Covering radius of random directions against m, and its fitted log-log slope (Theorem 2(a)).

    Attributes
    ----------
    d : int
        Dimension of the sphere's ambient space (directions on S^{d-1}).
    ms : ndarray
        Numbers of directions.
    omegas : ndarray (n_trials, len(ms))
        Exact covering radius of each trial.
    slope, slope_lo, slope_hi : float
        OLS slope of log omega on log m over all trials, with its ``level`` t-interval.
    slope_log_corrected, slope_log_corrected_lo, slope_log_corrected_hi : float
        The same slope against log(m / log m), the rate with the log factor of random points,
        omega ~ (log m / m)^{1/(d-1)}.
    slope_of_means : float
        Slope of log(mean omega) on log m (how the paper's code fits it).
    theory : float
        -1/(d-1).
    projective : bool
    level : float
    """

    d: int
    ms: np.ndarray
    omegas: np.ndarray
    slope: float
    slope_lo: float
    slope_hi: float
    slope_log_corrected: float
    slope_log_corrected_lo: float
    slope_log_corrected_hi: float
    slope_of_means: float
    theory: float
    projective: bool
    level: float

    @property
    def mean_omega(self) -> np.ndarray:
        return self.omegas.mean(axis=0)


def unit_directions(U: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    """Validate a (m, d) array of directions and scale each row to unit length.

    Raises
    ------
    ValueError
        Not 2-D, d < 2, no rows, a NaN/inf entry, or a zero row (a benchmark with no direction).
    """
    U = np.asarray(U, dtype=float)
    if U.ndim != 2:
        raise ValueError(f"directions must be a 2-D array (m directions x d coordinates), got shape {U.shape}")
    m, d = U.shape
    if m < 1:
        raise ValueError("no directions given (an empty array)")
    if d < 2:
        raise ValueError(f"directions live in R^d with d >= 2 (the sphere S^(d-1) needs d >= 2), got d = {d}")
    if not np.isfinite(U).all():
        bad = int(np.argwhere(~np.isfinite(U))[0][0])
        raise ValueError(f"direction {bad} has a NaN or infinite coordinate; remove or complete it")
    norms = np.linalg.norm(U, axis=1)
    if (norms < 1e-12).any():
        bad = int(np.flatnonzero(norms < 1e-12)[0])
        raise ValueError(f"direction {bad} is the zero vector: it has no direction; drop it")
    return U / norms[:, None]


def random_directions(m: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """m directions uniform on S^{d-1} (normalised Gaussian vectors)."""
    if m < 1 or d < 2:
        raise ValueError(f"need m >= 1 and d >= 2, got m={m}, d={d}")
    X = rng.standard_normal((m, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def min_norm_point(P: np.ndarray, tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """The point of conv(P) nearest the origin, and its convex weights (exact, via NNLS).

    Lawson & Hanson's least-distance programme: the nearest point p* of conv(P) to 0 is
    x*/||x*||^2 for x* = argmin ||x|| subject to <p_i, x> >= 1, and x* comes from one
    non-negative least-squares problem min_{u >= 0} ||E u - f||, E = [P^T; 1^T], f = (0, ..., 0, 1):
    with r = E u - f, x* = -r[:d] / r[d]. A zero residual means the constraints are infeasible,
    i.e. 0 is in conv(P). The convex weights are w = u / sum(u) (p* = P^T w).

    Parameters
    ----------
    P : ndarray (N, d)
        The points.

    Returns
    -------
    p : ndarray (d,)
        The min-norm point (dist(0, conv P) = ||p||).
    w : ndarray (N,)
        Convex weights with p = P^T w.
    """
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] < 1:
        raise ValueError(f"points must be a non-empty 2-D array, got shape {P.shape}")
    if not np.isfinite(P).all():
        raise ValueError("points contain NaN or infinite coordinates")
    N, d = P.shape
    if N == 1:
        return P[0].copy(), np.ones(1)
    scale = float(np.abs(P).max()) or 1.0
    Ps = P / scale  # scale-free problem; rescale at the end
    E = np.vstack([Ps.T, np.ones((1, N))])
    f = np.zeros(d + 1)
    f[-1] = 1.0
    u, _ = optimize.nnls(E, f, maxiter=50 * (N + d))
    if u.sum() <= 0:  # pragma: no cover - nnls returns u = 0 only when f is orthogonal to E's cone
        raise ValueError("min-norm point: the NNLS problem has no solution")
    w = u / u.sum()
    p = Ps.T @ w
    if np.linalg.norm(p) < tol:
        p = np.zeros(d)
    return p * scale, w


def _rank(U: np.ndarray) -> int:
    return int(np.linalg.matrix_rank(U, tol=1e-10 * max(U.shape)))


def _rank_deficient(U: np.ndarray, projective: bool, t0: float) -> CoveringRadius:
    """Exact covering radius when the directions do not span R^d (pi/2, or the min-norm formula)."""
    m, d = U.shape
    _, _, Vt = np.linalg.svd(U, full_matrices=True)
    v_perp = Vt[-1]  # orthogonal to every u_i
    if projective:
        return CoveringRadius(np.pi / 2, v_perp, True, "rank-deficient", m, d, seconds=time.perf_counter() - t0)
    p, _ = min_norm_point(U)
    dist = float(np.linalg.norm(p))
    if dist < 1e-9:
        return CoveringRadius(np.pi / 2, v_perp, False, "rank-deficient", m, d, seconds=time.perf_counter() - t0)
    return CoveringRadius(
        float(np.pi - np.arccos(min(dist, 1.0))), -p / dist, False, "min-norm", m, d, seconds=time.perf_counter() - t0
    )


def _facets(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit outward normals a_F and offsets b_F (<a_F, x> <= b_F on conv P) of the hull of P."""
    hull = ConvexHull(P)
    eq = hull.equations
    return eq[:, :-1], -eq[:, -1]


def covering_radius_exact(
    U: np.ndarray, projective: bool = True, rank_deficient: RankPolicy = "raise"
) -> CoveringRadius:
    """Exact angular covering radius from the facets of a convex hull.

    See the module docstring for the formulas. ``U`` need not be normalised.

    Raises
    ------
    ValueError
        Invalid directions, or directions that do not span R^d (unless ``rank_deficient='value'``).
    """
    t0 = time.perf_counter()
    U = unit_directions(U)
    m, d = U.shape
    r = _rank(U)
    if r < d:
        if rank_deficient == "raise":
            raise ValueError(
                f"the {m} directions span only a {r}-dimensional subspace of R^{d}: a unit vector orthogonal to all "
                f"of them is at angle pi/2 from every benchmark, so the (projective) covering radius is pi/2 by "
                f"definition and Theorem 2's visible bound is vacuous. Use at least {d} directions that span R^{d}, "
                f"reduce d to {r}, or pass rank_deficient='value' to get that value"
            )
        if rank_deficient != "value":
            raise ValueError(f"rank_deficient must be 'raise' or 'value', got {rank_deficient!r}")
        return _rank_deficient(U, projective, t0)
    if projective:
        P = np.vstack([U, -U])
    else:
        if m < d + 1:
            # d directions spanning R^d: conv(U) is a simplex not containing 0 (it lies in a hyperplane).
            return _signed_hemisphere(U, t0)
        P = U
    try:
        a, b = _facets(P)
    except QhullError as exc:  # pragma: no cover - rank already checked; numerical trouble only
        raise ValueError(
            f"the convex hull of the directions could not be computed ({exc}); directions may be nearly degenerate"
        ) from exc
    if not projective and b.min() < 1e-12:
        # origin not strictly inside conv(U): every direction in a closed hemisphere
        return _signed_hemisphere(U, t0, normal=a[int(np.argmin(b))])
    j = int(np.argmin(b))
    omega = float(np.arccos(np.clip(b[j], -1.0, 1.0)))
    return CoveringRadius(
        omega,
        a[j] / np.linalg.norm(a[j]),
        projective,
        "facets",
        m,
        d,
        n_facets=len(b),
        seconds=time.perf_counter() - t0,
    )


def _signed_hemisphere(U: np.ndarray, t0: float, normal: np.ndarray | None = None) -> CoveringRadius:
    """Signed radius when 0 is not inside conv(U): pi - arccos(dist(0, conv U)) at v = -p/||p||.

    When 0 lies on the boundary of conv(U) (dist = 0) the value is pi/2, attained at the outward
    normal ``normal`` of a hull facet through the origin.
    """
    m, d = U.shape
    p, _ = min_norm_point(U)
    dist = float(np.linalg.norm(p))
    if dist < 1e-12:
        v = normal if normal is not None else np.linalg.svd(U, full_matrices=True)[2][-1]
        return CoveringRadius(
            np.pi / 2, v / np.linalg.norm(v), False, "min-norm", m, d, seconds=time.perf_counter() - t0
        )
    return CoveringRadius(
        float(np.pi - np.arccos(min(dist, 1.0))), -p / dist, False, "min-norm", m, d, seconds=time.perf_counter() - t0
    )


def covering_radius_mc(
    U: np.ndarray,
    projective: bool = True,
    n_samples: int = 10_000,
    seed: int = 0,
    batch: int = 65_536,
) -> CoveringRadius:
    """Monte Carlo max-min covering radius over random query directions: a LOWER estimate.

    Queries are ``default_rng(seed).normal(size=(n_samples, d))`` rows, normalised (the paper's
    code draws them this way; drawing in batches of rows consumes the same stream). The value is
    max over queries q of min_i arccos <q, u_i> (|<q, u_i>| when projective).
    """
    t0 = time.perf_counter()
    U = unit_directions(U)
    m, d = U.shape
    if n_samples < 1:
        raise ValueError(f"n_samples must be at least 1, got {n_samples}")
    rng = np.random.default_rng(seed)
    best_cos, best_q = np.inf, None
    done = 0
    while done < n_samples:
        b = min(batch, n_samples - done)
        Q = rng.normal(size=(b, d))
        Q /= np.linalg.norm(Q, axis=1, keepdims=True)
        C = Q @ U.T
        if projective:
            C = np.abs(C)
        cmax = C.max(axis=1)  # cosine of the angle to the nearest benchmark
        j = int(np.argmin(cmax))
        if cmax[j] < best_cos:
            best_cos, best_q = float(cmax[j]), Q[j].copy()
        done += b
    omega = float(np.arccos(np.clip(best_cos, -1.0, 1.0)))
    return CoveringRadius(omega, best_q, projective, "mc", m, d, n_samples=n_samples, seconds=time.perf_counter() - t0)


def covering_radius(
    U: np.ndarray,
    projective: bool = True,
    method: Method = "exact",
    n_samples: int = 10_000,
    seed: int = 0,
    rank_deficient: RankPolicy = "raise",
) -> CoveringRadius:
    """The angular covering radius of directions U (rows) on S^{d-1} (Theorem 2).

    Parameters
    ----------
    U : ndarray (m, d)
        Benchmark directions (normalised here).
    projective : bool
        Lines +-u_i (default; the right notion for widths) or signed directions.
    method : {'exact', 'mc'}
        Exact from hull facets (default) or a Monte Carlo lower estimate with ``n_samples`` queries.
    rank_deficient : {'raise', 'value'}
        Directions that do not span R^d: raise (default), or return the exact value (pi/2 projective).

    Raises
    ------
    ValueError
        Bad directions, an unknown method, or non-spanning directions under ``rank_deficient='raise'``.
    """
    if method == "exact":
        return covering_radius_exact(U, projective=projective, rank_deficient=rank_deficient)
    if method == "mc":
        Uu = unit_directions(U)
        if rank_deficient == "raise" and _rank(Uu) < Uu.shape[1]:
            covering_radius_exact(Uu, projective, "raise")  # raises the explanatory error
        return covering_radius_mc(Uu, projective=projective, n_samples=n_samples, seed=seed)
    raise ValueError(f"method must be 'exact' or 'mc', got {method!r}")


def _ols_slope(x: np.ndarray, y: np.ndarray, level: float) -> tuple[float, float, float]:
    fit = stats.linregress(x, y)
    t = stats.t.ppf(0.5 + level / 2, len(x) - 2)
    return float(fit.slope), float(fit.slope - t * fit.stderr), float(fit.slope + t * fit.stderr)


def covering_rate(
    d: int,
    ms: Sequence[int],
    n_trials: int = 20,
    seed: int = 0,
    projective: bool = True,
    level: float = 0.95,
) -> CoveringRate:
    """Exact covering radius of m random directions on S^{d-1}, and its log-log slope in m.

    Theorem 2(a)'s rate is omega_m ~ m^{-1/(d-1)} for quasi-uniform directions; random (i.i.d.
    uniform) directions carry an extra log factor, omega ~ (log m / m)^{1/(d-1)}, which makes the
    fitted slope on a finite range shallower. Both fits are reported (compare the slopes of App. H.7).

    Raises
    ------
    ValueError
        d < 2, fewer than 2 distinct m, an m < d (random directions would not span), or n_trials < 1.
    """
    if d < 2:
        raise ValueError(f"d must be at least 2, got {d}")
    ms = np.asarray(sorted(set(int(m) for m in ms)))
    if ms.size < 2:
        raise ValueError("need at least two different numbers of directions m to fit a slope")
    if ms.min() < d:
        raise ValueError(f"every m must be at least d = {d} (fewer directions cannot span R^{d}); got m = {ms.min()}")
    if n_trials < 1:
        raise ValueError(f"n_trials must be at least 1, got {n_trials}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    om = np.empty((n_trials, ms.size))
    for t in range(n_trials):
        for j, m in enumerate(ms):
            om[t, j] = covering_radius_exact(random_directions(int(m), d, rng), projective).omega
    x = np.tile(np.log(ms), n_trials)
    y = np.log(om).ravel()
    s, lo, hi = _ols_slope(x, y, level)
    xc = np.tile(np.log(ms / np.log(ms)), n_trials)
    sc, loc, hic = _ols_slope(xc, y, level)
    som = float(np.polyfit(np.log(ms), np.log(om.mean(axis=0)), 1)[0])
    return CoveringRate(d, ms, om, s, lo, hi, sc, loc, hic, som, -1.0 / (d - 1), projective, level)


def covering_rate_paper(
    d: int, ms: Sequence[int] = (4, 8, 16, 32, 64, 128), n_trials: int = 20, n_samples: int = 2000
) -> tuple[np.ndarray, float]:
    """The paper's H.7 protocol: mean SIGNED Monte Carlo covering radius and the slope of its log.

    Trial t at m directions uses ``default_rng(17 t + m + d)`` for the directions and a fresh
    ``default_rng(0)`` for ``n_samples`` query directions (as the paper's code does for App. H.7). Returns the
    mean radius for each m and the slope of log(mean) on log m. Kept to show where the paper's
    numbers come from; :func:`covering_rate` is the exact version.
    """
    if d < 2 or n_trials < 1 or n_samples < 1:
        raise ValueError(f"need d >= 2, n_trials >= 1 and n_samples >= 1, got {d}, {n_trials}, {n_samples}")
    ms = np.asarray(ms, dtype=int)
    if ms.size < 2 or ms.min() < 1:
        raise ValueError("need at least two numbers of directions m >= 1")
    means = np.empty(ms.size)
    for j, m in enumerate(ms):
        om = []
        for t in range(n_trials):
            U = np.random.default_rng(17 * t + int(m) + d).normal(size=(int(m), d))
            om.append(covering_radius_mc(U, projective=False, n_samples=n_samples, seed=0).omega)
        means[j] = np.mean(om)
    return means, float(np.polyfit(np.log(ms), np.log(means), 1)[0])
