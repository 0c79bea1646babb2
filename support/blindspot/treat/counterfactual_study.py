"""App. H.36-H.37 on a leaderboard in one call: leave one benchmark out, its fragility, external categories.

:func:`counterfactual_study` runs :mod:`blindspot.treat.counterfactual` on a leaderboard's frontier (the
whole table when the frontier has fewer than :data:`blindspot.data.MIN_MODELS` models): the
leave-one-benchmark-out correlation (:func:`~.counterfactual.counterfactual`), the same correlation over
the top m models for a grid of m (:func:`~.counterfactual.rho_by_population`), and, given the Chatbot Arena
categories, the external alignment (:func:`~.counterfactual.external_alignment`). The result gives its
numbers by name (:meth:`CounterfactualStudy.quantities`); :mod:`blindspot.treat.verdicts` words them.

References
----------
The paper's App. H.36 and H.37.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from blindspot.core import conventions
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat import counterfactual as cf

__all__ = ["CounterfactualStudy", "counterfactual_study"]


@dataclass(frozen=True)
class CounterfactualStudy:
    """Leave-one-benchmark-out on a frontier, its fragility, and the external categories.

    Attributes
    ----------
    table : ScoreTable
        The leaderboard.
    front : ScoreTable
        Its frontier (the table itself when the frontier is too small).
    loo : Counterfactual or None
        The leave-one-out analysis (None with fewer than 3 benchmarks).
    half : int
        The top half of the frontier (at least :data:`~blindspot.data.MIN_MODELS` models).
    fragility : DataFrame
        Indexed by m (the top m models): ``rho`` and ``p`` (empty when ``loo`` is None).
    arena : ScoreTable or None
        The external categories (None: not given).
    matches : DataFrame or None
        The arena models matched to the leaderboard's (:func:`~.counterfactual.match_models`).
    external : ExternalAlignment or None
    """

    table: ScoreTable
    front: ScoreTable
    loo: cf.Counterfactual | None
    half: int
    fragility: pd.DataFrame
    arena: ScoreTable | None
    matches: pd.DataFrame | None
    external: cf.ExternalAlignment | None

    @property
    def rho_half(self) -> float:
        """rho over the top :attr:`half` models (NaN when not computed)."""
        return float(self.fragility.loc[self.half, "rho"]) if self.loo is not None else math.nan

    @property
    def p_half(self) -> float:
        return float(self.fragility.loc[self.half, "p"]) if self.loo is not None else math.nan

    @property
    def n_significant(self) -> int:
        """Population sizes m at which p < 0.05."""
        return int((self.fragility["p"] < 0.05).sum())

    def shown_fragility(self) -> pd.DataFrame:
        """The rows of :attr:`fragility` at m = 10, 20, 40, 100, 120, the half and the whole frontier."""
        keep = (10, 20, 40, self.half, 100, 120, self.front.n_models)
        return self.fragility.loc[[t for t in self.fragility.index if t in keep]]

    def quantities(self) -> dict[str, float | int | str]:
        """``front_name``, ``n_front``; with the leave-one-out analysis ``rho``, ``p``, ``d``, ``overlap5``,
        ``tau_min``, ``tau_max``, ``half``, ``rho_half``, ``p_half``, ``n_significant``, ``n_sizes``."""
        out: dict[str, float | int | str] = {"front_name": self.front.name, "n_front": self.front.n_models}
        if self.loo is not None:
            t = self.loo.table
            out |= {"rho": self.loo.rho, "p": self.loo.p, "d": self.loo.d, "overlap5": self.loo.top_overlap(5),
                    "tau_min": float(t["tau"].min()), "tau_max": float(t["tau"].max()), "half": self.half,
                    "rho_half": self.rho_half, "p_half": self.p_half, "n_significant": self.n_significant,
                    "n_sizes": len(self.fragility)}  # fmt: skip
        return out


def counterfactual_study(
    table: ScoreTable, arena: ScoreTable | None = None, top_step: int = 2, min_models: int = 10
) -> CounterfactualStudy:
    """Leave one benchmark out on ``table``'s frontier, over the top m models for m = 10, 10 + ``top_step``, ...,
    the half and the whole frontier, and against ``arena``'s categories with at least ``min_models`` models."""
    enough = conventions.frontier_mask(table).sum() >= MIN_MODELS
    front = conventions.frontier(table) if enough else table
    can_run = front.n_benchmarks >= 3  # leave-one-out correlations need three benchmarks
    n = front.n_models
    half = max(MIN_MODELS, n // 2)
    tops = sorted(set(list(range(10, n + 1, top_step)) + [half, n])) if can_run else []
    frag = cf.rho_by_population(front, tops) if can_run else pd.DataFrame(columns=["rho", "p"])
    matches = external = None
    if arena is not None:
        matches = cf.match_models(arena.scores.index, table.scores.index)
        E = arena.scores.loc[matches["left"]].reset_index(drop=True)
        S = table.scores.loc[matches["right"]].to_numpy()
        external = cf.external_alignment(S, E, min_models=min_models)
    loo = cf.counterfactual(front) if can_run else None
    return CounterfactualStudy(table, front, loo, half, frag, arena, matches, external)
