"""Diagnostics of what query-aware routing can and cannot learn (paired suites).

- :func:`residual_correlation` -- is the oracle gap tunable? Per task with at least
  ``min_queries`` queries, each query's vector of realised pair errors ``e(i, k; q)`` (``i < k``)
  has its task mean removed and is L2-normalised; random query pairs are split at the median
  query-query distance into *near* and *far*, and the mean dot product (a correlation) of each
  group is averaged over tasks. Near ~ far ~ 0 says that, beyond the task mean, the error surfaces
  of embedding-adjacent queries are unrelated, so no bandwidth can find the per-query oracle.
- :func:`score_disagreement` -- the boundary of the factorisation: for the objective
  ``|s_rq - s_tq|`` (judge-score disagreement) compare the pair's own localised historical
  disagreement ``rfS = sum_j w~_j |s_tj - s_cj|`` (needs pairing) with the factorised
  ``shat = |s^_t(q) - s^_c(q)|`` (each model's Nadaraya-Watson score estimate from its own rows)
  and with the response geometry ``qa``.
- :func:`score_routing` -- with no target: pick the candidate with the best localised own-score
  estimate, judged by the realised score of the pick.
- :func:`query_pca` -- anchor-fitted PCA of the query space (evaluation queries only projected).

All of them read anchors only for the router side (leave-query-out).
"""

from __future__ import annotations

import numpy as np
from sklearn.decomposition import PCA

from ..threads import single_blas_thread
from .evaluation import PairedSuite, Split, check_leave_query_out
from .localized_geometry import localized_distances, localized_means, query_sq_distances, rbf_weights, task_weights
from .rules import nearest_for_all_targets, picked_errors

__all__ = ["residual_correlation", "score_disagreement", "score_routing", "query_pca"]


