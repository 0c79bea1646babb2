"""The Shephard / domination corollary: widths vs volume, and domination on held-out benchmarks.

The paper states: "for d_eff >= 3 there exist convex profiles K, L with pi_i(K) < pi_i(L) for all
i yet vol_D(K) > vol_D(L)" (the LaTeX proof says d_eff >= 5, Busemann-Petty). Three facts bound it:

* with finitely many width directions the phenomenon is trivial in any D >= 2: a thin "needle"
  is wider than a ball in every probed direction and has almost no volume (:func:`needle_example`);
* even with *all* directions it happens in D = 2: a disk of diameter 0.99 is narrower than the
  Reuleaux triangle of width 1 in every direction, yet has more area (:func:`reuleaux_vs_disk`);
* for origin-symmetric bodies w = 2h, so narrower in every direction means K subset L and
  vol K <= vol L: then it cannot happen at all, in any dimension (:func:`symmetric_domination_check`).

Read as an existence claim in D >= 3 (the main text), the corollary is true: the disk and the Reuleaux
triangle times an interval (:func:`prism_pair`) are narrower / wider in every direction of R^3 with
the volumes the other way round. Its dimension condition is spurious, and the appendix's conjectured
width threshold of 3 is false.

The empirical part (App. H.20; the second table of ``exp4`` in the paper's code) counts model pairs
where B beats A on all visible benchmarks of a random 6/6 split and A beats B on a held-out one
(:func:`domination_contradictions`). The paper's table was cut with ``head(50)``, so its "50 pairs"
is a cap, not a count.

Planar bodies come from :mod:`blindspot.core.convex_bodies` (its Reuleaux triangle and disc).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import combinations
from math import gamma, pi

import numpy as np
import pandas as pd
from scipy.spatial import ConvexHull

from blindspot.core.claim_value import ClaimValue
from blindspot.core.conventions import ArrayLike, as_matrix
from blindspot.core.convex_bodies import Disc, PlanarBody, random_symmetric_polygon, reuleaux_triangle
from blindspot.data.tables import ScoreTable

__all__ = [
    "polygon_area",
    "body_area",
    "ReuleauxDisk",
    "reuleaux_vs_disk",
    "Needle",
    "needle_example",
    "ball_volume",
    "DominationResult",
    "domination_pairs",
    "domination_contradictions",
    "SymmetricCheck",
    "symmetric_domination_check",
    "PrismPair",
    "prism_pair",
    "sphere_directions",
]


def polygon_area(P: np.ndarray) -> float:
    """Shoelace area of a closed polygon given by its vertices (m, 2) in order."""
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[1] != 2 or P.shape[0] < 3:
        raise ValueError(f"a polygon needs vertices of shape (m >= 3, 2), got {P.shape}")
    x, y = P[:, 0], P[:, 1]
    return float(0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def body_area(body: PlanarBody, n: int = 20_000) -> float:
    """Area of a planar convex body from n boundary points (inscribed polygon; error O(1/n^2))."""
    return polygon_area(body.boundary(n))


@dataclass(frozen=True)
class ReuleauxDisk:
    """K = disk of diameter (1 - eps) w, L = Reuleaux triangle of width w: the corollary fails in D = 2
    even with all directions.

    Every width of K is below every width of L, and area K > area L whenever
    pi (1 - eps)^2 / 4 > (pi - sqrt 3) / 2, i.e. eps < 1 - sqrt(2 (pi - sqrt 3) / pi) = 0.0527.
    """

    eps: float
    width: float
    w_K_max: float
    w_L_min: float
    w_L_max: float
    area_K: float
    area_L: float
    area_L_closed_form: float

    def quantities(self) -> dict[str, float]:
        """The fields, with ``w_L_spread`` (how much the Reuleaux triangle's widths vary over the grid)."""
        return {**{f.name: getattr(self, f.name) for f in fields(self)}, "w_L_spread": self.w_L_max - self.w_L_min}

    @property
    def contradiction(self) -> bool:
        """Narrower in every direction yet larger: the corollary's phenomenon, in D = 2."""
        return bool(self.w_K_max < self.w_L_min and self.area_K > self.area_L)


def reuleaux_vs_disk(eps: float = 0.01, width: float = 1.0, n_dirs: int = 20_000) -> ReuleauxDisk:
    """Widths (on n_dirs directions) and areas of the disk of diameter (1 - eps) w and the Reuleaux triangle."""
    if not 0 < eps < 1:
        raise ValueError(f"eps must be in (0, 1), got {eps}")
    if not width > 0:
        raise ValueError(f"width must be positive, got {width}")
    L = reuleaux_triangle(width)
    K = Disc(radius=(1 - eps) * width / 2)
    t = np.arange(n_dirs) * (2 * pi / n_dirs)
    wK, wL = K.width(t), L.width(t)
    return ReuleauxDisk(
        eps,
        width,
        float(wK.max()),
        float(wL.min()),
        float(wL.max()),
        float(pi * ((1 - eps) * width / 2) ** 2),
        body_area(L),
        float((pi - np.sqrt(3)) / 2 * width**2),
    )


def ball_volume(D: int, r: float) -> float:
    """Volume of the D-ball of radius r: pi^(D/2) r^D / Gamma(D/2 + 1)."""
    if D < 1 or r < 0:
        raise ValueError(f"need D >= 1 and r >= 0, got D={D}, r={r}")
    return float(pi ** (D / 2) * r**D / gamma(D / 2 + 1))


@dataclass(frozen=True)
class Needle:
    """A capsule (segment of length ``length`` along ``axis`` plus a ball of diameter ``thickness``) vs a ball.

    widths_needle[i] = length |<axis, u_i>| + thickness; the ball of radius r has width 2r.
    """

    axis: np.ndarray
    widths_needle: np.ndarray
    widths_ball: np.ndarray
    vol_needle: float
    vol_ball: float
    length: float = float("nan")
    thickness: float = float("nan")

    @property
    def contradiction(self) -> bool:
        """The needle is wider in every probed direction, yet has less volume."""
        return bool(np.all(self.widths_needle > self.widths_ball) and self.vol_needle < self.vol_ball)

    def quantities(self) -> dict[str, float | int]:
        """``length``, ``thickness``, ``n_dirs`` (probed directions), ``width_min`` (the needle's narrowest probed
        width), ``vol_needle`` and ``vol_ball``."""
        return {"length": self.length, "thickness": self.thickness, "n_dirs": len(self.widths_needle),
                "width_min": float(self.widths_needle.min()), "vol_needle": self.vol_needle, "vol_ball": self.vol_ball}  # fmt: skip


def needle_example(
    U: np.ndarray, length: float, thickness: float, radius: float = 1.0, axis: np.ndarray | None = None
) -> Needle:
    """Finitely many width directions cannot bound volume: with them the corollary is trivial in any D >= 2.

    Parameters
    ----------
    U : array (m, D)
        The probed unit directions (the benchmarks).
    length, thickness : float
        Needle length and diameter. Its volume is length V_{D-1}(t/2) + V_D(t/2) -> 0 as t -> 0.
    radius : float
        Radius of the comparison ball.
    axis : array (D,), optional
        Needle direction (default: the normalised sum of the directions, not orthogonal to any of
        them when they lie in one open half-space).

    Raises
    ------
    ValueError
        Directions not unit vectors, non-positive sizes, or an axis orthogonal to a probed direction
        (the needle has no length there).
    """
    U = np.asarray(U, dtype=float)
    if U.ndim != 2 or U.shape[0] < 1 or U.shape[1] < 2:
        raise ValueError(f"U must be (m >= 1, D >= 2) unit directions, got shape {U.shape}")
    if not np.allclose(np.linalg.norm(U, axis=1), 1.0, atol=1e-9):
        raise ValueError("the rows of U must be unit vectors")
    if length <= 0 or thickness <= 0 or radius <= 0:
        raise ValueError(f"length, thickness and radius must be positive, got {length}, {thickness}, {radius}")
    D = U.shape[1]
    e = U.sum(axis=0) if axis is None else np.asarray(axis, dtype=float)
    if e.shape != (D,) or np.linalg.norm(e) < 1e-12:
        raise ValueError("the needle axis must be a non-zero vector of dimension D")
    e = e / np.linalg.norm(e)
    c = np.abs(U @ e)
    if c.min() < 1e-12:
        raise ValueError("the needle axis is orthogonal to a probed direction; choose another axis")
    wn = length * c + thickness
    vol = length * ball_volume(D - 1, thickness / 2) + ball_volume(D, thickness / 2)
    return Needle(e, wn, np.full(U.shape[0], 2 * radius), vol, ball_volume(D, radius), length, thickness)


@dataclass(frozen=True)
class DominationResult:
    """H.20: domination on the visible half contradicted on the held-out half.

    Attributes
    ----------
    n_unique_pairs : int
        Unordered model pairs that are a contradiction in at least one split (the uncapped count).
    per_split : ndarray
        Contradicting pairs found in each split (with repeats across splits).
    pairs : DataFrame
        First split, loser and winner (by visible domination) of each unique pair, in the order the
        paper's code records them.
    n_splits : int
    """

    n_unique_pairs: int
    per_split: np.ndarray
    pairs: pd.DataFrame
    n_splits: int
    n_models: int = 0
    n_benchmarks: int = 0

    def capped(self, cap: int = 50) -> int:
        """What a table cut with ``head(cap)`` shows (the paper's "50 pairs")."""
        return min(self.n_unique_pairs, cap)

    def quantities(self) -> dict[str, float | int]:
        """``n_pairs`` (unique contradicted pairs), ``capped`` (of them in ``head(50)``), ``share`` (of all model
        pairs), ``split_median`` (per split), ``n_splits``, ``n_models``, ``k_held`` and ``k_visible``."""
        n_all = self.n_models * (self.n_models - 1) // 2
        return {
            "n_pairs": self.n_unique_pairs, "capped": self.capped(50),
            "share": self.n_unique_pairs / n_all if n_all else float("nan"),
            "split_median": float(np.median(self.per_split)), "n_splits": self.n_splits, "n_models": self.n_models,
            "k_held": self.n_benchmarks // 2, "k_visible": self.n_benchmarks - self.n_benchmarks // 2,
        }  # fmt: skip

    def claims(self, table: ScoreTable) -> dict[str, ClaimValue]:
        """App. H.20's numbers on ``table`` (the leaderboard it was run on), for ``Ledger.record``: ``H20.capped``
        (what the paper's ``head(50)`` table shows) and ``H20.count`` (the uncapped count)."""
        return {"H20.capped": ClaimValue(self.capped(50), table), "H20.count": ClaimValue(self.n_unique_pairs, table)}


def domination_pairs(S: np.ndarray, held: np.ndarray) -> list[tuple[int, int]]:
    """(loser, winner) pairs: winner > loser on every visible column, loser > winner on some held-out one.

    Pairs are listed in the paper's order: for a < b in row order, (a, b) if b dominates a, else
    (b, a) if a dominates b.
    """
    k = S.shape[1]
    held = np.asarray(sorted(int(h) for h in held))
    vis = np.setdiff1d(np.arange(k), held)
    if held.size == 0 or vis.size == 0:
        raise ValueError("a split needs at least one visible and one held-out benchmark")
    V, H = S[:, vis], S[:, held]
    dom = np.all(V[None, :, :] > V[:, None, :], axis=-1)  # dom[a, b]: b beats a on every visible column
    rev = np.any(H[:, None, :] > H[None, :, :], axis=-1)  # rev[a, b]: a beats b on some held-out column
    fail = dom & rev
    a, b = np.nonzero(np.triu(fail | fail.T, 1))
    return [(int(x), int(y)) if fail[x, y] else (int(y), int(x)) for x, y in zip(a, b)]


def domination_contradictions(
    S: ArrayLike, n_splits: int = 80, seed: int = 0, splits: str = "random", names: list[str] | None = None
) -> DominationResult:
    """App. H.20 on a score matrix: count unique contradicting pairs over random or all half-splits.

    ``splits='random'``: ``n_splits`` draws of ``default_rng(seed).permutation(k)``; held = the first
    k // 2, visible = the rest (as the paper's code). ``splits='all'``: every choice of k // 2
    held-out columns (invariant to column order).
    """
    X = as_matrix(S)
    n, k = X.shape
    if k < 2:
        raise ValueError("need at least 2 benchmarks to split")
    names = [str(i) for i in range(n)] if names is None else list(names)
    if splits == "random":
        if n_splits < 1:
            raise ValueError(f"n_splits must be positive, got {n_splits}")
        rng = np.random.default_rng(seed)
        helds = [rng.permutation(k)[: k // 2] for _ in range(n_splits)]
    elif splits == "all":
        helds = [np.array(c) for c in combinations(range(k), k // 2)]
    else:
        raise ValueError(f"splits must be 'random' or 'all', got {splits!r}")
    seen: set[tuple[int, int]] = set()
    rows, per = [], []
    for s, held in enumerate(helds):
        found = domination_pairs(X, held)
        per.append(len(found))
        for lo, hi in found:
            key = (min(lo, hi), max(lo, hi))
            if key in seen:
                continue
            seen.add(key)
            rows.append({"split": s, "loser_visible": names[lo], "winner_visible": names[hi]})
    pairs = pd.DataFrame(rows, columns=["split", "loser_visible", "winner_visible"])
    return DominationResult(len(seen), np.array(per), pairs, len(helds), n, k)


@dataclass(frozen=True)
class SymmetricCheck:
    """Random origin-symmetric polygon pairs K, L with w_K < w_L in every direction: how often is area K > area L?"""

    n_tried: int
    n_dominated: int
    n_violations: int


def sphere_directions(n: int) -> np.ndarray:
    """n quasi-uniform unit vectors of R^3 (a Fibonacci spiral: z_i = 1 - (2i + 1)/n, golden-angle longitudes)."""
    if n < 1:
        raise ValueError(f"need at least one direction, got n={n}")
    i = np.arange(n)
    z = 1.0 - (2 * i + 1) / n
    r = np.sqrt(1.0 - z * z)
    phi = i * pi * (3.0 - np.sqrt(5.0))
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def _random_symmetric_polytope(n_pairs: int, rng: np.random.Generator, radius: float) -> np.ndarray:
    """Vertices +-p_i of conv(+-p_1, ..., +-p_n) in R^3, p_i uniform directions with norms in [radius/2, radius]."""
    P = rng.normal(size=(n_pairs, 3))
    P *= (radius * rng.uniform(0.5, 1.0, size=n_pairs) / np.linalg.norm(P, axis=1))[:, None]
    return np.vstack([P, -P])


def symmetric_domination_check(n_pairs: int = 500, seed: int = 0, n_dirs: int = 2000, dim: int = 2) -> SymmetricCheck:
    """For origin-symmetric bodies w = 2h, so narrower everywhere means K inside L: expect zero violations.

    ``dim = 2``: pairs of random symmetric polygons (:func:`blindspot.core.convex_bodies.random_symmetric_polygon`),
    K narrower than L on ``n_dirs`` equally spaced directions, area K > area L counted.
    ``dim = 3``: pairs of random symmetric polytopes conv(+-p_i) (4 pairs of radius <= 0.8 for K, 8 of
    radius <= 1 for L), widths on
    ``n_dirs`` Fibonacci directions (:func:`sphere_directions`), volumes by ``scipy.spatial.ConvexHull``.
    """

    if n_pairs < 1:
        raise ValueError(f"n_pairs must be positive, got {n_pairs}")
    if dim not in (2, 3):
        raise ValueError(f"dim must be 2 or 3, got {dim}")
    rng = np.random.default_rng(seed)
    dominated = viol = 0
    if dim == 2:
        t = np.arange(n_dirs) * (2 * pi / n_dirs)
        for _ in range(n_pairs):
            K = random_symmetric_polygon(4, rng, 0.9)
            L = random_symmetric_polygon(6, rng, 1.0)
            if np.all(K.width(t) < L.width(t)):
                dominated += 1
                viol += int(polygon_area(K.vertices) > polygon_area(L.vertices))
        return SymmetricCheck(n_pairs, dominated, viol)
    U = sphere_directions(n_dirs)
    for _ in range(n_pairs):
        K = _random_symmetric_polytope(4, rng, 0.8)
        L = _random_symmetric_polytope(8, rng, 1.0)
        wK, wL = 2 * np.max(U @ K.T, axis=1), 2 * np.max(U @ L.T, axis=1)
        if np.all(wK < wL):
            dominated += 1
            viol += int(ConvexHull(K).volume > ConvexHull(L).volume)
    return SymmetricCheck(n_pairs, dominated, viol)


@dataclass(frozen=True)
class PrismPair:
    """K = disk of diameter (1 - eps) w times [0, (1 - eps) w]; L = Reuleaux triangle of width w times [0, w].

    The width of a product with an interval of length t in the direction u = (v, u_z) is
    ||v|| w_planar(v / ||v||) + t |u_z|, so every width of K is (1 - eps) times at most that of L. The
    volumes are (1 - eps)^3 pi w^3 / 4 and (pi - sqrt 3) w^3 / 2: K is larger for eps < 0.0354.
    """

    eps: float
    width: float
    max_width_ratio: float
    vol_K: float
    vol_L: float
    n_dirs: int

    @property
    def contradiction(self) -> bool:
        """Narrower in every (sampled) direction of R^3, yet larger in volume."""
        return bool(self.max_width_ratio < 1 and self.vol_K > self.vol_L)


def prism_pair(eps: float = 0.01, width: float = 1.0, n_dirs: int = 20_000) -> PrismPair:
    """The planar disk / Reuleaux pair lifted to R^3 by an interval: an existence witness in D = 3."""
    if not 0 < eps < 1:
        raise ValueError(f"eps must be in (0, 1), got {eps}")
    if not width > 0:
        raise ValueError(f"width must be positive, got {width}")
    U = sphere_directions(n_dirs)
    v = np.linalg.norm(U[:, :2], axis=1)
    theta = np.arctan2(U[:, 1], U[:, 0])
    K, L = Disc(radius=(1 - eps) * width / 2), reuleaux_triangle(width)
    wK = v * K.width(theta) + (1 - eps) * width * np.abs(U[:, 2])
    wL = v * L.width(theta) + width * np.abs(U[:, 2])
    vol_K = pi * ((1 - eps) * width / 2) ** 2 * (1 - eps) * width
    vol_L = (pi - np.sqrt(3)) / 2 * width**2 * width
    return PrismPair(eps, width, float(np.max(wK / wL)), float(vol_K), float(vol_L), n_dirs)
