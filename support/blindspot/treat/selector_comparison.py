"""Greedy coverage against the strongest simple baseline: k benchmarks chosen, the rest predicted by ridge.

Zhang, Dorner & Hardt (2025) find that a random sample plus a regression predicts a benchmark about as
well as careful selection, and that every method fails when the models to predict score above those it
was fitted on. This module puts the book's greedy coverage beside that baseline, with benchmarks (not
items) as the units chosen. For a complete score table S (n models x K benchmarks) and a budget k:

1. **Split the models** (one split per resample ``s``). *Interpolation*: n_train and n_test models drawn at
   random from all models. *Extrapolation*: n_train drawn from the models below the frontier and n_test
   from the frontier (:func:`blindspot.core.conventions.frontier_mask`, the table's rule, q = 0.5). Both
   regimes draw the same sizes, ``subsample`` of the smaller side's pool, so they differ only in *which*
   models are predicted.
2. **Choose k benchmarks on the training models only**, by each selector:

   * ``coverage_greedy``   — the paper's greedy on the coverage f(T) = tr(P_T Sigma)/tr Sigma (Theorem 4);
   * ``facility_location``, ``max_diversity``, ``pca_greedy`` — the alternatives of App. H.5
     (:mod:`blindspot.treat.subset_objectives`; max-uncorrelated is max-diversity again, so it is left out);
     these two break their ties by column order, as the paper's rules do (max-diversity starts at
     argmax diag Sigma, all ones for a correlation; facility location's gains tie whenever two candidates
     improve the same rows), so they alone may change when the columns are reordered;
   * ``prediction_greedy`` — selection *by prediction*: forward selection of the benchmark whose addition
     gives the largest mean leave-one-out R^2 of ridge on the benchmarks not chosen (training models only);
   * ``random``            — every k-subset when there are at most ``n_random`` of them, else ``n_random``
     uniform draws; the distribution over subsets is kept (:attr:`SelectorComparison.draws`).
3. **Predict every held-out benchmark** from the k chosen with ridge regression, its penalty chosen per
   benchmark by leave-one-out cross-validation on the training models (:func:`blindspot.treat.ridge_loo.ridge_loo`,
   equal to scikit-learn's ``StandardScaler`` + ``RidgeCV``).
4. **Score on the test models**: for each held-out benchmark j, R^2_j = 1 - sum (y - yhat)^2 / sum (y - ybar)^2
   (ybar the test models' mean: scikit-learn's ``r2_score``) and MAE_j (in the benchmark's units); the held-out
   mean ranking, the mean over held-out benchmarks of the scores z-scored with the training models' mean and
   sd, true against predicted: its Kendall tau-b (``scipy.stats.kendalltau``) and top-1 agreement (the test
   model ranked first by the prediction is the one ranked first by the truth).

Every k from 1 to K - 1; intervals are percentiles over the resampled splits (the paired differences of
:meth:`SelectorComparison.paired` resample the same splits for both selectors).

References
----------
Zhang, G., Dorner, F. E. & Hardt, M. (2025). How benchmark prediction from fewer data misses the mark.
NeurIPS 2025, arXiv:2506.07673. The paper's Theorem 4 and App. H.5 for the selectors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix, frontier_mask
from blindspot.core.coverage import benchmark_names
from blindspot.core.spectrum import correlation
from blindspot.data.tables import ScoreTable
from blindspot.treat.ridge_loo import ALPHAS, ridge_loo
from blindspot.treat.subset_objectives import (
    facility_location_order,
    max_diversity_order,
    pca_greedy_order,
    spectral_greedy_order,
)

__all__ = [
    "SELECTORS",
    "REGIMES",
    "METRICS",
    "SPLIT_COLUMNS",
    "PER_BENCHMARK_COLUMNS",
    "SelectorComparison",
    "PairedDifference",
    "model_splits",
    "prediction_greedy_order",
    "kendall_tau_b_pairs",
    "compare_selectors",
    "complete_models",
    "SUMMARY_COLUMNS",
    "SuiteComparison",
    "compare_suites",
]

SELECTORS = ("coverage_greedy", "facility_location", "max_diversity", "pca_greedy", "prediction_greedy", "random")
REGIMES = ("interpolation", "extrapolation")
#: The metrics of a (split, selector, k) row; higher is better for all but ``mae``.
METRICS = ("r2", "mae", "tau", "top1")

#: The columns of :attr:`SelectorComparison.splits` (and of :attr:`SelectorComparison.draws`, with ``draw``).
SPLIT_COLUMNS = {
    "split": "the resampled model split (0, 1, ...)",
    "selector": "how the k benchmarks were chosen (SELECTORS)",
    "k": "how many benchmarks were chosen",
    "r2": "mean over the held-out benchmarks of their R^2 on the test models",
    "mae": "mean over the held-out benchmarks of MAE / sd of the benchmark on the training models",
    "tau": "Kendall tau-b of the test models' held-out mean ranking, predicted against true",
    "top1": "1 if the predicted top test model is the true one, else 0 (random: the share over subsets)",
}
#: The columns of :attr:`SelectorComparison.per_benchmark`.
PER_BENCHMARK_COLUMNS = {
    "selector": "the selector",
    "k": "the budget",
    "benchmark": "a held-out benchmark",
    "r2": "its R^2 on the test models, mean over the splits (and subsets, for random) where it was held out",
    "mae": "its MAE in its own units, same mean",
    "n": "how many (split, subset) predictions the means are over",
}

_DETERMINISTIC = SELECTORS[:-1]

#: The most models a split draws on each side (training, test).
MAX_MODELS = 250


@dataclass(frozen=True)
class PairedDifference:
    """A paired comparison over the resampled splits: metric of ``a`` minus metric of ``b``, mean over ``ks``.

    Attributes
    ----------
    a, b, metric : str
        The selectors and the metric compared.
    per_split : ndarray
        The difference in each split (mean over the budgets ``ks``).
    estimate : float
        Its mean over the splits.
    interval : tuple of float
        The 2.5% and 97.5% percentiles over the splits.
    sd : float
        The standard deviation over the splits (ddof 1).
    ks : tuple of int
        The budgets averaged over.
    """

    a: str
    b: str
    metric: str
    per_split: np.ndarray
    estimate: float
    interval: tuple[float, float]
    sd: float
    ks: tuple[int, ...]


@dataclass(frozen=True)
class SelectorComparison:
    """Every selector's held-out prediction quality, per resampled split and budget k.

    Attributes
    ----------
    splits : DataFrame
        One row per (split, selector, k), columns :data:`SPLIT_COLUMNS`; ``random`` holds the mean over its
        subsets.
    draws : DataFrame
        The random subsets one by one: :data:`SPLIT_COLUMNS` plus ``draw``.
    per_benchmark : DataFrame
        Each held-out benchmark's R^2 and MAE per selector and k (:data:`PER_BENCHMARK_COLUMNS`).
    orders : DataFrame
        The order each deterministic selector chose on each split's training models (columns split,
        selector, position, benchmark).
    regime : str
        'interpolation' or 'extrapolation'.
    names : tuple of str
        The benchmarks.
    n_train, n_test, n_splits, n_random, seed : int
        The protocol.
    table : str
        The name of the table compared on.
    """

    splits: pd.DataFrame
    draws: pd.DataFrame
    per_benchmark: pd.DataFrame
    orders: pd.DataFrame
    regime: str
    names: tuple[str, ...]
    n_train: int
    n_test: int
    n_splits: int
    n_random: int
    seed: int
    table: str

    @property
    def ks(self) -> tuple[int, ...]:
        """The budgets compared."""
        return tuple(int(k) for k in sorted(self.splits["k"].unique()))

    def curves(self, metric: str = "r2", level: float = 0.95) -> pd.DataFrame:
        """Each selector's curve against k: the mean over splits and its percentile interval.

        Returns a frame indexed by (selector, k) with columns ``mean``, ``lo``, ``hi`` (percentiles over the
        splits), and for ``random`` also ``draw_lo``/``draw_hi``, the same percentiles over single random
        subsets (the spread of one random choice, not of the mean).
        """
        _check_metric(metric)
        q = ((1 - level) / 2, (1 + level) / 2)
        g = self.splits.groupby(["selector", "k"])[metric]
        out = pd.DataFrame({"mean": g.mean(), "lo": g.quantile(q[0]), "hi": g.quantile(q[1])})
        d = self.draws.groupby("k")[metric]
        for col, qq in (("draw_lo", q[0]), ("draw_hi", q[1])):
            out[col] = np.nan
            out.loc[("random", slice(None)), col] = d.quantile(qq).to_numpy()
        present = [x for x in SELECTORS if x in set(self.splits["selector"])]
        return out.reindex(pd.MultiIndex.from_product([present, self.ks], names=["selector", "k"]))

    def wide(self, metric: str = "r2") -> pd.DataFrame:
        """k x selector table of the mean of ``metric`` over the splits."""
        _check_metric(metric)
        w = self.splits.pivot_table(index="k", columns="selector", values=metric, aggfunc="mean")
        return w[[x for x in SELECTORS if x in w.columns]]

    def paired(self, a: str, b: str, metric: str = "r2", ks: Sequence[int] | None = None) -> PairedDifference:
        """``a`` minus ``b`` on ``metric``, split by split (mean over ``ks``, default every k).

        Raises
        ------
        ValueError
            An unknown selector or metric, or a budget not compared.
        """
        _check_metric(metric)
        for s in (a, b):
            if s not in SELECTORS:
                raise ValueError(f"unknown selector {s!r}; choose from {SELECTORS}")
        ks = self.ks if ks is None else tuple(int(k) for k in ks)
        if not ks or not set(ks) <= set(self.ks):
            raise ValueError(f"budgets {ks} are not among those compared, {self.ks}")
        w = self.splits[self.splits["k"].isin(ks)].pivot_table(
            index="split", columns="selector", values=metric, aggfunc="mean"
        )
        missing = [x for x in (a, b) if x not in w.columns]
        if missing:
            raise ValueError(f"selector(s) {missing} were not compared here")
        diff = (w[a] - w[b]).to_numpy()
        lo, hi = np.percentile(diff, [2.5, 97.5])
        sd = float(diff.std(ddof=1)) if diff.size > 1 else float("nan")
        return PairedDifference(a, b, metric, diff, float(diff.mean()), (float(lo), float(hi)), sd, ks)

    def best_over(self, base: str, metric: str = "r2", ks: Sequence[int] | None = None) -> PairedDifference:
        """The largest advantage any other selector has over ``base``, split by split: max_m (m - base).

        Each split's value is the maximum over the other selectors of their mean-over-k difference to
        ``base``, so the interval covers the best competitor whichever it is on that split.
        """
        others = [s for s in SELECTORS if s != base and s in set(self.splits["selector"])]
        per = np.stack([self.paired(s, base, metric, ks).per_split for s in others])
        best = per.max(axis=0)
        lo, hi = np.percentile(best, [2.5, 97.5])
        sd = float(best.std(ddof=1)) if best.size > 1 else float("nan")
        ks_used = self.ks if ks is None else tuple(int(k) for k in ks)
        return PairedDifference(
            "best other", base, metric, best, float(best.mean()), (float(lo), float(hi)), sd, ks_used
        )

    def best_level(self, metric: str = "r2", ks: Sequence[int] | None = None) -> PairedDifference:
        """The best selector's level of ``metric`` split by split (max over selectors of the mean over k)."""
        _check_metric(metric)
        ks = self.ks if ks is None else tuple(int(k) for k in ks)
        w = self.splits[self.splits["k"].isin(ks)].pivot_table(
            index="split", columns="selector", values=metric, aggfunc="mean"
        )
        best = w.max(axis=1).to_numpy()
        lo, hi = np.percentile(best, [2.5, 97.5])
        sd = float(best.std(ddof=1)) if best.size > 1 else float("nan")
        return PairedDifference("best", "0", metric, best, float(best.mean()), (float(lo), float(hi)), sd, ks)


