r"""The quality-router metrics readers know, for an offloading policy: PGR, APGR, CPT and AIQ.

An offloading policy is also a quality router between a strong model (the flagship) and a weak
tier (its substitutes): serving the share ``1 − f`` of the traffic with the flagship, the rest by
confidence order with the substitute. Two benchmarks define the usual scales.

RouteLLM (Ong et al. 2024, "RouteLLM: Learning to Route LLMs with Preference Data", §4):

- **PGR**, the performance gap recovered at a share ``p`` of strong calls,
  ``PGR(p) = (q(p) − q_weak) / (q_strong − q_weak)``;
- **APGR**, its area over ``p ∈ [0, 1]`` (here by the trapezoidal rule on every prefix);
- **CPT(x)**, the smallest share of strong calls with ``PGR ≥ x``.

RouterBench (Hu et al. 2024, "RouterBench: A Benchmark for Multi-LLM Routing System", §3):

- **AIQ**, the average improvement in quality: the area under the router's *non-decreasing
  convex hull* in the (cost, quality) plane, divided by the width of the cost range. The hull is
  the upper concave envelope of the router's points, held flat to the right of its highest point
  (a router can always spend more for no gain).

With no prices on AlpacaEval, the cost of a query is the parameter count parsed from the served
model's name (:mod:`dkps.routing.sizes`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gate import order_by_confidence

__all__ = [
    "QualityRouterMetrics",
    "strong_share_curve",
    "quality_router_metrics",
    "nondecreasing_hull",
    "aiq",
]


def strong_share_curve(
    conf: np.ndarray, score_sub: np.ndarray, score_flag: np.ndarray, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Mean served score at every offload count ``k = 0..Q``, and the strong share ``(Q − k) / Q``."""
    c = np.asarray(conf, dtype=float).ravel()
    ss = np.asarray(score_sub, dtype=float).ravel()
    sf = np.asarray(score_flag, dtype=float).ravel()
    if not (c.size == ss.size == sf.size) or c.size == 0:
        raise ValueError("give one confidence, substitute score and flagship score per evaluation query (Q >= 1)")
    order = order_by_confidence(c, seed)
    q = c.size
    quality = (sf.sum() + np.concatenate([[0.0], np.cumsum(ss[order] - sf[order])])) / q
    strong = (q - np.arange(q + 1)) / q
    return strong, quality


@dataclass(frozen=True)
class QualityRouterMetrics:
    """RouteLLM's metrics of one policy (NaN when the substitutes score as well as the flagship)."""

    q_strong: float
    q_weak: float
    apgr: float
    cpt50: float
    pgr_at_half: float


def quality_router_metrics(
    conf: np.ndarray, score_sub: np.ndarray, score_flag: np.ndarray, seed: int = 0, level: float = 0.5
) -> QualityRouterMetrics:
    """PGR at half the traffic on the flagship, APGR and CPT(level) of an offload order.

    ``q_strong`` is the all-flagship score, ``q_weak`` the all-substitute score. When
    ``q_strong ≤ q_weak`` the gap is not a gap and every ratio is NaN.
    """
    strong, quality = strong_share_curve(conf, score_sub, score_flag, seed)
    q_strong, q_weak = float(quality[0]), float(quality[-1])
    if not q_strong > q_weak:
        nan = float("nan")
        return QualityRouterMetrics(q_strong, q_weak, nan, nan, nan)
    pgr = (quality - q_weak) / (q_strong - q_weak)
    x, y = strong[::-1], pgr[::-1]  # increasing strong share
    apgr = float(np.trapezoid(y, x))
    reach = x[y >= level - 1e-12]
    cpt = float(reach.min()) if reach.size else float("nan")
    half = float(np.interp(0.5, x, y))
    return QualityRouterMetrics(q_strong, q_weak, apgr, cpt, half)


def nondecreasing_hull(cost: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """Vertices (cost, quality) of the non-decreasing upper convex hull of the points.

    Andrew's monotone chain (Andrew 1979) builds the upper hull left to right; it is then cut at
    its highest vertex and held flat to the largest cost.
    """
    x = np.asarray(cost, dtype=float).ravel()
    y = np.asarray(quality, dtype=float).ravel()
    if x.size != y.size or x.size == 0:
        raise ValueError("give as many costs as qualities, at least one point")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("costs and qualities must be finite")
    order = np.lexsort((-y, x))  # by cost, the best quality first among equal costs
    pts = [(x[i], y[i]) for i in order]
    dedup = [pts[0]]
    for p in pts[1:]:
        if p[0] != dedup[-1][0]:
            dedup.append(p)
    upper: list[tuple[float, float]] = []
    for p in dedup:
        while len(upper) >= 2:
            (x1, y1), (x2, y2) = upper[-2], upper[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) >= 0:  # not a right turn
                upper.pop()
            else:
                break
        upper.append(p)
    hull = np.array(upper)
    top = int(np.argmax(hull[:, 1]))
    hull = hull[: top + 1]
    if hull[-1, 0] < dedup[-1][0]:
        hull = np.vstack([hull, [dedup[-1][0], hull[-1, 1]]])
    return hull


def aiq(cost: np.ndarray, quality: np.ndarray) -> float:
    """RouterBench's AIQ: area under the non-decreasing convex hull over the cost range, per unit cost.

    A single cost (every point at the same price) has no range; the AIQ is then its best quality.
    """
    hull = nondecreasing_hull(cost, quality)
    width = hull[-1, 0] - hull[0, 0]
    if width <= 0:
        return float(hull[:, 1].max())
    return float(np.trapezoid(hull[:, 1], hull[:, 0]) / width)
