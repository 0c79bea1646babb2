"""Table 1 on a set of leaderboards in one call: the effective dimensionality of each full population and frontier.

:func:`deff_study` cuts each leaderboard into its full population and its frontier
(:func:`~blindspot.diagnose.tables.full_and_frontier`), rebuilds Table 1 (d_eff = (sum lambda)^2 / sum lambda^2 of
the correlation matrix, its bootstrap interval over models and the Spearman d_eff,
:func:`~blindspot.diagnose.tables.deff_table`), reads one spectrum slowly (the featured frontier's), compares the
correlation methods on it (:func:`~blindspot.core.spectrum.deff_methods`), and tests the rise from the full
population to the frontier with a paired bootstrap per suite (:func:`~blindspot.diagnose.robustness.step_changes`,
Bonferroni over the suites). The result gives its numbers by name (:meth:`DeffStudy.quantities`), its tables as
frames, its figures, and the values of the ledger's claims (:meth:`DeffStudy.claims`).

References
----------
The paper's Theorem 1, Table 1 and App. H.6.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core import spectrum
from blindspot.core.claim_value import ClaimValue
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import figures, robustness, tables

__all__ = ["TABLE1_COLUMNS", "DeffStudy", "deff_study"]

#: The columns of Table 1 a page shows (:class:`~blindspot.diagnose.tables.DeffRow`'s).
TABLE1_COLUMNS: tuple[str, ...] = ("n", "k", "d_eff", "ci_lo", "ci_hi", "spearman")

#: The Table 1 column of each kind of ledger claim (``T1.<kind>.<suite>.<slice>``).
_CLAIM_COLUMN = {"deff": "d_eff", "spearman": "spearman", "ci_lo": "ci_lo", "ci_hi": "ci_hi"}

Slice = tuple[str, str]


@dataclass(frozen=True)
class DeffStudy:
    """Table 1, the featured frontier's spectrum, the correlation methods and the frontier-rise test.

    Attributes
    ----------
    suites : dict of str to ScoreTable
        The leaderboards.
    slices : dict of (str, str) to ScoreTable
        ``(suite, "full")`` and ``(suite, "frontier")``.
    featured : str
        The leaderboard read slowly (``extended`` when given, else the first).
    table : DataFrame
        Table 1 (:func:`~blindspot.diagnose.tables.deff_table`), indexed by (suite, slice).
    spectra : dict of (str, str) to Spectrum
        Each slice's Pearson spectrum.
    boots : dict of str to BootstrapDeff
        The bootstrap of d_eff on the first two frontiers, by ``"<suite> frontier"``.
    steps : dict of str to StepChanges
        Per suite, the paired bootstrap of d_eff from all models (q = 0) to the frontier (q = 0.5), at level
        1 - 0.05 / (number of suites).
    n_boot : int
        Bootstrap resamples per slice.
    """

    suites: dict[str, ScoreTable]
    slices: dict[Slice, ScoreTable]
    featured: str
    table: pd.DataFrame
    spectra: dict[Slice, spectrum.Spectrum]
    boots: dict[str, spectrum.BootstrapDeff]
    steps: dict[str, robustness.StepChanges]
    n_boot: int

    @property
    def front(self) -> ScoreTable:
        """The featured frontier."""
        return self.slices[(self.featured, "frontier")]

    @property
    def smallest(self) -> str:
        """The suite with the smallest frontier."""
        return min((t.n_models, s) for (s, sl), t in self.slices.items() if sl == "frontier")[1]

    def smallest_interval(self) -> tuple[float, float, float]:
        """The smallest frontier's d_eff and its 95% bootstrap interval (lo, hi)."""
        row = self.table.loc[(self.smallest, "frontier")]
        return float(row.d_eff), float(row.ci_lo), float(row.ci_hi)

    def sizes(self) -> pd.DataFrame:
        """One row per ``"<suite> / <slice>"``: ``models``, ``benchmarks``."""
        return pd.DataFrame(
            {f"{s} / {sl}": {"models": t.n_models, "benchmarks": t.n_benchmarks} for (s, sl), t in self.slices.items()}
        ).T

    def table1(self) -> pd.DataFrame:
        """Table 1's columns (:data:`TABLE1_COLUMNS`) per (suite, slice)."""
        return self.table[list(TABLE1_COLUMNS)]

    def methods(self) -> pd.DataFrame:
        """On the featured frontier, per correlation method: ``d_eff``, ``min eigenvalue``, ``PSD``."""
        return pd.DataFrame(
            {
                m: {"d_eff": s.d_eff, "min eigenvalue": s.min_eigenvalue, "PSD": s.is_psd}
                for m, s in spectrum.deff_methods(self.front).items()
            }
        ).T

    def figures(self) -> dict[str, plt.Figure]:
        """The page's figures by name: ``scree`` (:meth:`scree_figure`) and ``boot`` (:meth:`bootstrap_figure`)."""
        return {"scree": self.scree_figure(), "boot": self.bootstrap_figure()}

    def scree_figure(self) -> plt.Figure:
        """Every slice's eigenvalues (:func:`blindspot.diagnose.figures.scree`)."""
        return figures.scree({f"{s} {sl}": sp for (s, sl), sp in self.spectra.items()})

    def bootstrap_figure(self) -> plt.Figure:
        """The bootstrap distributions of :attr:`boots` (:func:`blindspot.diagnose.figures.bootstrap_hist`)."""
        return figures.bootstrap_hist(self.boots)

    def claims(self, claim_ids: Iterable[str]) -> dict[str, ClaimValue]:
        """Table 1's claims ``T1.<kind>.<suite>.<slice>`` (kind: ``deff``, ``spearman``, ``ci_lo``, ``ci_hi``), each
        on the slice it is computed on; a suite not given reads the featured leaderboard's slice.

        Raises
        ------
        ValueError
            An id not of that form.
        """
        out = {}
        for cid in claim_ids:
            parts = cid.split(".")
            if len(parts) != 4 or parts[0] != "T1" or parts[1] not in _CLAIM_COLUMN:
                raise ValueError(f"{cid!r} is not a Table 1 claim T1.<{'|'.join(_CLAIM_COLUMN)}>.<suite>.<slice>")
            kind, suite, sl = parts[1:]
            suite = suite if suite in self.suites else self.featured
            out[cid] = ClaimValue(self.table.loc[(suite, sl), _CLAIM_COLUMN[kind]], self.slices[(suite, sl)])
        return out

    def quantities(self) -> dict[str, float | int | str]:
        """``featured``, ``n_boot``; the featured frontier's ``front_n``, ``front_k``, ``front_l1_share`` (the first
        eigenvalue's share of the trace, in percent), ``front_deff`` and ``front_deff_frob`` (k^2 / ||Sigma||_F^2,
        the same number for a Pearson matrix); the smallest frontier's ``small_name``, ``small_n``, ``small_deff``
        and its 95% interval ``small_lo``, ``small_hi``."""
        front, sp = self.front, self.spectra[(self.featured, "frontier")]
        small = self.table.loc[(self.smallest, "frontier")]
        return {
            "featured": self.featured, "n_boot": self.n_boot,
            "front_n": front.n_models, "front_k": front.n_benchmarks, "front_l1_share": 100 * sp.explained[0],
            "front_deff": sp.d_eff,
            "front_deff_frob": front.n_benchmarks**2 / float(np.sum(spectrum.correlation(front) ** 2)),
            "small_name": self.smallest, "small_n": self.slices[(self.smallest, "frontier")].n_models,
            "small_deff": small.d_eff, "small_lo": small.ci_lo, "small_hi": small.ci_hi,
        }  # fmt: skip