def _check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose from {METRICS}")


# -- splits ---------------------------------------------------------------------------------------------
def model_splits(
    S: ArrayLike,
    regime: str,
    n_splits: int,
    subsample: float = 0.8,
    seed: int = 0,
    q: float = 0.5,
    max_models: int = MAX_MODELS,
) -> tuple[list[tuple[np.ndarray, np.ndarray]], int, int]:
    """The resampled (train, test) row indices of a regime, and their sizes.

    The frontier is ``frontier_mask(S, q)`` (the table's own rule). Extrapolation draws n_train rows from
    below it and n_test from it; interpolation draws the same numbers from all rows. n_train =
    min(floor(subsample * #below), max_models), n_test = min(floor(subsample * #frontier), max_models): a
    leaderboard of thousands (the OLLM v2 dump) is compared on draws of ``max_models`` a side, which a ridge
    on at most K - 1 features does not need more of, and which keeps the comparison in seconds.

    Raises
    ------
    ValueError
        An unknown regime, a subsample outside (0, 1], fewer than 1 split, or fewer than 5 training or 3 test
        models.
    """
    if regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}; choose from {REGIMES}")
    if not 0 < subsample <= 1:
        raise ValueError(f"subsample must be in (0, 1], got {subsample}")
    if n_splits < 1:
        raise ValueError(f"n_splits must be at least 1, got {n_splits}")
    front = frontier_mask(S, q)
    below, top = np.flatnonzero(~front), np.flatnonzero(front)
    n_train = min(int(subsample * below.size), max_models)
    n_test = min(int(subsample * top.size), max_models)
    if n_train < 5 or n_test < 3:
        raise ValueError(
            f"the split keeps {n_train} training and {n_test} test models; at least 5 and 3 are needed "
            f"(the table has {front.size} models, {top.size} on the frontier)"
        )
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_splits):
        if regime == "extrapolation":
            tr, te = rng.choice(below, n_train, replace=False), rng.choice(top, n_test, replace=False)
        else:
            perm = rng.permutation(front.size)
            tr, te = perm[:n_train], perm[n_train : n_train + n_test]
        out.append((np.sort(tr), np.sort(te)))
    return out, n_train, n_test


