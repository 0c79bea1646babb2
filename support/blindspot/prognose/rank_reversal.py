"""Rank reversal when one model is added: Corollary 2 and the paper's App. H.9 rates.

For a score matrix S (n models x k benchmarks) and an aggregator agg, a *reversal* is a triple
(added model x, pair a, b of the other models) whose order under agg(S without x) differs from
their order under agg(S). :func:`reversal_count` counts them over every choice of x, as the
paper's code does (``validation_v5.reversal_count``).

* A *population-renormalised* aggregator (the paper's z-mean) re-standardises every column
  with the population, so adding a model moves the others' scores and can flip pairs.
* A *row-wise* aggregator (raw mean, median, geometric mean) scores each model from its own row
  only, so adding a model can never flip a pair: zero reversals, whatever d_eff is.

Corollary 2 says "if d_eff < n - 1, adding one model can flip two existing ones" and, conversely,
"d_eff >= n - 1 gives immunity under any translation-invariant aggregator". Since
d_eff <= rank(corr) <= min(k, n - 1), the premise holds for every leaderboard with n > k + 1. Two exact counterexamples refute the converse:
:func:`two_model_counterexample` (every two-model leaderboard has d_eff = 1 = n - 1, and one added model
reverses the pair) and :func:`converse_counterexample` (a 3 x 2 matrix with d_eff = n - 1 = 2 and a flip).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix
from blindspot.core.spectrum import correlation_stack, d_eff, participation_ratio

__all__ = [
    "AGGREGATORS",
    "aggregate_stack",
    "reversal_count",
    "reversal_counts",
    "reversal_events",
    "ReversalRates",
    "reversal_rates",
    "aggregator_comparison",
    "draw_subpopulation",
    "AdditionFlip",
    "add_model_flips",
    "converse_counterexample",
    "two_model_counterexample",
]

AGGREGATORS: tuple[str, ...] = ("zmean", "mean", "median", "geomean")


def aggregate_stack(M: np.ndarray, aggregator: str = "zmean") -> np.ndarray:
    """Aggregate scores of a stack of populations M (..., n, k) -> (..., n).

    ``zmean``: mean over benchmarks of the column z-scores within each population (ddof 0; a
    constant column gets sd 1), as in the paper's code. ``mean`` / ``median``: of the raw row. ``geomean``:
    exp(mean(log(max(x, 1e-9)))) of the raw row, as in the paper's code.
    """
    if aggregator not in AGGREGATORS:
        raise ValueError(f"unknown aggregator {aggregator!r}; choose one of {AGGREGATORS} or pass a callable")
    if aggregator == "zmean":
        mu = M.mean(axis=-2, keepdims=True)
        sd = M.std(axis=-2, keepdims=True)
        sd = np.where(sd > 1e-12, sd, 1.0)
        return ((M - mu) / sd).mean(axis=-1)
    if aggregator == "mean":
        return M.mean(axis=-1)
    if aggregator == "median":
        return np.median(M, axis=-1)
    return np.exp(np.log(np.clip(M, 1e-9, None)).mean(axis=-1))


def _before(v: np.ndarray) -> np.ndarray:
    """B[..., i, j] = model i ranks above model j (higher score; ties by position, as a stable argsort)."""
    n = v.shape[-1]
    gt = v[..., :, None] > v[..., None, :]
    eq = v[..., :, None] == v[..., None, :]
    pos = np.arange(n)[:, None] < np.arange(n)[None, :]
    return gt | (eq & pos)


def _leave_one_out(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For (..., n, k): the n sub-populations without each row (..., n, n-1, k) and the kept indices."""
    n = X.shape[-2]
    keep = np.array([[j for j in range(n) if j != i] for i in range(n)])
    return X[..., keep, :], keep


def reversal_counts(stack: np.ndarray, aggregator: str = "zmean") -> np.ndarray:
    """Reversal counts of a stack of populations (B, n, k), vectorised (see :func:`reversal_count`)."""
    X = np.asarray(stack, dtype=float)
    if X.ndim != 3:
        raise ValueError(f"expected a stack of score matrices (B, n, k), got shape {X.shape}")
    n = X.shape[1]
    if n < 3:
        raise ValueError(f"rank reversal needs at least 3 models (a pair plus the added one), got {n}")
    full = aggregate_stack(X, aggregator)  # (B, n)
    sub, keep = _leave_one_out(X)  # (B, n, n-1, k)
    base = aggregate_stack(sub, aggregator)  # (B, n, n-1)
    full_r = full[:, keep]  # the full-population scores of the same models, (B, n, n-1)
    flip = _before(base) != _before(full_r)
    iu = np.triu_indices(n - 1, 1)
    return flip[..., iu[0], iu[1]].sum(axis=(-1, -2))


