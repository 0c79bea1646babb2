"""Populations and the paper's global conventions, as its code computes them (see the book's Notation page).

* ``zscore``: per-column (S - mean) / sd with sd of ddof = 0; a column with sd < 1e-12 gets sd = 1.
  Always computed on the population under study.
* ``frontier_mask``: rows whose mean score is >= the q-quantile (linear interpolation) of the mean
  scores; the comparison is inclusive. Two rules, one per kind of data (the table's ``frontier_rule``):
  the paper's, the mean **raw** score, on the paper's own suites (OLLM v2 -> 229 rows, Extended -> 148,
  LiveBench -> 19: its numbers as its code computed them); the standardised one, the mean **z-score**, on
  every other table (a reader's file, ``blindspot analyze``, the your-data book, its closing summary), so no
  column's units can pick the frontier. A plain array takes the paper's rule unless told otherwise.
* ``frontier``: the frontier slice of a table; benchmarks constant on it (saturated: every frontier model at
  100) are left out of it with a note naming them, as their correlation with the others is undefined there.
* ``aggregate``: the population-relative aggregate zscore(S).mean(axis=1).
* ``top_gap``: Delta_2 = agg_(1) - agg_(2); ``population_radius``: R = max_i ||zscore(S)_i||_2.
* ranks: 1 = best, from a stable argsort of -score.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from blindspot.data.columns import name_list
from blindspot.data.tables import PAPER_RULE, STANDARDISED_RULE, ScoreTable

__all__ = [
    "as_matrix",
    "zscore",
    "frontier_mask",
    "frontier",
    "frontier_rule_sentence",
    "aggregate",
    "top_gap",
    "population_radius",
    "ranks",
]

ArrayLike = np.ndarray | pd.DataFrame | ScoreTable


def as_matrix(S: ArrayLike, min_rows: int = 3, min_cols: int = 2, allow_nan: bool = False) -> np.ndarray:
    """A float (n, k) ndarray from a ScoreTable, DataFrame or array, validated.

    Raises
    ------
    ValueError
        Not 2-D, fewer than ``min_rows`` rows or ``min_cols`` columns, or NaN/inf cells (unless allowed).
    """
    if isinstance(S, ScoreTable):
        X = S.values
    elif isinstance(S, pd.DataFrame):
        X = S.to_numpy(dtype=float)
    else:
        X = np.asarray(S, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D score matrix (models x benchmarks), got shape {X.shape}")
    n, k = X.shape
    if n < min_rows:
        raise ValueError(f"need at least {min_rows} models (rows), got {n}")
    if k < min_cols:
        raise ValueError(f"need at least {min_cols} benchmarks (columns), got {k}")
    if not allow_nan and not np.isfinite(X).all():
        bad = np.argwhere(~np.isfinite(X))[0]
        raise ValueError(
            f"score matrix has {int((~np.isfinite(X)).sum())} missing or infinite cell(s), first at row {bad[0]}, "
            f"column {bad[1]}; drop or complete them first (blindspot.data missing= policy)"
        )
    return X


def zscore(S: ArrayLike) -> np.ndarray:
    """Per-column z-scores with ddof = 0 (as in the paper's code); constant columns get sd := 1."""
    X = as_matrix(S, min_rows=2, min_cols=1)
    sd = X.std(axis=0)
    sd = np.where(sd < 1e-12, 1.0, sd)
    return (X - X.mean(axis=0)) / sd


def frontier_mask(S: ArrayLike, q: float = 0.5, rule: str | None = None) -> np.ndarray:
    """Boolean mask of the frontier: mean score >= its q-quantile (inclusive, linear interpolation).

    Parameters
    ----------
    S : ScoreTable, DataFrame or ndarray
        Models x benchmarks, complete.
    q : float
        Quantile in [0, 1).
    rule : {'mean z-score', 'mean raw score'}, optional
        The mean of each row's z-scores (ddof 0) or of its raw scores. Default: a table's own
        ``frontier_rule`` (the paper's suites: raw; every other table: z); an array or a frame: the paper's.

    References
    ----------
    The paper's frontier (top half by mean score, Section 4); the book's Notation page.
    """
    if not 0.0 <= q < 1.0:
        raise ValueError(f"frontier quantile q must be in [0, 1), got {q}")
    if rule is None:
        rule = S.frontier_rule if isinstance(S, ScoreTable) else PAPER_RULE
    if rule not in (PAPER_RULE, STANDARDISED_RULE):
        raise ValueError(f"frontier rule must be {STANDARDISED_RULE!r} or {PAPER_RULE!r}, got {rule!r}")
    X = as_matrix(S)
    m = zscore(X).mean(axis=1) if rule == STANDARDISED_RULE else X.mean(axis=1)
    return m >= np.quantile(m, q)


def frontier_rule_sentence(table: ScoreTable, q: float = 0.5) -> str:
    """Which rule picks ``table``'s frontier, in words, for a page to say it."""
    whose = "the paper's rule, on the paper's data" if table.frontier_rule == PAPER_RULE else "the standardised rule"
    return f"the frontier is the models whose {table.frontier_rule} is at least its {q:.0%} quantile ({whose})"


def frontier(table: ScoreTable, q: float = 0.5, min_models: int = 3) -> ScoreTable:
    """The frontier slice of a score table (the paper's frontier at q = 0.5), named ``"<name> frontier"``.

    The rule is the table's own (:func:`frontier_mask`). A benchmark constant on the frontier (saturated:
    every frontier model scores the same, e.g. 100) is left out of the slice with a note naming it, since
    its correlation with the others is undefined there; the slice keeps at least 2 benchmarks.

    Raises
    ------
    ValueError
        If fewer than ``min_models`` models remain (a frontier of one model has no spread), or fewer than
        2 benchmarks vary on the frontier.
    """
    mask = frontier_mask(table, q)
    if mask.sum() < min_models:
        raise ValueError(
            f"the frontier of {table.name!r} at q={q} keeps {int(mask.sum())} model(s); at least {min_models} are "
            f"needed (lower q)"
        )
    front = table.rows(mask, name=f"{table.name} frontier", note=f"frontier: {table.frontier_rule} >= {q:.0%} quantile")
    sd = front.scores.std(axis=0, ddof=0).to_numpy()
    flat = [b for b, v in zip(front.benchmarks, sd) if not np.isfinite(v) or v < 1e-12]
    if not flat:
        return front
    kept = [b for b in front.benchmarks if b not in flat]
    if len(kept) < 2:
        raise ValueError(
            f"on the frontier of {table.name!r} at q={q}, only {len(kept)} benchmark(s) vary ({name_list(flat)} are "
            f"constant: saturated); a frontier analysis needs 2 (lower q)"
        )
    values = ", ".join(f"{b!r} = {front.scores[b].iloc[0]:g}" for b in flat[:5])
    note = (
        f"benchmark(s) {name_list([repr(b) for b in flat])} are constant on the frontier (saturated: {values} for "
        f"every frontier model), so their correlation with the others is undefined there: left out of the "
        f"frontier's analysis (kept for all models)"
    )
    out = front.columns(kept)
    return replace(out, notes=out.notes + (note,))


def aggregate(S: ArrayLike) -> np.ndarray:
    """The population-relative aggregate zscore(S).mean(axis=1) (the paper's z-mean)."""
    return zscore(S).mean(axis=1)


def top_gap(S: ArrayLike) -> float:
    """Delta_2: the aggregate gap between the two best models, in z-score units."""
    a = np.sort(aggregate(S))[::-1]
    return float(a[0] - a[1])


def population_radius(S: ArrayLike) -> float:
    """R = max_i ||zscore(S)_i||_2, the population radius of Theorem 2 (as the paper's code computes it)."""
    return float(np.linalg.norm(zscore(S), axis=1).max())


def ranks(score: np.ndarray) -> np.ndarray:
    """Ranks with 1 = best, ties broken by position (stable argsort of -score)."""
    score = np.asarray(score, dtype=float)
    order = np.argsort(-score, kind="stable")
    r = np.empty(score.shape[0], dtype=int)
    r[order] = np.arange(1, score.shape[0] + 1)
    return r
