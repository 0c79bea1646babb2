"""Score-only building blocks of the original dkps: ALS matrix completion and the 1PL (Rasch) pieces.

These are the functions the original package exports from ``dkps.baselines`` (same names, arguments
and results); the estimators :class:`dkps.LRMC` (``method='als'``) and :class:`dkps.IRT`
(``method='block'``) are built on them.

- :func:`matrix_completion_predict` — logit, per-task standardisation, a two-way additive bias and a
  rank-``r`` alternating-least-squares (ALS) fit of the residual, averaged over seeded random starts
  (the "BenchPress" recipe of the original; ALS for matrix completion: Koren, Bell & Volinsky 2009,
  *Matrix factorization techniques for recommender systems*, IEEE Computer 42(8)).
- :func:`irt_fit_difficulties`, :func:`irt_estimate_ability`, :func:`irt_predict` — the 1PL model
  :math:`P(y=1) = \\sigma(\\theta - \\beta_q)` (Rasch 1960; used for query-efficient evaluation by
  Polo et al. 2024, *tinyBenchmarks*, ICML), fitted as in the original: item difficulties by maximum
  likelihood with abilities fixed at the logit of each model's mean score, then a bounded
  one-dimensional maximum-likelihood ability per model.
- :func:`max_dense_block` — the largest fully observed (model x item) rectangle, found greedily by
  item coverage, on which the original fits the item difficulties.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit, logit

from .docstrings import references

__all__ = [
    "matrix_completion_predict",
    "max_dense_block",
    "irt_fit_difficulties",
    "irt_estimate_ability",
    "irt_predict",
    "whiten_statistics",
]

#: The sources this module's functions cite (their References sections, :func:`dkps.docstrings.references`).
ORIGINAL = "The original ``dkps`` package's ``baselines.py`` (its numbers are reproduced in ``tests/dkps/test_dkps_original_api.py``)."
QUERY_EFFICIENCY_CHAPTER = (
    'The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).'
)
RASCH = 'G. Rasch, "Probabilistic Models for Some Intelligence and Attainment Tests", 1960.'


@references(ORIGINAL, QUERY_EFFICIENCY_CHAPTER)
def whiten_statistics(X: np.ndarray, mask: np.ndarray, standardize: bool = True):
    r"""Per-task standardisation and two-way additive bias of ``X`` over the observed ``mask``.

    :math:`\mu_t, s_t` are the mean and population sd of task ``t``'s observed values (``s_t = 1``
    when it is below :math:`10^{-8}` or the task has none); on the standardised values
    :math:`X^s = (X-\mu)/s` the bias is
    :math:`b_{it} = \bar r_i + \bar c_t - \bar g` with the observed row, column and grand means
    (a row or column without observations takes :math:`\bar g`). This is the pre-processing of the
    original's matrix completion and of its ``Whitener``.

    Parameters
    ----------
    X : ndarray of shape (n_models, n_tasks)
        Values (NaN or anything where unobserved).
    mask : ndarray of bool, shape (n_models, n_tasks)
        Which values are observed.
    standardize : bool, default True
        Standardise per task (False: :math:`\mu = 0, s = 1`).

    Returns
    -------
    Xs : ndarray of shape (n_models, n_tasks)
        The standardised values :math:`X^s`.
    bias : ndarray of shape (n_models, n_tasks)
        The two-way bias :math:`b`.
    mu : ndarray of shape (n_tasks,)
        Task means.
    sd : ndarray of shape (n_tasks,)
        Task standard deviations.
    """
    X = np.asarray(X, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    n, T = X.shape
    cnt = mask.sum(axis=0)
    mu, sd = np.zeros(T), np.ones(T)
    if standardize:
        Xo = np.where(mask, X, 0.0)
        has = cnt > 0
        mu[has] = Xo.sum(axis=0)[has] / cnt[has]
        var = np.where(mask, (X - mu) ** 2, 0.0).sum(axis=0)
        s = np.sqrt(np.where(has, var / np.maximum(cnt, 1), 1.0))
        sd = np.where(s > 1e-8, s, 1.0)
    Xs = (X - mu) / sd
    g = float(Xs[mask].mean()) if mask.any() else 0.0
    rc, cc = mask.sum(axis=1), cnt
    Xz = np.where(mask, Xs, 0.0)
    row = np.where(rc > 0, Xz.sum(axis=1) / np.maximum(rc, 1), g)
    col = np.where(cc > 0, Xz.sum(axis=0) / np.maximum(cc, 1), g)
    return Xs, row[:, None] + col[None, :] - g, mu, sd


def _ridge_rows(R: np.ndarray, mask: np.ndarray, F: np.ndarray, lam: float, keep: np.ndarray) -> np.ndarray:
    """Row-wise ridge solutions :math:`u_m = (F_m^\\top F_m + \\lambda I)^{-1} F_m^\\top r_m` over each
    row's observed columns, batched; rows without an observation keep ``keep``."""
    r = F.shape[1]
    W = mask.astype(float)
    G = np.einsum("mb,bi,bj->mij", W, F, F) + lam * np.eye(r)
    rhs = (W * np.where(mask, R, 0.0)) @ F
    out = np.linalg.solve(G, rhs[:, :, None])[:, :, 0]
    empty = ~mask.any(axis=1)
    out[empty] = keep[empty]
    return out


