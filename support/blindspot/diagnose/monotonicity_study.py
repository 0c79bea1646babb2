"""Is d_eff monotone in the frontier threshold? The threshold curves and the top-fraction sweep as results
(App. H.16, H.34, H.44).

* :func:`curve_suites` — the leaderboards that can carry a threshold curve (at least 8 models);
* :func:`threshold_study` — d_eff of the frontier at q = 0, 0.1, ..., 0.9 on each leaderboard with
  bootstrap bands, beside the one-factor model's curve with the same average correlation, and the curves
  restricted to the slices of at least 20 models that App. H.16 counts;
* :func:`population_sweep` — H.44's top-fraction sweep of a large population (the OLLM v2 dump) and a
  finer grid, with where the curve crosses the paper's OLLM v2 frontier d_eff.

Each result names its numbers (``quantities()``), draws its figure, gives its tables, the values the ledger
records (``claims()``) and the statements it judges (``verdicts()``, by the calibrated rule of
:mod:`blindspot.core.verdict` through :mod:`blindspot.diagnose.verdicts`). The measurements are
:mod:`blindspot.diagnose.robustness` and :mod:`blindspot.diagnose.null_model`.

References
----------
The paper's App. H.16, H.34 and H.44.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from blindspot.core.claim_value import ClaimValue
from blindspot.core.conventions import frontier_mask
from blindspot.core.verdict import NOT_COMPUTED, Verdict, number_or
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import figures, null_model, robustness, verdicts

__all__ = [
    "MIN_CURVE",
    "MIN_MODELS",
    "FRACTIONS",
    "curve_suites",
    "ThresholdStudy",
    "threshold_study",
    "PopulationSweep",
    "population_sweep",
]

#: A threshold curve keeps the slices of at least this many models.
MIN_CURVE = 8
#: App. H.16's own exception: slices of fewer than 20 models are not counted.
MIN_MODELS = 20
#: H.44's top fractions.
FRACTIONS = (1.0, 0.9, 0.8, 0.7, 0.5, 0.2, 0.1)
#: The thresholds of the curves, q = 0, 0.1, ..., 0.9.
THRESHOLDS = np.round(np.arange(0, 1, 0.1), 10)


def curve_suites(suites: Mapping[str, ScoreTable]) -> tuple[dict[str, ScoreTable], str]:
    """The leaderboards of at least :data:`MIN_CURVE` models, and the box naming those left out (else empty).

    Raises
    ------
    ValueError
        No leaderboard has enough models.
    """
    small = [s for s, t in suites.items() if t.n_models < MIN_CURVE]
    kept = {s: t for s, t in suites.items() if s not in small}
    if not kept:
        raise ValueError(
            f"this chapter needs a leaderboard of at least {MIN_CURVE} models (a frontier slice of {MIN_CURVE} or more)"
        )
    note = (
        f":::{{important}}\n{', '.join(small)}: fewer than {MIN_CURVE} models, too few for a threshold curve; left "
        "out of this chapter.\n:::"
        if small
        else ""
    )
    return kept, note


# -- the threshold curves --------------------------------------------------------------------------
@dataclass(frozen=True)
class ThresholdStudy:
    """d_eff against the frontier threshold on each leaderboard (App. H.16).

    Attributes
    ----------
    suites : dict of str to ScoreTable
        The leaderboards.
    featured : str
        The leaderboard the prose describes (Extended, or the first).
    curves : dict of str to ThresholdCurve
        :func:`~blindspot.diagnose.robustness.deff_vs_q` of each, with bootstrap bands.
    theory : dict of str to (ndarray, ndarray)
        The one-factor model's curve (q grid, d_eff) with each population's average correlation (left out where
        that correlation is not in (0, 1)).
    """

    suites: Mapping[str, ScoreTable]
    featured: str
    curves: Mapping[str, robustness.ThresholdCurve]
    theory: Mapping[str, tuple[np.ndarray, np.ndarray]]

    @property
    def judged(self) -> dict[str, robustness.ThresholdCurve]:
        """The curves on their slices of at least :data:`MIN_MODELS` models (those that have one)."""
        return {s: c.among(MIN_MODELS) for s, c in self.curves.items() if c.table["n"].max() >= MIN_MODELS}

    def figure(self) -> Figure:
        """The curves with their bands, decreases marked, and the one-factor curves dotted."""
        return figures.threshold_curves(self.curves, self.theory)

    def deff_table(self) -> pd.DataFrame:
        """d_eff by threshold q (rows) and leaderboard (columns)."""
        return pd.DataFrame({s: c.table["d_eff"] for s, c in self.curves.items()})

    def judged_table(self) -> pd.DataFrame:
        """One row per leaderboard: ``thresholds judged`` (slices of at least 20 models), ``decreases (>= 20
        models)`` and ``decreases (all slices)`` in words."""
        judged, steps = self.judged, verdicts.decrease_steps
        rows = {
            s: {"thresholds judged": ", ".join(f"{q:.1f}" for q in judged[s].table.index) if s in judged else "none",
                "decreases (>= 20 models)": steps(judged[s].decreases) if s in judged else "",
                "decreases (all slices)": steps(c.decreases)}
            for s, c in self.curves.items()
        }  # fmt: skip
        return pd.DataFrame(rows).T

    def quantities(self) -> dict[str, float | str]:
        """``monotone_list`` and ``falling_list`` (the leaderboards whose judged curve is monotone, and where the
        others fall); on the featured leaderboard: ``featured``, ``f_q0`` (d_eff at q = 0), ``f_q5`` (at the
        median cut), ``f_top`` and ``f_max`` (the last and the largest value with their q), ``f_theory_q5`` (the
        one-factor curve at the median cut)."""
        judged, steps = self.judged, verdicts.decrease_steps
        ft = self.curves[self.featured].table
        falling = "; ".join(f"{s} at {steps(c.decreases)}" for s, c in judged.items() if not c.monotone)
        th = self.theory.get(self.featured)
        return {
            "monotone_list": ", ".join(s for s, c in judged.items() if c.monotone) or "none",
            "falling_list": falling or "none of them",
            "featured": self.featured, "f_q0": float(ft.loc[0.0, "d_eff"]), "f_q5": verdicts.value_at(ft, 0.5),
            "f_top": f"{ft['d_eff'].iloc[-1]:.2f} at q = {ft.index[-1]:.1f}",
            "f_max": f"{ft['d_eff'].max():.2f} at q = {ft['d_eff'].idxmax():.1f}",
            "f_theory_q5": number_or(np.interp(0.5, *th) if th is not None else None),
        }  # fmt: skip

    @property
    def stand_in(self) -> dict[str, str]:
        """The paper's leaderboards of the monotonicity statements present here, each by itself; on a reader's data
        (none of them) the featured leaderboard stands in for the Extended one."""
        return {s: s for s in ("ollm_v2", "extended", "livebench") if s in self.suites} or {"extended": self.featured}

    def verdicts(self, lb_except: float, n_boot: int = 200, seed: int = 0) -> dict[str, tuple[Verdict, ScoreTable]]:
        """``S.monotone.<suite>``: each curve's steps by a paired bootstrap with simultaneous intervals
        (:func:`~blindspot.diagnose.robustness.step_changes`), on its slices of at least 20 models; LiveBench on
        every step up to the paper's own exception ``lb_except`` (App. H.16: 'non-monotone above q = 0.6'),
        whatever the slice's size. Each verdict with the table it was judged on."""
        out, judged = {}, self.judged
        for s, name in self.stand_in.items():
            t = self.suites[name]
            if s == "livebench" and name == "livebench":
                steps = robustness.step_changes(t, self.curves[name], n_boot=n_boot, seed=seed)
                check = verdicts.monotone_up_to(self.curves[name], lb_except)
                out["S.monotone.livebench"] = (verdicts.monotone_by_steps(steps, check.evidence, q_max=lb_except), t)
            elif name in judged:
                steps = robustness.step_changes(t, judged[name], n_boot=n_boot, seed=seed)
                ev = verdicts.curve_evidence(judged[name], MIN_MODELS)
                out[f"S.monotone.{s}"] = (verdicts.monotone_by_steps(steps, ev), t)
        return out

    def claims(self) -> dict[str, ClaimValue]:
        """H16.ext_q0 and H16.ext_q09 (the Extended curve's ends, or its stand-in's) and H34.lb_nonmonotone (the
        threshold of LiveBench's first decrease; 1.0 when it never decreases)."""
        out: dict[str, ClaimValue] = {}
        ext = self.stand_in.get("extended")
        if ext is not None:
            et, t = self.curves[ext].table, self.suites[ext]
            out["H16.ext_q0"] = ClaimValue(et.loc[0.0, "d_eff"], t)
            if 0.9 in et.index:
                ev = (
                    f"the q = 0.8 value is {et.loc[0.8, 'd_eff']:.3f}; at q = 0.9 (n = {int(et.loc[0.9, 'n'])}) "
                    f"d_eff is {et.loc[0.9, 'd_eff']:.3f}"
                )
                out["H16.ext_q09"] = ClaimValue(et.loc[0.9, "d_eff"], t, ev)
        if "livebench" in self.suites:
            lb, t = self.curves["livebench"], self.suites["livebench"]
            if lb.decreases:
                q_from, q_to, _ = lb.decreases[0]
                ev = (
                    f"the first decrease is from q = {q_from:.1f} (n = {int(lb.table.loc[q_from, 'n'])}, d_eff "
                    f"{lb.table.loc[q_from, 'd_eff']:.3f}) to q = {q_to:.1f} ({lb.table.loc[q_to, 'd_eff']:.3f})"
                )
                out["H34.lb_nonmonotone"] = ClaimValue(q_from, t, ev)
            else:  # never decreases: the registry reads that as q = 1
                qs = ", ".join(f"{q:.1f}" for q in lb.table.index)
                out["H34.lb_nonmonotone"] = ClaimValue(1.0, t, f"no decrease on q = {qs}")
        return out


