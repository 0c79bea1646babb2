"""App. H.21 and G.2 on a leaderboard in one call: two halves of the benchmarks, and the chi-squared sweep.

:func:`half_split_study` splits a leaderboard's frontier's benchmarks into two disjoint halves at random
(:func:`blindspot.core.halfsplit.half_split`), and over every split when there are few enough
(:func:`~blindspot.core.halfsplit.half_split_exhaustive`), and runs App. G.2's calibration of the
chi-squared swap prediction for r = 3, ..., 9 visible benchmarks (:func:`~blindspot.core.halfsplit.chi2_calibration`).
The result gives its numbers by name (:meth:`HalfSplitStudy.quantities`) and the tables a page shows.

References
----------
The paper's App. H.21 and G.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from blindspot.core import conventions, halfsplit as hs
from blindspot.data.tables import ScoreTable

__all__ = ["MAX_ENUMERATED", "HalfSplitStudy", "half_split_study"]

#: Splits enumerated at most (beyond, only the random splits are run).
MAX_ENUMERATED = 200_000


@dataclass(frozen=True)
class HalfSplitStudy:
    """Random and exhaustive half-splits of a frontier's benchmarks, and the chi-squared calibration sweep.

    Attributes
    ----------
    board, front : ScoreTable
        The leaderboard and its frontier.
    split : HalfSplit
        The random splits.
    every : HalfSplit or None
        Every split (None when there are more than :data:`MAX_ENUMERATED`).
    calibration : DataFrame or None
        :func:`~blindspot.core.halfsplit.chi2_calibration`, indexed by r (None with fewer than 4 benchmarks).
    """

    board: ScoreTable
    front: ScoreTable
    split: hs.HalfSplit
    every: hs.HalfSplit | None
    calibration: pd.DataFrame | None

    @property
    def n_vis(self) -> int:
        """Visible benchmarks of a split (the smaller half for an odd k)."""
        return self.front.n_benchmarks // 2

    @property
    def n_splits(self) -> int:
        """How many different splits there are: C(k, k // 2)."""
        return math.comb(self.front.n_benchmarks, self.n_vis)

    @property
    def enumerate_note(self) -> str:
        """Why only random splits are shown (else empty)."""
        if self.every is not None:
            return ""
        return (
            f":::{{important}}\n{self.n_splits:,} splits of {self.front.n_benchmarks} benchmarks are too "
            "many to enumerate; only the random splits are shown.\n:::"
        )

    @property
    def calibration_note(self) -> str:
        """Why the sweep is skipped (else empty)."""
        if self.calibration is not None:
            return ""
        return (
            "The sweep needs at least 4 benchmarks (r = 3 visible and one held out); "
            f"{self.board.name} has {self.front.n_benchmarks}. Skipped."
        )

    def rates(self) -> pd.DataFrame:
        """One column per kind of split (random, all): ``top-1 swap rate``, ``mean top-5 changes``,
        ``sd top-5 changes``, ``share with a top-5 change``."""
        cols = {f"{self.split.n_trials} random splits": self.split}
        if self.every is not None:
            cols[f"all {self.every.n_trials} splits"] = self.every
        return pd.DataFrame(
            {name: {"top-1 swap rate": h.top1_swap_rate, "mean top-5 changes": h.mean_top5_changes,
                    "sd top-5 changes": h.sd_top5_changes, "share with a top-5 change": h.frac_top5_any}
             for name, h in cols.items()}
        )  # fmt: skip

    def large_gaps(self, r_min: int = 5) -> pd.Series:
        """The sweep's gaps (percentage points) at r >= ``r_min`` (empty without the sweep)."""
        c = self.calibration
        return pd.Series(dtype=float) if c is None else c.loc[c.index >= r_min, "gap_pp"]

    def quantities(self) -> dict[str, float | int | str]:
        """``board_name``, ``n_front``, ``n_trials``, ``n_vis``, ``n_hold``; the random splits' ``top1``,
        ``top1_se``, ``top5``, ``top5_sd``; the sweep's ``pred_lo``, ``pred_hi`` (the prediction's range),
        ``se_pp`` (mean binomial SE), ``gap_max`` and ``gap_argmax`` (the largest gap at r >= 5; NaN without)."""
        s, c, big = self.split, self.calibration, self.large_gaps()
        nan = float("nan")
        return {
            "board_name": self.board.name, "n_front": self.front.n_models, "n_trials": s.n_trials,
            "n_vis": self.n_vis, "n_hold": self.front.n_benchmarks - self.n_vis,
            "top1": s.top1_swap_rate, "top1_se": s.top1_se, "top5": s.mean_top5_changes, "top5_sd": s.sd_top5_changes,
            "pred_lo": nan if c is None else float(c["predicted"].min()),
            "pred_hi": nan if c is None else float(c["predicted"].max()),
            "se_pp": nan if c is None else float(c["se_pp"].mean()),
            "gap_max": float(big.max()) if len(big) else nan, "gap_argmax": int(big.idxmax()) if len(big) else 0,
        }  # fmt: skip


def half_split_study(board: ScoreTable, n_trials: int = 500, seed: int = 0) -> HalfSplitStudy:
    """Half-splits of ``board``'s frontier (``n_trials`` random ones, one ``default_rng(seed)``; every one when
    there are at most :data:`MAX_ENUMERATED`) and the chi-squared sweep over r = 3, ..., min(9, k - 1).

    Raises
    ------
    ValueError
        A frontier of fewer than 5 models (the experiment compares the top 5 of two halves).
    """
    n_front = int(conventions.frontier_mask(board).sum())
    if n_front < 5:
        raise ValueError(
            f"the frontier of {board.name} keeps {n_front} model(s); the half-split compares the top 5 of two "
            "halves and needs at least 5 (a leaderboard of about 9 models or more)"
        )
    front = conventions.frontier(board)  # a benchmark saturated on the frontier is left out (its notes say which)
    k = front.n_benchmarks
    split = hs.half_split(front, n_trials=n_trials, seed=seed)
    every = hs.half_split_exhaustive(front) if math.comb(k, k // 2) <= MAX_ENUMERATED else None
    r_list = [r for r in range(3, 10) if r <= k - 1]
    calib = hs.chi2_calibration(front, r_list=r_list, n_trials=n_trials, seed=seed) if r_list else None
    return HalfSplitStudy(board, front, split, every, calib)
