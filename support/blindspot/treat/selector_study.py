"""Greedy benchmark selection against random subsets, on several leaderboards in one call (the selector chapter).

:func:`selector_study` runs :func:`~blindspot.treat.selector_comparison.compare_suites` (every selector's
held-out R^2 and Kendall tau against the budget k, on resampled model splits, interpolating and extrapolating)
and decides the chapter's statements on every compared (suite, regime) with the calibrated rule
(:func:`~blindspot.treat.verdicts.selector_statements`). The result gives its numbers by name
(:meth:`SelectorStudy.quantities`), its tables, its figures and its verdicts by claim id
(:meth:`SelectorStudy.verdicts_for`).

References
----------
Zhang, Dorner and Hardt (2024) for greedy benchmark selection and its random baseline; the paper's App. H.4.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import matplotlib.pyplot as plt
import pandas as pd

from blindspot.core.verdict import Verdict
from blindspot.data.tables import ScoreTable
from blindspot.treat import figures, selector_comparison as sc, verdicts

__all__ = ["METRIC_LABELS", "SelectorStudy", "selector_study"]

#: The y-axis label of each metric's figure.
METRIC_LABELS = {"r2": r"held-out $R^2$", "tau": r"Kendall $\tau$, held-out ranking"}


@dataclass(frozen=True)
class SelectorStudy:
    """Selectors compared on several leaderboards, and the chapter's statements decided on each.

    Attributes
    ----------
    comparison : SuiteComparison
        Every selector on every compared (suite, regime), and the skipped ones with the reason.
    statements : dict
        (statement, suite, regime) -> Verdict, for each statement of
        :data:`~blindspot.treat.verdicts.SELECTOR_STATEMENTS` and its regimes.
    n_splits, n_random : int
        Resampled model splits, and random subsets per budget and split.
    """

    comparison: sc.SuiteComparison
    statements: dict[tuple[str, str, str], Verdict]
    n_splits: int
    n_random: int

    def quantities(self) -> dict[str, int | float | str]:
        """``n_random``, ``n_splits``, ``n_compared`` (suite-regime pairs compared), ``skipped`` ("suite (regime)",
        or "none"), ``margin`` (the non-inferiority margin), and ``count_<statement>`` for each statement: how
        often each verdict word was reached ("holds on 3, fails on 1"), or "not judged"."""
        skipped = ", ".join(f"{s} ({r})" for s, r in self.comparison.skipped) or "none"
        q: dict[str, int | float | str] = {
            "n_random": self.n_random,
            "n_splits": self.n_splits,
            "n_compared": len(self.comparison.results),
            "skipped": skipped,
            "margin": verdicts.NONINFERIORITY_MARGIN,
        }
        return q | {f"count_{name}": words for name, words in self.count_words().items()}

    def count_words(self) -> dict[str, str]:
        """Per statement, the verdict words with how many (suite, regime) reached each."""
        counts: dict[str, dict[str, int]] = {name: {} for name in verdicts.SELECTOR_STATEMENTS}
        for (name, _, _), v in self.statements.items():
            word = verdicts.verdict_word(v)
            counts[name][word] = counts[name].get(word, 0) + 1
        return {name: ", ".join(f"{w} on {n}" for w, n in sorted(c.items())) or "not judged" for name, c in counts.items()}  # fmt: skip

    # tables
    def summary(self) -> pd.DataFrame:
        """:meth:`SuiteComparison.summary`: each selector's mean metrics per (suite, regime)."""
        return self.comparison.summary()

    def curve_table(self, metric: str) -> pd.DataFrame:
        """:meth:`SuiteComparison.curve_table` of ``metric`` ("r2" or "tau")."""
        return self.comparison.curve_table(metric)

    def verdict_table(self) -> pd.DataFrame:
        """The statements' verdicts: statement, suite, regime, verdict, estimate and its 95% interval."""
        return verdicts.statements_frame(self.statements)

    # figures
    def figure(self, metric: str) -> plt.Figure:
        """Each selector's curve of ``metric`` ("r2" or "tau") against k, per leaderboard and regime.

        Raises
        ------
        ValueError
            An unknown metric.
        """
        if metric not in METRIC_LABELS:
            raise ValueError(f"metric must be one of {sorted(METRIC_LABELS)}, got {metric!r}")
        curves = {key: c.curves(metric) for key, c in self.comparison.results.items()}
        return figures.selector_curves(curves, METRIC_LABELS[metric])

    # ledger
    def verdicts_for(self, claim_ids: Iterable[str]) -> dict[str, tuple[Verdict, ScoreTable]]:
        """The verdict of each statement claim ``SEL.<statement>.<suite>[.<regime>]`` with the table it was
        decided on (regime default: extrapolation). A suite not compared (on your data: any) is read as the
        first compared leaderboard; a claim whose (statement, suite, regime) was not decided is left out, and
        so is any id that does not name a statement."""
        tables = self.comparison.tables
        featured = next(iter(tables))
        out = {}
        for claim_id in claim_ids:
            parts = claim_id.split(".")
            if len(parts) < 3 or parts[1] not in verdicts.SELECTOR_STATEMENTS:
                continue
            _, name, suite, *rest = parts
            regime = rest[0] if rest else "extrapolation"
            suite = suite if suite in tables else featured
            v = self.statements.get((name, suite, regime))
            if v is not None:
                out[claim_id] = (v, tables[suite])
        return out


def selector_study(
    suites: Mapping[str, ScoreTable], *, n_splits: int = 20, n_random: int = 20, seed: int = 0
) -> SelectorStudy:
    """Compare greedy, random and the other selectors on each leaderboard, and decide the statements.

    Parameters
    ----------
    suites : mapping name -> ScoreTable
        The leaderboards.
    n_splits : int
        Resampled model splits.
    n_random : int
        Random subsets per budget k and split.
    seed : int
        Seed of the splits and of the random subsets.

    Returns
    -------
    SelectorStudy

    Raises
    ------
    ValueError
        No leaderboard, or :func:`~blindspot.treat.selector_comparison.compare_suites`'s refusals.
    """
    if not suites:
        raise ValueError("selector_study needs at least one leaderboard")
    comparison = sc.compare_suites(suites, n_splits=n_splits, n_random=n_random, seed=seed)
    return SelectorStudy(comparison, verdicts.selector_statements(comparison), int(n_splits), int(n_random))
