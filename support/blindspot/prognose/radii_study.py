"""App. H.12's two radii on a set of leaderboards in one call: geometric (pi R / k, or Table 2's 2 R omega) over
statistical (the column bootstrap).

:func:`radii_study` takes the frontier of each leaderboard (at least 3 models) and computes the geometric
radius pi R / k and the column-bootstrap radius sigma_boot with the paper's algorithm
(:func:`~blindspot.prognose.statistical_radius.noise_ratio`), and the ratio again with Table 2's 2 R omega
(the paper's code variant of :func:`~blindspot.prognose.visible_radius.visible_radius`) as numerator; and, on
the featured frontier, the same with every benchmark listed twice (no new information; sigma_boot falls like a
standard error). The result gives its numbers by name (:meth:`RadiiStudy.quantities`), its tables as frames,
its figure, and the values of the ledger's claims (:meth:`RadiiStudy.claims`).

References
----------
The paper's App. H.12 and the v16 main text's ratios.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core import conventions
from blindspot.core.claim_value import ClaimValue
from blindspot.data.tables import ScoreTable
from blindspot.prognose import figures, statistical_radius as sr, visible_radius as vr

__all__ = ["PAPER_SUITES", "RadiiStudy", "radii_study"]

#: The leaderboards whose ratios the v16 main text gives (the ledger's claims name them).
PAPER_SUITES: tuple[str, ...] = ("ollm_v2", "extended", "livebench")


@dataclass(frozen=True)
class RadiiStudy:
    """The geometric and statistical radii per frontier, and the doubling check on the featured one.

    Attributes
    ----------
    fronts : dict of str to ScoreTable
        The frontiers of at least 3 models.
    too_small : dict of str to int
        The leaderboards left out, with the size of their frontier.
    featured : str
        The frontier the prose reads off (``extended`` when given, else the first).
    noise : DataFrame
        One row per frontier: ``n``, ``k``, ``R``, ``pi R / k``, ``2 R omega (Table 2)``, ``trivial 2R``,
        ``sigma_boot``, ``ratio_piR_over_k`` and ``ratio_delta_vis``.
    once, twice : NoiseRatio
        The featured frontier's radii with its benchmarks as given and with every benchmark listed twice.
    n_boot : int
        Column resamples.
    """

    fronts: dict[str, ScoreTable]
    too_small: dict[str, int]
    featured: str
    noise: pd.DataFrame
    once: sr.NoiseRatio
    twice: sr.NoiseRatio
    n_boot: int

    @property
    def too_small_note(self) -> str:
        """Which leaderboards are skipped for a frontier under 3 models (else empty)."""
        if not self.too_small:
            return ""
        names = "; ".join(f"The frontier of {s} keeps {n} model(s)" for s, n in self.too_small.items())
        return f":::{{important}}\n{names}: both radii need at least 3 models, so that leaderboard is skipped.\n:::"

    def doubling(self) -> pd.DataFrame:
        """``k``, ``R``, ``pi R / k``, ``sigma_boot`` and ``ratio`` of the featured frontier (rows) with its
        benchmarks as given and with every benchmark twice (columns)."""
        cols = {"benchmarks as given": self.once, "every benchmark twice": self.twice}
        return pd.DataFrame(
            {name: [r.k, r.R, r.geom, r.stat, r.ratio] for name, r in cols.items()},
            index=["k", "R", "pi R / k", "sigma_boot", "ratio"],
        )

    def figure(self, paper_main: Mapping[str, float], paper_h12: Mapping[str, float]) -> plt.Figure:
        """The ratios per frontier for both numerators, beside the paper's main-text and App. H.12 figures
        (those of a frontier not here are left out; :func:`blindspot.prognose.figures.noise_bars`)."""
        here = self.noise.index
        return figures.noise_bars(
            self.noise,
            {s: v for s, v in paper_main.items() if s in here},
            {s: v for s, v in paper_h12.items() if s in here},
        )

    def claims(self) -> dict[str, ClaimValue]:
        """The value claims: ``H12.geom``, ``H12.stat``, ``H12.ratio`` on the featured frontier;
        ``S.noise_ratio.<suite>`` (pi R / k over sigma_boot; the featured frontier stands in for a suite not
        given), with the ratio under Table 2's 2 R omega as numerator as evidence."""
        f, row = self.featured, self.noise.loc[self.featured]
        out = {
            "H12.geom": ClaimValue(row["pi R / k"], self.fronts[f]),
            "H12.stat": ClaimValue(row["sigma_boot"], self.fronts[f]),
            "H12.ratio": ClaimValue(row["ratio_piR_over_k"], self.fronts[f]),
        }
        for s in PAPER_SUITES:
            key = s if s in self.fronts else f
            r = self.noise.loc[key]
            evidence = (
                f"with Table 2's 2 R omega as numerator: {r['ratio_delta_vis']:.1f}x (2 R omega = "
                f"{r['2 R omega (Table 2)']:.2f} vs the trivial 2R = {r['trivial 2R']:.2f})"
            )
            out[f"S.noise_ratio.{s}"] = ClaimValue(r["ratio_piR_over_k"], self.fronts[key], evidence)
        return out

    def quantities(self) -> dict[str, float | int | str]:
        """``featured``, ``n_boot``, ``n_fronts``; the featured frontier's ``piR_k``, ``sigma_boot``,
        ``ratio_piR_over_k`` and ``ratio_delta_vis``; the ranges over the frontiers ``ratio_lo``, ``ratio_hi``
        (pi R / k numerator) and ``dv_lo``, ``dv_hi`` (2 R omega numerator); ``sigma_factor``, the factor by
        which listing every benchmark twice divides sigma_boot."""
        row, n = self.noise.loc[self.featured], self.noise
        return {
            "featured": self.featured, "n_boot": self.n_boot, "n_fronts": len(n),
            "piR_k": float(row["pi R / k"]), "sigma_boot": float(row["sigma_boot"]),
            "ratio_piR_over_k": float(row["ratio_piR_over_k"]), "ratio_delta_vis": float(row["ratio_delta_vis"]),
            "ratio_lo": float(n["ratio_piR_over_k"].min()), "ratio_hi": float(n["ratio_piR_over_k"].max()),
            "dv_lo": float(n["ratio_delta_vis"].min()), "dv_hi": float(n["ratio_delta_vis"].max()),
            "sigma_factor": self.once.stat / self.twice.stat,
        }  # fmt: skip


