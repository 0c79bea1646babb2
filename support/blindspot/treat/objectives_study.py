"""App. H.4, H.5, H.43 and H.45 on a leaderboard in one call: six subset rules, greedy against random.

:func:`objectives_study` compares the rules of :func:`blindspot.treat.subset_objectives.compare_objectives`
on a leaderboard's frontier (the whole table when the frontier has fewer than
:data:`blindspot.data.MIN_MODELS` models), relates coverage to rank preservation over random subsets for
several seeds (:func:`~blindspot.treat.subset_objectives.coverage_vs_tau`), and, given LiveBench, compares
greedy and random subsets of its sub-tasks. The result gives its numbers by name
(:meth:`ObjectivesStudy.quantities`) and the tables a page shows.

References
----------
The paper's App. H.4, H.5, H.43 and H.45.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core import conventions
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat import subset_objectives as so

__all__ = ["ObjectivesStudy", "objectives_study"]


def _greedy_vs_random(cmp: so.ObjectiveComparison) -> pd.DataFrame:
    rnd = cmp.table[cmp.table.method == "random"].set_index("r")
    return pd.DataFrame({"greedy tau": cmp.wide("tau")["spectral_greedy"], "random tau": rnd["tau"],
                         "random sd": rnd["tau_sd"]})  # fmt: skip


@dataclass(frozen=True)
class ObjectivesStudy:
    """Six subset rules on a frontier, coverage against rank preservation, and LiveBench's sub-tasks.

    Attributes
    ----------
    front : ScoreTable
    comparison : ObjectiveComparison
        The rules on the frontier.
    r_ct : int
        Subset size of the coverage-tau check (6, or k - 1 on fewer benchmarks).
    coverage_tau : CoverageTau
        The check with the chapter's seed.
    by_seed : DataFrame
        Indexed by seed: ``rho``, ``p``.
    livebench : ScoreTable or None
    livebench_comparison : ObjectiveComparison or None
    """

    front: ScoreTable
    comparison: so.ObjectiveComparison
    r_ct: int
    coverage_tau: so.CoverageTau
    by_seed: pd.DataFrame
    livebench: ScoreTable | None
    livebench_comparison: so.ObjectiveComparison | None

    def orders(self) -> pd.DataFrame:
        """Each rule's order of the benchmarks (by name), indexed by position from 1."""
        cmp = self.comparison
        return pd.DataFrame(
            {m: [cmp.names[j] for j in o] for m, o in cmp.orders.items()},
            index=pd.RangeIndex(1, len(cmp.names) + 1, name="position"),
        )

    @property
    def same_rule(self) -> bool:
        """Whether max-diversity and max-uncorrelated give the same order (they are the same rule)."""
        o = self.comparison.orders
        return bool(np.array_equal(o["max_diversity"], o["max_uncorrelated"]))

    @property
    def random(self) -> pd.DataFrame:
        """The random subsets' rows of the comparison, indexed by r."""
        t = self.comparison.table
        return t[t.method == "random"].set_index("r")

    def greedy_vs_random(self) -> pd.DataFrame:
        """Indexed by r: ``greedy tau``, ``random tau``, ``random sd`` (App. H.4)."""
        return _greedy_vs_random(self.comparison)

    @property
    def h4_sizes(self) -> list[int]:
        """The subset sizes of App. H.4's table (2, 3, 4, 5, 7) the frontier has."""
        return [r for r in (2, 3, 4, 5, 7) if r <= self.front.n_benchmarks]

    @property
    def livebench_note(self) -> str:
        """Why the LiveBench section does not run (else empty)."""
        if self.livebench is not None:
            return ""
        return (
            ":::{note}\nThis section is about the paper's LiveBench sub-tasks; it runs "
            "when `scores` includes `livebench`.\n:::"
        )

    def livebench_table(self) -> pd.DataFrame | None:
        """LiveBench's greedy and random tau at r = 3, 4, 5 (None without LiveBench)."""
        if self.livebench_comparison is None:
            return None
        t = _greedy_vs_random(self.livebench_comparison)[["greedy tau", "random tau"]]
        return t.loc[[r for r in (3, 4, 5) if r <= self.livebench.n_benchmarks]]

    def quantities(self) -> dict[str, float | str]:
        """``front_name`` and ``ct_rho`` (Spearman rho of coverage and tau over random subsets)."""
        return {"front_name": self.front.name, "ct_rho": self.coverage_tau.rho}


def objectives_study(
    suites: dict[str, ScoreTable], n_random: int = 200, n_seeds: int = 10, seed: int = 0
) -> ObjectivesStudy:
    """The rules on the featured frontier ("extended" when given, else the first suite), the coverage-tau check
    with ``seed`` and with seeds 0, ..., ``n_seeds - 1``, and LiveBench's sub-tasks when ``suites`` has them."""
    base = suites["extended" if "extended" in suites else next(iter(suites))]
    front = conventions.frontier(base) if conventions.frontier_mask(base).sum() >= MIN_MODELS else base
    cmp = so.compare_objectives(front, n_random=n_random, seed=seed)
    r_ct = min(6, front.n_benchmarks - 1)
    ct = so.coverage_vs_tau(front, r=r_ct, n=n_random, seed=seed)
    rows = []
    for s in range(n_seeds):
        c = so.coverage_vs_tau(front, r=r_ct, n=n_random, seed=s)
        rows.append({"seed": s, "rho": c.rho, "p": c.p})
    by_seed = pd.DataFrame(rows).set_index("seed")
    lb = suites.get("livebench")
    cmp_lb = so.compare_objectives(lb, n_random=n_random, seed=seed) if lb is not None else None
    return ObjectivesStudy(front, cmp, r_ct, ct, by_seed, lb, cmp_lb)
