"""App. H.19's stable core on a leaderboard in one call: the core, the top 4, and the resampling stream.

:func:`core_study` runs :func:`blindspot.treat.stable_core.stable_core` on a leaderboard's frontier (the
whole table when the frontier has fewer than :data:`blindspot.data.MIN_MODELS` models) with the chapter's
seed and with seeds 0, 1, ..., ``n_seeds - 1``, and returns a :class:`CoreStudy`: its numbers by name
(:meth:`CoreStudy.quantities`), the tables and the figure a page shows, and the paper's claims it answers
(:meth:`CoreStudy.claims`) against the paper's values (:class:`PaperCore`, :func:`paper_core`). With ``r`` not
below the number of benchmarks every benchmark is in every resample's top r, and nothing is computed.

References
----------
The paper's App. H.19.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core import conventions
from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.data.suites import PAPER_V1, PAPER_V2
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat import figures, verdicts
from blindspot.treat.stable_core import StableCore, stable_core

__all__ = ["CoreStudy", "PaperCore", "core_study", "paper_core"]

NOT_APPLICABLE = "not applicable"


@dataclass(frozen=True)
class PaperCore:
    """The paper's App. H.19 values as registered: its stable core, each benchmark's frequency, its resamples.

    Attributes
    ----------
    core_text : str
        The core as the registry states it (benchmark names, comma-separated).
    frequencies : dict of str to float
        The paper's frequency of each benchmark in the greedy top r (the paper's benchmark names).
    n_boot : int
        The paper's bootstrap resamples.
    """

    core_text: str
    frequencies: dict[str, float] = field(default_factory=dict)
    n_boot: int = 500

    @property
    def core(self) -> list[str]:
        """The core's benchmark names."""
        return [b.strip() for b in self.core_text.split(",")]


