"""The densest complete block of a sparse leaderboard: the models and benchmarks whose every cell is observed.

A sparse leaderboard (the Epoch AI Benchmarking Hub: about 91% of its cells empty) has no
correlation matrix until its gaps are filled. When the book's completion is not trusted there (its
cross-validation check does not beat each benchmark's mean, :mod:`blindspot.report.completion_check`),
the survey of :mod:`blindspot.report.survey` analyses a block of the leaderboard that needs no
filling at all: a set of benchmarks and the models that have a score on every one of them.

Finding the complete block with the most cells is the maximum edge biclique problem, which is
NP-complete (Peeters 2003, Discrete Appl. Math. 131:651). :func:`densest_complete_block` is greedy
instead: from every starting benchmark it adds in turn the benchmark that keeps the most models with
every chosen benchmark observed (ties to the benchmark first in the table), and records each prefix.
Among all prefixes of all paths it returns the one with the most benchmarks k (ties: more models,
then the earlier start), subject to ``k >= min_benchmarks`` and
``n >= max(min_models, models_per_benchmark * k)``. The block is for a spectrum, so benchmarks come
first (on the Epoch hub a block of 126 models on 2 benchmarks has more cells than one of 29 on 6, and
says nothing about directions). The bound on the models keeps the estimate meaningful: a
correlation matrix of k benchmarks estimated from n models has a Marchenko-Pastur bulk of width
about ``4 sqrt(k / n)`` (Marchenko & Pastur 1967), and the frontier (the upper half of the models)
must still have more models than benchmarks, so the default is four models per benchmark. Cost:
O(k^3 n) boolean operations, vectorised per step (milliseconds on a 577 x 49 leaderboard).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["CompleteBlock", "densest_complete_block"]


@dataclass(frozen=True)
class CompleteBlock:
    """A complete block of a sparse score table.

    Attributes
    ----------
    models, benchmarks : tuple of str
        The block's rows and columns (columns in the greedy order, rows in the table's order).
    n_models_table, n_benchmarks_table : int
        The shape of the table it was taken from.
    models_per_benchmark : float
        The bound ``n >= models_per_benchmark * k`` it was chosen under.
    """

    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    n_models_table: int
    n_benchmarks_table: int
    models_per_benchmark: float

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.models), len(self.benchmarks)

    @property
    def cell_share(self) -> float:
        """The block's cells as a share of the table's."""
        return len(self.models) * len(self.benchmarks) / (self.n_models_table * self.n_benchmarks_table)

    def describe(self) -> str:
        """One line for a table's notes: the block's shape against the table's, and the rule."""
        n, k = self.shape
        return (
            f"the densest complete block: {n} models x {k} benchmarks of {self.n_models_table} x "
            f"{self.n_benchmarks_table} (every cell observed; greedy, at least {self.models_per_benchmark:g} models "
            f"per benchmark)"
        )


def densest_complete_block(
    scores: pd.DataFrame,
    min_models: int = 3,
    min_benchmarks: int = 2,
    models_per_benchmark: float = 4.0,
) -> CompleteBlock:
    """The complete block with the most benchmarks among the greedy paths from every benchmark (module docstring).

    Parameters
    ----------
    scores : DataFrame
        Models x benchmarks, NaN for a missing cell.
    min_models, min_benchmarks : int
        The smallest block accepted (a correlation needs 3 models, a spectrum 2 benchmarks).
    models_per_benchmark : float
        A block of k benchmarks needs at least ``models_per_benchmark * k`` models.

    Returns
    -------
    CompleteBlock

    Raises
    ------
    ValueError
        Not a frame, bounds out of range, or no block meets the bounds (the message gives the largest
        number of models any two benchmarks share).

    References
    ----------
    Peeters, R. (2003). The maximum edge biclique problem is NP-complete. Discrete Appl. Math. 131:651-654.
    Used by the survey chapter (``ch-public-leaderboards``) for the sparse leaderboards.
    """
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(f"densest_complete_block takes a DataFrame (models x benchmarks), got {type(scores).__name__}")
    if min_models < 3 or min_benchmarks < 2 or not models_per_benchmark > 0:
        raise ValueError(
            f"the bounds must be min_models >= 3, min_benchmarks >= 2 and models_per_benchmark > 0, got "
            f"{min_models}, {min_benchmarks}, {models_per_benchmark}"
        )
    M = scores.notna().to_numpy()
    n, k = M.shape
    best: tuple[int, int, int] | None = None  # (k, models, -start) of the best prefix
    best_path: tuple[list[int], np.ndarray] | None = None
    pair_max = 0
    for start in range(k):
        rows = M[:, start].copy()
        chosen = [start]
        remaining = np.ones(k, dtype=bool)
        remaining[start] = False
        while remaining.any():
            counts = (M & rows[:, None]).sum(axis=0)
            counts[~remaining] = -1
            j = int(np.argmax(counts))  # ties: the first column
            rows &= M[:, j]
            chosen.append(j)
            remaining[j] = False
            m, kk = int(rows.sum()), len(chosen)
            if kk == 2:
                pair_max = max(pair_max, m)
            if m < min_models:
                break
            if kk >= min_benchmarks and m >= models_per_benchmark * kk:
                key = (kk, m, -start)
                if best is None or key > best:
                    best, best_path = key, (list(chosen), rows.copy())
    if best_path is None:
        raise ValueError(
            f"no complete block of at least {min_benchmarks} benchmarks and {min_models} models ({models_per_benchmark:g} "
            f"per benchmark) exists: at most {pair_max} models share any two benchmarks"
        )
    cols, rows = best_path
    return CompleteBlock(
        tuple(str(m) for m in scores.index[rows]),
        tuple(str(scores.columns[j]) for j in cols),
        n,
        k,
        float(models_per_benchmark),
    )
