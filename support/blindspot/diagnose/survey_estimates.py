"""A leaderboard's frontier d_eff and its difference from the population's, each with a 95% interval.

The survey of leaderboards (:mod:`blindspot.report.survey`) judges the paper's general statements on
intervals, not on point estimates (:mod:`blindspot.diagnose.survey_statements`):

* the frontier's d_eff with its percentile bootstrap interval (resampling the frontier's models, as
  ``blindspot analyze`` and the paper's Table 1 do: :func:`blindspot.core.spectrum.bootstrap_d_eff`),
  widened to include the estimate where the percentile interval misses it, and then marked as widened;
* the difference d_eff(frontier) - d_eff(all models) with a **paired** bootstrap interval
  (:func:`paired_frontier_gap`): each resample draws the models with replacement, takes its frontier
  again by the same rule, and computes both d_eff on that one resample; the interval is the 2.5 and
  97.5 percentiles of the resampled differences (Efron & Tibshirani, *An Introduction to the
  Bootstrap*, 1993, ch. 13). The pairing removes the sampling noise the two d_eff share; taking the
  frontier again carries its selection (which models are on it depends on the sample) into the
  interval, where a fixed membership would understate it.

:func:`frontier_estimates` gives the three on one score table with the survey's frontier rule (every
benchmark z-scored over the table's models, the frontier the models whose mean z-score is at least
the ``q`` quantile, a benchmark constant on the frontier left out of it: the rule of
:func:`blindspot.core.conventions.frontier`); the survey calls it on the alternatives to a completed
matrix (its complete rows, its densest complete block) to see whether a verdict changes with the fill.
:func:`halves_ties` says whether a tie at the top of a half decides the halves' agreement on #1.

Time: the survey chapter follows d_eff through time where the data allow: from the first edition of
the Open LLM Leaderboard to the second on the models both evaluated (the two editions' benchmarks are
different, the models the same, so a change in d_eff is the benchmarks'; :func:`compare_editions`
compares two rows of the survey's table), and :func:`release_columns` says which metadata columns of a
table hold release dates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pandas as pd

from blindspot.core.conventions import frontier, zscore
from blindspot.core.halfsplit import split_masks
from blindspot.core.spectrum import bootstrap_d_eff, spectrum_any_shape
from blindspot.data.tables import ScoreTable
from blindspot.diagnose.survey_statements import Estimate

__all__ = [
    "FrontierEstimates",
    "HalvesTies",
    "halves_ties",
    "frontier_estimates",
    "frontier_gap",
    "paired_frontier_gap",
    "widened_estimate",
    "too_few_models",
    "release_columns",
    "releases_sentence",
    "EditionChange",
    "compare_editions",
    "RELEASE_WORDS",
]


def too_few_models(n: int, k: int) -> str | None:
    """Why a statistic of the spectrum is not computed on ``n`` models and ``k`` benchmarks, or None.

    The correlation matrix of n models has rank at most n - 1, so d_eff <= n - 1: with n <= k the
    bound comes from the number of models, not from what the benchmarks measure.

    Parameters
    ----------
    n, k : int
        Models and benchmarks of the population.

    Returns
    -------
    str or None
        The reason, or None when n > k.
    """
    if n > k:
        return None
    return (
        f"needs more models than benchmarks ({k + 1} for {k} benchmarks, has {n}): the correlation matrix of {n} "
        f"models has rank at most {n - 1}"
    )


def widened_estimate(point: float, lo: float, hi: float) -> Estimate:
    """The estimate with the percentile interval ``[lo, hi]`` widened to include it, marked when it was.

    Returns
    -------
    Estimate
        ``[min(lo, point), max(hi, point)]``; ``widened`` names the percentile interval when it did not
        contain the point (resampling models duplicates rows, which biases d_eff near its extremes).
    """
    if lo <= point <= hi:
        return Estimate(float(point), float(lo), float(hi))
    why = f"widened to include the estimate; the percentile interval is [{lo:.3g}, {hi:.3g}]"
    return Estimate(float(point), float(min(lo, point)), float(max(hi, point)), why)


def _participation(X: np.ndarray) -> float:
    """d_eff of the Pearson correlation of X, its constant columns left out (NaN: fewer than 2 vary)."""
    sd = X.std(axis=0)
    keep = sd > 1e-12 * np.maximum(1.0, np.abs(X).max(axis=0))
    if keep.sum() < 2:
        return float("nan")
    lam = np.linalg.eigvalsh(np.corrcoef(X[:, keep], rowvar=False))
    return float(lam.sum() ** 2 / (lam**2).sum())


def paired_frontier_gap(
    X: np.ndarray,
    q: float = 0.5,
    columns: np.ndarray | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    on_frontier: np.ndarray | None = None,
) -> Estimate:
    """d_eff(frontier) - d_eff(all) with its paired percentile bootstrap interval (module docstring).

    Each resample draws the n models with replacement, takes its frontier again by the same rule (the
    models whose mean z-score over the resample is at least its ``q`` quantile), and computes both d_eff on
    it, so the interval carries the frontier's selection as well as the models' sampling.

    Parameters
    ----------
    X : ndarray (n, k)
        Scores of every model, complete.
    q : float
        The frontier's quantile of the mean z-score, in (0, 1).
    columns : ndarray of int, optional
        The benchmarks the frontier's d_eff uses (default: all; the frontier leaves out benchmarks
        constant on it, and a benchmark constant in a resample's frontier is left out of that resample).
    n_boot : int
        Resamples (at least 2).
    seed : int
        Seed of ``numpy.random.default_rng``; one draw of n indices per resample.
    on_frontier : ndarray of bool (n,), optional
        The frontier of the point estimate (default: the rule on X).

    Returns
    -------
    Estimate
        The difference of the two point estimates and the 2.5/97.5 percentiles of the resampled
        differences (resamples where a d_eff is undefined, a frontier of fewer than 3 models or fewer
        than 2 varying benchmarks, are left out), widened to include the estimate and then marked as
        widened (:func:`widened_estimate`), as the d_eff intervals of ``blindspot analyze`` are.

    Raises
    ------
    ValueError
        Shapes that do not match, fewer than 3 frontier models, ``n_boot < 2``, or more than half of the
        resamples undefined.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.isfinite(X).all():
        raise ValueError(f"paired_frontier_gap needs complete scores (n, k), got shape {X.shape} or NaN")
    if not 0 < q < 1 or n_boot < 2:
        raise ValueError(f"paired_frontier_gap needs 0 < q < 1 and n_boot >= 2, got {q}, {n_boot}")

    def rule(Y: np.ndarray) -> np.ndarray:
        sd = Y.std(axis=0)
        m = ((Y - Y.mean(axis=0)) / np.where(sd > 0, sd, 1.0)).mean(axis=1)
        return m >= np.quantile(m, q)

    mask = rule(X) if on_frontier is None else np.asarray(on_frontier, dtype=bool)
    if mask.shape != (X.shape[0],) or mask.sum() < 3:
        raise ValueError(f"paired_frontier_gap needs a frontier of >= 3 of the {X.shape[0]} models, got {mask.sum()}")
    cols = np.arange(X.shape[1]) if columns is None else np.asarray(columns, dtype=int)
    point = _participation(X[mask][:, cols]) - _participation(X)
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    diffs = np.full(n_boot, np.nan)
    for b in range(n_boot):
        Y = X[rng.integers(0, n, n)]
        f = rule(Y)
        if f.sum() >= 3:
            diffs[b] = _participation(Y[f][:, cols]) - _participation(Y)
    ok = diffs[np.isfinite(diffs)]
    if ok.size < n_boot / 2:
        raise ValueError(f"paired_frontier_gap: {n_boot - ok.size} of {n_boot} resamples have no d_eff")
    lo, hi = np.percentile(ok, [2.5, 97.5])
    return widened_estimate(point, float(lo), float(hi))