def reversal_count(S: ArrayLike, aggregator: str | Callable[[np.ndarray], np.ndarray] = "zmean") -> int:
    """Number of (added model, pair) reversals of one population (Corollary 2).

    For each model x: order the other n - 1 models by agg(S without x) and by agg(S) (restricted
    to them), and count the pairs whose order differs. ``aggregator`` is a name of
    :data:`AGGREGATORS` or a callable mapping an (m, k) matrix to m scores.
    """
    X = as_matrix(S)
    if callable(aggregator):
        n = X.shape[0]
        full = np.asarray(aggregator(X), dtype=float)
        if full.shape != (n,):
            raise ValueError(f"the aggregator must return one score per model ({n}), got shape {full.shape}")
        total = 0
        iu = np.triu_indices(n - 1, 1)
        for x in range(n):
            keep = np.delete(np.arange(n), x)
            b = np.asarray(aggregator(X[keep]), dtype=float)
            total += int((_before(b) != _before(full[keep]))[iu].sum())
        return total
    return int(reversal_counts(X[None], aggregator)[0])


def reversal_events(S: ArrayLike, aggregator: str = "zmean", names: Sequence[str] | None = None) -> pd.DataFrame:
    """Every reversal of one population: the added model, the pair (a ranked above b before), and ranks."""
    X = as_matrix(S)
    n = X.shape[0]
    names = [str(i) for i in range(n)] if names is None else [str(s) for s in names]
    if len(names) != n:
        raise ValueError(f"got {len(names)} names for {n} models")
    full = aggregate_stack(X, aggregator)
    rows = []
    for x in range(n):
        keep = np.delete(np.arange(n), x)
        b = aggregate_stack(X[keep], aggregator)
        Bb, Bf = _before(b), _before(full[keep])
        rb = np.argsort(np.argsort(-b, kind="stable")) + 1
        rf = np.argsort(np.argsort(-full, kind="stable")) + 1
        for i, j in zip(*np.triu_indices(n - 1, 1)):
            if Bb[i, j] != Bf[i, j]:
                a_, b_ = (i, j) if Bb[i, j] else (j, i)
                rows.append(
                    {
                        "added": names[x],
                        "above_before": names[keep[a_]],
                        "below_before": names[keep[b_]],
                        "ranks_before": (int(rb[a_]), int(rb[b_])),
                        "ranks_after": (int(rf[keep[a_]]), int(rf[keep[b_]])),
                    }
                )
    return pd.DataFrame(rows, columns=["added", "above_before", "below_before", "ranks_before", "ranks_after"])


