"""The half-split swap experiment (App. H.21) and the chi-squared calibration sweep (App. G.2).

Half-split (H.21): Z = zscore(S) once; for each trial a random permutation of the k benchmarks
splits them into r visible and k - r held-out ones; a_v = Z[:, vis].mean(1), a_h = Z[:, hold].mean(1);

    top-1 swap  = [argmax a_v != argmax a_h],
    top-5 change = 5 - |top5(a_v) & top5(a_h)|.

It compares two *disjoint* halves, not the visible ranking with the full one.

Calibration (G.2): for r = 3..9 and each trial, top and second = the two best models by a_v;

    empirical = [a_h[second] > a_h[top]],
    predicted = Phi(-Delta / (2 sigma_h)),  sigma_h = sigma_obs sqrt((D - d)/d)

with Delta = a_v[top] - a_v[second], sigma_obs = sd(a_v), d = d_eff of the raw visible columns,
D = k (:func:`blindspot.core.swap.p_swap_rescaled`). One ``default_rng(seed)`` serves every r, and each
trial draws one ``rng.permutation(k)``, as in the paper's code; the trials are then evaluated in
one batched product (no per-trial Python loop over models).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix, zscore
from blindspot.core.spectrum import correlation
from blindspot.core.swap import p_swap_rescaled
from dkps.threads import single_blas_thread

__all__ = ["HalfSplit", "half_split", "half_split_exhaustive", "chi2_calibration", "split_masks"]


@dataclass(frozen=True)
class HalfSplit:
    """Swap statistics over visible/held-out splits (App. H.21, G.2).

    Attributes
    ----------
    top1_swap_rate : float
        Fraction of splits whose two halves disagree on the top model.
    mean_top5_changes, sd_top5_changes : float
        Mean and sd (ddof = 0) of 5 - |top5(a_v) & top5(a_h)|.
    frac_top5_any : float
        Fraction of splits with at least one top-5 change.
    top1_swap, top5_changes : ndarray (n_trials,)
        Per-split values.
    n_trials, n_vis : int
    exhaustive : bool
        True when every split was enumerated.
    """

    top1_swap_rate: float
    mean_top5_changes: float
    sd_top5_changes: float
    frac_top5_any: float
    top1_swap: np.ndarray
    top5_changes: np.ndarray
    n_trials: int
    n_vis: int
    exhaustive: bool

    @property
    def top1_se(self) -> float:
        """Binomial standard error of the top-1 swap rate."""
        p = self.top1_swap_rate
        return float(np.sqrt(p * (1 - p) / self.n_trials))


def _check(S: ArrayLike, n_vis: int | None, top: int = 5) -> tuple[np.ndarray, int]:
    X = as_matrix(S)
    n, k = X.shape
    if k < 2:
        raise ValueError(f"a split needs at least 2 benchmarks, got {k}")
    r = k // 2 if n_vis is None else int(n_vis)
    if not 1 <= r <= k - 1:
        raise ValueError(f"n_vis must be between 1 and k - 1 = {k - 1} (both halves non-empty), got {r}")
    if n < max(top, 2):
        raise ValueError(f"the top-{top} comparison needs at least {max(top, 2)} models, got {n}")
    return X, r


def split_masks(perms: np.ndarray, n_vis: int) -> np.ndarray:
    """Boolean (T, k) masks of the visible benchmarks: the first ``n_vis`` entries of each permutation."""
    perms = np.asarray(perms)
    T, k = perms.shape
    M = np.zeros((T, k), dtype=bool)
    M[np.arange(T)[:, None], perms[:, :n_vis]] = True
    return M


def _evaluate(Z: np.ndarray, M: np.ndarray, top: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Per-split top-1 disagreement and top-`top` changes for visible masks M (T, k), batched."""
    Mf = M.astype(float)
    a_v = Z @ (Mf / Mf.sum(axis=1, keepdims=True)).T  # (n, T)
    Hf = 1.0 - Mf
    a_h = Z @ (Hf / Hf.sum(axis=1, keepdims=True)).T
    swap1 = np.argmax(a_v, axis=0) != np.argmax(a_h, axis=0)  # the first of a stable descending sort
    changes = top - (_top_set(a_v, top) & _top_set(a_h, top)).sum(axis=0)
    return swap1, changes


def _top_set(a: np.ndarray, top: int) -> np.ndarray:
    """Boolean (n, T): the first ``top`` rows of a stable descending sort of each column, in O(n) per column.

    The ``top``-th largest value v comes from a partial sort; the set is every row above v and,
    among the rows equal to v, the lowest-indexed ones (which a stable sort would put first).
    """
    n = a.shape[0]
    if top >= n:
        return np.ones(a.shape, dtype=bool)
    v = -np.partition(-a, top - 1, axis=0)[top - 1]
    above = a > v
    eq = a == v
    need = top - above.sum(axis=0)
    tied = np.flatnonzero(eq.sum(axis=0) > need)  # columns where ties straddle the cut (rare)
    out = above | eq
    if tied.size:
        e = eq[:, tied]
        out[:, tied] = above[:, tied] | (e & (np.cumsum(e, axis=0) <= need[tied]))
    return out


def _result(swap1: np.ndarray, changes: np.ndarray, r: int, exhaustive: bool) -> HalfSplit:
    return HalfSplit(
        float(swap1.mean()),
        float(changes.mean()),
        float(changes.std()),
        float((changes > 0).mean()),
        swap1.astype(int),
        changes.astype(int),
        int(swap1.size),
        r,
        exhaustive,
    )