# -- selection by prediction ---------------------------------------------------------------------------
def prediction_greedy_order(X: np.ndarray, r: int | None = None, alphas: np.ndarray = ALPHAS) -> np.ndarray:
    """Forward selection by prediction: add the benchmark that maximises the mean LOO R^2 of the rest.

    At each step the candidate j joins T when, with ridge on T + j (penalty by leave-one-out), the mean over
    the benchmarks outside T + j of their leave-one-out R^2 = 1 - MSE_loo / var is largest (ties to the lowest
    index). Only the rows of ``X`` are used (pass the training models). The last benchmark, with nothing left
    to predict, is appended.
    """
    X = as_matrix(X)
    n, K = X.shape
    r = K if r is None else r
    var = X.var(axis=0)
    if (var < 1e-12).any():
        raise ValueError("a benchmark is constant on these models: its R^2 is undefined")
    order: list[int] = []
    for _ in range(min(r, K - 1)):
        cands = [j for j in range(K) if j not in order]
        subs = np.array([[*order, j] for j in cands])
        A = X[:, subs].transpose(1, 0, 2)  # (candidates, n, |T| + 1)
        res = ridge_loo(A, X, A[:, :1, :], alphas)  # only the LOO errors are used
        r2 = 1.0 - res.loo_mse / var  # (candidates, K)
        outside = np.ones((len(cands), K), bool)
        outside[np.arange(len(cands))[:, None], subs] = False
        score = np.where(outside, r2, 0.0).sum(axis=1) / outside.sum(axis=1)
        order.append(cands[int(np.argmax(score >= score.max() - 1e-12))])
    order += [j for j in range(K) if j not in order][: max(0, r - len(order))]
    return np.array(order[:r])