def draw_subpopulation(n_pop: int, n_models: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of one draw of n_models of n_pop models without replacement (``rng.choice``)."""
    if not 3 <= n_models <= n_pop:
        raise ValueError(f"need 3 <= n_models <= population size ({n_pop}), got {n_models}")
    return rng.choice(n_pop, size=n_models, replace=False)


@dataclass(frozen=True)
class ReversalRates:
    """App. H.9: reversal counts over random draws of n_models from a population.

    ``d_effs`` are the draws' d_eff (NaN-free; a draw with a constant column gets the participation
    ratio of its remaining columns), so the notebook can show d_eff < n - 1 in every draw.
    """

    counts: np.ndarray
    d_effs: np.ndarray
    n_models: int
    aggregator: str
    seed: int

    @property
    def mean(self) -> float:
        return float(self.counts.mean())

    @property
    def sd(self) -> float:
        return float(self.counts.std())

    @property
    def frac_ge1(self) -> float:
        return float(np.mean(self.counts >= 1))

    @property
    def frac_ge3(self) -> float:
        return float(np.mean(self.counts >= 3))

    @property
    def median(self) -> float:
        return float(np.median(self.counts))


def reversal_rates(
    S_pop: ArrayLike, n_models: int = 12, n_draws: int = 200, aggregator: str = "zmean", seed: int = 0
) -> ReversalRates:
    """Reversal counts over ``n_draws`` draws of ``n_models`` models (one ``default_rng(seed)``; App. H.9).

    The paper: Extended top 30% (89 models), 200 draws of 12, z-mean -> 8.29 +- 4.87 reversals per
    draw, 98% of draws with at least one.
    """
    X = as_matrix(S_pop)
    if n_draws < 1:
        raise ValueError(f"n_draws must be positive, got {n_draws}")
    rng = np.random.default_rng(seed)
    idx = np.stack([draw_subpopulation(X.shape[0], n_models, rng) for _ in range(n_draws)])
    stack = X[idx]
    return ReversalRates(
        reversal_counts(stack, aggregator),
        np.atleast_1d(participation_ratio(np.linalg.eigvalsh(correlation_stack(stack)))),
        n_models,
        aggregator,
        seed,
    )


def aggregator_comparison(
    S_pop: ArrayLike,
    n_models: int = 12,
    n_draws: int = 100,
    seed: int = 7,
    aggregators: Sequence[str] = ("mean", "zmean", "median", "geomean"),
) -> pd.DataFrame:
    """Mean reversals and the fraction of draws with >= 1, per aggregator (H.9; one rng shared in order)."""
    X = as_matrix(S_pop)
    rng = np.random.default_rng(seed)
    rows = []
    for name in aggregators:
        idx = np.stack([draw_subpopulation(X.shape[0], n_models, rng) for _ in range(n_draws)])
        c = reversal_counts(X[idx], name)
        rows.append(
            {
                "aggregator": name,
                "mean_reversals": float(c.mean()),
                "sd": float(c.std()),
                "frac_ge1": float(np.mean(c >= 1)),
                "max": int(c.max()),
            }
        )
    return pd.DataFrame(rows).set_index("aggregator")


@dataclass(frozen=True)
class AdditionFlip:
    """What adding one model does: scores of the existing models before and after, and the flipped pairs."""

    before: np.ndarray
    after: np.ndarray
    flipped: list[tuple[int, int]]
    d_eff: float
    n: int


def add_model_flips(S: ArrayLike, new_row: Sequence[float], aggregator: str = "zmean") -> AdditionFlip:
    """Aggregate S, then S with ``new_row`` appended; list the pairs of existing models that swap order.

    S may have two models: their correlation matrix has rank 1 (every correlation is +-1), so d_eff = 1.
    """
    X = as_matrix(S, min_rows=2)
    r = np.asarray(new_row, dtype=float).ravel()
    if r.size != X.shape[1]:
        raise ValueError(f"the new model has {r.size} scores; the table has {X.shape[1]} benchmarks")
    before = aggregate_stack(X, aggregator)
    after = aggregate_stack(np.vstack([X, r]), aggregator)[:-1]
    Bb, Ba = _before(before), _before(after)
    n = X.shape[0]
    flips = [(int(i), int(j)) for i, j in zip(*np.triu_indices(n, 1)) if Bb[i, j] != Ba[i, j]]

    # d_eff of two rows: the participation ratio of their (rank-one) correlation matrix; spectrum.d_eff needs 3
    de = float(d_eff(X)) if n >= 3 else float(participation_ratio(np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))))
    return AdditionFlip(before, after, flips, de, n)


def converse_counterexample() -> tuple[np.ndarray, np.ndarray]:
    """An exact counterexample to the converse of Corollary 2 (the book's; the paper states the converse).

    S = [[1, 1], [0, -2], [-1, 1]]: n = 3, k = 2, the two columns are uncorrelated, so
    d_eff = 2 = n - 1; adding the model (0, 10) swaps models 2 and 3 under the z-mean, which is
    translation-invariant in each column. Returns (S, new_row).
    """
    return np.array([[1.0, 1.0], [0.0, -2.0], [-1.0, 1.0]]), np.array([0.0, 10.0])


def two_model_counterexample() -> tuple[np.ndarray, np.ndarray]:
    """The simplest counterexample to the converse of Corollary 2.

    Any two models have benchmark correlations of +-1, so d_eff = 1 = n - 1 and the converse promises
    immunity. S = [[1, 1, 0], [0, 0, 5]]: model 1 leads under the z-mean (1/3 against -1/3). Adding the
    model (100, 100, 2.5) stretches the first two columns (their z-gaps shrink to about 0.02) and
    centres the third between the two (its z-gap stays 2.45 in favour of model 2), so model 2 moves
    ahead. Returns (S, new_row).
    """
    return np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 5.0]]), np.array([100.0, 100.0, 2.5])