def _evaluate_batched(Z: np.ndarray, M: np.ndarray, batch: int | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_evaluate` over chunks of splits (identical results; memory O(n * batch))."""
    if batch is None or batch >= M.shape[0]:
        return _evaluate(Z, M)
    parts = [_evaluate(Z, M[s : s + batch]) for s in range(0, M.shape[0], batch)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


@single_blas_thread(openmp=True)
def half_split(
    S: ArrayLike, n_trials: int = 500, n_vis: int | None = None, seed: int = 0, batch: int | None = None
) -> HalfSplit:
    """Random visible/held-out splits of the benchmarks (App. H.21).

    Each trial draws ``rng.permutation(k)`` from one ``default_rng(seed)``; vis = perm[:n_vis]
    (default k // 2), hold = the rest. ``batch`` evaluates the splits in chunks of that many
    (the same numbers, memory O(n * batch) instead of O(n * n_trials), for large leaderboards).

    Raises
    ------
    ValueError
        NaN scores, fewer than 5 models, n_trials < 1, or n_vis outside [1, k - 1].
    """
    X, r = _check(S, n_vis)
    if n_trials < 1:
        raise ValueError(f"n_trials must be at least 1, got {n_trials}")
    Z = zscore(X)
    rng = np.random.default_rng(seed)
    perms = np.stack([rng.permutation(X.shape[1]) for _ in range(n_trials)])
    return _result(*_evaluate_batched(Z, split_masks(perms, r), batch), r, False)


@single_blas_thread(openmp=True)
def half_split_exhaustive(S: ArrayLike, n_vis: int | None = None, batch: int | None = None) -> HalfSplit:
    """Every choice of ``n_vis`` visible benchmarks (C(k, n_vis) splits, e.g. 924 for 6 of 12); ``batch`` as in :func:`half_split`."""
    X, r = _check(S, n_vis)
    k = X.shape[1]
    combos = list(combinations(range(k), r))
    if len(combos) > 200_000:
        raise ValueError(f"{len(combos)} splits are too many to enumerate; use half_split with n_trials")
    M = np.zeros((len(combos), k), dtype=bool)
    M[np.repeat(np.arange(len(combos)), r), np.asarray(combos).ravel()] = True
    return _result(*_evaluate_batched(zscore(X), M, batch), r, True)


@single_blas_thread(openmp=True)
def chi2_calibration(
    S: ArrayLike, r_list: Sequence[int] = range(3, 10), n_trials: int = 500, D: float | None = None, seed: int = 0
) -> pd.DataFrame:
    """Empirical top-2 swap rate vs the rescaled chi-squared prediction for each visible count r (G.2).

    Returns a table indexed by r with columns ``empirical``, ``predicted`` (mean of the per-trial
    predictions), ``gap_pp`` = |empirical - predicted| in percentage points, ``se_pp`` (binomial
    standard error of the empirical rate, in pp), ``pred_min``/``pred_max`` (range of the per-trial
    predictions) and ``n_trials``.

    Raises
    ------
    ValueError
        NaN scores, an r outside [2, k - 1], or D <= max r (no hidden directions).
    """
    X = as_matrix(S)
    n, k = X.shape
    r_list = [int(r) for r in r_list]
    if not r_list:
        raise ValueError("r_list is empty")
    if min(r_list) < 2 or max(r_list) > k - 1:
        raise ValueError(f"every r must be in [2, k - 1] = [2, {k - 1}] (d_eff needs 2 visible columns), got {r_list}")
    D = float(k) if D is None else float(D)
    if D <= max(r_list):
        raise ValueError(f"D = {D} must exceed every r (the visible d_eff can reach r = {max(r_list)})")
    if n_trials < 1:
        raise ValueError(f"n_trials must be at least 1, got {n_trials}")
    Z = zscore(X)
    C2 = correlation(X) ** 2
    rng = np.random.default_rng(seed)
    rows = []
    for r in r_list:
        perms = np.stack([rng.permutation(k) for _ in range(n_trials)])
        M = split_masks(perms, r)
        Mf = M.astype(float)
        a_v = Z @ (Mf / r).T  # (n, T)
        a_h = Z @ ((1 - Mf) / (k - r)).T
        order = np.argsort(-a_v, axis=0, kind="stable")
        top, second = order[0], order[1]
        t = np.arange(n_trials)
        empirical = a_h[second, t] > a_h[top, t]
        delta = a_v[top, t] - a_v[second, t]
        sigma_obs = a_v.std(axis=0)
        # d_eff of the visible raw columns: r^2 / ||C[vis, vis]||_F^2 (a Pearson submatrix has trace r)
        d_vis = r**2 / np.einsum("ti,ij,tj->t", Mf, C2, Mf)
        pred = np.array([p_swap_rescaled(delta[i], d_vis[i], D, sigma_obs[i]) for i in range(n_trials)])
        e, p = float(empirical.mean()), float(pred.mean())
        rows.append(
            {
                "r": r,
                "empirical": e,
                "predicted": p,
                "gap_pp": 100 * abs(e - p),
                "se_pp": 100 * float(np.sqrt(e * (1 - e) / n_trials)),
                "pred_min": float(pred.min()),
                "pred_max": float(pred.max()),
                "n_trials": n_trials,
            }
        )
    return pd.DataFrame(rows).set_index("r")
