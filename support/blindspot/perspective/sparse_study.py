"""A sparse leaderboard completed before its dimension is measured, as results that show themselves (App. H.50).

The chapter on sparse leaderboards runs three steps, each a function returning a frozen result with its
tables, figures and sentences:

* :func:`hub_completion` — the completable sub-matrix of a sparse leaderboard
  (:func:`~blindspot.perspective.sparse.completable`, bounds 5 and 10), its repeated 5-fold masked-cell
  cross-validation against the per-benchmark mean and the additive model
  (:func:`~blindspot.perspective.sparse.masked_cv`), its completion, and d_eff and greedy r90 of the completed
  matrix and of its frontier with intervals (:func:`~blindspot.perspective.sparse.completed_spectrum`);
* :func:`rule_block` — the paper's block (benchmarks observed for at least 30 models, then models observed on
  at least 10 of them), filled two ways: column means (the paper) and low-rank completion of the same cells;
* :func:`imputation_calibration` — synthetic truths observed through each real pattern of holes and filled both
  ways (:func:`~blindspot.perspective.sparse.calibrate_imputation`).

:class:`SparseStudy` holds the three and gives what needs all of them: the figure of every estimate, the
summary, the values the ledger records (``claims()``) and the closing sentences.

References
----------
The paper's App. H.50; Mazumder, Hastie & Tibshirani (2010), *Spectral regularization algorithms for
learning large incomplete matrices*, JMLR 11 (Soft-Impute).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from blindspot.core import conventions, spectrum, theme
from blindspot.core.claim_value import ClaimValue
from blindspot.data.tables import ScoreTable
from blindspot.perspective import figures, sparse, verdicts

__all__ = [
    "STATUS_CLAIMS",
    "shape_table",
    "your_board_note",
    "HubCompletion",
    "hub_completion",
    "RuleBlock",
    "rule_block",
    "ImputationCalibration",
    "imputation_calibration",
    "SparseStudy",
]

#: The claims whose status the chapter's prose names, by the name it glues them under.
STATUS_CLAIMS = {
    "mean_imputed": "H50.epoch.mean_imputed",
    "same_cells": "H50.epoch.lrmc_same_cells",
    "hub": "H50.epoch.lrmc_hub",
}
_NOT_COMPUTED = ":::{important}\n**Not computed:** there is no completable matrix (above).\n:::"
_METHOD_NAMES = {"lrmc": "LRMC", "mean": "per-benchmark mean", "twoway": "model + benchmark"}


def shape_table(tables: Sequence[ScoreTable]) -> pd.DataFrame:
    """One row per table: ``models``, ``benchmarks``, ``missing`` (the share of empty cells, as a percentage)."""
    return pd.DataFrame(
        {t.name: {"models": t.n_models, "benchmarks": t.n_benchmarks, "missing": f"{t.missing_fraction:.1%}"}
         for t in tables}
    ).T  # fmt: skip


def your_board_note(table: ScoreTable) -> str:
    """The box of a reader's run: both steps work on their file, and the Epoch numbers are not applicable."""
    return (
        ":::{important}\n**Your leaderboard.** On the paper's data this chapter completes Epoch's hub export and "
        f"recomputes the paper's block from the paper's merged file. Here both steps work on {table.name} "
        f"({table.n_models} models x {table.n_benchmarks} benchmarks, {table.missing_fraction:.1%} of cells "
        "missing); the numbers about Epoch are shown in the ledger as not applicable, with yours beside them.\n:::"
    )


