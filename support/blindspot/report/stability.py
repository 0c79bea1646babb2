"""How stable is the top of the ranking, measured on the file itself (no model of hidden directions).

Two measurements, beside the chi-squared model's swap probability (which is an assumption):

* **split the benchmarks** (:func:`blindspot.core.halfsplit.half_split`, the experiment of the
  paper's App. H.21 that the book runs on its own data): random halves of the benchmarks, each
  ranking the models by its own aggregate; how often the halves disagree on #1 and on the top 5;
* **resample the models** (:func:`leader_bootstrap`): draw the models with replacement, re-standardise
  every benchmark on the resample (the aggregate is population-relative: the mean z-score), and
  record, for each of the top models, whether a model ranked below it ends above it (for the
  leader: whether it is still #1). A model that only wins because of who else is on the
  leaderboard loses here.
  Each resample's aggregate is a_i = sum_j x_ij / (k sd_j) up to a shift, with sd_j the
  resample's weighted sd (ddof 0), so a batch of resamples is one matrix product: O(n k) per
  resample, no (n x n) or (B x n x k) array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from blindspot.core.conventions import as_matrix
from blindspot.core.spectrum import RESAMPLE_BYTES, resample_counts

__all__ = ["LeaderBootstrap", "leader_bootstrap"]


@dataclass(frozen=True)
class LeaderBootstrap:
    """Who is #1, and who is overtaken, in bootstrap resamples of the models.

    Attributes
    ----------
    leader : int
        Row of the full sample's #1 (mean z-score, ties to the first row).
    top : ndarray (m,)
        Rows of the full sample's top m, best first.
    overtaken_share : ndarray (m,)
        For each of them, the share of the resamples containing it in which some model ranked
        below it (in the full sample) ends above it: the measured counterpart of the model's
        P(overtaken).
    leader_share : float
        Share of the resamples containing the leader in which it is #1 (= 1 - overtaken_share[0]).
    n_with_leader : int
        Resamples that contain the leader.
    n_boot, seed : int
    """

    leader: int
    top: np.ndarray
    overtaken_share: np.ndarray
    leader_share: float
    n_with_leader: int
    n_boot: int
    seed: int


def leader_bootstrap(S: np.ndarray, n_boot: int = 1000, seed: int = 0, top: int = 20) -> LeaderBootstrap:
    """Bootstrap the models and record, for each of the top ``top``, whether a lower-ranked model passes it.

    Resample b draws ``default_rng(seed).integers(0, n, n)`` in turn. A model absent from a
    resample is not ranked in it. Columns constant within a resample are left out of its aggregate.

    Raises
    ------
    ValueError
        Fewer than 3 models, n_boot < 2, or missing cells.
    """
    X = as_matrix(S)
    n, k = X.shape
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    sd0 = X.std(axis=0)
    a0 = ((X - X.mean(axis=0)) / np.where(sd0 > 1e-12, sd0, 1.0)).mean(axis=1)
    order = np.argsort(-a0, kind="stable")
    m = min(top, n)
    Xo = (X - X.mean(axis=0))[order]  # rows in full-sample rank order
    rng = np.random.default_rng(seed)
    step = int(max(1, min(n_boot, RESAMPLE_BYTES // (8 * 3 * n))))
    passed = np.zeros(m)
    present = np.zeros(m)
    for s in range(0, n_boot, step):
        b = min(step, n_boot - s)
        W = resample_counts(rng, n, b)[:, order].astype(float)
        mean = W @ Xo / n
        var = W @ (Xo * Xo) / n - mean**2
        ok = var > 1e-10 * (var + mean**2)
        inv = np.where(ok, 1.0 / np.sqrt(np.where(ok, var, 1.0)), 0.0) / k  # (b, k)
        agg = Xo @ inv.T  # (n, b): the aggregate up to a per-resample shift, rows in rank order
        here = W.T > 0
        agg[~here] = -np.inf
        # best aggregate among the models ranked below each of the top m: a suffix maximum over
        # the top m rows on top of one maximum over all the rows below them
        tail = agg[m:].max(axis=0, initial=-np.inf)
        below = np.maximum.accumulate(np.vstack([agg[1:m], tail[None, :]])[::-1], axis=0)[::-1]
        passed += ((below > agg[:m]) & here[:m]).sum(axis=1)
        present += here[:m].sum(axis=1)
    share = np.divide(passed, present, out=np.zeros(m), where=present > 0)
    return LeaderBootstrap(
        int(order[0]), order[:m], share, float(1.0 - share[0]), int(present[0]), int(n_boot), int(seed)
    )
