"""A leaderboard against its one-factor twin, as results: the statistics of the real frontier beside their
distribution over simulated one-ability leaderboards, and range restriction in closed form (§8).

* :func:`null_calibration` — fit the one-factor model to a leaderboard (:func:`~blindspot.diagnose.null_model.
  one_factor_fit`: loading ``a`` from the average correlation, noise ``s``), simulate ``reps`` leaderboards of
  the same shape (:func:`~blindspot.diagnose.null_model.one_factor_null`) and compare six statistics of the
  real frontier with theirs (:func:`~blindspot.diagnose.verdicts.compare_to_null`);
* :func:`range_restriction` — the threshold curve of the real leaderboard, of a large one-factor simulation and
  the Pearson–Lawley closed form :func:`~blindspot.diagnose.null_model.one_factor_deff`.

Each result gives its numbers in words (``quantities()``), its table and its figure; the calibration judges
§8's reading of d_eff (:meth:`NullCalibration.verdict`).

References
----------
The paper's §8 (d_eff read as a count of directions) and App. H.16; Lawley (1943) for the selection formula.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from blindspot.core import conventions, coverage, halfsplit, spectrum
from blindspot.core.verdict import Verdict, number_or
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import ambient_dimension as ad, figures, null_model, robustness, verdicts

__all__ = ["STATISTICS", "NullCalibration", "null_calibration", "RangeRestriction", "range_restriction"]

#: The statistics of the frontier compared with the null, in the table's order.
STATISTICS = (
    "d_eff full",
    "d_eff frontier",
    "n_sig frontier",
    "Horn n_signal frontier",
    "greedy r90 frontier",
    "half-split top-1 swap",
)
_DEFF, _SWAP = "d_eff frontier", "half-split top-1 swap"


@dataclass(frozen=True)
class NullCalibration:
    """A leaderboard's frontier statistics against simulated one-factor leaderboards (or why there are none).

    Attributes
    ----------
    board : ScoreTable
        The leaderboard.
    why_not : tuple of str
        Why the comparison does not apply (empty when it does).
    loading, noise : float or None
        The fitted one-factor model (None when it does not fit).
    front : ScoreTable or None
        The frontier.
    real : dict of str to float
        Each statistic of :data:`STATISTICS` on the real leaderboard.
    null : dict of str to ndarray
        Each statistic over the simulated leaderboards.
    reps : int
        Simulated leaderboards.
    """

    board: ScoreTable
    why_not: tuple[str, ...]
    loading: float | None = None
    noise: float | None = None
    front: ScoreTable | None = None
    real: Mapping[str, float] = field(default_factory=dict)
    null: Mapping[str, np.ndarray] = field(default_factory=dict)
    reps: int = 0

    @property
    def feasible(self) -> bool:
        """Whether the comparison applies (10 models or more and an average correlation in (0, 1))."""
        return not self.why_not

    @property
    def note(self) -> str:
        """The box saying why the comparison is left out (empty when it applies)."""
        if self.feasible:
            return ""
        return (
            ":::{important}\nThe null-model comparison is left out on this leaderboard: "
            + "; ".join(self.why_not)
            + ".\n:::"
        )

    @property
    def comparison(self) -> verdicts.NullComparison | None:
        """:func:`~blindspot.diagnose.verdicts.compare_to_null` of the real and simulated statistics."""
        return verdicts.compare_to_null(self.real, self.null) if self.feasible else None

    def table(self) -> pd.DataFrame | None:
        """One row per statistic: ``real``, ``null mean``, ``null 5%``, ``null 95%``, ``real outside null
        5-95%``; None when the comparison does not apply."""
        return None if self.comparison is None else self.comparison.table

    def figure(self) -> Figure:
        """One panel per statistic: the simulated values and the real one (or why there is none)."""
        if not self.feasible:
            return figures.not_computed("the null-model comparison does not apply")
        return figures.null_vs_real(self.null, self.real)

    def quantities(self) -> dict[str, int | str]:
        """``board``, ``reps``, and :func:`~blindspot.diagnose.verdicts.null_calibration_words`: ``null_<stat>`` and
        ``real_<stat>`` of each statistic (spaces as underscores, dashes dropped), ``loading``, ``separating``,
        ``deff_verdict``, ``swap_verdict``, ``null_swap_lo``, ``null_swap_hi``."""
        words = verdicts.null_calibration_words(self.comparison, STATISTICS, self.loading, swap=_SWAP, deff=_DEFF)
        return {"board": self.board.name, "reps": self.reps} | words

    def verdict(self) -> Verdict | None:
        """§8's reading that d_eff counts directions (:func:`~blindspot.diagnose.verdicts.deff_counts_directions`,
        with range restriction's closed-form d_eff at the median cut); None when the comparison does not apply."""
        if not self.feasible:
            return None
        limit = null_model.one_factor_deff(0.5, self.board.n_benchmarks, self.loading, self.noise)
        return verdicts.deff_counts_directions(self.comparison, _DEFF, _SWAP, self.loading, self.reps, limit)


