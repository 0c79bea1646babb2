"""How d_eff moves with the models that happen to be sampled: split-half reliability (App. H.2) and
the saturation curve (App. H.3).

* :func:`split_half_deff` — split the models at random into two disjoint halves, compute d_eff on
  each, and repeat. App. H.2 reports the mean absolute difference between the halves,

      MAD = (1/B) sum_b |d_eff(S[A_b]) - d_eff(S[B_b])|,

  over B = 500 splits (0.10 on OLLM v2, 0.12 on the Extended suite). The halves of one split are
  complementary, so their d_eff are negatively correlated across splits; the paper reads the MAD,
  not that correlation, as the reliability. Split b is ``rng.permutation(n)`` cut at ``n // 2``
  (the first half and the next ``n // 2`` models; for odd n one model sits out), all splits from
  one ``default_rng(seed)`` stream.
* :func:`saturation_curve` — for each subsample size n', draw ``n_draws`` subsets of n' models
  without replacement (``rng.choice(n, n', replace=False)``), compute d_eff on each, and report the
  mean with the 2.5 / 97.5 percentiles. App. H.3 describes it as "subsample n' models and
  bootstrap d_eff" for n' in {20, 50, 100, 150, 200, 250, 295} on the Extended suite; the number of
  draws (100), the sampling without replacement, the order of the sizes and the single
  ``default_rng(0)`` stream over all of them are those of the author's public validation script,
  which this function reconstructs (the paper's text does not give them). The sizes are drawn in the
  order given, so the same list and seed give the same stream.

Every d_eff of a batch comes from one batched ``eigvalsh`` on a stack of correlation matrices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix
from blindspot.core.spectrum import correlation_stack, participation_ratio

__all__ = ["SplitHalf", "split_half_deff", "Saturation", "saturation_curve", "batched_deff"]

#: The subsample sizes of App. H.3 (Extended suite, n = 295).
PAPER_SIZES = (20, 50, 100, 150, 200, 250, 295)


def batched_deff(X: np.ndarray, idx: np.ndarray, batch: int = 500) -> np.ndarray:
    """d_eff (Pearson) of each row subset ``X[idx[b]]``, for an index array ``idx`` of shape (B, m).

    A column that is constant inside a subset contributes a zero row and column (no eigenvalue), as
    in :func:`blindspot.core.spectrum.bootstrap_d_eff`.
    """
    out = np.empty(idx.shape[0])
    for s in range(0, idx.shape[0], batch):
        lam = np.linalg.eigvalsh(correlation_stack(X[idx[s : s + batch]]))
        out[s : s + batch] = participation_ratio(lam)
    return out


@dataclass(frozen=True)
class SplitHalf:
    """d_eff of the two halves of random 50/50 splits of the models (App. H.2).

    Attributes
    ----------
    halves : ndarray (n_splits, 2)
        d_eff of the first and second half of each split.
    half_size : int
        Models per half (``n // 2``).
    seed : int
    """

    halves: np.ndarray
    half_size: int
    seed: int

    @property
    def n_splits(self) -> int:
        return int(self.halves.shape[0])

    @property
    def abs_diff(self) -> np.ndarray:
        """|d_eff(first half) - d_eff(second half)| per split."""
        return np.abs(self.halves[:, 0] - self.halves[:, 1])

    @property
    def mad(self) -> float:
        """Mean absolute difference between the halves, the reliability App. H.2 reports."""
        return float(self.abs_diff.mean())

    @property
    def correlation(self) -> float:
        """Correlation of the two halves' d_eff across splits (negative: the halves are complementary)."""
        return float(np.corrcoef(self.halves[:, 0], self.halves[:, 1])[0, 1])


def split_half_deff(S: ArrayLike, n_splits: int = 500, seed: int = 0) -> SplitHalf:
    """d_eff of both halves of ``n_splits`` random 50/50 splits of the models (App. H.2).

    Raises
    ------
    ValueError
        NaN scores, fewer than 6 models (each half needs 3), or n_splits < 2.
    """
    X = as_matrix(S)
    n = X.shape[0]
    if n < 6:
        raise ValueError(f"a split-half check needs at least 6 models (3 per half), got {n}")
    if n_splits < 2:
        raise ValueError(f"n_splits must be at least 2, got {n_splits}")
    half = n // 2
    rng = np.random.default_rng(seed)
    perms = np.stack([rng.permutation(n) for _ in range(n_splits)])
    first = batched_deff(X, perms[:, :half])
    second = batched_deff(X, perms[:, half : 2 * half])
    return SplitHalf(np.column_stack([first, second]), half, seed)


@dataclass(frozen=True)
class Saturation:
    """d_eff of random subsets of n' models, for each n' (App. H.3).

    Attributes
    ----------
    table : DataFrame
        Indexed by ``n_prime``; columns ``mean``, ``lo``, ``hi`` (the 2.5 / 97.5 percentiles of the
        draws, or the ``level`` interval) and ``sd``.
    draws : dict
        ``{n_prime: ndarray (n_draws,)}``, the d_eff of every subset.
    skipped : list of int
        Sizes larger than the number of models (left out).
    """

    table: pd.DataFrame
    draws: dict
    skipped: list
    n_draws: int
    seed: int


def saturation_curve(
    S: ArrayLike,
    sizes: Sequence[int] = PAPER_SIZES,
    n_draws: int = 100,
    seed: int = 0,
    level: float = 0.95,
) -> Saturation:
    """d_eff of ``n_draws`` subsets of n' models drawn without replacement, for each n' (App. H.3).

    Sizes above the number of models are skipped (reported in ``skipped``); n' equal to it gives the
    full matrix every time.

    Raises
    ------
    ValueError
        NaN scores, a size below 3, n_draws < 2, a level outside (0, 1), or no size left.
    """
    X = as_matrix(S)
    n = X.shape[0]
    sizes = [int(s) for s in sizes]
    if any(s < 3 for s in sizes):
        raise ValueError(f"every subsample size must be at least 3 models, got {sizes}")
    if n_draws < 2:
        raise ValueError(f"n_draws must be at least 2, got {n_draws}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    rng = np.random.default_rng(seed)
    a = (1 - level) / 2 * 100
    rows, draws, skipped = [], {}, []
    for m in sizes:
        if m > n:
            skipped.append(m)
            continue
        idx = np.stack([rng.choice(n, size=m, replace=False) for _ in range(n_draws)])
        d = batched_deff(X, idx)
        lo, hi = np.percentile(d, [a, 100 - a])
        draws[m] = d
        rows.append({"n_prime": m, "mean": float(d.mean()), "lo": float(lo), "hi": float(hi), "sd": float(d.std())})
    if not rows:
        raise ValueError(f"every subsample size {sizes} exceeds the {n} models")
    return Saturation(pd.DataFrame(rows).set_index("n_prime"), draws, skipped, n_draws, seed)