@references(ORIGINAL, QUERY_EFFICIENCY_CHAPTER)
def matrix_completion_predict(
    score_mat,
    observed,
    rank=2,
    lam=0.1,
    n_init=5,
    max_iter=50,
    clip_eps=1e-3,
    logit=True,
    random_state=0,
    fill_observed=False,
):
    r"""Logit-space, bias-decomposed rank-``r`` ALS completion of a (models x tasks) score matrix.

    Steps: (1) :math:`x = \mathrm{logit}(\mathrm{clip}(s, \varepsilon, 1-\varepsilon))` (skipped
    with ``logit=False``); (2)–(3) per-task standardisation and the two-way bias
    (:func:`whiten_statistics`); (4) on the residual :math:`R = X^s - b`, ``max_iter`` sweeps of
    alternating ridge regressions :math:`U \leftarrow \arg\min \sum_\Omega (R - UV^\top)^2 +
    \lambda\|U\|^2`, then the same for :math:`V`, from
    :math:`U, V \sim N(0, 0.1^2)` drawn from ``np.random.default_rng(random_state)`` (``U`` then
    ``V`` for each of the ``n_init`` starts), the reconstructions :math:`b + UV^\top` averaged;
    (5) the inverse standardisation and sigmoid, clipped to [0, 1]. The rank is
    :math:`\min(\text{rank}, n-1, T-1)` (at least 1).

    Parameters
    ----------
    score_mat : ndarray of shape (n_models, n_tasks)
        Scores in [0, 1] (any value where unobserved).
    observed : ndarray of bool, shape (n_models, n_tasks)
        Which scores are observed.
    rank : int, default 2
        ALS rank.
    lam : float, default 0.1
        Ridge penalty :math:`\lambda`.
    n_init : int, default 5
        Random starts averaged.
    max_iter : int, default 50
        ALS sweeps per start.
    clip_eps : float, default 1e-3
        :math:`\varepsilon` of the logit's clipping.
    logit : bool, default True
        Work on the logit scale.
    random_state : int, default 0
        Seed of the starts.
    fill_observed : bool, default False
        Also fill the observed cells with the reconstruction.

    Returns
    -------
    ndarray of shape (n_models, n_tasks)
        Predictions at the unobserved cells and NaN at the observed ones (unless ``fill_observed``).

    Raises
    ------
    ValueError
        ``score_mat`` and ``observed`` not 2-D of the same shape, or a non-finite observed score.
    """
    M = np.asarray(score_mat, dtype=float)
    mask = np.asarray(observed, dtype=bool)
    if M.ndim != 2 or mask.shape != M.shape:
        raise ValueError("score_mat and observed must be 2-D arrays of the same shape (models x tasks)")
    if mask.any() and not np.isfinite(M[mask]).all():
        raise ValueError("score_mat must be finite at every observed cell")
    n, T = M.shape
    preds = np.full((n, T), np.nan)
    if not (~mask).any() and not fill_observed:
        return preds
    if logit:
        s = np.clip(np.where(mask, M, 0.5), clip_eps, 1.0 - clip_eps)
        X = np.log(s / (1.0 - s))
    else:
        X = np.where(mask, M, 0.0)
    Xs, bias, mu, sd = whiten_statistics(X, mask)
    R = Xs - bias
    r = int(max(1, min(rank, n - 1, T - 1)))
    rng = np.random.default_rng(random_state)
    acc = np.zeros((n, T))
    for _ in range(n_init):
        U = rng.normal(0.0, 0.1, (n, r))
        V = rng.normal(0.0, 0.1, (T, r))
        for _ in range(max_iter):
            U = _ridge_rows(R, mask, V, lam, U)
            V = _ridge_rows(R.T, mask.T, U, lam, V)
        acc += bias + U @ V.T
    Xhat = (acc / n_init) * sd + mu
    P = np.clip(expit(Xhat) if logit else Xhat, 0.0, 1.0)
    preds[~mask] = P[~mask]
    if fill_observed:
        preds[mask] = P[mask]
    return preds


