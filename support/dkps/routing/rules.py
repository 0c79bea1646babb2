"""Routing rules, the realised mimicry error, and the brackets and baselines it is judged against.

- **nearest candidate**: ``r(t, q) = argmin_{c in C(t, q)} D_q(t, c)``; the target is never a
  candidate, undefined (non-finite) distances count as ``+inf``, ties go to the lowest model index
  (``numpy.argmin``), and a decision with no finite candidate returns pick ``-1`` and distance
  ``+inf`` (:func:`nearest_candidate`, :func:`nearest_for_all_targets`);
- **mimicry error** ``e(r; t, q) = ||x_rq - x_tq||`` (Euclidean, not squared) of the routed
  model's response against the target's (:func:`mimicry_errors`);
- **random** = ``mean_c e(c; t, q)``, the exact expected error of a uniform random candidate,
  and **oracle** = ``min_c e(c; t, q)``, the hindsight floor (:func:`bracket_errors`);
- **profile**: the candidate whose vector of per-task mean anchor scores is nearest the target's
  (what a leaderboard alone can do; :func:`score_profiles`, :func:`profile_distances`).

The static and task baselines are the nearest-candidate rule applied to
:func:`dkps.routing.localized_geometry.static_distances` and to the task-indicator geometry.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "nearest_candidate",
    "nearest_for_all_targets",
    "mimicry_errors",
    "bracket_errors",
    "picked_errors",
    "score_profiles",
    "profile_distances",
]


def _candidate_mask(candidates, Q: int, n: int) -> np.ndarray:
    if candidates is None:
        return np.ones((Q, n), dtype=bool)
    c = np.asarray(candidates, dtype=bool)
    if c.shape == (n,):
        return np.broadcast_to(c, (Q, n))
    if c.shape == (Q, n):
        return c
    raise ValueError(f"candidates mask must have shape ({n},) or ({Q}, {n}), got {c.shape}")


def nearest_candidate(D, targets, candidates=None) -> tuple[np.ndarray, np.ndarray]:
    """Route each query to the candidate nearest its target.

    Parameters
    ----------
    D : array of shape (Q, n, n)
        Model-model distances per query (any geometry).
    targets : int or int array of shape (Q,)
        Target model index per query.
    candidates : bool array of shape (n,) or (Q, n), optional
        Allowed picks (default: every model). The target is excluded whatever this says.

    Returns
    -------
    picks : int array (Q,)
        Lowest-index minimiser; ``-1`` where no candidate has a finite distance.
    dist : float array (Q,)
        ``D_q(t, pick)`` (``+inf`` where the pick is ``-1``).
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim == 2:
        D = D[None]
    Q, n, _ = D.shape
    t = np.broadcast_to(np.asarray(targets, dtype=np.int64), (Q,))
    if ((t < 0) | (t >= n)).any():
        raise ValueError(f"target index out of range 0..{n - 1}")
    rows = D[np.arange(Q), t, :].copy()
    rows[~np.isfinite(rows)] = np.inf
    rows[~_candidate_mask(candidates, Q, n)] = np.inf
    rows[np.arange(Q), t] = np.inf
    picks = rows.argmin(axis=1)
    dist = rows[np.arange(Q), picks]
    picks = np.where(np.isfinite(dist), picks, -1)
    return picks, dist