@dataclass(frozen=True)
class FrontierEstimates:
    """d_eff of all models and of the frontier, and their paired difference, on one table.

    Attributes
    ----------
    n_models, n_benchmarks, n_frontier : int
        The table's shape and the frontier's size.
    d_eff_all, d_eff_frontier, gap : Estimate or None
        None when not computed; ``reasons`` says why.
    reasons : tuple of str
        What was not computed, and why.
    """

    n_models: int
    n_benchmarks: int
    n_frontier: int
    d_eff_all: Estimate | None
    d_eff_frontier: Estimate | None
    gap: Estimate | None
    reasons: tuple[str, ...] = ()

    @property
    def shape(self) -> str:
        """'n × k'."""
        return f"{self.n_models:,} × {self.n_benchmarks}"


def frontier_estimates(table: ScoreTable, q: float = 0.5, n_boot: int = 1000, seed: int = 0) -> FrontierEstimates:
    """The frontier's and the population's d_eff with bootstrap intervals, and their paired difference.

    Parameters
    ----------
    table : ScoreTable
        Complete raw scores (z-scored here, as ``blindspot analyze`` does).
    q : float
        The frontier's quantile of the mean z-score, in (0, 1).
    n_boot, seed
        As :func:`blindspot.core.spectrum.bootstrap_d_eff` (the same seed gives ``blindspot analyze``'s intervals).

    Returns
    -------
    FrontierEstimates
        A d_eff on n <= k models is not computed (:func:`too_few_models`).

    Raises
    ------
    ValueError
        A table with missing cells, or ``q`` outside (0, 1).
    """
    if np.isnan(table.values).any():
        raise ValueError(f"frontier_estimates needs a complete table; {table.name!r} has missing cells")
    if not 0 < q < 1:
        raise ValueError(f"the frontier quantile must be in (0, 1), got {q}")
    z = _standardised(table)
    reasons: list[str] = []
    n, k = table.n_models, table.n_benchmarks

    def estimate(t: ScoreTable) -> Estimate:
        boot = bootstrap_d_eff(t, n_boot=n_boot, seed=seed)
        return widened_estimate(spectrum_any_shape(t).d_eff, boot.lo, boot.hi)

    why_all = too_few_models(n, k)
    d_all = None if why_all else estimate(z)
    if why_all:
        reasons.append(f"d_eff (all models): {why_all}")
    try:
        front = frontier(z, q)
    except ValueError as exc:
        reasons.append(f"d_eff (frontier): {exc}")
        return FrontierEstimates(n, k, 0, d_all, None, None, tuple(reasons))
    why_front = too_few_models(front.n_models, front.n_benchmarks)
    if why_front:
        reasons.append(f"d_eff (frontier): {why_front}")
        return FrontierEstimates(n, k, front.n_models, d_all, None, None, tuple(reasons))
    d_front = estimate(front)
    gap = None if d_all is None else _gap(z, front, q, n_boot, seed)
    return FrontierEstimates(n, k, front.n_models, d_all, d_front, gap, tuple(reasons))