# -- the completable matrix, its cross-validation and its spectrum ---------------------------------------
@dataclass(frozen=True)
class HubCompletion:
    """A sparse leaderboard's completable matrix, completed and cross-validated, with its spectrum.

    Attributes
    ----------
    board : ScoreTable
        The sparse leaderboard.
    completable : Completable or None
        Its completable sub-matrix (None when fewer than 3 models or 2 benchmarks meet the bounds).
    reason : str
        Why there is nothing to complete (empty otherwise).
    scale : ColumnScale or None
        The columns' common scale (z-scores, after a log10 for right-skewed positive columns).
    cv : MaskedCV or None
        The masked-cell cross-validation.
    completion : Completion or None
        The completion of every observed cell.
    spec_all, spec_front : CompletedSpectrum or None
        d_eff and r90 of the completed matrix, and of its frontier (mean z-score at least the median).
    """

    board: ScoreTable
    completable: sparse.Completable | None
    reason: str = ""
    scale: sparse.ColumnScale | None = None
    cv: sparse.MaskedCV | None = None
    completion: sparse.Completion | None = None
    spec_all: sparse.CompletedSpectrum | None = None
    spec_front: sparse.CompletedSpectrum | None = None

    def completable_note(self) -> str:
        """What the completable matrix keeps and how its columns are scaled, or why there is none."""
        if self.completable is None:
            return (
                f":::{{important}}\n**Nothing to complete.** {self.board.name}: {self.reason}. The completion, its "
                "cross-validation and its spectrum are skipped; the paper's rule below may still apply.\n:::"
            )
        log_cols = [c for c, f in zip(self.scale.columns, self.scale.log) if f]
        return verdicts.completion_text(self.board, self.completable, log_cols)

    def cv_table(self) -> pd.DataFrame | None:
        """Rows ``LRMC``, ``per-benchmark mean``, ``model + benchmark``; columns ``MAE (z units)`` (cross-validated)
        and ``vs per-benchmark mean`` (its ratio to the mean's). None without a completable matrix."""
        if self.cv is None:
            return None
        t = pd.DataFrame({"MAE (z units)": self.cv.mae}).rename(index=_METHOD_NAMES)
        t["vs per-benchmark mean"] = t["MAE (z units)"] / self.cv.mae["mean"]
        return t

    def cv_note(self) -> str:
        """The cross-validation in words (:func:`~blindspot.perspective.verdicts.cv_text`)."""
        return _NOT_COMPUTED if self.cv is None else verdicts.cv_text(self.cv, self.completable.shape[1])

    def cv_figure(self) -> Figure:
        """Cross-validated error per benchmark of each method."""
        if self.cv is None:
            return theme.not_drawn("nothing to complete on this leaderboard")
        return figures.cv_by_benchmark(self.cv)

    def per_benchmark(self, head: int = 12) -> pd.DataFrame | None:
        """The ``head`` most observed benchmarks' rows of the cross-validation (:class:`~blindspot.perspective.
        sparse.MaskedCV`'s ``per_benchmark``); None without a completable matrix."""
        return None if self.cv is None else self.cv.per_benchmark.sort_values("n", ascending=False).head(head)

    def spectrum_table(self) -> pd.DataFrame | None:
        """Rows ``all models`` and ``frontier (mean z >= median)``; the columns of
        :meth:`~blindspot.perspective.sparse.CompletedSpectrum.row`. None without a completable matrix."""
        if self.spec_all is None:
            return None
        rows = {"all models": self.spec_all.row(), "frontier (mean z >= median)": self.spec_front.row()}
        return pd.DataFrame(rows).T

    def spectrum_note(self) -> str:
        """The two sources of uncertainty of the completed d_eff, and what they give."""
        if self.spec_all is None:
            return _NOT_COMPUTED
        a, f = self.spec_all, self.spec_front
        return (
            "Two sources of uncertainty are combined. **Repeated completions:** the "
            f"{self.cv.fold_filled.shape[0]} cross-validation completions each use the observed cells outside one "
            "fold; a delete-a-group jackknife over these folds gives the standard error due to *which cells happen "
            f"to be observed* ({a.se_cells:.2f}). **Models:** a bootstrap over the rows of the completed matrix "
            f"gives the error due to *which models happen to be on the board* ({a.se_models:.2f}). Together: "
            f"$\\deff$ = {a.d_eff:.2f} [{a.lo:.2f}, {a.hi:.2f}] over all {a.n} models and {f.d_eff:.2f} "
            f"[{f.lo:.2f}, {f.hi:.2f}] on the frontier; greedy selection reaches 90% coverage with {a.r90} of {a.k} "
            f"benchmarks (bootstrap 95%: {a.r90_lo} to {a.r90_hi}). The frontier here is the upper half by mean "
            "z-score: a raw mean would be decided by the columns on the largest scales."
        )


