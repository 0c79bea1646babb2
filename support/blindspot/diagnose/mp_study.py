"""Theorem 1(c)'s Marchenko–Pastur correction on a set of leaderboards in one call (the paper's App. H.1).

:func:`mp_study` cuts each leaderboard into its full population and its frontier
(:func:`~blindspot.diagnose.tables.full_and_frontier`) and, per slice, computes the spectrum of the correlation
matrix, the MP edge lambda_+ = (1 + sqrt(k/n))^2 with the signal eigenvalues above it and d_eff^MP
(:func:`~blindspot.core.spectrum.mp_correction`), how often the largest eigenvalue of a null matrix of the
same shape exceeds the edge (:func:`~blindspot.diagnose.tables.null_max_table`), and the permutation null's
signal count (Horn's parallel analysis, :func:`~blindspot.diagnose.ambient_dimension.horn_nsignal`). The
result gives its numbers by name (:meth:`MPStudy.quantities`), its tables as frames, its figure, and the
values of the ledger's claims (:meth:`MPStudy.claims`).

References
----------
The paper's Theorem 1(c) and App. H.1; Horn (1965).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import pandas as pd

from blindspot.core import spectrum
from blindspot.core.claim_value import ClaimValue
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import ambient_dimension as ad, figures, tables

__all__ = ["MP_SUITES", "MPStudy", "mp_study"]

#: App. H.1's two populations (the ledger's claims name them).
MP_SUITES: tuple[str, ...] = ("ollm_v2", "extended")

Slice = tuple[str, str]


@dataclass(frozen=True)
class MPStudy:
    """The MP edge, the signal eigenvalues and two nulls, per (suite, slice).

    Attributes
    ----------
    suites : dict of str to ScoreTable
        The leaderboards.
    slices : dict of (str, str) to ScoreTable
        ``(suite, "full")`` and ``(suite, "frontier")``.
    featured : str
        The leaderboard the prose reads off (``extended`` when given, else the first).
    spectra : dict of (str, str) to Spectrum
        Each slice's correlation spectrum.
    mp : dict of (str, str) to MPCorrection
        Each slice's edge, signal count and d_eff^MP.
    null : DataFrame
        :func:`~blindspot.diagnose.tables.null_max_table`, one row per ``"<suite> <slice>"``.
    perm : dict of (str, str) to Horn
        Each slice's permutation null.
    n_rep, n_perm : int
        Null matrices per slice, and column permutations.
    """

    suites: dict[str, ScoreTable]
    slices: dict[Slice, ScoreTable]
    featured: str
    spectra: dict[Slice, spectrum.Spectrum]
    mp: dict[Slice, spectrum.MPCorrection]
    null: pd.DataFrame
    perm: dict[Slice, ad.Horn]
    n_rep: int
    n_perm: int

    @property
    def fulls(self) -> list[str]:
        """App. H.1's populations among the suites; on other data the featured leaderboard stands in."""
        return [s for s in MP_SUITES if s in self.suites] or [self.featured]

    @property
    def full_tables(self) -> list[ScoreTable]:
        """The full slices of :attr:`fulls`."""
        return [self.slices[(s, "full")] for s in self.fulls]

    def edges(self) -> pd.DataFrame:
        """One row per ``"<suite> <slice>"``: ``n``, ``k``, ``lambda_1``, ``lambda_2``, ``lambda_+``, ``n_sig``,
        ``d_eff`` and ``d_eff_MP`` ("undefined" without a signal eigenvalue)."""
        rows = {}
        for (s, sl), t in self.slices.items():
            sp, mp = self.spectra[(s, sl)], self.mp[(s, sl)]
            rows[f"{s} {sl}"] = {
                "n": t.n_models, "k": t.n_benchmarks, "lambda_1": sp.eigenvalues[0], "lambda_2": sp.eigenvalues[1],
                "lambda_+": mp.lambda_plus, "n_sig": mp.n_sig, "d_eff": sp.d_eff,
                "d_eff_MP": mp.d_eff_mp if mp.defined else "undefined",
            }  # fmt: skip
        return pd.DataFrame.from_dict(rows, orient="index")

    def signal_counts(self) -> pd.DataFrame:
        """One row per ``"<suite> <slice>"``: ``n_sig (MP edge)``, ``n_signal (permutation)`` and the
        ``95th pct of the permuted lambda_1``."""
        return pd.DataFrame.from_dict(
            {
                f"{s} {sl}": {
                    "n_sig (MP edge)": self.mp[(s, sl)].n_sig,
                    "n_signal (permutation)": self.perm[(s, sl)].n_signal,
                    "95th pct of the permuted lambda_1": self.perm[(s, sl)].null_percentile[0],
                }
                for (s, sl) in self.slices
            },
            orient="index",
        )

    def mp_figure(self) -> plt.Figure:
        """The featured frontier's eigenvalues against the MP density (:func:`blindspot.diagnose.figures.mp_overlay`)."""
        key = (self.featured, "frontier")
        return figures.mp_overlay(self.spectra[key], self.mp[key])

    def claims(self) -> dict[str, ClaimValue]:
        """The value claims, each on the slice it is computed on: ``MP.edge.<suite>.full`` and
        ``MP.nsig.<suite>.full`` for App. H.1's populations (on other data, the featured leaderboard's full slice
        as ``extended``)."""
        pairs = {s: s for s in MP_SUITES if s in self.suites} or {"extended": self.featured}
        out: dict[str, ClaimValue] = {}
        for s, name in pairs.items():
            mp, t = self.mp[(name, "full")], self.slices[(name, "full")]
            out[f"MP.edge.{s}.full"] = ClaimValue(mp.lambda_plus, t)
            out[f"MP.nsig.{s}.full"] = ClaimValue(mp.n_sig, t)
        return out

    def quantities(self) -> dict[str, float | int | str]:
        """``featured``, ``n_suites``, ``n_slices``, ``n_rep``, ``n_perm``; ``n_one`` and ``n_undef`` (slices with
        exactly one and with no eigenvalue above the edge); the featured frontier's ``ef_nsig`` and ``p_exceed_ef``
        (the share of null maxima above its edge)."""
        f = self.featured
        return {
            "featured": f, "n_suites": len(self.suites), "n_slices": len(self.slices),
            "n_rep": self.n_rep, "n_perm": self.n_perm,
            "n_one": sum(1 for m in self.mp.values() if m.n_sig == 1),
            "n_undef": sum(1 for m in self.mp.values() if not m.defined),
            "ef_nsig": self.mp[(f, "frontier")].n_sig,
            "p_exceed_ef": float(self.null.loc[f"{f} frontier", "P(null max > lambda_+)"]),
        }  # fmt: skip