def _real_statistics(board: ScoreTable, front: ScoreTable, n_trials: int, horn_perm: int, seed: int) -> dict:
    return {
        "d_eff full": spectrum.d_eff(board),
        "d_eff frontier": spectrum.d_eff(front),
        "n_sig frontier": spectrum.mp_correction(front).n_sig,
        "Horn n_signal frontier": ad.horn_nsignal(front, n_perm=horn_perm, seed=seed + 1).n_signal,
        "greedy r90 frontier": coverage.greedy_select(spectrum.correlation(front), target=0.9).r_target,
        "half-split top-1 swap": halfsplit.half_split(front, n_trials=n_trials, seed=seed).top1_swap_rate,
    }


def null_calibration(
    board: ScoreTable, reps: int = 20, n_trials: int = 500, horn_perm: int = 100, seed: int = 0
) -> NullCalibration:
    """Compare the frontier of ``board`` with ``reps`` one-factor leaderboards of its shape and average correlation.

    The comparison needs at least 10 models (the half-split statistics compare top fives of frontiers of 5) and
    an average correlation in (0, 1); otherwise the result says why and holds no statistic. Horn's null uses
    ``seed + 1``, the half-splits and the simulation ``seed``.
    """
    why_not = []
    if board.n_models < 10:
        why_not.append(f"{board.n_models} models: the half-split statistics need frontiers of at least 5 (10 models)")
    try:  # one_factor_fit checks that the average correlation is in (0, 1)
        a, s = null_model.one_factor_fit(board)
    except ValueError as exc:
        why_not.append(str(exc))
    if why_not:
        return NullCalibration(board, tuple(why_not), reps=reps)
    front = conventions.frontier(board)
    sim = null_model.one_factor_null(
        n=board.n_models, k=board.n_benchmarks, loading=a, noise=s, reps=reps, seed=seed,
        n_trials=n_trials, horn_perm=horn_perm,
    )  # fmt: skip
    simulated = (sim.deff_full, sim.deff_frontier, sim.n_sig_frontier, sim.horn_frontier, sim.r90_frontier,
                 sim.swap_top1_frontier)  # fmt: skip
    real = _real_statistics(board, front, n_trials, horn_perm, seed)
    return NullCalibration(board, (), a, s, front, real, dict(zip(STATISTICS, simulated)), reps)


@dataclass(frozen=True)
class RangeRestriction:
    """d_eff against the frontier threshold: the real leaderboard, a large one-factor simulation, the closed form.

    Attributes
    ----------
    board : ScoreTable
        The leaderboard.
    loading, noise : float or None
        Its one-factor fit (None: the model does not apply, and nothing is computed).
    curves : dict of str to ThresholdCurve
        The real leaderboard's and the simulation's threshold curves (q = 0, 0.1, ..., 0.9).
    n_sim : int
        Models of the simulation.
    """

    board: ScoreTable
    loading: float | None
    noise: float | None
    curves: Mapping[str, robustness.ThresholdCurve] = field(default_factory=dict)
    n_sim: int = 0

    def closed_form(self, q: float | np.ndarray) -> float | np.ndarray:
        """The one-factor d_eff after keeping the top 1 - q (:func:`~blindspot.diagnose.null_model.one_factor_deff`).

        Raises
        ------
        ValueError
            Without a one-factor fit.
        """
        if self.loading is None:
            raise ValueError("the one-factor model does not apply to this leaderboard: no closed form")
        return null_model.one_factor_deff(q, self.board.n_benchmarks, self.loading, self.noise)

    def figure(self) -> Figure:
        """The two curves with the closed form dotted (or why there is none)."""
        if self.loading is None:
            return figures.not_computed("the one-factor model does not apply")
        grid = np.linspace(0, 0.9, 91)
        return figures.threshold_curves(self.curves, {"one-factor simulation": (grid, self.closed_form(grid))})

    def table(self) -> pd.DataFrame | None:
        """d_eff by threshold q: one column per curve and ``one-factor closed form``; None without a fit."""
        if self.loading is None:
            return None
        t = pd.DataFrame({name: c.table["d_eff"] for name, c in self.curves.items()})
        return t.assign(**{"one-factor closed form": self.closed_form(np.asarray(t.index, dtype=float))})

    def quantities(self) -> dict[str, int | str]:
        """``theory_q5`` and ``theory_q9`` (the closed form at the median cut and for the top 10%; "not computed"
        without a fit) and ``n_sim``."""
        fit = self.loading is not None
        return {
            "theory_q5": number_or(self.closed_form(0.5) if fit else None),
            "theory_q9": number_or(self.closed_form(0.9) if fit else None),
            "n_sim": self.n_sim,
        }


def range_restriction(
    board: ScoreTable, calibration: NullCalibration, n_sim: int = 20000, seed: int = 0
) -> RangeRestriction:
    """The threshold curves of ``board`` and of ``n_sim`` one-factor models with its fitted loading and noise
    (one ``default_rng(seed)``), when ``calibration`` found the model applies."""
    if not calibration.feasible:
        return RangeRestriction(board, None, None, {}, n_sim)
    a, s = calibration.loading, calibration.noise
    qs = np.round(np.arange(0, 1, 0.1), 10)
    big = null_model.one_factor_scores(n_sim, board.n_benchmarks, a, s, np.random.default_rng(seed))
    curves = {
        f"{board.name} (real)": robustness.deff_vs_q(board, qs),
        "one-factor simulation": robustness.deff_vs_q(big, qs),
    }
    return RangeRestriction(board, a, s, curves, n_sim)