def deff_study(
    suites: Mapping[str, ScoreTable], n_boot: int = 300, seed: int = 0, featured: Sequence[str] = ("extended",)
) -> DeffStudy:
    """Table 1 and its companions on the full population and the frontier of each of ``suites``.

    Parameters
    ----------
    suites : mapping of str to ScoreTable
        The leaderboards, by name (the paper's: ``ollm_v2``, ``extended``, ``livebench``).
    n_boot : int
        Bootstrap resamples per slice (the paper's 300); the frontier-rise test uses at least 100.
    seed : int
        Seed of the bootstrap (the paper's code: ``default_rng(0)``).
    featured : sequence of str
        The leaderboards to read slowly, in order of preference; else the first.

    Returns
    -------
    DeffStudy
    """
    suites = dict(suites)
    slices = tables.full_and_frontier(suites)
    feat = next((s for s in featured if s in suites), next(iter(suites)))
    table = tables.deff_table(slices, n_boot=n_boot, seed=seed)
    spectra = {key: spectrum.spectrum(t) for key, t in slices.items()}
    boots = {
        f"{s} frontier": spectrum.bootstrap_d_eff(slices[(s, "frontier")], n_boot=n_boot, seed=seed)
        for s in list(suites)[:2]
    }
    level = 1 - 0.05 / len(suites)  # Bonferroni over the suites
    steps = {
        s: robustness.step_changes(
            t, robustness.deff_vs_q(t, (0.0, 0.5), min_n=3), n_boot=max(n_boot, 100), level=level
        )
        for s, t in suites.items()
    }
    return DeffStudy(suites, slices, feat, table, spectra, boots, steps, n_boot)
