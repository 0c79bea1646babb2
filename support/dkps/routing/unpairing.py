"""Simulated unpairing of a paired suite: what the factorised geometry keeps when caches stop overlapping.

Each model keeps only part of its anchor responses, in one of three regimes (the pairing sweep of
the routing experiments in the dkps repository):

- ``aligned``: a reference model keeps a random half ``S`` of the anchors and every other model
  the same ``S`` (pair overlap 100%);
- ``independent``: the reference keeps ``S``, every other model its own random half (about 50%);
- ``disjoint``: the reference keeps ``S``, every other model the complement of ``S`` (0% with
  the reference).

Evaluation queries keep every model's response; they are the metric, never a router input. On
the kept anchor rows the routers are the factorised localised means (``qa-fact``), their
``sigma -> inf`` limit (``static-fact``), the task-indicator version (``task-fact``) and the
per-pair outcome regression ``rf``: the kernel-weighted mean of the pair's realised deviations
``||x_tj - x_cj||`` over the anchors both kept (the grand mean of all realised pair deviations
when they share none). The bandwidth reference is the median over random pairs of kept anchor
rows. Gains are measured against random on the same decisions: ``gain(x) = e(random) - e(x)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..threads import single_blas_thread
from .evaluation import PairedSuite, Split, check_leave_query_out, stratified_split
from .localization_bandwidth import median_row_distance
from .localized_geometry import (
    localized_distances,
    query_sq_distances,
    rbf_weights,
    task_weights,
)
from .rules import bracket_errors, mimicry_errors, nearest_for_all_targets, picked_errors

__all__ = ["REGIMES", "kept_anchors", "unpaired_errors", "unpairing_study"]

REGIMES = ("aligned", "independent", "disjoint")


def kept_anchors(n_models: int, n_anchors: int, regime: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The kept anchor responses of a regime, as (target mask, candidate mask), each ``(n_models, n_anchors)``.

    Row ``i`` of the first mask is what model ``i`` keeps when it is the target (the reference),
    row ``c`` of the second what model ``c`` keeps as a candidate. ``aligned``: both are one random
    half ``S``; ``independent``: every model its own random half, the same in both roles;
    ``disjoint``: ``S`` as target, the complement of ``S`` as candidate.
    """
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")
    half = n_anchors // 2
    S = np.zeros(n_anchors, dtype=bool)
    S[rng.choice(n_anchors, size=half, replace=False)] = True
    if regime == "independent":
        K = np.zeros((n_models, n_anchors), dtype=bool)
        for i in range(n_models):
            K[i, rng.choice(n_anchors, size=half, replace=False)] = True
        return K, K
    T = np.broadcast_to(S, (n_models, n_anchors)).copy()
    return T, (T if regime == "aligned" else ~T)


def _masked_means(W: np.ndarray, M: np.ndarray, Xa: np.ndarray) -> np.ndarray:
    """``phi[i, q] = sum_j W[q, j] M[i, j] x_ij / sum_j W[q, j] M[i, j]`` (NaN where undefined), ``(n, Q, d)``."""
    WM = W[None, :, :] * M[:, None, :]
    den = WM.sum(2)
    num = np.matmul(WM, Xa)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((den > 1e-12)[..., None], num / np.where(den > 1e-12, den, 1.0)[..., None], np.nan)


#: Bytes of one block of the (queries, targets, candidates, d) differences in :func:`_pair_distances`.
_PAIR_BLOCK_BYTES = 1 << 22