def query_pca(U_anchor, U_eval, n_components: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Project both query sets on the first ``n_components`` principal axes of the anchors (None: identity)."""
    if n_components is None or n_components >= U_anchor.shape[1]:
        return U_anchor, U_eval
    pca = PCA(n_components=n_components, random_state=0).fit(U_anchor)
    return pca.transform(U_anchor), pca.transform(U_eval)


@single_blas_thread
def residual_correlation(
    suite: PairedSuite, *, n_pairs: int = 4000, min_queries: int = 20, n_components: int | None = None, seed: int = 0
) -> dict:
    """Near and far residual correlation of realised pair-error surfaces, averaged over tasks.

    Returns
    -------
    dict with ``near``, ``far`` (means over tasks) and ``n_tasks`` (tasks with enough queries).
    """
    n = suite.X.shape[0]
    iu = np.triu_indices(n, 1)
    E = np.sqrt(suite.P[:, iu[0], iu[1]])  # (m, n(n-1)/2)
    U = suite.U
    if n_components is not None and n_components < U.shape[1]:
        U = PCA(n_components=n_components, random_state=0).fit_transform(U)
    rng = np.random.default_rng(seed)
    near, far = [], []
    for task in sorted(set(suite.tasks.tolist()), key=str):
        pos = np.flatnonzero(suite.tasks == task)
        if pos.size < min_queries:
            continue
        R = E[pos] - E[pos].mean(0)
        norms = np.linalg.norm(R, axis=1, keepdims=True)
        R = R / np.where(norms > 0, norms, 1.0)
        a = rng.integers(0, pos.size, n_pairs)
        b = rng.integers(0, pos.size, n_pairs)
        keep = a != b
        a, b = a[keep], b[keep]
        corr = (R[a] * R[b]).sum(1)
        dist = np.linalg.norm(U[pos[a]] - U[pos[b]], axis=1)
        cut = np.median(dist)
        near.append(corr[dist <= cut].mean())
        far.append(corr[dist > cut].mean())
    if not near:
        return dict(near=np.nan, far=np.nan, n_tasks=0)
    return dict(near=float(np.mean(near)), far=float(np.mean(far)), n_tasks=len(near))


def _weights(suite: PairedSuite, split: Split, kind: str, fraction: float, med: float) -> np.ndarray:
    a, e = split.anchor, split.eval
    if kind == "task":
        return task_weights(suite.tasks[a], suite.tasks[e])
    return rbf_weights(query_sq_distances(suite.U[e], suite.U[a]), fraction * med)


@single_blas_thread
def score_disagreement(suite: PairedSuite, split: Split, med: float, *, fraction: float = 0.25) -> dict:
    """Mean realised ``|s_pick,q - s_t,q|`` over (evaluation query, target) decisions per router.

    Routers: ``rfS-{f}x`` / ``rfS-task`` (pair's localised historical disagreement), ``shat-{f}x`` /
    ``shat-task`` (factorised own-score estimates), ``qa-{f}x`` (response geometry), ``random`` and
    ``oracle``.
    """
    if suite.scores is None:
        raise ValueError("score disagreement needs per-response scores")
    a, e = split.anchor, split.eval
    check_leave_query_out(suite.query_ids[a], suite.query_ids[e], "the score-disagreement routers")
    S = suite.scores
    n = S.shape[0]
    Sa = S[:, a]
    Sa_f = np.where(np.isfinite(Sa), Sa, np.nan)
    dS = np.abs(Sa_f.T[:, :, None] - Sa_f.T[:, None, :])  # (m_a, n, n)
    have = np.isfinite(dS)
    dS0 = np.where(have, dS, 0.0)
    Se = S[:, e]
    target_err = np.abs(Se.T[:, :, None] - Se.T[:, None, :])  # (Q, n, n): |s_iq - s_kq|
    out = {}
    label = f"{fraction:g}x"
    for kind, name in (("rbf", label), ("task", "task")):
        W = _weights(suite, split, kind, fraction, med)
        num = np.einsum("qj,jik->qik", W, dS0)
        den = np.einsum("qj,jik->qik", W, have.astype(np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            rfs = np.where(den > 0, num / den, np.inf)
        p, _ = nearest_for_all_targets(rfs)
        out[f"rfS-{name}"] = np.nanmean(picked_errors(target_err, p))
        rows_m = np.repeat(np.arange(n), len(a))
        ok = np.isfinite(Sa.ravel())
        st = localized_means(np.zeros((ok.sum(), 1)), rows_m[ok], np.tile(W, (1, n))[:, ok], n, scores=Sa.ravel()[ok])
        sh = np.abs(st.score[:, :, None] - st.score[:, None, :])
        sh = np.where(np.isfinite(sh), sh, np.inf)
        p, _ = nearest_for_all_targets(sh)
        out[f"shat-{name}"] = np.nanmean(picked_errors(target_err, p))
    D = localized_distances(suite.P[a], _weights(suite, split, "rbf", fraction, med))
    p, _ = nearest_for_all_targets(D)
    out[f"qa-{label}"] = np.nanmean(picked_errors(target_err, p))
    off = ~np.eye(n, dtype=bool)
    out["random"] = float(np.nanmean(np.nanmean(np.where(off[None], target_err, np.nan), axis=2)))
    out["oracle"] = float(np.nanmean(np.where(off[None], target_err, np.inf).min(2)))
    return out


@single_blas_thread
def score_routing(suite: PairedSuite, split: Split, med: float, *, fraction: float = 0.25) -> dict:
    """Realised score of ``argmax_c s^_c(q)`` (no target; every model a candidate), per weighting.

    ``qa`` (RBF at ``fraction x med``), ``task`` (indicator), ``static`` (uniform); ``random`` is
    the mean realised score over models, ``oracle`` the maximum. Higher is better.
    """
    if suite.scores is None:
        raise ValueError("score routing needs per-response scores")
    a, e = split.anchor, split.eval
    check_leave_query_out(suite.query_ids[a], suite.query_ids[e], "the score estimates")
    S = suite.scores
    n = S.shape[0]
    Sa = S[:, a]
    ok = np.isfinite(Sa.ravel())
    rows_m = np.repeat(np.arange(n), len(a))
    Se = S[:, e]
    out = {}
    d2 = query_sq_distances(suite.U[e], suite.U[a])
    for name, W in (
        ("qa", rbf_weights(d2, fraction * med)),
        ("task", task_weights(suite.tasks[a], suite.tasks[e])),
        ("static", np.ones_like(d2)),
    ):
        st = localized_means(np.zeros((ok.sum(), 1)), rows_m[ok], np.tile(W, (1, n))[:, ok], n, scores=Sa.ravel()[ok])
        sc = np.where(np.isfinite(st.score), st.score, -np.inf)
        pick = sc.argmax(1)
        out[name] = float(np.nanmean(Se[pick, np.arange(len(e))]))
    out["random"] = float(np.nanmean(np.nanmean(Se, axis=0)))
    out["oracle"] = float(np.nanmean(np.nanmax(Se, axis=0)))
    return out