def hub_completion(
    board: ScoreTable, n_repeats: int = 2, n_boot: int = 500, lrmc: Mapping | None = None, seed: int = 0
) -> HubCompletion:
    """Complete ``board``'s completable matrix (models with at least 5 observed benchmarks among those with at
    least 10 observed models): the 5-fold masked-cell cross-validation repeated ``n_repeats`` times (1000
    bootstrap resamples of its ratio), the completion of every observed cell, and d_eff and r90 of the
    completion and of its frontier (``n_boot`` resamples of the models), all with ``seed``."""
    try:
        comp_set = sparse.completable(board, min_model_obs=5, min_benchmark_obs=10)
    except ValueError as exc:  # fewer than 3 models or 2 benchmarks meet the bounds
        return HubCompletion(board, None, str(exc))
    scale = sparse.column_scale(comp_set.scores)
    cv = sparse.masked_cv(
        comp_set.scores, n_folds=5, n_repeats=n_repeats, seed=seed, scale=scale, n_boot=1000, lrmc=lrmc
    )
    comp = sparse.complete(comp_set.scores, scale=scale, seed=seed, lrmc=lrmc)
    spec_all = sparse.completed_spectrum(comp, cv, n_boot=n_boot, seed=seed)
    spec_front = sparse.completed_spectrum(comp, cv, n_boot=n_boot, seed=seed, frontier=True)
    return HubCompletion(board, comp_set, "", scale, cv, comp, spec_all, spec_front)


# -- the paper's block, filled two ways ----------------------------------------------------------------
@dataclass(frozen=True)
class RuleBlock:
    """The paper's block of a sparse table (App. H.50), mean-imputed and completed.

    Attributes
    ----------
    table : ScoreTable
        The sparse table the rule was applied to.
    imputed : ImputedMatrix or None
        The block with its observed mask (None when the rule keeps too little of the table).
    reason : str
        Why the rule does not apply (empty otherwise).
    front_raw : ndarray of bool or None
        The block's frontier by raw mean score (at least the median, the paper's).
    completion : Completion or None
        The same observed cells completed.
    cv : MaskedCV or None
        The cross-validation of that completion.
    spec : CompletedSpectrum or None
        d_eff and r90 of the completed block.
    """

    table: ScoreTable
    imputed: object | None
    reason: str = ""
    front_raw: np.ndarray | None = None
    completion: sparse.Completion | None = None
    cv: sparse.MaskedCV | None = None
    spec: sparse.CompletedSpectrum | None = None

    @property
    def n_front(self) -> int:
        """Models of the raw-mean frontier (0 without the block)."""
        return 0 if self.front_raw is None else int(self.front_raw.sum())

    @property
    def front_ok(self) -> bool:
        """Whether the frontier has the three models a correlation matrix needs."""
        return self.n_front >= 3

    def comparison(self) -> pd.DataFrame | None:
        """Rows ``mean imputation (paper)`` and ``LRMC completion``; columns ``d_eff all``, ``d_eff frontier``
        (NaN when the frontier has fewer than 3 models) and ``r90``. None without the block."""
        if self.imputed is None:
            return None
        scores = self.imputed.scores
        rows = {
            "mean imputation (paper)": {
                "d_eff all": spectrum.d_eff(scores),
                "d_eff frontier": spectrum.d_eff(scores[self.front_raw]) if self.front_ok else np.nan,
                "r90": sparse.deff_r90_stack(scores.to_numpy())[1][0],
            },
            "LRMC completion": {
                "d_eff all": self.spec.d_eff,
                "d_eff frontier": spectrum.d_eff(self.completion.filled_z[self.front_raw]) if self.front_ok else np.nan,
                "r90": self.spec.r90,
            },
        }
        return pd.DataFrame(rows).T

    @property
    def mean_imputed(self) -> float | None:
        """d_eff of the mean-imputed block (None without it)."""
        return None if self.imputed is None else float(self.comparison().iloc[0, 0])

    def note(self) -> str:
        """Mean imputation against completion on the block (:func:`~blindspot.perspective.verdicts.block_text`),
        or why the rule does not apply."""
        if self.imputed is None:
            return (
                f":::{{important}}\n**The paper's rule does not apply to {self.table.name}:** {self.reason}. The rule "
                "needs at least 10 benchmarks observed for 30 models or more; the comparison of mean imputation with "
                "completion on the rule's block, and its calibration, are skipped.\n:::"
            )
        return verdicts.block_text(self.imputed, self.comparison(), self.n_front, self.spec, self.cv)