def threshold_study(
    suites: Mapping[str, ScoreTable], featured: str, n_boot: int = 300, seed: int = 0
) -> ThresholdStudy:
    """d_eff of the frontier {mean >= q-quantile} for q = 0, 0.1, ..., 0.9 (slices of at least 8 models) with
    ``n_boot`` bootstrap resamples per slice, and the one-factor model's curve on a grid of 91 thresholds
    (:func:`~blindspot.diagnose.null_model.one_factor_deff` with :func:`~blindspot.diagnose.null_model.
    one_factor_fit` of each population).

    Raises
    ------
    ValueError
        ``featured`` is not one of ``suites``.
    """
    if featured not in suites:
        raise ValueError(f"the featured leaderboard {featured!r} is not among {list(suites)}")
    curves = {
        s: robustness.deff_vs_q(t, THRESHOLDS, min_n=MIN_CURVE, n_boot=n_boot, seed=seed) for s, t in suites.items()
    }
    grid = np.linspace(0, 0.9, 91)
    theory = {}
    for s, t in suites.items():
        try:  # the one-factor model needs an average correlation in (0, 1)
            theory[s] = (grid, null_model.one_factor_deff(grid, t.n_benchmarks, *null_model.one_factor_fit(t)))
        except ValueError:
            pass
    return ThresholdStudy(dict(suites), featured, curves, theory)