def mp_study(
    suites: Mapping[str, ScoreTable],
    n_rep: int = 2000,
    n_perm: int = 1000,
    seed: int = 0,
    featured: Sequence[str] = ("extended",),
) -> MPStudy:
    """The MP correction and its two nulls on the full population and the frontier of each of ``suites``.

    Parameters
    ----------
    suites : mapping of str to ScoreTable
        The leaderboards, by name (the paper's Table 1: ``ollm_v2``, ``extended``, ``livebench``).
    n_rep : int
        Null matrices of independent normal benchmarks per slice.
    n_perm : int
        Column permutations of the permutation null (the paper's 1000).
    seed : int
        Seed of both nulls.
    featured : sequence of str
        The leaderboards the prose prefers to read off, in order; else the first.

    Returns
    -------
    MPStudy
    """
    suites = dict(suites)
    slices = tables.full_and_frontier(suites)
    feat = next((s for s in featured if s in suites), next(iter(suites)))
    spectra = {key: spectrum.spectrum(t) for key, t in slices.items()}
    mp = {key: spectrum.mp_correction(t) for key, t in slices.items()}
    null = tables.null_max_table(slices, n_rep=n_rep, seed=seed)
    perm = {key: ad.horn_nsignal(t, n_perm=n_perm, seed=seed) for key, t in slices.items()}
    return MPStudy(suites, slices, feat, spectra, mp, null, perm, n_rep, n_perm)