def _pair_distances(phi_t: np.ndarray, phi_c: np.ndarray) -> np.ndarray:
    """``D[q, i, c] = ||phi_t[i, q] - phi_c[c, q]||``, ``(Q, n_t, n_c)``, by blocks of queries.

    The same numbers as ``np.linalg.norm(diff, axis=-1)`` on the whole (Q, n_t, n_c, d) difference
    (the square root of ``np.add.reduce`` of the squares along the contiguous last axis), without
    holding it: memory follows :data:`_PAIR_BLOCK_BYTES`.
    """
    n_t, Q, d = phi_t.shape
    n_c = phi_c.shape[0]
    pt, pc = phi_t.transpose(1, 0, 2), phi_c.transpose(1, 0, 2)  # (Q, n, d)
    D = np.empty((Q, n_t, n_c))
    step = max(1, _PAIR_BLOCK_BYTES // max(1, n_t * n_c * d * 8))
    for s in range(0, Q, step):
        diff = pt[s : s + step, :, None, :] - pc[s : s + step, None, :, :]
        np.multiply(diff, diff, out=diff)
        np.sqrt(np.add.reduce(diff, axis=-1), out=D[s : s + step])
    return D


@single_blas_thread
def unpaired_errors(
    suite: PairedSuite, split: Split, regime: str, *, fraction: float = 0.25, rng: np.random.Generator
) -> dict:
    """Errors of the unpaired routers for every (evaluation query, target) decision of one split.

    The target keeps its target-role anchors and every candidate its candidate-role anchors
    (:func:`kept_anchors`), so the pair overlap between target and candidate is the regime's.
    The factorised distance is ``||phi_t(q) - phi_c(q)||`` with each mean over the model's own kept
    rows; ``rf`` is the kernel-weighted mean of ``||x_tj - x_cj||`` over the anchors both kept
    (the grand mean of those deviations where they share none).

    Returns
    -------
    dict of method -> (Q, n) errors, plus ``'overlap'`` (mean shared kept anchors between target
    and candidate) and ``'med'`` (the anchor-row median).
    """
    a, e = split.anchor, split.eval
    check_leave_query_out(suite.query_ids[a], suite.query_ids[e], "the unpaired anchor rows")
    n = suite.X.shape[0]
    Q = len(e)
    T, C = kept_anchors(n, len(a), regime, rng)
    Xa = suite.X[:, a]
    Ua = suite.U[a]
    rows_q = np.concatenate([np.flatnonzero(T[0])] + [np.flatnonzero(C[i]) for i in range(n)])
    med = median_row_distance(Ua[rows_q], rng)
    d2 = query_sq_distances(suite.U[e], Ua)
    E = mimicry_errors(suite.P[e])
    off = ~np.eye(n, dtype=bool)
    out: dict = {}

    def route(D):  # D (Q, n_target, n_candidate); the target is never its own candidate
        D = np.where(off[None] & np.isfinite(D), D, np.inf)
        p = D.argmin(2)
        return picked_errors(E, p)

    weights = {
        "qa-fact": rbf_weights(d2, fraction * med),
        "static-fact": np.ones_like(d2),
        "task-fact": task_weights(suite.tasks[a], suite.tasks[e]),
    }
    for name, W in weights.items():
        phi_t = _masked_means(W, T, Xa)  # (n, Q, d)
        phi_c = phi_t if C is T else _masked_means(W, C, Xa)
        D = _pair_distances(phi_t, phi_c)
        out[name] = route(np.where(np.isnan(D), np.inf, D))
    shared = (T.T[:, :, None] & C.T[:, None, :]).astype(np.float64)  # (m_a, n_t, n_c)
    Ea = np.sqrt(suite.P[a])
    W = weights["qa-fact"]
    m_a = len(a)
    num = (W @ (shared * Ea).reshape(m_a, n * n)).reshape(Q, n, n)
    den = (W @ shared.reshape(m_a, n * n)).reshape(Q, n, n)
    tot = shared[:, off].sum()
    grand = float((shared * Ea)[:, off].sum() / tot) if tot > 0 else float(Ea[:, off].mean())
    with np.errstate(invalid="ignore", divide="ignore"):
        rf = np.where(den > 0, num / np.where(den > 0, den, 1.0), grand)
    out["rf"] = route(rf)
    p, _ = nearest_for_all_targets(localized_distances(suite.P[a], weights["qa-fact"]))
    out["qa-paired"] = picked_errors(E, p)
    out["random"], out["oracle"] = bracket_errors(E)
    out["overlap"] = float(shared.sum(0)[off].mean())
    out["med"] = med
    return out


@single_blas_thread
def unpairing_study(
    suite: PairedSuite,
    seeds=(0, 1, 2),
    *,
    regimes=REGIMES,
    eval_frac: float = 0.2,
    fraction: float = 0.25,
) -> pd.DataFrame:
    """Mean error per (regime, method) over seeds, with the gain over random and the pair overlap.

    Returns
    -------
    DataFrame with columns ``regime, method, error, se, gain, gain_ratio`` (``gain / gain of
    qa-paired`` in the same regime) and ``overlap`` (mean shared kept anchors between target and
    candidate).
    """
    rows = []
    for regime in regimes:
        per_seed = []
        for s in seeds:
            split = stratified_split(suite.tasks, eval_frac, s)
            rng = np.random.default_rng(s)
            per_seed.append(unpaired_errors(suite, split, regime, fraction=fraction, rng=rng))
        methods = [k for k in per_seed[0] if k not in ("overlap", "med")]
        err = {m: np.array([np.nanmean(r[m]) for r in per_seed]) for m in methods}
        gains = {m: np.array([np.nanmean(r["random"] - r[m]) for r in per_seed]) for m in methods}
        overlap = float(np.mean([r["overlap"] for r in per_seed]))
        for m in methods:
            se = float(err[m].std(ddof=1) / np.sqrt(len(seeds))) if len(seeds) > 1 else float("nan")
            rows.append(
                dict(
                    regime=regime,
                    method=m,
                    error=err[m].mean(),
                    se=se,
                    gain=gains[m].mean(),
                    gain_ratio=gains[m].mean() / gains["qa-paired"].mean(),
                    overlap=overlap,
                )
            )
    return pd.DataFrame(rows)
