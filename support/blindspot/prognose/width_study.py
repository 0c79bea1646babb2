"""App. H.10 and H.15 on a leaderboard in one call: how linear are the benchmarks in the capabilities?

:func:`width_study` fits each benchmark of a leaderboard and of its frontier on the top principal
components, linearly and with quadratic terms (:func:`~blindspot.prognose.width_model.linearisation_diagnostics`),
with as many components as the frontier's size allows; it computes the benchmarks' Lipschitz constants on the
leaderboard and on a pure-noise leaderboard of the same shape, and sets the residual of the linear model on
the top pair against the top pair's gap (:func:`~blindspot.prognose.width_model.gap_vs_delta2`). The result gives
its numbers by name (:meth:`WidthStudy.quantities`) and the tables a page shows.

References
----------
The paper's Proposition 1 and App. H.10, H.15.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.claim_value import ClaimValue
from blindspot.core.conventions import frontier
from blindspot.data.tables import ScoreTable
from blindspot.prognose import width_model as wm

__all__ = ["WidthStudy", "width_study"]

#: The WidthSummary fields glued per population.
_SUMMARY = ("r2_min", "r2_median", "r2_max", "gap_max", "gap_median", "sf_median", "eta_min", "eta_max")


@dataclass(frozen=True)
class WidthStudy:
    """The linearisation diagnostics of a leaderboard and its frontier.

    Attributes
    ----------
    table, front : ScoreTable
    n_pc, n_quad_pc : int
        The components used (at most those asked for; fewer when the frontier is too small for the fits).
    n_pc_asked : int
    diagnostics : dict of str to DataFrame
        ``"full"`` and ``"frontier"`` -> one row per benchmark (``r2_lin``, ...).
    summaries : dict of str to WidthSummary
    lipschitz : DataFrame
        Columns ``full`` and ``frontier``: each benchmark's Lipschitz constant.
    lipschitz_noise : Series
        The same on a standard-normal leaderboard of the table's shape (seeded).
    gaps : dict of str to GapVsDelta2
    """

    table: ScoreTable
    front: ScoreTable
    n_pc: int
    n_quad_pc: int
    n_pc_asked: int
    diagnostics: dict[str, pd.DataFrame]
    summaries: dict[str, wm.WidthSummary]
    lipschitz: pd.DataFrame
    lipschitz_noise: pd.Series
    gaps: dict[str, wm.GapVsDelta2]

    @property
    def fewer_note(self) -> str:
        """A note when fewer components are used than asked (else empty)."""
        if self.n_pc >= self.n_pc_asked:
            return ""
        return (
            f":::{{important}}\nThis leaderboard has {self.table.n_benchmarks} benchmarks and a frontier of "
            f"{self.front.n_models} models: the linear model uses {self.n_pc} principal components (the paper: "
            f"{self.n_pc_asked}) and the quadratic terms the top {self.n_quad_pc}.\n:::"
        )

    def gap_table(self) -> pd.DataFrame:
        """Per population: the largest R^2 gap, Delta_2, the top pair's worst residual, eta_max, its bound, and
        whether the linear model resolves the top pair."""
        return pd.DataFrame(
            {pop: {"max R^2 gap (unitless)": r.gap_max, "Delta_2 (z-units)": r.delta2,
                   "top pair: worst-benchmark residual (z-units)": r.top_pair_residual, "eta_max": r.eta_max,
                   "eta_max * ||pc_1 - pc_2||^2": r.top_pair_bound,
                   "linear model resolves the top pair": r.resolves_top_pair}
             for pop, r in self.gaps.items()}
        )  # fmt: skip

    def claims(self) -> dict[str, ClaimValue]:
        """The value claims, each on the table it is computed on: App. H.15's ``H15.r2_min``, ``r2_max``, ``gap_max``,
        ``gap_median``, ``sf_median`` and ``median_from`` (the full median) on all models, ``H15.front_r2_median``
        and ``front_r2_min`` on the frontier, App. H.10's ``H10.L_max``, and ``H15.truthfulqa_r2`` (TruthfulQA's
        linear R^2 on the frontier) when the frontier has that benchmark."""
        sf, sr, t, f = self.summaries["full"], self.summaries["frontier"], self.table, self.front
        out = {
            "H15.r2_min": ClaimValue(sf.r2_min, t), "H15.r2_max": ClaimValue(sf.r2_max, t),
            "H15.gap_max": ClaimValue(sf.gap_max, t), "H15.gap_median": ClaimValue(sf.gap_median, t),
            "H15.sf_median": ClaimValue(sf.sf_median, t), "H10.L_max": ClaimValue(self.lipschitz["full"].max(), t),
            "H15.front_r2_median": ClaimValue(sr.r2_median, f), "H15.front_r2_min": ClaimValue(sr.r2_min, f),
            "H15.median_from": ClaimValue(sf.r2_median, t),
        }  # fmt: skip
        if "TruthfulQA" in f.benchmarks:  # a claim about one of the paper's benchmarks
            out["H15.truthfulqa_r2"] = ClaimValue(self.diagnostics["frontier"]["r2_lin"]["TruthfulQA"], f)
        return out

    def quantities(self) -> dict[str, float | int | str]:
        """Per population (``full``, ``frontier``) the summary's numbers (``{pop}_r2_min``, ..., ``{pop}_eta_max``)
        and the benchmarks at the extremes (``{pop}_r2_min_b``, ``{pop}_r2_max_b``, ``{pop}_gap_max_b``);
        ``n_full``, ``n_front``, ``k_pc``; ``L_max`` and ``L_max_b`` (the largest Lipschitz constant and its
        benchmark), ``L_noise_max``; the frontier's top pair: ``fr_resid``, ``fr_delta2``, ``fr_ratio``,
        ``n_bench``."""
        out: dict[str, float | int | str] = {}
        for pop, s in self.summaries.items():
            out |= {f"{pop}_{f}": getattr(s, f) for f in _SUMMARY}
            out |= {f"{pop}_r2_min_b": s.r2_min_benchmark, f"{pop}_r2_max_b": s.r2_max_benchmark,
                    f"{pop}_gap_max_b": s.gap_max_benchmark}  # fmt: skip
        fr = self.gaps["frontier"]
        return out | {
            "n_full": self.table.n_models, "n_front": self.front.n_models, "k_pc": self.n_pc,
            "L_max": self.lipschitz["full"].max(), "L_max_b": self.lipschitz["full"].idxmax(),
            "L_noise_max": self.lipschitz_noise.max(), "fr_resid": fr.top_pair_residual, "fr_delta2": fr.delta2,
            "fr_ratio": fr.top_pair_residual / fr.delta2, "n_bench": len(fr.top_pair_by_benchmark),
        }  # fmt: skip


def width_study(table: ScoreTable, n_pc: int = 5, n_quad_pc: int = 3, seed: int = 0) -> WidthStudy:
    """The diagnostics with ``n_pc`` components and quadratic terms of the top ``n_quad_pc`` (each at most
    k - 1), fewer while the frontier has too few models for the quadratic fit; the noise leaderboard seeded
    ``seed``."""
    front = frontier(table)
    k_pc, k_quad = min(n_pc, table.n_benchmarks - 1), min(n_quad_pc, n_pc, table.n_benchmarks - 1)
    while k_pc > 1 and front.n_models <= 1 + k_pc + k_quad * (k_quad + 1) // 2:  # too few models for the fits
        k_pc, k_quad = k_pc - 1, min(k_quad, k_pc - 1)
    pops = {"full": table, "frontier": front}
    diag = {pop: wm.linearisation_diagnostics(t, k_pc, k_quad, t.benchmarks) for pop, t in pops.items()}
    lips = pd.concat({pop: wm.lipschitz_constants(t, t.benchmarks) for pop, t in pops.items()}, axis=1)
    noise = wm.lipschitz_constants(np.random.default_rng(seed).normal(size=table.values.shape))
    gaps = {pop: wm.gap_vs_delta2(t, k_pc, k_quad, t.benchmarks) for pop, t in pops.items()}
    summaries = {pop: wm.summarise(d) for pop, d in diag.items()}
    return WidthStudy(table, front, k_pc, k_quad, n_pc, diag, summaries, lips, noise, gaps)