def _standardised(table: ScoreTable) -> ScoreTable:
    s = table.scores
    return replace(table, scores=(s - s.mean()) / s.std(ddof=0))


def _gap(z: ScoreTable, front: ScoreTable, q: float, n_boot: int, seed: int) -> Estimate:
    mask = z.scores.index.isin(front.scores.index)
    cols = np.array([z.benchmarks.index(b) for b in front.benchmarks])
    return paired_frontier_gap(z.values, q, cols, n_boot=n_boot, seed=seed, on_frontier=mask)


def frontier_gap(table: ScoreTable, q: float = 0.5, n_boot: int = 1000, seed: int = 0) -> Estimate:
    """d_eff(frontier) - d_eff(all) of a complete table with its paired bootstrap interval (the frontier
    as :func:`frontier_estimates` takes it), without the two d_eff intervals.

    Raises
    ------
    ValueError
        A table with missing cells, a frontier that cannot be taken, or too few models for either d_eff
        (:func:`too_few_models`).
    """
    if np.isnan(table.values).any():
        raise ValueError(f"frontier_gap needs a complete table; {table.name!r} has missing cells")
    z = _standardised(table)
    front = frontier(z, q)
    why = too_few_models(table.n_models, table.n_benchmarks) or too_few_models(front.n_models, front.n_benchmarks)
    if why:
        raise ValueError(why)
    return _gap(z, front, q, n_boot, seed)