def _radii(t: ScoreTable, n_boot: int, seed: int) -> dict[str, float]:
    """One frontier's row of :attr:`RadiiStudy.noise`."""
    code = vr.visible_radius(t, **vr.VARIANTS["code"])
    a = sr.noise_ratio(t, n_boot=n_boot, seed=seed)
    b = sr.noise_ratio(t, n_boot=n_boot, seed=seed, numerator="delta_vis", delta_vis=code.delta_vis)
    return {
        "n": t.n_models, "k": t.n_benchmarks, "R": a.R, "pi R / k": a.geom, "2 R omega (Table 2)": b.geom,
        "trivial 2R": 2 * a.R, "sigma_boot": a.stat, "ratio_piR_over_k": a.ratio, "ratio_delta_vis": b.ratio,
    }  # fmt: skip


def radii_study(
    suites: Mapping[str, ScoreTable], n_boot: int = 500, seed: int = 0, featured: Sequence[str] = ("extended",)
) -> RadiiStudy:
    """The two radii and their ratios on the frontiers of ``suites`` (those of at least 3 models).

    Parameters
    ----------
    suites : mapping of str to ScoreTable
        The leaderboards, by name (the paper's: ``ollm_v2``, ``extended``, ``livebench``).
    n_boot : int
        Column resamples (the paper's 500).
    seed : int
        Seed of the column bootstrap (the paper's code: a fresh ``default_rng(0)`` per suite).
    featured : sequence of str
        The leaderboards the prose prefers to read off, in order; else the first frontier.

    Returns
    -------
    RadiiStudy

    Raises
    ------
    ValueError
        No leaderboard has a frontier of at least 3 models.
    """
    sizes = {s: int(conventions.frontier_mask(t).sum()) for s, t in suites.items()}
    too_small = {s: n for s, n in sizes.items() if n < 3}
    fronts = {s: conventions.frontier(t) for s, t in suites.items() if s not in too_small}
    if not fronts:
        raise ValueError(f"no leaderboard given has a frontier of at least 3 models ({too_small}); both radii need 3")
    feat = next((s for s in featured if s in fronts), next(iter(fronts)))
    noise = pd.DataFrame({s: _radii(t, n_boot, seed) for s, t in fronts.items()}).T.astype({"n": int, "k": int})
    values = fronts[feat].values
    once = sr.noise_ratio(fronts[feat], n_boot=n_boot, seed=seed)
    twice = sr.noise_ratio(np.hstack([values, values]), n_boot=n_boot, seed=seed)
    return RadiiStudy(fronts, too_small, feat, noise, once, twice, n_boot)