def rule_block(
    table: ScoreTable,
    imputed: object | None,
    reason: str = "",
    n_repeats: int = 2,
    n_boot: int = 500,
    lrmc: Mapping | None = None,
    seed: int = 0,
) -> RuleBlock:
    """Complete the observed cells of the paper's block as well as mean-imputing them.

    Parameters
    ----------
    table : ScoreTable
        The sparse table.
    imputed : ImputedMatrix or None
        The block (``blindspot.diagnose.robustness.imputed_submatrix(table, 30, 10)``: its ``scores`` mean-imputed
        and its ``observed`` mask); None when the rule keeps too little.
    reason : str
        Why there is no block (when ``imputed`` is None).
    n_repeats, n_boot, lrmc, seed
        As :func:`hub_completion`.
    """
    if imputed is None:
        return RuleBlock(table, None, reason or "no block")
    front_raw = conventions.frontier_mask(imputed.scores, 0.5)  # the paper's frontier: raw mean >= median
    block = imputed.scores.where(imputed.observed)
    comp = sparse.complete(block, seed=seed, lrmc=lrmc)
    cv = sparse.masked_cv(block, n_folds=5, n_repeats=n_repeats, seed=seed, n_boot=1000, lrmc=lrmc)
    spec = sparse.completed_spectrum(comp, cv, n_boot=n_boot, seed=seed)
    return RuleBlock(table, imputed, "", front_raw, comp, cv, spec)


# -- the calibration on the real patterns of holes ----------------------------------------------------
_CAL_COLUMNS = ["d_eff_true", "d_eff_mean", "d_eff_lrmc", "r90_true", "r90_mean", "r90_lrmc"]


@dataclass(frozen=True)
class ImputationCalibration:
    """Synthetic truths observed through the real patterns of holes, filled both ways.

    Attributes
    ----------
    block, hub : DataFrame or None
        :func:`~blindspot.perspective.sparse.calibrate_imputation` on the paper's block's pattern and on the
        completable pattern (None where the pattern is absent or has no hole).
    """

    block: pd.DataFrame | None
    hub: pd.DataFrame | None

    def patterns(self) -> dict[str, pd.DataFrame]:
        """The calibrations that ran, by the name of their pattern."""
        named = (("the paper's rule's pattern", self.block), ("the completable pattern", self.hub))
        return {name: cal for name, cal in named if cal is not None}

    def table(self) -> pd.DataFrame | None:
        """Per pattern and tau, the mean of ``d_eff_true``, ``d_eff_mean``, ``d_eff_lrmc``, ``r90_true``,
        ``r90_mean``, ``r90_lrmc`` over the masks; None when no pattern has a hole."""
        cals = self.patterns()
        return pd.concat({k: c.groupby("tau").mean()[_CAL_COLUMNS] for k, c in cals.items()}) if cals else None

    def bias(self, estimate: str = "mean") -> float:
        """Mean signed error of the ``estimate`` (``mean`` or ``lrmc``) of d_eff on the block's pattern."""
        return float((self.block[f"d_eff_{estimate}"] - self.block.d_eff_true).mean())


def imputation_calibration(
    hub: HubCompletion,
    rule: RuleBlock,
    taus: Sequence[float],
    reps: int,
    hub_taus: Sequence[float],
    lrmc: Mapping | None = None,
    seed: int = 0,
) -> ImputationCalibration:
    """Calibrate mean imputation and completion on the block's pattern (``taus``, ``reps`` masks each) and on the
    completable pattern (``hub_taus``, one mask each); a pattern without holes has nothing to calibrate."""
    cal_block = cal_hub = None
    if rule.imputed is not None and rule.imputed.imputed_fraction > 0:
        cal_block = sparse.calibrate_imputation(rule.imputed.observed, taus=taus, reps=reps, seed=seed, lrmc=lrmc)
    if hub.completable is not None and hub.completable.observed_fraction < 1:
        cal_hub = sparse.calibrate_imputation(hub.completable.observed, taus=hub_taus, reps=1, seed=seed, lrmc=lrmc)
    return ImputationCalibration(cal_block, cal_hub)