@dataclass(frozen=True)
class HalvesTies:
    """The splits of the benchmarks in halves whose #1 is tied in a half.

    Attributes
    ----------
    n_splits, n_tied : int
        Splits, and those in which a half's top mean z-score is shared by two or more models (within
        ``1e-9``): there the half's #1 is decided by row order, not by the scores.
    agree_low, agree_high : float
        The share of splits whose halves agree on #1 when every tied split counts as a disagreement,
        and when every one counts as an agreement; the halves' agreement lies between them whatever
        the row order.
    ties : tuple of str
        The tied models at the top of a one-benchmark half, 'benchmark: a, b tie at v' (halves of several
        benchmarks are not named).
    """

    n_splits: int
    n_tied: int
    agree_low: float
    agree_high: float
    ties: tuple[str, ...] = ()

    def decides(self, threshold: float) -> bool:
        """True when the ties decide whether the halves agree in at least ``threshold`` of the splits."""
        return (self.agree_low >= threshold) != (self.agree_high >= threshold)


def _split_masks(k: int, n_splits: int, seed: int) -> np.ndarray:
    """The splits ``blindspot analyze`` evaluates: every choice of k // 2 benchmarks when there are at most
    ``n_splits`` of them, else ``n_splits`` random permutations of one ``default_rng(seed)``."""
    r = k // 2
    if math.comb(k, r) <= n_splits:
        combos = np.array(list(combinations(range(k), r)))
        M = np.zeros((len(combos), k), dtype=bool)
        M[np.repeat(np.arange(len(combos)), r), combos.ravel()] = True
        return M
    rng = np.random.default_rng(seed)
    return split_masks(np.stack([rng.permutation(k) for _ in range(n_splits)]), r)


def halves_ties(front: ScoreTable, n_splits: int = 500, seed: int = 0, atol: float = 1e-9) -> HalvesTies:
    """Whether ties at the top of a half decide the halves' agreement on #1 (:class:`HalvesTies`).

    Each split's halves rank the models by their mean z-score over the half's benchmarks (z-scored over
    ``front``, as :func:`blindspot.core.halfsplit.half_split` does); a half whose top score is shared by
    two or more models has no #1 of its own: its "#1" is the first of them in row order.

    Parameters
    ----------
    front : ScoreTable
        The frontier, complete.
    n_splits, seed
        The splits, as ``blindspot analyze`` draws them (:func:`blindspot.core.halfsplit.half_split`).
    atol : float
        Scores this close count as tied.

    Returns
    -------
    HalvesTies

    Raises
    ------
    ValueError
        Fewer than 2 benchmarks.
    """
    X = front.values
    n, k = X.shape
    if k < 2:
        raise ValueError(f"a split needs at least 2 benchmarks, got {k}")
    Z = zscore(X)
    M = _split_masks(k, n_splits, seed).astype(float)
    halves = [Z @ (W / W.sum(axis=1, keepdims=True)).T for W in (M, 1.0 - M)]  # (n, T) each
    tied = np.zeros(M.shape[0], dtype=bool)
    for a in halves:
        tied |= (np.abs(a - a.max(axis=0)) <= atol).sum(axis=0) > 1
    agree = np.argmax(halves[0], axis=0) == np.argmax(halves[1], axis=0)
    T = M.shape[0]
    ties = []
    for j, b in enumerate(front.benchmarks):
        col = Z[:, j]
        top = np.flatnonzero(np.abs(col - col.max()) <= atol)
        if top.size > 1:
            raw = front.scores[b].iloc[top[0]]
            ties.append(f"{b}: {', '.join(str(front.scores.index[i]) for i in top)} tie at {raw:.4g}")
    return HalvesTies(
        T, int(tied.sum()), float((agree & ~tied).sum() / T), float((agree | tied).sum() / T), tuple(ties)
    )


# ---------------------------------------------------------------------------------------------
# time: release dates and editions

#: Words of a metadata column's name that mark a date of release or submission.
RELEASE_WORDS = ("release", "date", "submission", "upload", "published")