# -- metrics --------------------------------------------------------------------------------------------
def kendall_tau_b_pairs(x: np.ndarray, y: np.ndarray, block_bytes: int = 2**25) -> np.ndarray:
    """Kendall tau-b between x[b] and y[b] for each row b of two (B, n) arrays (``scipy.stats.kendalltau``'s).

    tau_b = (C - D) / sqrt(n_x n_y), C and D the concordant and discordant pairs, n_x and n_y the pairs not tied
    in x and in y; NaN where either is constant. The pairs of a block of rows are compared at once (a byte a
    pair and comparison); rows without ties take the shortcut C - D = 2 C - n(n-1)/2.
    """
    x, y = np.atleast_2d(np.asarray(x, float)), np.atleast_2d(np.asarray(y, float))
    if x.shape != y.shape or x.shape[1] < 2:
        raise ValueError(f"x and y must have the same shape (B, n) with n >= 2, got {x.shape} and {y.shape}")
    i, j = np.triu_indices(x.shape[1], 1)
    per = max(1, int(block_bytes // (4 * x.shape[1] ** 2)))
    out = np.empty(x.shape[0])
    tied = (np.diff(np.sort(x, axis=1), axis=1) == 0).any(axis=1) | (np.diff(np.sort(y, axis=1), axis=1) == 0).any(
        axis=1
    )
    nz = np.count_nonzero
    for rows, with_ties in ((np.flatnonzero(~tied), False), (np.flatnonzero(tied), True)):
        for b0 in range(0, rows.size, per):
            r = rows[b0 : b0 + per]
            if not with_ties:  # every ordered pair i != j counted twice, the diagonal once: C = (sum - n) / 2
                xr, yr = x[r], y[r]
                same = nz((xr[:, :, None] > xr[:, None, :]) == (yr[:, :, None] > yr[:, None, :]), axis=(1, 2))
                out[r] = (same - x.shape[1]) / i.size - 1.0
                continue
            xi, xj, yi, yj = x[r][:, i], x[r][:, j], y[r][:, i], y[r][:, j]
            gx, gy, lx, ly = xi > xj, yi > yj, xi < xj, yi < yj
            net = nz((gx & gy) | (lx & ly), axis=1) - nz((gx & ly) | (lx & gy), axis=1)
            den = np.sqrt(nz(gx | lx, axis=1) * nz(gy | ly, axis=1).astype(float))
            with np.errstate(invalid="ignore", divide="ignore"):
                out[r] = np.where(den > 0, net / den, np.nan)
    return out


def _score(
    X: np.ndarray, tr: np.ndarray, te: np.ndarray, subsets: np.ndarray, alphas: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Metrics of B subsets of one size on one split: (B, 4) summary, (B, K) R^2_j and MAE_j (NaN if chosen)."""
    Xtr, Xte = X[tr], X[te]
    B, k = subsets.shape
    K = X.shape[1]
    held = np.ones((B, K), bool)
    held[np.arange(B)[:, None], subsets] = False
    out_idx = np.nonzero(held)[1].reshape(B, K - k)  # each subset's held-out benchmarks, in column order
    # only the held-out benchmarks are fitted: (B, n, K - k) targets per design
    res = ridge_loo(
        Xtr[:, subsets].transpose(1, 0, 2),
        Xtr[:, out_idx].transpose(1, 0, 2),
        Xte[:, subsets].transpose(1, 0, 2),
        alphas,
    )
    P = res.predictions  # (B, n_test, K - k)
    truth = Xte[:, out_idx].transpose(1, 0, 2)
    err = P - truth
    sst = ((truth - truth.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    r2_h = 1.0 - (err**2).sum(axis=1) / np.where(sst > 0, sst, np.nan)
    mae_h = np.abs(err).mean(axis=1)
    r2, mae = np.full((B, K), np.nan), np.full((B, K), np.nan)
    r2[held], mae[held] = r2_h.ravel(), mae_h.ravel()
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd = np.where(sd < 1e-12, 1.0, sd)
    mu_h, sd_h = mu[out_idx][:, None, :], sd[out_idx][:, None, :]
    true_mean = ((truth - mu_h) / sd_h).mean(axis=2)  # (B, n_test): the held-out mean, z on the training models
    pred_mean = ((P - mu_h) / sd_h).mean(axis=2)
    tau = kendall_tau_b_pairs(true_mean, pred_mean)
    top1 = (np.argmax(true_mean, axis=1) == np.argmax(pred_mean, axis=1)).astype(float)
    summary = np.column_stack([np.nanmean(r2_h, axis=1), (mae_h / sd[out_idx]).mean(axis=1), tau, top1])
    return summary, r2, mae


def _random_subsets(K: int, k: int, n_random: int, rng: np.random.Generator) -> np.ndarray:
    if math.comb(K, k) <= n_random:
        return np.array(list(combinations(range(K), k)))
    return np.sort(np.stack([rng.choice(K, k, replace=False) for _ in range(n_random)]), axis=1)


def _orders(Xtr: np.ndarray, alphas: np.ndarray, selectors: Sequence[str], r: int) -> dict[str, np.ndarray]:
    """Each deterministic selector's order on the training models (prediction greedy only to ``r``)."""
    Sigma = correlation(Xtr)
    rules = {
        "coverage_greedy": lambda: spectral_greedy_order(Sigma),
        "facility_location": lambda: facility_location_order(Sigma),
        "max_diversity": lambda: max_diversity_order(Sigma),
        "pca_greedy": lambda: pca_greedy_order(Sigma),
        "prediction_greedy": lambda: prediction_greedy_order(Xtr, r=r, alphas=alphas),
    }
    return {sel: rules[sel]() for sel in selectors}


def compare_selectors(
    S: ArrayLike,
    regime: str = "interpolation",
    n_splits: int = 30,
    n_random: int = 100,
    ks: Sequence[int] | None = None,
    subsample: float = 0.8,
    seed: int = 0,
    names: Sequence[str] | None = None,
    alphas: np.ndarray = ALPHAS,
    max_models: int = MAX_MODELS,
    selectors: Sequence[str] = SELECTORS,
) -> SelectorComparison:
    """Choose k benchmarks by each selector and predict the rest, on resampled model splits (see the module).

    Parameters
    ----------
    S : ScoreTable, DataFrame or ndarray
        Complete scores, models x benchmarks (K >= 2); a table's frontier rule picks the frontier.
    regime : {'interpolation', 'extrapolation'}
        A random split of the models, or below the frontier -> the frontier.
    n_splits : int
        Resampled splits (the intervals are percentiles over them).
    n_random : int
        Random subsets per k and split (every subset when there are at most this many).
    ks : sequence of int, optional
        The budgets, each in 1..K-1 (default: all of them).
    subsample : float
        The share of the smaller pool each split draws (see :func:`model_splits`).
    seed : int
        Seed of the splits and the random subsets.
    names : sequence of str, optional
        Benchmark names (default: the table's).
    alphas : ndarray
        The ridge penalty grid.
    max_models : int
        The most models a split draws on each side (see :func:`model_splits`).
    selectors : sequence of str
        The selectors to compare (default all of :data:`SELECTORS`; ``random`` is always included, as the
        baseline). A deterministic order is computed only as far as the largest budget.

    Returns
    -------
    SelectorComparison

    Raises
    ------
    ValueError
        Missing cells, fewer than 2 benchmarks, a budget outside 1..K-1, an unknown regime, too few models for
        the split, ``n_random`` below 1, or a benchmark constant on a split's training models.
    """
    X = as_matrix(S)
    K = X.shape[1]
    names = tuple(benchmark_names(S, names, K))
    ks = tuple(range(1, K)) if ks is None else tuple(int(k) for k in ks)
    if not ks or any(not 1 <= k <= K - 1 for k in ks):
        raise ValueError(f"budgets must lie in 1..{K - 1} (something must be left to predict), got {ks}")
    if n_random < 1:
        raise ValueError(f"n_random must be at least 1, got {n_random}")
    unknown = [x for x in selectors if x not in SELECTORS]
    if unknown:
        raise ValueError(f"unknown selector(s) {unknown}; choose from {SELECTORS}")
    chosen = tuple(x for x in _DETERMINISTIC if x in selectors)
    splits, n_train, n_test = model_splits(S, regime, n_splits, subsample, seed, max_models=max_models)
    rng = np.random.default_rng([seed, 1])
    rows, draw_rows, bench_rows, order_rows = [], [], [], []
    for s, (tr, te) in enumerate(splits):
        if (X[tr].std(axis=0) < 1e-12).any():
            raise ValueError(f"split {s}: a benchmark is constant on the training models; its correlation is undefined")
        orders = _orders(X[tr], alphas, chosen, max(ks))
        for sel, o in orders.items():
            order_rows += [(s, sel, p + 1, names[j]) for p, j in enumerate(o)]
        for k in ks:
            rand = _random_subsets(K, k, n_random, rng)
            det = [np.sort(orders[sel][:k]) for sel in chosen]
            subsets = np.vstack([*det, rand])
            summary, r2, mae = _score(X, tr, te, subsets, alphas)
            nd = len(chosen)
            for i, sel in enumerate(chosen):
                rows.append((s, sel, k, *summary[i]))
            rows.append((s, "random", k, *summary[nd:].mean(axis=0)))
            draw_rows += [(s, "random", k, *summary[nd + d], d) for d in range(len(rand))]
            for i, sel in enumerate((*chosen, "random")):
                part = slice(i, i + 1) if sel != "random" else slice(nd, None)
                bench_rows.append((sel, k, r2[part], mae[part]))
    cols = list(SPLIT_COLUMNS)
    splits_df = pd.DataFrame(rows, columns=cols)
    draws_df = pd.DataFrame(draw_rows, columns=[*cols, "draw"])
    return SelectorComparison(
        splits=splits_df,
        draws=draws_df,
        per_benchmark=_per_benchmark(bench_rows, names),
        orders=pd.DataFrame(order_rows, columns=["split", "selector", "position", "benchmark"]),
        regime=regime,
        names=names,
        n_train=n_train,
        n_test=n_test,
        n_splits=n_splits,
        n_random=n_random,
        seed=seed,
        table=S.name if isinstance(S, ScoreTable) else "scores",
    )


def _per_benchmark(bench_rows: list, names: tuple[str, ...]) -> pd.DataFrame:
    acc: dict[tuple[str, int], list[np.ndarray]] = {}
    for sel, k, r2, mae in bench_rows:
        a = acc.setdefault((sel, k), [np.zeros(len(names)), np.zeros(len(names)), np.zeros(len(names))])
        held = ~np.isnan(r2)
        a[0] += np.where(held, r2, 0).sum(axis=0)
        a[1] += np.where(held, mae, 0).sum(axis=0)
        a[2] += held.sum(axis=0)
    out = []
    for (sel, k), (r2s, maes, n) in acc.items():
        for j, b in enumerate(names):
            if n[j] > 0:
                out.append((sel, k, b, r2s[j] / n[j], maes[j] / n[j], int(n[j])))
    return pd.DataFrame(out, columns=list(PER_BENCHMARK_COLUMNS))


# -- several leaderboards --------------------------------------------------------------------------------
def complete_models(table: ScoreTable) -> ScoreTable:
    """The models of ``table`` with a score on every benchmark (ridge needs complete rows), noted when any drop."""
    ok = ~np.isnan(table.values).any(axis=1)
    if ok.all():
        return table
    return table.rows(
        ok, note=f"{int((~ok).sum())} model(s) with a missing score left out (the comparison needs complete rows)"
    )


#: The columns of :meth:`SuiteComparison.summary`.
SUMMARY_COLUMNS = {
    "suite": "the leaderboard",
    "regime": "interpolation (random split) or extrapolation (below the frontier -> the frontier)",
    "models": "complete models of the leaderboard",
    "K": "its benchmarks",
    "n_train": "training models per split",
    "n_test": "test models per split",
    "r2_coverage": "greedy coverage: held-out R^2, mean over k = 1..K-1 and the splits",
    "r2_random": "random subsets: the same",
    "r2_best": "the best selector's (by this mean)",
    "best": "which selector that is",
    "tau_coverage": "greedy coverage: Kendall tau of the test models' held-out mean ranking, same mean",
    "tau_prediction": "prediction greedy: the same",
}


@dataclass(frozen=True)
class SuiteComparison:
    """:func:`compare_selectors` on several leaderboards and both regimes.

    Attributes
    ----------
    results : dict
        ``{(suite, regime): SelectorComparison}`` for every pair that could be compared.
    skipped : dict
        ``{(suite, regime): reason}`` for the others (too few models, a constant benchmark on a split).
    tables : dict
        ``{suite: ScoreTable}``, the complete tables compared.
    """

    results: dict[tuple[str, str], SelectorComparison]
    skipped: dict[tuple[str, str], str]
    tables: dict[str, ScoreTable]

    def summary(self) -> pd.DataFrame:
        """One row per compared (suite, regime): :data:`SUMMARY_COLUMNS`."""
        rows = []
        for (suite, regime), c in self.results.items():
            r2 = c.splits.groupby("selector")["r2"].mean()
            tau = c.splits.groupby("selector")["tau"].mean()
            t = self.tables[suite]
            rows.append(
                (
                    suite,
                    regime,
                    t.n_models,
                    t.n_benchmarks,
                    c.n_train,
                    c.n_test,
                    r2["coverage_greedy"],
                    r2["random"],
                    r2.max(),
                    r2.idxmax(),
                    tau["coverage_greedy"],
                    tau["prediction_greedy"],
                )
            )
        return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))

    def curve_table(self, metric: str = "r2") -> pd.DataFrame:
        """Every curve as a table: index (suite, regime, k), one column per selector (mean over the splits)."""
        _check_metric(metric)
        parts = {key: c.wide(metric) for key, c in self.results.items()}
        if not parts:
            return pd.DataFrame(columns=list(SELECTORS))
        out = pd.concat(parts, names=["suite", "regime", "k"])
        return out


def compare_suites(
    tables: Mapping[str, ScoreTable],
    n_splits: int = 20,
    n_random: int = 30,
    seed: int = 0,
    regimes: Sequence[str] = REGIMES,
) -> SuiteComparison:
    """:func:`compare_selectors` on each table's complete models and each regime; a pair that cannot be compared
    (too few models for the split, a benchmark constant on a split's training models) is skipped with its reason.

    Raises
    ------
    ValueError
        When no (table, regime) pair could be compared, with the first reason (e.g. too few complete models).
    """
    results, skipped, used = {}, {}, {}
    for suite, table in tables.items():
        t = complete_models(table)
        used[suite] = t
        for regime in regimes:
            if t.n_benchmarks < 2:
                skipped[(suite, regime)] = f"{t.n_benchmarks} benchmark: nothing to choose from"
                continue
            try:
                results[(suite, regime)] = compare_selectors(t, regime, n_splits=n_splits, n_random=n_random, seed=seed)
            except ValueError as exc:
                skipped[(suite, regime)] = str(exc)
    if not results:
        (suite, regime), why = next(iter(skipped.items()))
        raise ValueError(f"the selector comparison needs 14 complete models or more; on {suite!r} ({regime}): {why}")
    return SuiteComparison(results, skipped, used)