def paper_core(chapter: Any) -> PaperCore:
    """The paper's values from the claims registry's chapter (``claims``: id -> entry with a ``paper`` value,
    ``SC.core`` and ``SC.freq.<benchmark>``; ``run["n_boot"]["paper"]``)."""
    claims = chapter.claims
    freq = {cid.removeprefix("SC.freq."): spec.paper for cid, spec in claims.items() if cid.startswith("SC.freq.")}
    return PaperCore(str(claims["SC.core"].paper), freq, chapter.run["n_boot"]["paper"])


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
    paper : PaperCore or None
        The paper's values, when the page compares with them.
    """

    front: ScoreTable
    r: int
    threshold: float
    n_boot: int
    core: StableCore | None
    by_seed: dict[int, StableCore]
    paper: PaperCore | None = None

    @property
    def top4_stability(self) -> tuple[float, float] | tuple[None, None]:
        """The mean Jaccard index of a resample's top 4 with the full sample's, and the share equal to it
        (None, None without a core or with r < 4)."""
        return self.core.top_m_stability(4) if self.core is not None and self.r >= 4 else (None, None)

    def frequencies(self, paper: Mapping[str, float] | None = None) -> pd.DataFrame:
        """:meth:`StableCore.frame` with a ``paper`` column (the paper's frequency, NaN for another benchmark;
        ``paper`` defaults to the study's :attr:`PaperCore.frequencies`)."""
        if self.core is None:
            return pd.DataFrame()
        if paper is None:
            paper = self.paper.frequencies if self.paper is not None else {}
        t = self.core.frame()
        t["paper"] = [paper.get(b, np.nan) for b in t.index]
        return t

    def core_figure(self) -> plt.Figure:
        """Each benchmark's frequency in the greedy top r against the threshold, with the paper's frequency of
        each benchmark the frontier has (a placeholder without a core)."""
        if self.core is None:
            return figures.not_drawn(f"r = {self.r} is not below the {self.front.n_benchmarks} benchmarks")
        paper = self.paper.frequencies if self.paper is not None else {}
        shown = {b: v for b, v in paper.items() if b in self.core.frequencies}
        return figures.core_bars(self.core.frequencies, self.threshold, shown)

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
        """``front_name``, ``n_front``, ``k_front`` (benchmarks), ``n_boot``, ``r`` and ``n_seeds``; with the
        paper's values also ``paper_core`` (its core in braces) and ``paper_n_boot``."""
        f = self.front
        q = {"front_name": f.name, "n_front": f.n_models, "k_front": f.n_benchmarks, "n_boot": self.n_boot,
             "r": self.r, "n_seeds": len(self.by_seed)}  # fmt: skip
        if self.paper is not None:
            q |= {"paper_core": "{" + self.paper.core_text + "}", "paper_n_boot": self.paper.n_boot}
        return q

    def claims(self, on_your_data: bool = False) -> dict[str, ClaimValue | ClaimStatement]:
        """The chapter's claims in recording order, all on the frontier (for ``Ledger.record``); none without a
        core.

        On the paper's data (not ``on_your_data``, with :attr:`paper`): ``SC.core``
        (:func:`~.verdicts.core_matches`), ``SC.freq.<benchmark>`` for each benchmark of the paper's the
        frontier has, and ``SC.top4_wording`` (the smallest top-r frequency of the paper's core, with
        :func:`~.verdicts.top4_wording_evidence`) when the frontier has every core benchmark and r >= 4. On the
        synthetic stand-in its j-th benchmark plays the paper's j-th. Then ``SC.jaccard4`` (the mean top-4
        Jaccard index) when r >= 4.
        """
        c, front, out = self.core, self.front, {}
        if c is None:
            return out
        jac = self.top4_stability[0]
        if not on_your_data and self.paper is not None:
            alias = dict(zip(PAPER_V2 + PAPER_V1, front.benchmarks)) if front.synthetic else {}
            want = sorted(alias.get(b, b) for b in self.paper.core)
            sc = verdicts.core_matches(c.core, want, self.threshold, self.r, self.n_boot)
            out["SC.core"] = ClaimStatement(sc, front)
            for b in self.paper.frequencies:
                if alias.get(b, b) in c.frequencies:
                    out[f"SC.freq.{b}"] = ClaimValue(c.frequencies[alias.get(b, b)], front)
            if jac is not None and set(want) <= set(c.frequencies.index):
                evidence = verdicts.top4_wording_evidence(c, want, self.r)
                out["SC.top4_wording"] = ClaimValue(c.frequencies[want].min(), front, evidence)
        if jac is not None:
            out["SC.jaccard4"] = ClaimValue(jac, front)
        return out

    def statuses(self, recorded: Mapping[str, str]) -> dict[str, str]:
        """The page's status words: ``core`` (``SC.core``) and ``top4`` (``SC.top4_wording``) from the ledger's
        statuses ``recorded`` (claim id -> status), "not applicable" for a claim not recorded (your data, no
        core)."""
        return {
            "core": recorded.get("SC.core", NOT_APPLICABLE),
            "top4": recorded.get("SC.top4_wording", NOT_APPLICABLE),
        }


def core_study(
    table: ScoreTable,
    r: int = 7,
    n_boot: int = 500,
    seed: int = 0,
    threshold: float = 0.9,
    n_seeds: int = 10,
    paper: PaperCore | None = None,
) -> CoreStudy:
    """The stable core of ``table``'s frontier with ``seed``, and with each of the seeds 0, ..., ``n_seeds - 1``
    (compared with the paper's values ``paper`` when given)."""
    has_front = conventions.frontier_mask(table).sum() >= MIN_MODELS
    front = conventions.frontier(table) if has_front else table
    if r >= front.n_benchmarks:  # every benchmark is always in the top r
        return CoreStudy(front, r, threshold, n_boot, None, {}, paper)
    core = stable_core(front, r=r, n_boot=n_boot, seed=seed, threshold=threshold)
    by_seed = {s: stable_core(front, r=r, n_boot=n_boot, seed=s, threshold=threshold) for s in range(n_seeds)}
    return CoreStudy(front, r, threshold, n_boot, core, by_seed, paper)
