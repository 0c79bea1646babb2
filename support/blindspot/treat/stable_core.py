"""The bootstrap stable core of greedy selection (the paper's main text and App. H.19).

Resample the models (rows) with replacement B times, recompute the benchmark correlation and the
greedy order (Theorem 4) on each resample, and count how often each benchmark lands in the
greedy top r. The *stable core* is the set of benchmarks whose frequency is at least a threshold:

    freq_j = #{b : j in G_b[:r]} / B,        core = {j : freq_j >= thr}

with the paper's r = 7, B = 500 and thr = 0.90 on the EXT frontier. (The main text calls the core the
"top-4 benchmarks"; its code counts frequencies in the greedy top 7, not the top 4.)
Everything is batched: the B correlation matrices come from one tensor product and the B greedy
runs from one call of :func:`blindspot.core.coverage.greedy_orders`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix
from blindspot.core.coverage import benchmark_names, greedy_orders, greedy_select
from blindspot.core.spectrum import correlation

__all__ = ["StableCore", "resample_correlations", "stable_core"]


@dataclass(frozen=True)
class StableCore:
    """Bootstrap frequencies of each benchmark in the greedy top r.

    Attributes
    ----------
    frequencies : Series
        freq_j for every benchmark (index = names, in column order); they sum to r.
    core : list of str
        Benchmarks with freq >= threshold, most frequent first.
    point_order : list of str
        The greedy order on the full sample (not resampled).
    top : ndarray (n_boot, r)
        Each resample's greedy top-r indices, in selection order.
    r, n_boot, seed, threshold : the parameters.
    n_degenerate : int
        Resamples in which some benchmark was constant (its correlations are then undefined; it is
        given zero correlation with the others and unit variance, i.e. treated as independent).
    """

    frequencies: pd.Series
    core: list[str]
    point_order: list[str]
    top: np.ndarray
    r: int
    n_boot: int
    seed: int
    threshold: float
    n_degenerate: int

    def frame(self) -> pd.DataFrame:
        """Frequency table sorted by frequency, with a core flag and the point-estimate greedy rank."""
        rank = {b: i + 1 for i, b in enumerate(self.point_order)}
        df = pd.DataFrame(
            {
                "frequency": self.frequencies,
                "in_core": self.frequencies >= self.threshold - 1e-12,
                "point_greedy_rank": [rank[b] for b in self.frequencies.index],
            }
        )
        return df.sort_values(["frequency", "point_greedy_rank"], ascending=[False, True])

    def top_m_frequencies(self, m: int) -> pd.Series:
        """How often each benchmark is in the greedy top m (m <= r) of a resample."""
        if not 1 <= m <= self.r:
            raise ValueError(f"m must be in [1, {self.r}], got {m}")
        k = len(self.frequencies)
        counts = np.bincount(self.top[:, :m].ravel(), minlength=k)
        return pd.Series(counts / self.n_boot, index=self.frequencies.index)

    def top_m_stability(self, m: int) -> tuple[float, float]:
        """(mean Jaccard index between each resample's top-m set and the point top-m set,
        fraction of resamples whose top-m set equals it). The paper's supplementary table: Jaccard 0.70
        for m = 4."""
        if not 1 <= m <= self.r:
            raise ValueError(f"m must be in [1, {self.r}], got {m}")
        names = list(self.frequencies.index)
        point = np.zeros(len(names), bool)
        point[[names.index(b) for b in self.point_order[:m]]] = True
        sets = np.zeros((self.n_boot, len(names)), bool)
        np.put_along_axis(sets, self.top[:, :m], True, axis=1)
        inter = (sets & point).sum(axis=1)
        union = (sets | point).sum(axis=1)
        return float((inter / union).mean()), float((inter == m).mean())


def resample_correlations(X: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, int]:
    """Pearson correlation matrices of the row resamples X[idx[b]] as one stack (B, k, k).

    A column constant within a resample gets zero correlation with the others and a unit diagonal;
    the number of such resamples is returned with the stack.
    """
    Xb = X[idx]  # (B, n, k)
    Xc = Xb - Xb.mean(axis=1, keepdims=True)
    sd = np.sqrt((Xc**2).mean(axis=1))  # (B, k)
    ok = sd > 1e-12
    Z = Xc / np.where(ok, sd, 1.0)[:, None, :]
    C = np.einsum("bni,bnj->bij", Z, Z) / Xb.shape[1]
    C = C * (ok[:, :, None] & ok[:, None, :])
    k = X.shape[1]
    C[:, np.arange(k), np.arange(k)] = 1.0
    return (C + np.swapaxes(C, 1, 2)) / 2, int((~ok).any(axis=1).sum())


def stable_core(
    S: ArrayLike,
    r: int = 7,
    n_boot: int = 500,
    seed: int = 0,
    threshold: float = 0.9,
    names: Sequence[str] | None = None,
    batch: int = 250,
) -> StableCore:
    """Bootstrap stable core of the greedy top-r benchmarks (App. H.19).

    Parameters
    ----------
    S : score matrix (models x benchmarks): ScoreTable, DataFrame or array, complete.
    r : size of the greedy prefix counted (the paper: 7).
    n_boot : number of resamples (the paper: 500).
    seed : resamples are drawn as ``default_rng(seed).choice(n, n, replace=True)``, one per resample in turn.
    threshold : frequency at or above which a benchmark is in the core (the paper: 0.90).
    names : benchmark names (default: the table's columns).

    Raises
    ------
    ValueError
        r outside [1, k], n_boot < 2, threshold outside (0, 1], or an invalid score matrix.
    """
    X = as_matrix(S)
    n, k = X.shape
    names = benchmark_names(S, names, k)
    if isinstance(r, bool) or int(r) != r or not 1 <= r <= k:
        raise ValueError(f"r must be a whole number in [1, {k}], got {r}")
    if int(n_boot) != n_boot or n_boot < 2:
        raise ValueError(f"n_boot must be an integer >= 2, got {n_boot}")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a frequency in (0, 1], got {threshold}")
    r, n_boot = int(r), int(n_boot)
    point = greedy_select(correlation(X), names=names).selected
    rng = np.random.default_rng(seed)
    idx = np.stack([rng.choice(n, n, replace=True) for _ in range(n_boot)])
    top = np.empty((n_boot, r), dtype=int)
    n_deg = 0
    for b0 in range(0, n_boot, batch):
        C, d = resample_correlations(X, idx[b0 : b0 + batch])
        n_deg += d
        top[b0 : b0 + batch], _ = greedy_orders(C, r)
    freq = pd.Series(np.bincount(top.ravel(), minlength=k) / n_boot, index=names, name="frequency")
    core = [b for b in freq.sort_values(ascending=False, kind="stable").index if freq[b] >= threshold - 1e-12]
    return StableCore(freq, core, point, top, r, n_boot, seed, float(threshold), n_deg)
