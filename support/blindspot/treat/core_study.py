"""App. H.19's stable core on a leaderboard in one call: the core, the top 4, and the resampling stream.

:func:`core_study` runs :func:`blindspot.treat.stable_core.stable_core` on a leaderboard's frontier (the
whole table when the frontier has fewer than :data:`blindspot.data.MIN_MODELS` models) with the chapter's
seed and with seeds 0, 1, ..., ``n_seeds - 1``, and returns a :class:`CoreStudy`: its numbers by name
(:meth:`CoreStudy.quantities`) and the tables a page shows. With ``r`` not below the number of benchmarks
every benchmark is in every resample's top r, and nothing is computed.

References
----------
The paper's App. H.19.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core import conventions
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat.stable_core import StableCore, stable_core

__all__ = ["CoreStudy", "core_study"]


@dataclass(frozen=True)
class CoreStudy:
    """The stable core of a frontier, counted in the greedy top ``r``, and its spread over seeds.

    Attributes
    ----------
    front : ScoreTable
        The frontier (the table itself when the frontier is too small).
    r : int
    threshold : float
    n_boot : int
    core : StableCore or None
        The chapter's seed's core (None when ``r`` is not below the number of benchmarks).
    by_seed : dict of int to StableCore
        The core for each of the seeds 0, 1, ... of the sensitivity check.
    """

    front: ScoreTable
    r: int
    threshold: float
    n_boot: int
    core: StableCore | None
    by_seed: dict[int, StableCore]

    @property
    def top4_stability(self) -> tuple[float, float] | tuple[None, None]:
        """The mean Jaccard index of a resample's top 4 with the full sample's, and the share equal to it
        (None, None without a core or with r < 4)."""
        return self.core.top_m_stability(4) if self.core is not None and self.r >= 4 else (None, None)

    def frequencies(self, paper: Mapping[str, float]) -> pd.DataFrame:
        """:meth:`StableCore.frame` with a ``paper`` column (the paper's frequency, NaN for another benchmark)."""
        if self.core is None:
            return pd.DataFrame()
        t = self.core.frame()
        t["paper"] = [paper.get(b, np.nan) for b in t.index]
        return t

    def top4(self) -> pd.DataFrame:
        """Each benchmark's frequency in the top r and in the top 4, by the first (empty without them)."""
        if self.top4_stability[0] is None:
            return pd.DataFrame()
        c = self.core
        t = pd.DataFrame({f"in top {self.r}": c.frequencies, "in top 4": c.top_m_frequencies(4)})
        return t.sort_values(f"in top {self.r}", ascending=False)

    def seed_spread(self) -> pd.DataFrame:
        """Each benchmark's smallest and largest frequency over the seeds, and their difference."""
        spread = pd.DataFrame({s: c.frequencies for s, c in self.by_seed.items()})
        if self.core is None:
            return spread
        t = spread.agg(["min", "max"], axis=1)
        return t.assign(spread=t["max"] - t["min"]).sort_values("max", ascending=False)

    @property
    def n_distinct_cores(self) -> int:
        """How many different cores the seeds give."""
        return len({", ".join(sorted(c.core)) for c in self.by_seed.values()})

    @property
    def seed_jaccards(self) -> list[float]:
        """Each seed's mean top-4 Jaccard index (empty with r < 4)."""
        return [c.top_m_stability(4)[0] for c in self.by_seed.values()] if self.r >= 4 else []

    def quantities(self) -> dict[str, int | str]:
        """``front_name``, ``n_front``, ``k_front`` (benchmarks), ``n_boot``, ``r`` and ``n_seeds``."""
        f = self.front
        return {"front_name": f.name, "n_front": f.n_models, "k_front": f.n_benchmarks, "n_boot": self.n_boot,
                "r": self.r, "n_seeds": len(self.by_seed)}  # fmt: skip


def core_study(
    table: ScoreTable, r: int = 7, n_boot: int = 500, seed: int = 0, threshold: float = 0.9, n_seeds: int = 10
) -> CoreStudy:
    """The stable core of ``table``'s frontier with ``seed``, and with each of the seeds 0, ..., ``n_seeds - 1``."""
    has_front = conventions.frontier_mask(table).sum() >= MIN_MODELS
    front = conventions.frontier(table) if has_front else table
    if r >= front.n_benchmarks:  # every benchmark is always in the top r
        return CoreStudy(front, r, threshold, n_boot, None, {})
    core = stable_core(front, r=r, n_boot=n_boot, seed=seed, threshold=threshold)
    by_seed = {s: stable_core(front, r=r, n_boot=n_boot, seed=s, threshold=threshold) for s in range(n_seeds)}
    return CoreStudy(front, r, threshold, n_boot, core, by_seed)
