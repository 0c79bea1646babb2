r"""Policy curves: mean deviation and score retention against the share of traffic offloaded.

A cost policy proposes, for every evaluation query ``q``, a substitute ``r(q)`` from a cheap pool
and a confidence ``c(q)`` (lower: offload first). Offloading the share ``f`` of the traffic means
serving the ``round(f·Q)`` queries of lowest confidence with their substitute and the rest with the
flagship ``f*``. The routing paper's aggregate curves (its cost-aware routing experiments) are

.. math::

    \mathrm{dev}(f) = \frac1Q \sum_q 1[q \text{ offloaded}]\, \lVert x_{r(q),q} - x_{f^*,q}\rVert ,
    \qquad
    \mathrm{ret}(f) = \frac{\frac1Q \sum_q s_{\mathrm{served}(q), q}}{\frac1Q \sum_q s_{f^*,q}} ,

the deviation averaged over **all** evaluation queries (so it rises from 0 at ``f = 0``) and the
served score over the flagship's. Retention needs per-query scores, which real traffic does not
have: the substitution itself is decided on behaviour, and retention is what a benchmark can
measure of it. The bill saving at a flagship-to-substitute price ratio R is ``f (1 − 1/R)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gate import order_by_confidence

__all__ = ["FRACS", "PolicyCurve", "policy_curve", "n_offloaded", "max_fraction_at_retention", "savings"]

#: The offload fractions of the curves: 0, 0.1, ..., 1.
FRACS = np.round(np.linspace(0.0, 1.0, 11), 10)


def n_offloaded(frac: float, n: int) -> int:
    """``round(f·Q)``, rounding halves up (so the count never depends on banker's rounding)."""
    return int(np.floor(frac * n + 0.5))


@dataclass(frozen=True)
class PolicyCurve:
    """A policy's curves on one evaluation split: one entry per offload fraction."""

    fracs: np.ndarray
    n_offloaded: np.ndarray
    deviation: np.ndarray
    score: np.ndarray
    retention: np.ndarray


def policy_curve(
    conf: np.ndarray,
    dev: np.ndarray,
    score_sub: np.ndarray | None = None,
    score_flag: np.ndarray | None = None,
    fracs: np.ndarray = FRACS,
    seed: int = 0,
) -> PolicyCurve:
    """Deviation, score and retention curves of a policy against the offloaded share.

    Parameters
    ----------
    conf : array (Q,)
        The policy's confidence per evaluation query (non-finite: offloaded last; ties broken by
        a seeded random key, so a constant confidence gives a random order).
    dev : array (Q,)
        The realized deviation ``‖x_{r(q),q} − x_{f*,q}‖`` of its substitute.
    score_sub, score_flag : array (Q,), optional
        Per-query scores of the substitute and of the flagship (score and retention are NaN
        without them).
    fracs : array
        Offload fractions in [0, 1]; default 0, 0.1, …, 1.
    seed : int
        Seed of the tie-breaking key.
    """
    c = np.asarray(conf, dtype=float).ravel()
    d = np.asarray(dev, dtype=float).ravel()
    if c.shape != d.shape:
        raise ValueError(f"confidence and deviation must have one entry per query, got {c.size} and {d.size}")
    if c.size == 0:
        raise ValueError("a policy curve needs at least one evaluation query")
    if not np.all(np.isfinite(d)):
        raise ValueError("the deviations contain NaN or inf; every evaluation query needs a realized deviation")
    f = np.asarray(fracs, dtype=float).ravel()
    if np.any((f < 0) | (f > 1)):
        raise ValueError(f"offload fractions must lie in [0, 1], got {f.tolist()}")
    q = c.size
    order = order_by_confidence(c, seed)
    ks = np.array([n_offloaded(x, q) for x in f])
    cum_dev = np.concatenate([[0.0], np.cumsum(d[order])])
    deviation = cum_dev[ks] / q
    if score_sub is not None and score_flag is not None:
        ss = np.asarray(score_sub, dtype=float).ravel()[order]
        sf = np.asarray(score_flag, dtype=float).ravel()[order]
        if ss.size != q or sf.size != q:
            raise ValueError("give one substitute and one flagship score per evaluation query")
        gain = np.concatenate([[0.0], np.cumsum(ss - sf)])
        score = (sf.sum() + gain[ks]) / q
        retention = score / sf.mean()
    else:
        score = np.full(f.size, np.nan)
        retention = np.full(f.size, np.nan)
    return PolicyCurve(fracs=f, n_offloaded=ks, deviation=deviation, score=score, retention=retention)


def max_fraction_at_retention(curve: PolicyCurve, level: float = 0.99) -> float:
    """The largest offload fraction on the curve whose retention is ``≥ level`` (0 if only f = 0)."""
    ok = curve.retention >= level - 1e-12
    return float(curve.fracs[ok].max()) if ok.any() else float("nan")


def savings(frac: float | np.ndarray, ratio: float) -> float | np.ndarray:
    """Share of the flagship bill saved by offloading ``frac`` at price ratio ``R``: ``f (1 − 1/R)``."""
    if ratio < 1:
        raise ValueError(f"the flagship-to-substitute price ratio must be >= 1, got {ratio}")
    return np.asarray(frac, dtype=float) * (1.0 - 1.0 / ratio)
