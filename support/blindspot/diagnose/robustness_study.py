"""The four defences of d_eff on the paper's leaderboards, one result per defence (App. H.2, H.3, H.6, H.28,
H.38, H.48, H.50).

Each function runs one of the paper's robustness checks on score tables and returns a frozen result that
gives its numbers by name (``quantities()``, glued by a chapter in one call), its tables as frames with
documented columns, its figure, and the values the ledger records (``claims()``: ``{claim id: ClaimValue}``):

* :func:`method_comparison` — d_eff under Pearson, Spearman and Kendall on each slice (App. H.6, §8);
* :func:`sampling_study` — split-half reliability of every leaderboard and the saturation curve of one
  (App. H.2, H.3);
* :func:`population_controls` — the frontier's d_eff with log size partialled out and with one model per
  family (App. H.28, H.38);
* :func:`three_suites` — d_eff of three suites that share no benchmark, with bootstrap intervals (App. H.48);
* :func:`epoch_imputation` — the paper's mostly imputed cross-domain Epoch matrix (App. H.50), and
  :func:`inflation_study`, what mean imputation alone does to d_eff of a dense leaderboard.

The measurements are :mod:`blindspot.diagnose.robustness` and :mod:`blindspot.diagnose.subsampling`; this
module only runs them as the chapter on the robustness of d_eff does and names what they give.

References
----------
The paper's §8 and App. H.2, H.3, H.6, H.28, H.38, H.48 and H.50.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from blindspot.core import conventions, spectrum
from blindspot.core.claim_value import ClaimValue
from blindspot.core.spectrum import BootstrapDeff
from blindspot.core.verdict import NOT_COMPUTED, Verdict, number_or
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import figures, robustness, subsampling, verdicts

__all__ = [
    "GAP_CLAIMS",
    "MethodComparison",
    "method_comparison",
    "SamplingStudy",
    "sampling_study",
    "PopulationControls",
    "population_controls",
    "ThreeSuites",
    "three_suites",
    "EpochImputation",
    "epoch_imputation",
    "InflationStudy",
    "inflation_study",
]

#: The columns of a score table's metadata read as a parameter count (billions), first found first.
SIZE_COLUMNS = ("params_b", "params", "parameters", "n_params")
#: The agreement statements of the methods (claim id: the rank methods compared with Pearson, the gap in words).
GAP_CLAIMS = {
    "S.methods_within_0.3": (("spearman", "kendall_sin"), "|Pearson - Spearman or Kendall_sin|"),
    "H6.pearson_spearman_0.2": (("spearman",), "|Pearson - Spearman|"),
}
#: The rows of :meth:`PopulationControls.table`.
KNOWN_ONLY, RESIDUALISED, CLIPPED, FAMILIES = (
    "models of known size only",
    "... residualised on log(params)",
    "all, unknown sizes as 0.001B, residualised",
    "best model per family",
)


# -- correlation methods (App. H.6, §8) --------------------------------------------------------------
@dataclass(frozen=True)
class MethodComparison:
    """d_eff under the four correlation methods on named slices (App. H.6).

    Attributes
    ----------
    agreements : dict of str to MethodAgreement
        :func:`~blindspot.diagnose.robustness.method_agreement` of each slice.
    slices : dict of str to ScoreTable
        The slices, by name.
    table1 : tuple of str
        The names of the Table 1 slices (the ones the paper's statements are about).
    """

    agreements: Mapping[str, robustness.MethodAgreement]
    slices: Mapping[str, ScoreTable]
    table1: tuple[str, ...]

    def table(self) -> pd.DataFrame:
        """One row per slice: d_eff under each method of :data:`~blindspot.core.spectrum.METHODS`
        (``pearson``, ``spearman``, ``kendall_sin``, ``kendall_raw``), ``min eig (kendall_sin)`` (the smallest
        eigenvalue of the sin-adjusted Kendall matrix, negative when it is not a correlation matrix), and the
        gaps ``|P - S|``, ``|P - K_sin|``, ``|P - K_raw|`` to Pearson."""
        return pd.DataFrame(
            {name: {**a.d_eff, "min eig (kendall_sin)": a.min_eigenvalue["kendall_sin"],
                    "|P - S|": a.gap_to_pearson["spearman"], "|P - K_sin|": a.gap_to_pearson["kendall_sin"],
                    "|P - K_raw|": a.gap_to_pearson["kendall_raw"]}
             for name, a in self.agreements.items()}
        ).T  # fmt: skip

    @property
    def gaps(self) -> verdicts.MethodGaps:
        """The gaps to Pearson on the Table 1 slices (:func:`~blindspot.diagnose.verdicts.method_gaps`)."""
        return verdicts.method_gaps(self.table(), self.table1)

    def figure(self) -> Figure:
        """Grouped bars of d_eff per slice, one bar per method."""
        t = self.table()
        return figures.deff_bars(list(t.index), {m: t[m].to_numpy() for m in spectrum.METHODS})

    def quantities(self) -> dict[str, float | str]:
        """On the Table 1 slices: ``max_gap_ps`` and ``max_gap_ps_where`` (the largest |Pearson - Spearman|
        and its slice), ``max_gap_pk`` and ``max_gap_pk_where`` (the largest gap of a Pearson-scale rank
        method), ``max_gap_raw`` (raw Kendall's largest gap), ``rank_below`` ("below" when every rank method
        gives at most Pearson's d_eff, else "not always below")."""
        g = self.gaps
        return {
            "max_gap_ps": float(g.pearson_spearman.max()), "max_gap_ps_where": str(g.pearson_spearman.idxmax()),
            "max_gap_pk": float(g.pearson_rank.max()), "max_gap_pk_where": str(g.pearson_rank.idxmax()),
            "max_gap_raw": g.raw_kendall, "rank_below": verdicts.below_word(g.rank_below),
        }  # fmt: skip

    def gap_verdicts(self, bounds: Mapping[str, float], n_boot: int = 500, seed: int = 0) -> dict[str, Verdict]:
        """§8's and App. H.6's agreement statements on the Table 1 slices, judged on paired bootstrap intervals.

        For each claim of :data:`GAP_CLAIMS` in ``bounds``, the largest gap to Pearson over its rank methods is
        bootstrapped per slice (:func:`~blindspot.diagnose.robustness.method_gap_intervals`, ``n_boot``
        resamples, ``default_rng(seed)``, simultaneous over the slices) and judged against the claim's bound
        (:func:`~blindspot.diagnose.verdicts.gaps_within`).

        Parameters
        ----------
        bounds : dict of str to float
            The paper's bound of each claim, by claim id.
        n_boot, seed
            Resamples per slice and their seed.

        Raises
        ------
        ValueError
            A claim id that is not in :data:`GAP_CLAIMS`.
        """
        unknown = [c for c in bounds if c not in GAP_CLAIMS]
        if unknown:
            raise ValueError(f"no gap statement {unknown}; the statements are {list(GAP_CLAIMS)}")
        table1 = {name: self.slices[name] for name in self.table1}
        out = {}
        for cid, bound in bounds.items():
            methods, what = GAP_CLAIMS[cid]
            gaps = robustness.method_gap_intervals(table1, methods=methods, n_boot=n_boot, seed=seed)
            out[cid] = verdicts.gaps_within(gaps, float(bound), what, n_boot)
        return out

    def claims(self, suite: str) -> dict[str, ClaimValue]:
        """App. H.6's Spearman d_eff of ``suite``'s frontier (``H6.ollm_frontier_spearman``)."""
        name = f"{suite} frontier"
        return {"H6.ollm_frontier_spearman": ClaimValue(self.agreements[name].d_eff["spearman"], self.slices[name])}


def method_comparison(slices: Mapping[str, ScoreTable], table1: Sequence[str]) -> MethodComparison:
    """d_eff under every correlation method on each slice (:func:`~blindspot.diagnose.robustness.method_agreement`).

    Parameters
    ----------
    slices : dict of str to ScoreTable
        The slices by name, in the order of the table.
    table1 : sequence of str
        The names among them of the Table 1 slices.

    Raises
    ------
    ValueError
        A Table 1 name that is not a slice, or no Table 1 slice.
    """
    missing = [s for s in table1 if s not in slices]
    if missing or not table1:
        raise ValueError(f"the Table 1 slices must be among the slices; missing {missing or 'all'}")
    agree = {name: robustness.method_agreement(t) for name, t in slices.items()}
    return MethodComparison(agree, dict(slices), tuple(table1))


# -- sampling: split-half reliability and saturation (App. H.2, H.3) -----------------------------------
@dataclass(frozen=True)
class SamplingStudy:
    """Split halves of every leaderboard's models, and random subsets of one leaderboard (App. H.2, H.3).

    Attributes
    ----------
    suites : dict of str to ScoreTable
        The leaderboards.
    featured : str
        The leaderboard of the saturation curve.
    halves : dict of str to SplitHalf
        :func:`~blindspot.diagnose.subsampling.split_half_deff` of each leaderboard of at least 6 models.
    saturation : Saturation
        :func:`~blindspot.diagnose.subsampling.saturation_curve` of the featured leaderboard.
    """

    suites: Mapping[str, ScoreTable]
    featured: str
    halves: Mapping[str, subsampling.SplitHalf]
    saturation: subsampling.Saturation

    def halves_table(self) -> pd.DataFrame:
        """One row per leaderboard: ``models per half``, ``mean |d_eff(A) - d_eff(B)|`` (the MAD of App. H.2),
        ``correlation of the halves`` (over the splits) and ``d_eff (all models)``."""
        return pd.DataFrame.from_dict(
            {s: {"models per half": h.half_size, "mean |d_eff(A) - d_eff(B)|": h.mad,
                 "correlation of the halves": h.correlation, "d_eff (all models)": spectrum.d_eff(self.suites[s])}
             for s, h in self.halves.items()},
            orient="index",
        )  # fmt: skip

    def quantities(self) -> dict[str, float | int | str]:
        """``mad_list`` (each leaderboard's MAD, "name 0.123, ..."), ``sat_name`` and ``sat_n`` (the featured
        leaderboard and its models), ``sat_first`` (mean [2.5%, 97.5%] of the smallest subsets, with their
        size) and ``sat_full`` (d_eff of all the models)."""
        t = self.saturation.table
        mads = ", ".join(f"{s} {h.mad:.3f}" for s, h in self.halves.items())
        return {
            "mad_list": mads or "not computed (too few models)",
            "sat_name": self.featured, "sat_n": self.suites[self.featured].n_models,
            "sat_first": f"{t['mean'].iloc[0]:.2f} [{t['lo'].iloc[0]:.2f}, {t['hi'].iloc[0]:.2f}] at n' = {t.index[0]}",
            "sat_full": float(t["mean"].iloc[-1]),
        }  # fmt: skip

    def claims(self) -> dict[str, ClaimValue]:
        """App. H.2's MAD of OLLM v2 and the Extended suite (the featured leaderboard stands in for the latter
        on a reader's data), and App. H.3's mean and 2.5–97.5% range at 50 and 100 models and on all."""
        out: dict[str, ClaimValue] = {}
        for s, h in self.halves.items():
            cid = verdicts.half_split_claim(s, self.featured)
            if cid is not None:
                out[cid] = ClaimValue(
                    h.mad, self.suites[s], f"{h.n_splits} splits of {h.half_size} + {h.half_size} models"
                )
        full, sat = self.suites[self.featured], self.saturation
        for m in (50, 100):
            if m in sat.table.index:
                for col in ("mean", "lo", "hi"):
                    ev = f"{sat.n_draws} subsets of {m} of {full.n_models} models"
                    out[f"H3.{col}.{m}"] = ClaimValue(sat.table.loc[m, col], full, ev)
        out["H3.full"] = ClaimValue(sat.table["mean"].iloc[-1], full)
        return out


def sampling_study(
    suites: Mapping[str, ScoreTable], featured: str, n_splits: int = 500, n_draws: int = 100, seed: int = 0
) -> SamplingStudy:
    """Split halves of each leaderboard's models (``n_splits`` per leaderboard of at least 6 models) and the
    saturation curve of ``featured`` over the paper's sizes below its model count and the count itself
    (``n_draws`` subsets each, App. H.3's protocol).

    Raises
    ------
    ValueError
        ``featured`` is not one of ``suites``.
    """
    if featured not in suites:
        raise ValueError(f"the featured leaderboard {featured!r} is not among {list(suites)}")
    halves = {
        s: subsampling.split_half_deff(t, n_splits=n_splits, seed=seed) for s, t in suites.items() if t.n_models >= 6
    }
    full = suites[featured]
    sizes = sorted({m for m in subsampling.PAPER_SIZES if m < full.n_models} | {full.n_models})
    sat = subsampling.saturation_curve(full, sizes=sizes, n_draws=n_draws, seed=seed)
    return SamplingStudy(dict(suites), featured, halves, sat)


# -- population controls on the frontier (App. H.28, H.38) --------------------------------------------
@dataclass(frozen=True)
class PopulationControls:
    """The frontier's d_eff under the size and family controls (App. H.28, H.38).

    Attributes
    ----------
    suite : str
        The leaderboard whose frontier this is.
    front : ScoreTable
        The frontier.
    size_column : str or None
        The metadata column read as the parameter count (None: none of :data:`SIZE_COLUMNS`).
    params : ndarray
        Each frontier model's parameter count (NaN where unknown).
    families : ScoreTable
        The best model of each family (:func:`~blindspot.diagnose.robustness.family_best`).
    controls : dict of str to (int, float)
        Models and d_eff of each control that could run, by row name (:meth:`table`).
    """

    suite: str
    front: ScoreTable
    size_column: str | None
    params: np.ndarray
    families: ScoreTable
    controls: Mapping[str, tuple[int, float]] = field(default_factory=dict)

    @property
    def known(self) -> np.ndarray:
        """Which frontier models have a known positive size."""
        return np.isfinite(self.params) & (self.params > 0)

    @property
    def size_ok(self) -> bool:
        """Whether the size control ran (at least 10 known sizes, not all equal)."""
        return RESIDUALISED in self.controls

    @property
    def families_ok(self) -> bool:
        """Whether the family control ran (some models share a family and at least 3 families remain)."""
        return FAMILIES in self.controls

    def table(self) -> pd.DataFrame:
        """One row per control (the frontier as in Table 1 first), columns ``n`` (models) and ``d_eff``."""
        return pd.DataFrame(self.controls, index=["n", "d_eff"]).T.astype({"n": int})

    def notes(self) -> list[str]:
        """Why a control is left out, one sentence each (empty when both ran)."""
        out = []
        if not self.size_ok:
            out.append(verdicts.size_control_box(self.suite, self.size_column, int(self.known.sum())))
        if not self.families_ok:
            out.append(
                "The family control needs model names that share families (organisation/first-token rule); the "
                f"{self.front.n_models} frontier models of {self.suite} form {self.families.n_models} families."
            )
        return [f":::{{important}}\n{text} That control is left out.\n:::" for text in out]

    def _d(self, row: str) -> float | None:
        return self.controls[row][1] if row in self.controls else None

    def quantities(self) -> dict[str, int | str]:
        """``n_unknown`` (frontier models of unknown size), ``deff_logp`` (d_eff residualised on log size,
        models of known size), ``deff_clip`` (the same with unknown sizes set to 0.001 B), ``n_families`` and
        ``deff_fam`` (d_eff of the best model per family); a control that did not run reads "not computed"."""
        return {
            "n_unknown": int((~self.known).sum()), "deff_logp": number_or(self._d(RESIDUALISED)),
            "deff_clip": number_or(self._d(CLIPPED)), "n_families": self.families.n_models,
            "deff_fam": number_or(self._d(FAMILIES)),
        }  # fmt: skip

    def claims(self, stand_in: bool) -> dict[str, ClaimValue]:
        """H28.log_params and H38.families; with ``stand_in`` (the synthetic suite) a control that could not run
        records the frontier's d_eff without it, saying so."""
        out: dict[str, ClaimValue] = {}
        d0 = self.controls["frontier (as in Table 1)"][1]
        if self.size_ok:
            ev = (
                f"{int((~self.known).sum())} frontier models have no known size; without them d_eff "
                f"{self._d(KNOWN_ONLY):.2f} -> {self._d(RESIDUALISED):.2f}; with the unknown sizes set to 0.001B "
                f"it is {self._d(CLIPPED):.3f}"
            )
            out["H28.log_params"] = ClaimValue(self._d(RESIDUALISED), self.front, ev)
        elif stand_in:
            ev = "no parameter-count column: the value is the frontier's d_eff without the control"
            out["H28.log_params"] = ClaimValue(d0, self.front, ev)
        if self.families_ok:
            ev = f"{self.front.n_models} frontier models -> {self.families.n_models} families"
            out["H38.families"] = ClaimValue(self._d(FAMILIES), self.families, ev)
        elif stand_in:
            ev = "the model names carry no families: the value is the frontier's d_eff without the control"
            out["H38.families"] = ClaimValue(d0, self.front, ev)
        return out


def population_controls(front: ScoreTable, suite: str) -> PopulationControls:
    """The frontier's d_eff as it is, with log parameters partialled out (App. H.28:
    :func:`~blindspot.diagnose.robustness.residualize` on the models of known size, and on all with the unknown
    sizes set to 0.001 B), and keeping the best model of each family (App. H.38).

    The size control runs with at least 10 known positive sizes of varying log; the family control when some
    models share a family and at least 3 families remain.
    """
    col = next((c for c in SIZE_COLUMNS if c in front.meta), None)
    params = pd.to_numeric(front.meta[col], errors="coerce").to_numpy(float) if col else np.full(front.n_models, np.nan)
    known = np.isfinite(params) & (params > 0)
    controls = {"frontier (as in Table 1)": (front.n_models, spectrum.d_eff(front))}
    if known.sum() >= 10 and np.log(params[known]).std() > 1e-12:
        X = front.values[known]
        controls[KNOWN_ONLY] = (int(known.sum()), spectrum.d_eff(X))
        controls[RESIDUALISED] = (int(known.sum()), spectrum.d_eff(robustness.residualize(X, np.log(params[known]))))
        clipped = np.log(np.clip(np.nan_to_num(params, nan=0.0), 1e-3, None))
        controls[CLIPPED] = (front.n_models, spectrum.d_eff(robustness.residualize(front, clipped)))
    fam = robustness.family_best(front)
    if 3 <= fam.n_models < front.n_models:
        controls[FAMILIES] = (fam.n_models, spectrum.d_eff(fam))
    return PopulationControls(suite, front, col, params, fam, controls)


# -- three suites with no shared benchmark (App. H.48) ------------------------------------------------
@dataclass(frozen=True)
class ThreeSuites:
    """d_eff of the Extended frontier's v2 and v1 halves and of LiveBench, with bootstrap intervals (App. H.48).

    Attributes
    ----------
    suites : dict of str to (str, ScoreTable)
        By key (``v2``, ``v1``, ``lb``): the suite's name on the page and its table; only those in the run.
    boots : dict of str to BootstrapDeff
        The bootstrap of each.
    """

    suites: Mapping[str, tuple[str, ScoreTable]]
    boots: Mapping[str, BootstrapDeff]

    @property
    def missing_note(self) -> str:
        """The box saying which suites are missing (empty when all three are here)."""
        if len(self.suites) == 3:
            return ""
        return ":::{important}\n" + verdicts.missing_suites_box([n for n, _ in self.suites.values()]) + "\n:::"

    def table(self) -> pd.DataFrame:
        """One row per suite (by its name on the page): ``n``, ``k``, ``d_eff``, ``95% lo``, ``95% hi``."""
        return pd.DataFrame.from_dict(
            {name: {"n": t.n_models, "k": t.n_benchmarks, "d_eff": self.boots[key].point,
                    "95% lo": self.boots[key].lo, "95% hi": self.boots[key].hi}
             for key, (name, t) in self.suites.items()},
            orient="index", columns=["n", "k", "d_eff", "95% lo", "95% hi"],
        )  # fmt: skip

    def claims(self) -> dict[str, ClaimValue]:
        """``H48.<key>``: each suite's d_eff."""
        return {f"H48.{key}": ClaimValue(self.boots[key].point, t) for key, (_, t) in self.suites.items()}


def three_suites(
    suites: Mapping[str, ScoreTable], extended_front: ScoreTable | None, n_boot: int = 500, seed: int = 0
) -> ThreeSuites:
    """App. H.48's three suites: the Extended frontier's first six (OLLM v2) and last six (OLLM v1) benchmarks,
    and LiveBench's sub-tasks on all its models, each with a percentile bootstrap of d_eff
    (:func:`~blindspot.core.spectrum.bootstrap_d_eff`, ``n_boot`` resamples, ``default_rng(seed)``).

    Parameters
    ----------
    suites : dict of str to ScoreTable
        The run's leaderboards (``extended`` and ``livebench`` are used when present).
    extended_front : ScoreTable or None
        The Extended suite's frontier (None without the Extended suite).
    """
    three: dict[str, tuple[str, ScoreTable]] = {}
    if "extended" in suites and extended_front is not None:
        names = suites["extended"].benchmarks
        three["v2"] = ("v2-6 on the Extended frontier", extended_front.columns(names[:6]))
        three["v1"] = ("v1-6 on the Extended frontier", extended_front.columns(names[6:]))
    if "livebench" in suites:
        three["lb"] = ("LiveBench-7 (all models)", suites["livebench"])
    boots = {key: spectrum.bootstrap_d_eff(t, n_boot=n_boot, seed=seed) for key, (_, t) in three.items()}
    return ThreeSuites(three, boots)


# -- the Epoch AI cross-domain matrix and what imputation does (App. H.50) ---------------------------
#: The box shown when the run has no sparse Epoch matrix.
EPOCH_MISSING = (
    ":::{important}\nThis section needs the paper's sparse Epoch AI merge (many benchmarks, most cells missing); "
    "a dense leaderboard of your own has nothing to impute, so it is left out.\n:::"
)


@dataclass(frozen=True)
class EpochImputation:
    """The paper's cross-domain Epoch matrix (App. H.50), or its absence.

    Attributes
    ----------
    epoch : ScoreTable or None
        The sparse Epoch AI merge (None when the run does not have it).
    imputed : ImputedMatrix or None
        Its mean-imputed submatrix (:func:`~blindspot.diagnose.robustness.imputed_submatrix`, 30 and 10).
    """

    epoch: ScoreTable | None
    imputed: robustness.ImputedMatrix | None

    def table(self) -> pd.DataFrame:
        """Rows ``all models (mean-imputed)``, ``frontier by raw mean (paper)`` (mean score at least its
        median) and ``frontier by mean z-score (constant columns dropped)``; columns ``n``, ``k``, ``d_eff``.

        Raises
        ------
        ValueError
            Without the Epoch matrix.
        """
        if self.imputed is None:
            raise ValueError("no Epoch matrix in this run: nothing to tabulate")
        E = self.imputed.scores.to_numpy()
        z_front = conventions.aggregate(E) >= np.median(conventions.aggregate(E))
        raw_front = conventions.frontier_mask(E, 0.5)
        Ez = E[z_front]
        varies = Ez.std(axis=0) > 1e-12  # a column can be constant on a slice: all its cells there imputed
        rows = {
            "all models (mean-imputed)": (E.shape[0], E.shape[1], spectrum.d_eff(E)),
            "frontier by raw mean (paper)": (int(raw_front.sum()), E.shape[1], spectrum.d_eff(E[raw_front])),
            "frontier by mean z-score (constant columns dropped)": (
                int(z_front.sum()), int(varies.sum()), spectrum.d_eff(Ez[:, varies])),
        }  # fmt: skip
        return pd.DataFrame(rows, index=["n", "k", "d_eff"]).T.astype({"n": int, "k": int})

    @property
    def missing_note(self) -> str:
        """The box saying the section is left out (:data:`EPOCH_MISSING`) without the Epoch matrix; empty with it."""
        return EPOCH_MISSING if self.imputed is None else ""

    def share(self, default: float = 0.6) -> float:
        """The imputed share of the cells (``default`` without the Epoch matrix)."""
        return default if self.imputed is None else self.imputed.imputed_fraction

    def figure(self) -> Figure:
        """The observed (dark) and imputed (light) cells, or a panel saying why there is none."""
        if self.imputed is None:
            return figures.not_computed("needs the paper's sparse Epoch AI matrix")
        return figures.observed_mask(self.imputed.observed)

    def largest_scales(self) -> pd.Series:
        """The imputed matrix's column means, largest first."""
        return self.imputed.scores.mean().sort_values(ascending=False) if self.imputed is not None else pd.Series()

    def quantities(self) -> dict[str, str]:
        """``n``, ``k``, ``missing`` (% of the merge's cells empty), ``shape`` ("49 × 31"), ``imputed`` (% of
        its cells imputed), ``min_obs``/``max_obs`` (observed scores per model), ``complete`` (models with all),
        ``top_scale`` (the two columns of largest mean); each "not computed" without the Epoch matrix."""
        keys = ("n", "k", "missing", "shape", "imputed", "min_obs", "max_obs", "complete", "top_scale")
        if self.epoch is None or self.imputed is None:
            return dict.fromkeys(keys, NOT_COMPUTED)
        e, im, s = self.epoch, self.imputed, self.largest_scales()
        values = (
            str(e.n_models), str(e.n_benchmarks), f"{100 * e.missing_fraction:.0f}", f"{im.shape[0]} × {im.shape[1]}",
            f"{100 * im.imputed_fraction:.0f}", str(im.min_observed_per_model), str(im.max_observed_per_model),
            str(im.complete_rows()), f"{s.index[0]} (mean {s.iloc[0]:.0f}) and {s.index[1]} (mean {s.iloc[1]:.0f})",
        )  # fmt: skip
        return dict(zip(keys, values))

    def claims(self, inflation: InflationStudy) -> dict[str, ClaimValue]:
        """H50.epoch and H50.epoch_frontier (the whole matrix's and the raw-mean frontier's d_eff), with the
        imputed share and what imputation alone does on ``inflation``'s first table; empty without Epoch."""
        if self.epoch is None or self.imputed is None:
            return {}
        im, ep, s = self.imputed, self.table(), self.largest_scales()
        ev = (
            f"{im.shape[0]} x {im.shape[1]} with {100 * im.imputed_fraction:.0f}% of cells mean-imputed "
            f"(rule: {im.rule}); {im.complete_rows()} complete rows; mean imputation alone moves the "
            f"{inflation.suite} suite's d_eff from {inflation.before:.2f} to {inflation.after:.2f}"
        )
        front_ev = (
            f"; the raw-mean frontier (n = {int(ep.iloc[1]['n'])}) is set by the large-scale columns "
            f"({s.index[0]}, {s.index[1]})"
        )
        return {
            "H50.epoch": ClaimValue(ep.iloc[0]["d_eff"], self.epoch, ev),
            "H50.epoch_frontier": ClaimValue(ep.iloc[1]["d_eff"], self.epoch, ev + front_ev),
        }


def epoch_imputation(epoch: ScoreTable | None) -> EpochImputation:
    """App. H.50's matrix of the Epoch merge: benchmarks observed for at least 30 models, then models observed
    on at least 10 of them, gaps filled with the column mean (None: the run has no Epoch matrix)."""
    if epoch is None:
        return EpochImputation(None, None)
    return EpochImputation(epoch, robustness.imputed_submatrix(epoch, min_benchmark_obs=30, min_model_obs=10))


@dataclass(frozen=True)
class InflationStudy:
    """d_eff of dense leaderboards before and after hiding a share of their cells and mean-imputing them.

    Attributes
    ----------
    suite : str
        The leaderboard (named in the evidence).
    tables : dict of str to ScoreTable
        The dense tables, by name (the first is the whole leaderboard).
    share : float
        The share of cells hidden and imputed.
    imputed : dict of str to ndarray
        d_eff of each imputed copy (:func:`~blindspot.diagnose.robustness.imputation_inflation`).
    """

    suite: str
    tables: Mapping[str, ScoreTable]
    share: float
    imputed: Mapping[str, np.ndarray]

    def table(self) -> pd.DataFrame:
        """One row per table: ``d_eff (complete)`` and ``d_eff after mean imputation (mean of reps)``."""
        return pd.DataFrame(
            {name: {"d_eff (complete)": spectrum.d_eff(t),
                    "d_eff after mean imputation (mean of reps)": float(self.imputed[name].mean())}
             for name, t in self.tables.items()}
        ).T  # fmt: skip

    @property
    def before(self) -> float:
        """d_eff of the first table, complete."""
        return float(spectrum.d_eff(next(iter(self.tables.values()))))

    @property
    def after(self) -> float:
        """d_eff of the first table after imputation (mean of the repetitions)."""
        return float(next(iter(self.imputed.values())).mean())

    def quantities(self) -> dict[str, float]:
        """``share`` (percent of cells imputed), ``before`` and ``after`` (the first table's d_eff)."""
        return {"share": 100 * self.share, "before": self.before, "after": self.after}


def inflation_study(
    suite: str, tables: Mapping[str, ScoreTable], share: float, reps: int = 20, seed: int = 0
) -> InflationStudy:
    """Hide a random ``share`` of each dense table's cells, fill them with column means, and recompute d_eff,
    ``reps`` times (:func:`~blindspot.diagnose.robustness.imputation_inflation`, one ``default_rng(seed)`` each).

    Raises
    ------
    ValueError
        No table.
    """
    if not tables:
        raise ValueError("no table to impute")
    imputed = {name: robustness.imputation_inflation(t, share, reps=reps, seed=seed) for name, t in tables.items()}
    return InflationStudy(suite, dict(tables), share, imputed)