def nearest_for_all_targets(D, candidates=None) -> tuple[np.ndarray, np.ndarray]:
    """Every model in turn as the target: ``picks[q, t] = argmin_{c != t} D_q(t, c)``.

    Parameters
    ----------
    D : array of shape (Q, n, n) or (n, n)
        Distances; a 2-D array (a constant geometry such as static) is used for one query.
    candidates : bool array of shape (n,), optional
        Allowed picks; targets are excluded from their own decision.

    Returns
    -------
    picks : int array (Q, n)
    dist : float array (Q, n)
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim == 2:
        D = D[None]
    Q, n, _ = D.shape
    R = np.where(np.isfinite(D), D, np.inf)
    if candidates is not None:
        c = np.asarray(candidates, dtype=bool)
        if c.shape != (n,):
            raise ValueError(f"candidates mask must have shape ({n},), got {c.shape}")
        R = np.where(c[None, None, :], R, np.inf)
    R[:, np.arange(n), np.arange(n)] = np.inf
    picks = R.argmin(axis=2)
    dist = np.take_along_axis(R, picks[..., None], axis=2)[..., 0]
    return np.where(np.isfinite(dist), picks, -1), dist


def mimicry_errors(P_eval) -> np.ndarray:
    """Realised mimicry errors ``E[q, i, k] = sqrt(P[q, i, k]) = ||x_iq - x_kq||`` at eval queries."""
    return np.sqrt(np.maximum(np.asarray(P_eval, dtype=np.float64), 0.0))


def picked_errors(E, picks) -> np.ndarray:
    """``E[q, t, picks[q, t]]`` for every (query, target); NaN where the pick is ``-1``."""
    E = np.asarray(E, dtype=np.float64)
    picks = np.asarray(picks)
    if picks.ndim == 1:  # a constant pick per target (static, profile)
        picks = np.broadcast_to(picks, E.shape[:2])
    safe = np.where(picks >= 0, picks, 0)
    out = np.take_along_axis(E, safe[..., None], axis=2)[..., 0]
    return np.where(picks >= 0, out, np.nan)


def bracket_errors(E, candidates=None) -> tuple[np.ndarray, np.ndarray]:
    """Random (closed-form mean over candidates) and oracle (minimum) errors per (query, target).

    Parameters
    ----------
    E : array of shape (Q, n, n)
        Realised errors (:func:`mimicry_errors`).
    candidates : bool array of shape (n,), optional
        Candidate pool; the target is always excluded.

    Returns
    -------
    random, oracle : float arrays (Q, n)
    """
    E = np.asarray(E, dtype=np.float64)
    Q, n, _ = E.shape
    mask = np.ones((n, n), dtype=bool) if candidates is None else np.broadcast_to(np.asarray(candidates, bool), (n, n))
    mask = mask & ~np.eye(n, dtype=bool)  # mask[t, c]
    cnt = mask.sum(1)
    if (cnt < 1).any():
        raise ValueError("every target needs at least one candidate other than itself")
    rand = np.where(mask[None], E, 0.0).sum(2) / cnt[None]
    orac = np.where(mask[None], E, np.inf).min(2)
    return rand, orac


def score_profiles(scores, model_of, task_of, n_models: int, tasks) -> np.ndarray:
    """Per-(model, task) mean anchor score: the score profile a leaderboard shows.

    Parameters
    ----------
    scores : float array (R,)
        Anchor scores (rows of anchor queries only; NaN rows are ignored).
    model_of : int array (R,)
    task_of : array (R,)
        Task label of each row.
    n_models : int
    tasks : sequence
        Task order of the profile's columns.

    Returns
    -------
    ndarray (n_models, T); NaN where a model has no scored anchor in a task.
    """
    s = np.asarray(scores, dtype=np.float64)
    mo = np.asarray(model_of, dtype=np.int64)
    to = np.asarray(task_of, dtype=object)
    out = np.full((n_models, len(tasks)), np.nan)
    for k, task in enumerate(tasks):
        sel = (to == task) & np.isfinite(s)
        tot = np.bincount(mo[sel], weights=s[sel], minlength=n_models)
        cnt = np.bincount(mo[sel], minlength=n_models)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, k] = np.where(cnt > 0, tot / np.where(cnt > 0, cnt, 1), np.nan)
    return out


def profile_distances(profiles) -> np.ndarray:
    """L2 distances between score profiles over the tasks both models have.

    ``||p_i - p_k||`` over the shared tasks, scaled by ``sqrt(T / #shared)``; ``+inf`` when they
    share none.

    Returns
    -------
    ndarray (n, n)
    """
    p = np.asarray(profiles, dtype=np.float64)
    T = p.shape[1]
    have = np.isfinite(p)
    pz = np.where(have, p, 0.0)
    both = have[:, None, :] & have[None, :, :]
    diff2 = np.where(both, (pz[:, None, :] - pz[None, :, :]) ** 2, 0.0).sum(2)
    shared = both.sum(2)
    with np.errstate(invalid="ignore", divide="ignore"):
        D = np.where(shared > 0, np.sqrt(diff2 * T / np.where(shared > 0, shared, 1)), np.inf)
    np.fill_diagonal(D, 0.0)
    return D