# -- the three together ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SparseStudy:
    """The completion of a sparse leaderboard, the paper's block and the calibration, read together.

    Attributes
    ----------
    hub : HubCompletion
    rule : RuleBlock
    calibration : ImputationCalibration
    """

    hub: HubCompletion
    rule: RuleBlock
    calibration: ImputationCalibration

    def calibration_figure(self) -> Figure:
        """Estimated against true d_eff per pattern, with the real data's estimates as lines."""
        cals, marks = self.calibration.patterns(), {}
        if self.calibration.block is not None:
            marks["the paper's rule's pattern"] = {
                "mean-imputed": self.rule.mean_imputed,
                "LRMC, same cells": self.rule.spec.d_eff,
            }
        if self.calibration.hub is not None:
            marks["the completable pattern"] = {"LRMC": self.hub.spec_all.d_eff}
        if not cals:
            return theme.not_drawn("no pattern of holes to calibrate on this leaderboard")
        return figures.calibration(cals, marks)

    def calibration_note(self) -> str:
        """What the calibrations say (:func:`~blindspot.perspective.verdicts.calibration_text`), or why none ran."""
        if not self.calibration.patterns():
            return (
                ":::{important}\n**Nothing to calibrate.** Neither pattern has a missing cell (or neither could be "
                "built), so mean imputation and completion fill nothing and agree by construction.\n:::"
            )
        cal_block, mean_imputed = self.calibration.block, self.rule.mean_imputed
        implied = None if cal_block is None else sparse.invert_calibration(cal_block, mean_imputed, "d_eff_mean")
        return verdicts.calibration_text(cal_block, self.calibration.hub, mean_imputed, implied)

    def deff_figure(self, paper: Mapping[str, float]) -> Figure:
        """d_eff of the completed matrices with their intervals, the mean-imputed block, and ``paper``'s lines."""
        completed, imputed, hub, rule = {}, {}, self.hub, self.rule
        if hub.spec_all is not None:
            completed[f"{hub.board.name}, all {hub.spec_all.n} models (LRMC)"] = hub.spec_all
            completed[f"{hub.board.name}, frontier {hub.spec_front.n} (LRMC)"] = hub.spec_front
        if rule.imputed is not None:
            completed[f"paper's rule, {rule.imputed.shape[0]} × {rule.imputed.shape[1]} block (LRMC)"] = rule.spec
            imputed["paper's rule, block, mean-imputed"] = rule.mean_imputed
            if rule.front_ok:
                imputed["paper's rule, block frontier, mean-imputed"] = float(rule.comparison().iloc[0, 1])
        if not completed:
            return theme.not_drawn("no completed or imputed matrix on this leaderboard")
        return figures.deff_estimates(completed, imputed, paper)

    def summary(self, paper_all: float | None) -> str:
        """The findings as Markdown bullets (:func:`~blindspot.perspective.verdicts.summary_bullets`)."""
        block = None if self.rule.imputed is None else (self.rule.mean_imputed, self.rule.spec.d_eff)
        bullets = verdicts.summary_bullets(
            self.hub.board.name, self.hub.cv, self.hub.spec_all, paper_all, block, self.calibration.block
        )
        if not bullets:
            return (
                ":::{important}\n**No result:** neither the completion nor the paper's rule applies to this file.\n:::"
            )
        return "\n".join(f"- {b}" for b in bullets)

    def claims(self, hub_synthetic: bool = False) -> dict[str, ClaimValue]:
        """The block's mean-imputed d_eff (all, frontier) and its completion; the completable matrix's completed
        d_eff (all, frontier). ``hub_synthetic``: the completion ran on a synthetic stand-in of the hub, which
        joins the tables so that the ledger marks them "not reproducible here"."""
        out = self._rule_claims()
        hub, table = self.hub, self.rule.table
        if hub.completable is None:
            return out
        basis = [table] + ([hub.board] if hub_synthetic else [])
        a, f, cv, c = hub.spec_all, hub.spec_front, hub.cv, hub.completable
        ev = (
            f"completable {c.shape[0]} x {c.shape[1]} ({100 * c.observed_fraction:.0f}% observed; rule: {c.rule}); "
            f"LRMC CV MAE {cv.mae['lrmc']:.3f} vs per-benchmark mean {cv.mae['mean']:.3f} z (ratio {cv.ratio:.2f} "
            f"[{cv.ratio_lo:.2f}, {cv.ratio_hi:.2f}]); interval = jackknife over {cv.fold_filled.shape[0]} fold "
            "completions + bootstrap over models"
        )
        out["H50.epoch.lrmc_hub"] = ClaimValue(
            a.d_eff, basis, ev + f"; d_eff {a.d_eff:.2f} [{a.lo:.2f}, {a.hi:.2f}], r90 = {a.r90}",
            f"{hub.board.name}, {a.n} x {a.k}",
        )  # fmt: skip
        out["H50.epoch_frontier.lrmc_hub"] = ClaimValue(
            f.d_eff, basis, ev + f"; d_eff {f.d_eff:.2f} [{f.lo:.2f}, {f.hi:.2f}]",
            f"{hub.board.name}, frontier {f.n} x {f.k} (mean z >= median)",
        )  # fmt: skip
        return out

    def _rule_claims(self) -> dict[str, ClaimValue]:
        rule, table = self.rule, self.rule.table
        if rule.imputed is None:
            return {}
        im, same, spec = rule.imputed, rule.comparison(), rule.spec
        where = f"{table.name}: the paper's rule's {im.shape[0]} x {im.shape[1]} block"
        out = {"H50.epoch.mean_imputed": ClaimValue(float(same.iloc[0, 0]), table, dataset=where)}
        if rule.front_ok:
            front_where = f"{where}, frontier n = {rule.n_front} (raw mean)"
            out["H50.epoch_frontier.mean_imputed"] = ClaimValue(float(same.iloc[0, 1]), table, dataset=front_where)
        ev = (
            f"{100 * im.imputed_fraction:.0f}% of the block imputed; the same observed cells LRMC-completed give "
            f"{spec.d_eff:.2f} [{spec.lo:.2f}, {spec.hi:.2f}] (CV MAE ratio to column means {rule.cv.ratio:.2f})"
        )
        if self.calibration.block is not None:
            ev += (
                "; on synthetic truths observed through this pattern mean imputation misstates d_eff by "
                f"{self.calibration.bias('mean'):+.1f} on average, LRMC by {self.calibration.bias('lrmc'):+.1f}"
            )
        out["H50.epoch.lrmc_same_cells"] = ClaimValue(spec.d_eff, table, ev, f"{where}, same observed cells")
        return out

    def closing(self, paper_all: float, paper_front: float, mean_imputed_status: str | None, on_your_data: bool) -> str:
        """The closing sentences: how the paper's arithmetic came out (``mean_imputed_status``, on the paper's data),
        whether the completion's intervals exclude the paper's values, and the gap against the calibrated bias."""
        out = []
        if mean_imputed_status is not None and not on_your_data:
            out.append(f"The paper's arithmetic, mean imputation of its block, comes out {mean_imputed_status}.")
        if self.hub.completable is not None and not on_your_data:
            block_spec = self.rule.spec if self.rule.imputed is not None else None
            excl = verdicts.intervals_exclude(
                paper_all, paper_front, self.hub.spec_all, self.hub.spec_front, block_spec
            )
            out.append(verdicts.exclusion_text(excl, paper_all, paper_front))
        if self.calibration.block is not None:
            gap = self.rule.mean_imputed - self.rule.spec.d_eff
            out.append(
                f"The gap between the mean-imputed and the completed block is {gap:.1f}, against a calibrated bias of "
                f"mean imputation of {self.calibration.bias('mean'):+.1f}."
            )
        return " ".join(out)
