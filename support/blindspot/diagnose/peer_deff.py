"""A peer's effective dimensionality beside the book's: population against frontier, covariance against correlation.

BenchScope (Sha & Zhao 2026) reports ED = 1.7 for the six-score Open LLM Leaderboard: the participation ratio

    PR(lambda) = (sum_i lambda_i)^2 / sum_i lambda_i^2                         (Theorem 1's d_eff formula)

of the spectrum of the *centred* scores (the covariance matrix) of all the leaderboard's models. The book's
d_eff is the same ratio of the *correlation* matrix (each benchmark standardised first), and its survey reads
it on the *frontier* (the models whose mean z-score is at least the median). :func:`peer_deff` computes the
three on one table, so a page can show which of the two choices — who is measured, and whether scales count —
moves the number.

References
----------
Sha, T. & Zhao, S. (2026). BenchScope: how many independent signals does your benchmark provide?
arXiv:2603.29357. The paper's Theorem 1 for d_eff.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.conventions import as_matrix, frontier_mask
from blindspot.core.spectrum import d_eff, participation_ratio
from blindspot.data.tables import STANDARDISED_RULE, ScoreTable

__all__ = ["PeerDeff", "peer_deff"]


@dataclass(frozen=True)
class PeerDeff:
    """The participation ratio of one leaderboard three ways.

    Attributes
    ----------
    table : str
        The leaderboard.
    n_models, n_frontier, k : int
        Its models, its frontier's (mean z-score at least the median) and its benchmarks.
    population_covariance : float
        PR of the covariance eigenvalues, all models (BenchScope's ED).
    population_correlation : float
        PR of the correlation eigenvalues, all models (the book's d_eff of the population).
    frontier_correlation : float
        PR of the correlation eigenvalues of the frontier (the survey's d_eff).
    frontier_covariance : float
        PR of the covariance eigenvalues of the frontier.
    """

    table: str
    n_models: int
    n_frontier: int
    k: int
    population_covariance: float
    population_correlation: float
    frontier_correlation: float
    frontier_covariance: float

    def frame(self) -> pd.DataFrame:
        """The four values as rows: columns ``models`` (who), ``matrix`` (covariance or correlation), ``n``, ``PR``."""
        rows = [
            ("all models", "covariance (centred scores)", self.n_models, self.population_covariance),
            ("all models", "correlation (standardised)", self.n_models, self.population_correlation),
            ("frontier", "covariance (centred scores)", self.n_frontier, self.frontier_covariance),
            ("frontier", "correlation (standardised)", self.n_frontier, self.frontier_correlation),
        ]
        return pd.DataFrame(rows, columns=["models", "matrix", "n", "PR"])

    def sources_frame(self, paper_ed: object) -> pd.DataFrame:
        """:meth:`frame` with a ``source`` column naming whose number each row is (``paper_ed``: BenchScope's)."""
        sources = [
            f"BenchScope's ED (its value: {paper_ed})",
            "the book's d_eff, all models",
            "",
            "the survey's frontier d_eff",
        ]
        return self.frame().assign(source=sources)

    @property
    def gap_models(self) -> float:
        """Which models: frontier minus all models, of the correlation ratio."""
        return self.frontier_correlation - self.population_correlation

    @property
    def gap_matrix(self) -> float:
        """Which matrix: correlation minus covariance ratio, all models."""
        return self.population_correlation - self.population_covariance

    @property
    def evidence(self) -> str:
        """The correlation ratios of all models and of the frontier, as the ledger shows them beside the ED."""
        return (
            f"correlation d_eff of all models {self.population_correlation:.3f}; "
            f"of the frontier {self.frontier_correlation:.3f}"
        )

    def quantities(self) -> dict[str, float | int | str]:
        """Every field by name, with ``gap_models`` and ``gap_matrix``."""
        fields = {f: getattr(self, f) for f in self.__dataclass_fields__}
        return fields | {"gap_models": self.gap_models, "gap_matrix": self.gap_matrix}


def peer_deff(table: ScoreTable | pd.DataFrame | np.ndarray, name: str | None = None) -> PeerDeff:
    """Covariance and correlation participation ratios of all models and of the frontier (mean z-score rule).

    Raises
    ------
    ValueError
        Missing cells, fewer than 3 models (or frontier models) or 2 benchmarks, or a constant benchmark.
    """
    X = as_matrix(table)
    front = frontier_mask(X, rule=STANDARDISED_RULE)
    if front.sum() < 3:
        raise ValueError(f"the frontier keeps {int(front.sum())} models; 3 are needed")

    def cov_pr(M: np.ndarray) -> float:
        return float(participation_ratio(np.clip(np.linalg.eigvalsh(np.cov(M, rowvar=False)), 0.0, None)))

    label = name or (table.name if isinstance(table, ScoreTable) else "scores")
    return PeerDeff(
        label,
        X.shape[0],
        int(front.sum()),
        X.shape[1],
        cov_pr(X),
        d_eff(X),
        d_eff(X[front]),
        cov_pr(X[front]),
    )