@references(ORIGINAL, QUERY_EFFICIENCY_CHAPTER)
def max_dense_block(amask) -> tuple[np.ndarray, np.ndarray]:
    """Largest fully observed rows x columns rectangle of a boolean (model x item) mask, greedily.

    Columns are taken in decreasing order of coverage; for each prefix of
    ``c`` columns the rows that observe all of them form a block of area ``rows x c``; the first
    largest area wins, and the search stops at the first prefix no row covers. Ties in coverage keep
    the order of ``np.argsort`` (as in the original).

    Parameters
    ----------
    amask : ndarray of bool, shape (n_rows, n_cols)
        Which entries are observed.

    Returns
    -------
    rows : ndarray of int
        Row indices of the block (empty when nothing is observed).
    cols : ndarray of int
        Column indices of the block.
    """
    amask = np.asarray(amask, dtype=bool)
    order = np.argsort(-amask.sum(axis=0))
    covered = np.cumprod(amask[:, order], axis=1).astype(bool)  # row covers the first c columns
    n_rows = covered.sum(axis=0)
    if amask.size == 0 or n_rows[0] == 0:
        return np.array([], dtype=int), np.array([], dtype=int)
    stop = int(np.argmax(n_rows == 0)) if (n_rows == 0).any() else len(order)
    area = n_rows[:stop] * np.arange(1, stop + 1)
    c = int(np.argmax(area)) + 1
    return np.flatnonzero(covered[:, c - 1]), order[:c]


@references(RASCH, QUERY_EFFICIENCY_CHAPTER)
def irt_fit_difficulties(S_ref) -> tuple[np.ndarray, np.ndarray]:
    r"""Item difficulties :math:`\beta` from a (models x items) 0/1 score matrix.

    Abilities are fixed at :math:`\theta_m = \mathrm{logit}(\mathrm{clip}(\bar s_m, 0.01, 0.99))`;
    :math:`\beta` starts at :math:`-\mathrm{logit}(\mathrm{clip}(\bar s_q, 0.01, 0.99))` and minimises
    the Bernoulli negative log-likelihood of :math:`\sigma(\theta_m - \beta_q)` by L-BFGS-B with the
    analytic gradient.

    Parameters
    ----------
    S_ref : ndarray of shape (n_models, n_items)
        0/1 scores, every entry observed.

    Returns
    -------
    beta : ndarray of shape (n_items,)
        Item difficulties.
    theta : ndarray of shape (n_models,)
        The fixed abilities.
    """
    S = np.asarray(S_ref, dtype=float)
    theta = logit(S.mean(axis=1).clip(0.01, 0.99))
    beta0 = -logit(S.mean(axis=0).clip(0.01, 0.99))

    def nll(beta):
        p = expit(theta[:, None] - beta[None, :])
        f = -(S * np.log(p + 1e-10) + (1 - S) * np.log(1 - p + 1e-10)).sum()
        return f, (S - p).sum(axis=0)

    res = minimize(nll, beta0, method="L-BFGS-B", jac=True, options={"maxiter": 500, "ftol": 1e-9})
    return res.x, theta


@references(RASCH, QUERY_EFFICIENCY_CHAPTER)
def irt_estimate_ability(scores_m, beta_m) -> float:
    r"""Maximum-likelihood ability from 0/1 scores on items of difficulty ``beta_m``.

    Bounded scalar search of :math:`\theta\in[-6, 6]` maximising
    :math:`\sum_q y_q \log\sigma(\theta - \beta_q) + (1 - y_q)\log(1 - \sigma(\theta - \beta_q))`, the
    result clipped to :math:`[-4, 4]`.

    Parameters
    ----------
    scores_m : array-like of shape (n_items,)
        The model's 0/1 scores.
    beta_m : array-like of shape (n_items,)
        The items' difficulties.

    Returns
    -------
    float
        The ability :math:`\hat\theta`.
    """
    y = np.asarray(scores_m, dtype=float)
    b = np.asarray(beta_m, dtype=float)

    def nll(th):
        p = expit(th - b).clip(1e-8, 1 - 1e-8)
        return -(y * np.log(p) + (1 - y) * np.log(1 - p)).sum()

    res = minimize_scalar(nll, bounds=(-6, 6), method="bounded")
    return float(np.clip(res.x, -4.0, 4.0))


@references(RASCH, QUERY_EFFICIENCY_CHAPTER)
def irt_predict(theta_hat, beta_all) -> float:
    r"""Mean predicted probability :math:`\frac1Q\sum_q \sigma(\hat\theta - \beta_q)`, clipped to [0, 1].

    Parameters
    ----------
    theta_hat : float
        The ability.
    beta_all : array-like of shape (n_items,)
        The difficulties of every item of the task.

    Returns
    -------
    float
        The predicted score on the task.
    """
    return float(np.clip(expit(theta_hat - np.asarray(beta_all, dtype=float)).mean(), 0.0, 1.0))
