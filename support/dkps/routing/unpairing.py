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

from .bandwidth import median_row_distance
from .evaluation import PairedSuite, Split, check_leave_query_out, stratified_split
from .geometry import (
    factorised_distances,
    localized_distances,
    localized_means,
    query_sq_distances,
    rbf_weights,
    task_weights,
)
from .rules import bracket_errors, mimicry_errors, nearest_for_all_targets, picked_errors

__all__ = ["REGIMES", "kept_anchors", "pair_overlap", "unpaired_errors", "unpairing_study"]

REGIMES = ("aligned", "independent", "disjoint")


def kept_anchors(n_models: int, n_anchors: int, regime: str, reference: int, rng: np.random.Generator) -> np.ndarray:
    """Boolean ``(n_models, n_anchors)`` mask of the anchor responses each model keeps."""
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}")
    half = n_anchors // 2
    S = np.zeros(n_anchors, dtype=bool)
    S[rng.choice(n_anchors, size=half, replace=False)] = True
    K = np.zeros((n_models, n_anchors), dtype=bool)
    for i in range(n_models):
        if i == reference or regime == "aligned":
            K[i] = S
        elif regime == "disjoint":
            K[i] = ~S
        else:
            K[i, rng.choice(n_anchors, size=half, replace=False)] = True
    return K


def pair_overlap(K: np.ndarray) -> np.ndarray:
    """Shared kept anchors per model pair, ``(n, n)``."""
    Ki = K.astype(np.float64)
    return Ki @ Ki.T


def unpaired_errors(
    suite: PairedSuite,
    split: Split,
    regime: str,
    *,
    fraction: float = 0.25,
    rng: np.random.Generator,
    targets=None,
) -> dict:
    """Errors of the unpaired routers for every (evaluation query, target) decision of one split.

    Every target in turn is the regime's reference model (it keeps ``S``; the candidates keep
    their share according to ``regime``), so the pair overlap that matters -- between the target
    and each candidate -- is the regime's.

    Parameters
    ----------
    suite : PairedSuite
    split : Split
    regime : {'aligned', 'independent', 'disjoint'}
    fraction : float
        ``sigma = fraction x`` the anchor-row median.
    rng : numpy Generator
        Draws the kept anchors and the pairs of the anchor-row median.
    targets : sequence of int, optional
        Targets (default: every model).

    Returns
    -------
    dict of method -> (Q, n_targets) errors, plus ``'overlap'`` (mean shared kept anchors between
    target and candidate) and ``'med'``.
    """
    a, e = split.anchor, split.eval
    check_leave_query_out(suite.query_ids[a], suite.query_ids[e], "the unpaired anchor rows")
    n = suite.X.shape[0]
    m_a = len(a)
    targets = list(range(n)) if targets is None else list(targets)
    d2 = query_sq_distances(suite.U[e], suite.U[a])
    E = mimicry_errors(suite.P[e])
    Ea = np.sqrt(suite.P[a])  # realised anchor deviations, read by rf on shared anchors only
    weights = {"static-fact": np.ones_like(d2), "task-fact": task_weights(suite.tasks[a], suite.tasks[e])}
    names = ["qa-fact", "static-fact", "task-fact", "rf"]
    out = {k: np.full((len(e), len(targets)), np.nan) for k in names}
    overlaps, meds = [], []
    Q = np.arange(len(e))
    for col, t in enumerate(targets):
        K = kept_anchors(n, m_a, regime, t, rng)
        row_model, row_anchor = np.nonzero(K)
        rows = suite.X[row_model, a[row_anchor]]
        med = median_row_distance(suite.U[a][row_anchor], rng)
        meds.append(med)
        W = dict(weights, **{"qa-fact": rbf_weights(d2, fraction * med)})
        cand = np.arange(n) != t
        for name in ("qa-fact", "static-fact", "task-fact"):
            st = localized_means(rows, row_model, W[name][:, row_anchor], n)
            D = factorised_distances(st)[:, t, :]
            D = np.where(cand[None] & np.isfinite(D), D, np.inf)
            pick = D.argmin(1)
            out[name][:, col] = np.where(np.isfinite(D[Q, pick]), E[Q, t, pick], np.nan)
        shared = (K[t][None, :] & K).T.astype(np.float64)  # (m_a, n): anchors both t and c kept
        w_rf = W["qa-fact"]
        num = w_rf @ (shared * Ea[:, t, :])
        den = w_rf @ shared
        grand = float((shared[:, cand] * Ea[:, t, cand]).sum() / max(shared[:, cand].sum(), 1.0))
        if not shared[:, cand].any():
            grand = float(Ea[:, t, cand].mean())  # no shared anchor with any candidate: all predictions equal
        with np.errstate(invalid="ignore", divide="ignore"):
            rf = np.where(den > 0, num / np.where(den > 0, den, 1.0), grand)
        rf = np.where(cand[None], rf, np.inf)
        pick = rf.argmin(1)
        out["rf"][:, col] = E[Q, t, pick]
        overlaps.append(shared[:, cand].sum(0).mean())
    D = localized_distances(suite.P[a], rbf_weights(d2, fraction * float(np.mean(meds))))
    p, _ = nearest_for_all_targets(D)
    out["qa-paired"] = picked_errors(E, p)[:, targets]
    rand, orac = bracket_errors(E)
    out["random"], out["oracle"] = rand[:, targets], orac[:, targets]
    out["overlap"] = float(np.mean(overlaps))
    out["med"] = float(np.mean(meds))
    return out


def unpairing_study(
    suite: PairedSuite,
    seeds=(0, 1, 2),
    *,
    regimes=REGIMES,
    targets=None,
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
            per_seed.append(unpaired_errors(suite, split, regime, fraction=fraction, rng=rng, targets=targets))
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