def release_columns(table: ScoreTable) -> list[str]:
    """The metadata columns of ``table`` that hold dates of release (or submission): a name with one of
    :data:`RELEASE_WORDS` whose non-empty values read as dates (``pandas.to_datetime``) for at least 90% of
    them.

    Parameters
    ----------
    table : ScoreTable

    Returns
    -------
    list of str
        In the order of ``table.meta``; empty when none.
    """
    if not isinstance(table, ScoreTable):
        raise ValueError(f"release_columns takes a ScoreTable, got {type(table).__name__}")
    out = []
    for col in table.meta.columns:
        if not any(w in str(col).lower() for w in RELEASE_WORDS):
            continue
        vals = table.meta[col].dropna()
        if vals.empty:
            continue
        parsed = pd.to_datetime(vals.astype(str), errors="coerce", format="mixed")
        if parsed.notna().mean() >= 0.9:
            out.append(str(col))
    return out


def releases_sentence(columns: dict[str, list[str]]) -> str:
    """Which of the tables carry release dates, in words, from ``{table: release_columns(table)}``."""
    if not columns:
        return "no table was looked at for release dates"
    have = {n: c for n, c in columns.items() if c}
    without = [n for n, c in columns.items() if not c]
    parts = [f"{n} carries {', '.join(c)}" for n, c in have.items()]
    if without:
        verb = "carries" if len(without) == 1 else "carry"
        parts.append(f"{' and '.join(without) if len(without) <= 2 else ', '.join(without)} {verb} no release date")
    return "; ".join(parts)


@dataclass(frozen=True)
class EditionChange:
    """d_eff of one population under two editions' benchmarks.

    Attributes
    ----------
    population : str
        ``'all'`` or ``'frontier'``.
    before, after : float
        d_eff under the first and under the second edition.
    before_interval, after_interval : tuple of float
        Their 95% bootstrap intervals.
    overlap : bool
        Whether the two intervals overlap.
    """

    population: str
    before: float
    after: float
    before_interval: tuple[float, float]
    after_interval: tuple[float, float]
    overlap: bool

    @property
    def change(self) -> float:
        return self.after - self.before

    @property
    def sentence(self) -> str:
        """The change in words (which way, by how much, whether the intervals separate the two)."""
        way = "rises" if self.change > 0 else "falls" if self.change < 0 else "stays"
        who = "all models" if self.population == "all" else "the frontier"
        sep = "the two 95% intervals overlap" if self.overlap else "the two 95% intervals do not overlap"
        return (
            f"on {who}, d_eff {way} from {self.before:.3g} ({self.before_interval[0]:.3g}–{self.before_interval[1]:.3g}) "
            f"to {self.after:.3g} ({self.after_interval[0]:.3g}–{self.after_interval[1]:.3g}); {sep}"
        )


def compare_editions(table: pd.DataFrame, before: str, after: str, population: str = "all") -> EditionChange:
    """Compare d_eff of two rows of the survey's table (two editions' benchmarks on one set of models).

    Parameters
    ----------
    table : DataFrame
        :attr:`blindspot.report.survey.table.Survey.table`.
    before, after : str
        The two rows (leaderboards).
    population : {'all', 'frontier'}

    Returns
    -------
    EditionChange

    Raises
    ------
    ValueError
        An unknown row or population, or a d_eff not computed on one of them.
    """
    if population not in ("all", "frontier"):
        raise ValueError(f"population is 'all' or 'frontier', got {population!r}")
    for name in (before, after):
        if name not in table.index:
            raise ValueError(f"{name!r} is not a row of the survey; it has {list(table.index)}")
    cols = [f"d_eff_{population}", f"d_eff_{population}_lo", f"d_eff_{population}_hi"]
    vals = {}
    for name in (before, after):
        v = [table.loc[name, c] for c in cols]
        if any(x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x)) for x in v):
            raise ValueError(f"d_eff ({population}) was not computed on {name!r}: {table.loc[name, 'not_computed']}")
        vals[name] = [float(x) for x in v]
    b, a = vals[before], vals[after]
    overlap = b[1] <= a[2] and a[1] <= b[2]
    return EditionChange(population, b[0], a[0], (b[1], b[2]), (a[1], a[2]), bool(overlap))