# -- the top-fraction sweep of a large population (H.44) ---------------------------------------------
@dataclass(frozen=True)
class PopulationSweep:
    """H.44's top-fraction sweep of a large population, on a coarse and a fine grid.

    Attributes
    ----------
    pop : ScoreTable
        The population (the OLLM v2 dump, or a stand-in).
    is_dump : bool
        Whether it is H.44's population (the paper's values and the crossing apply).
    sweep : ThresholdCurve
        :func:`~blindspot.diagnose.robustness.top_fraction_sweep` at :data:`FRACTIONS`, with bands.
    fine : ThresholdCurve
        d_eff at q = 0, 0.025, ..., 0.95.
    paper_top : dict of float to float
        The paper's d_eff of each top fraction.
    paper_frontier : float
        The paper's d_eff of its OLLM v2 frontier (Table 1).
    ollm : ScoreTable or None
        The paper's OLLM v2 file (its frontier is the crossing's reference), when in the run.
    """

    pop: ScoreTable
    is_dump: bool
    sweep: robustness.ThresholdCurve
    fine: robustness.ThresholdCurve
    paper_top: Mapping[float, float]
    paper_frontier: float
    ollm: ScoreTable | None = None

    @property
    def fine_judged(self) -> robustness.ThresholdCurve | None:
        """The fine curve on its slices of at least :data:`MIN_MODELS` models (None when it has none)."""
        return self.fine.among(MIN_MODELS) if self.fine.table["n"].max() >= MIN_MODELS else None

    @property
    def frac_cross(self) -> float:
        """The kept fraction at which the fine curve's rising part (fractions of at least 10%) reaches the paper's
        OLLM v2 frontier d_eff (linear interpolation)."""
        f = self.fine.table.sort_values("fraction")
        upper = f[f["fraction"] >= 0.1]
        return float(
            np.interp(self.paper_frontier, upper["d_eff"][::-1].to_numpy(), upper["fraction"][::-1].to_numpy())
        )

    def figure(self) -> Figure:
        """The sweep with its bands and the fine curve; on the dump, the paper's values and frontier marked."""
        return figures.population_sweep(
            self.sweep, self.fine, self.paper_top if self.is_dump else None,
            marker=(0.6, self.paper_frontier) if self.is_dump else None, marker_label="paper's OLLM v2 frontier",
        )  # fmt: skip

    def table(self) -> pd.DataFrame:
        """The sweep's table (``fraction``, ``n``, ``d_eff``, ``lo``, ``hi`` by q) with, on the dump, ``paper``."""
        t = self.sweep.table
        return t.assign(paper=[self.paper_top[fr] for fr in t["fraction"]]) if self.is_dump else t

    def quantities(self) -> dict[str, int | str]:
        """``name``, ``n`` and ``decreases`` (the fine curve's, on slices of at least 20 models); on the dump,
        ``frac_cross`` (percent), ``cross_verdict`` ('inside'/'outside' the paper's 15–20%), ``top10_n``,
        ``top10_deff``, ``top5_n``, ``top5_deff``, ``paper_frontier``, and with the OLLM v2 file ``ollm_n`` and
        ``ollm_front_n``; "not computed" elsewhere."""
        fj = self.fine_judged
        decs = (
            ", ".join(f"top {100 * (1 - a):.1f}% to top {100 * (1 - b):.1f}%" for a, b, _ in fj.decreases) if fj else ""
        )
        out = {"name": self.pop.name, "n": self.pop.n_models,
               "decreases": "not judged (fewer than 20 models)" if fj is None else decs or "none"}  # fmt: skip
        keys = ("frac_cross", "cross_verdict", "top10_n", "top10_deff", "top5_n", "top5_deff", "paper_frontier")
        out |= dict.fromkeys(keys + ("ollm_n", "ollm_front_n"), NOT_COMPUTED)
        if self.is_dump:
            st, ft, x = self.sweep.table, self.fine.table, self.frac_cross
            out |= {
                "frac_cross": f"{100 * x:.0f}", "cross_verdict": verdicts.band_word(x, 0.15, 0.20),
                "top10_n": str(int(st["n"].iloc[-1])), "top10_deff": f"{st['d_eff'].iloc[-1]:.2f}",
                "top5_n": str(int(ft["n"].iloc[-1])), "top5_deff": f"{ft['d_eff'].iloc[-1]:.2f}",
                "paper_frontier": f"{self.paper_frontier:.2f}",
            }  # fmt: skip
            if self.ollm is not None:
                n_front = int(frontier_mask(self.ollm, 0.5).sum())
                out |= {"ollm_n": str(self.ollm.n_models), "ollm_front_n": str(n_front)}
        return out

    def claims(self) -> dict[str, ClaimValue]:
        """``H44.top<percent>``: d_eff of each top fraction of :data:`FRACTIONS` the sweep kept."""
        out = {}
        for fr in FRACTIONS:
            rows = self.sweep.table[np.isclose(self.sweep.table["fraction"], fr)]
            if len(rows):
                ev = f"top {fr:.0%}: n = {int(rows['n'].iloc[0])}"
                out[f"H44.top{round(100 * fr)}"] = ClaimValue(rows["d_eff"].iloc[0], self.pop, ev)
        return out

    def verdicts(self, table1_ci: tuple[float, float], n_boot: int = 200, seed: int = 0) -> dict[str, Verdict]:
        """On the dump only: ``H44.consistent_229`` (the crossing lies in the top 15–20%, by a bootstrap resampling
        the dump and the OLLM v2 frontier, :func:`~blindspot.diagnose.robustness.crossing_fraction`) and
        ``S.monotone.ollm_v2_full`` (the fine curve's steps on slices of at least 20 models). ``table1_ci``: Table
        1's 95% interval of the OLLM v2 frontier, quoted in the evidence."""
        if not self.is_dump:
            return {}
        ollm_front = None if self.ollm is None else self.ollm.scores[frontier_mask(self.ollm, 0.5)]
        st = self.sweep.table
        top20 = float(st.loc[np.isclose(st["fraction"], 0.2), "d_eff"].iloc[0])
        crossing = robustness.crossing_fraction(
            self.pop, self.fine, self.paper_frontier, reference=ollm_front, n_boot=n_boot, seed=seed
        )
        ev = (
            f"the top 20% gives {top20:.2f}, Table 1's 95% interval of the OLLM v2 frontier is "
            f"[{table1_ci[0]}, {table1_ci[1]}]"
        )
        fj = self.fine_judged
        steps = robustness.step_changes(self.pop, fj, n_boot=n_boot, seed=seed)
        where = f"q = 0, 0.025, ..., {fj.table.index[-1]:.3f} (down to {int(fj.table['n'].min())} models)"
        return {
            "H44.consistent_229": verdicts.crossing_in_band(crossing, (0.15, 0.20), n_boot, ev),
            "S.monotone.ollm_v2_full": verdicts.monotone_by_steps(steps, where),
        }


def population_sweep(
    pop: ScoreTable,
    is_dump: bool,
    paper_top: Mapping[float, float],
    paper_frontier: float,
    ollm: ScoreTable | None = None,
    n_boot: int = 300,
    seed: int = 0,
) -> PopulationSweep:
    """H.44's sweep of ``pop`` at :data:`FRACTIONS` (``n_boot`` bootstrap resamples per slice) and its curve at
    q = 0, 0.025, ..., 0.95 (slices of at least 8 models, no band)."""
    sweep = robustness.top_fraction_sweep(pop, FRACTIONS, n_boot=n_boot, seed=seed)
    fine = robustness.deff_vs_q(pop, np.round(np.arange(0, 0.96, 0.025), 10), min_n=MIN_CURVE)
    return PopulationSweep(pop, is_dump, sweep, fine, dict(paper_top), paper_frontier, ollm)
