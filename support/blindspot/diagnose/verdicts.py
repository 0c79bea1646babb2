"""What the chapters of Part I conclude from their results, decided here and tested, never in a notebook.

Each function takes computed results (tables, spectra, curves) and returns either a
:class:`~blindspot.core.verdict.Verdict` (does a statement of the paper hold, with the evidence that
decided it, for the chapter's ledger) or the words a chapter glues into a sentence. The comparisons,
thresholds and counts behind those words live here, next to their tests
(``tests/diagnose/test_verdicts.py``).

References
----------
The paper's §3 (Theorem 1, Table 1) and App. B, H.1–H.3, H.6, H.16, H.28, H.34, H.44, H.48; the chapters
of Part I of the book.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.spectrum import MPCorrection
from blindspot.core.verdict import NOT_COMPUTED, STATISTICAL, StatTest, Verdict, judge, listing
from blindspot.diagnose.ambient_dimension import SwapCV
from blindspot.diagnose.robustness import StepChanges, ThresholdCurve

__all__ = [
    "monotone_by_steps",
    "gaps_within",
    "crossing_in_band",
    "frontier_exceeds_full_by_test",
    "interval_contains",
    "frontier_exceeds_full",
    "few_directions",
    "deff_mp_text",
    "signal_counts_agree",
    "mp_signal_count",
    "frontier_rise_survives",
    "mp_robust",
    "capture_bound_counterexample",
    "concentration_bound_holds",
    "cv_corner_text",
    "cv_corner_evidence",
    "d_range_evidence",
    "same_range_text",
    "decrease_steps",
    "value_at",
    "within_band",
    "band_word",
    "curve_evidence",
    "monotone_up_to",
    "MethodGaps",
    "method_gaps",
    "below_word",
    "methods_within",
    "pearson_spearman_within",
    "size_control_box",
    "missing_suites_box",
    "half_split_claim",
    "NullComparison",
    "compare_to_null",
    "null_calibration_words",
    "deff_counts_directions",
]


# -- effective dimensionality (Theorem 1, Table 1) -------------------------------------------------
def interval_contains(estimate: float, lo: float, hi: float) -> str:
    """'contains' when ``lo <= estimate <= hi`` (a percentile interval need not), else 'does not contain'."""
    return "contains" if lo <= estimate <= hi else "does not contain"


def frontier_exceeds_full_by_test(steps: Mapping[str, StepChanges]) -> Verdict:
    """Theorem 1's frontier statement judged on intervals: d_eff(frontier) - d_eff(all) > 0 on every suite.

    ``steps`` holds, per suite, :func:`~blindspot.diagnose.robustness.step_changes` of the curve at
    q = 0 and 0.5 (one step: frontier minus all models, a paired bootstrap), each at level
    ``1 - 0.05 / s`` for the s suites. The statement holds when every interval lies above 0, fails when
    some interval lies at or below 0, and is otherwise not resolved at 95%
    (:func:`~blindspot.core.verdict.judge`).

    Parameters
    ----------
    steps : mapping
        {suite: its one-step StepChanges}.

    Returns
    -------
    Verdict
        Statistical; its test is the suite with the smallest gap.
    """
    rows = {s: st.table.iloc[0] for s, st in steps.items()}
    n_boot = next(iter(steps.values())).n_boot
    name = f"paired bootstrap of d_eff(frontier) - d_eff(all) ({n_boot} resamples), Bonferroni over {len(rows)} suites"
    tests = {s: StatTest(name, float(r.change), (float(r.lo), float(r.hi))) for s, r in rows.items()}
    calls = [judge(t, ">", 0.0) for t in tests.values()]
    holds: bool | None = False if False in calls else (True if all(calls) else None)
    worst = min(rows, key=lambda s: rows[s].change)
    return Verdict(
        holds,
        "frontier minus all models: "
        + ", ".join(f"{s} {r.change:+.2f} [{r.lo:+.2f}, {r.hi:+.2f}]" for s, r in rows.items()),
        basis=STATISTICAL,
        test=tests[worst],
    )


def frontier_exceeds_full(table: pd.DataFrame, suites: Iterable[str]) -> Verdict:
    """Theorem 1's frontier statement: d_eff of the frontier exceeds that of all models, on every suite.

    Parameters
    ----------
    table : DataFrame
        :func:`blindspot.diagnose.tables.deff_table`, indexed by (suite, slice) with a ``d_eff`` column.
    suites : iterable of str
        The suites to judge.

    Returns
    -------
    Verdict
        Holds when every gap (frontier minus all models) is positive; the evidence lists the gaps.
    """
    gaps = {s: table.loc[(s, "frontier")].d_eff - table.loc[(s, "full")].d_eff for s in suites}
    return Verdict(
        all(g > 0 for g in gaps.values()),
        "frontier minus all models: " + ", ".join(f"{s} {g:+.2f}" for s, g in gaps.items()),
    )


def few_directions(d_eff: float, k: int, share: float = 0.5) -> Verdict:
    """A leaderboard measures 'a handful of directions': d_eff below ``share`` of its k benchmarks.

    The example statement of the chapter template (``book/templates/chapter.md``).
    """
    return Verdict(d_eff < share * k, f"d_eff {d_eff:.2f} of {k} benchmarks")


# -- the Marchenko–Pastur correction (Theorem 1(c), App. H.1) -----------------------------------
def deff_mp_text(mp: MPCorrection) -> str:
    """d_eff^MP to two decimals, or 'undefined' when no eigenvalue exceeds the edge."""
    return f"{mp.d_eff_mp:.2f}" if mp.defined else "undefined"


def signal_counts_agree(
    mp: Mapping[tuple[str, str], MPCorrection], perm: Mapping[tuple[str, str], object]
) -> list[str]:
    """The slices ("suite slice") on which the MP edge and the permutation null count the same signal eigenvalues.

    ``perm`` maps the same keys to :class:`~blindspot.diagnose.ambient_dimension.Horn` results.
    """
    return [f"{s} {sl}" for (s, sl) in mp if mp[(s, sl)].n_sig == perm[(s, sl)].n_signal]


def mp_signal_count(mp: Mapping[tuple[str, str], MPCorrection], perm: Mapping, suites: Sequence[str]) -> Verdict:
    """App. H.1's reading: on each suite's full population the MP edge and the permutation null agree.

    Returns
    -------
    Verdict
        Holds when both count the same signal eigenvalues on every suite; the evidence gives both counts.
    """
    return Verdict(
        all(mp[(s, "full")].n_sig == perm[(s, "full")].n_signal for s in suites),
        "; ".join(
            f"{s}: MP edge {mp[(s, 'full')].n_sig}, permutation null {perm[(s, 'full')].n_signal} signal eigenvalue(s)"
            for s in suites
        ),
    )


def frontier_rise_survives(mp: Mapping[tuple[str, str], MPCorrection], suites: Iterable[str]) -> dict[str, bool]:
    """{suite: whether d_eff^MP is defined on both slices and larger on the frontier}."""
    dmp = {key: (m.d_eff_mp if m.defined else None) for key, m in mp.items()}
    return {
        s: dmp[(s, "full")] is not None and dmp[(s, "frontier")] is not None and dmp[(s, "frontier")] > dmp[(s, "full")]
        for s in suites
    }


def mp_robust(mp: Mapping[tuple[str, str], MPCorrection], suites: Iterable[str]) -> Verdict:
    """The main text's reading: Table 1's frontier rise survives when only signal eigenvalues count.

    Holds when, on every suite, d_eff^MP is defined on both slices and larger on the frontier
    (:func:`frontier_rise_survives`).
    """
    dmp = {key: (m.d_eff_mp if m.defined else None) for key, m in mp.items()}
    suites = list(suites)
    survives = frontier_rise_survives(mp, suites)
    return Verdict(
        all(survives.values()),
        "d_eff^MP (full, frontier): "
        + "; ".join(
            f"{s} "
            + ", ".join("undefined" if dmp[(s, sl)] is None else f"{dmp[(s, sl)]:.2f}" for sl in ("full", "frontier"))
            + ("" if survives[s] else " (the frontier is not larger)")
            for s in suites
        ),
    )


# -- variance capture (Theorem 1(a),(b), App. B) ------------------------------------------------
def capture_bound_counterexample(f_counter: float, claimed: float) -> Verdict:
    """App. B.1's inequality f(V) <= d/D, tested on Sigma_C = diag(1, 0, ..., 0) with e_1 in V.

    Holds when the captured fraction stays within the claimed bound (it does not: f = 1).
    """
    return Verdict(
        f_counter <= claimed + 1e-12,
        f"Sigma_C = diag(1, 0, ..., 0) with e_1 in V captures f = {f_counter:.2f} > d/D = {claimed:.3f}",
    )


def concentration_bound_holds(tail: pd.DataFrame, D: int, kappa: float, n: int, needs_D: float) -> Verdict:
    """Theorem 1(b)'s tail bound against the observed tail, where the bound says something (bound < 1).

    Parameters
    ----------
    tail : DataFrame
        :func:`blindspot.diagnose.variance_capture.concentration_tail`: index t, columns ``bound`` and
        ``observed P(|f - d/D| > t)``.
    D, kappa, n : int, float, int
        The simulation's dimension, condition number and number of Haar subspaces.
    needs_D : float
        The dimension beyond which the bound is informative at the paper's remark (kappa = 3, t = 0.1).
    """
    col = "observed P(|f - d/D| > t)"
    informative = tail[tail["bound"] < 1]
    return Verdict(
        bool((informative[col] <= informative["bound"]).all()),
        f"D = {D}, kappa = {kappa:.1f}, {n} Haar subspaces: observed tail "
        + ", ".join(f"{r[col]:.3f} <= {r['bound']:.3g} at t = {t}" for t, r in informative.iterrows())
        + f"; but the bound is >= 1 (vacuous) unless D > 8 ln2 kappa^2 / t^2 ({needs_D:.0f} at "
        "the remark's kappa = 3, t = 0.1)",
    )


# -- the ambient dimension (App. G.3) --------------------------------------------------------------
def cv_corner_text(cv: SwapCV | None) -> str:
    """Where the empirical swap rate lies against the χ² predictions over the admissible D, in words.

    A corner solution (the rate outside every prediction) makes the cross-validated D the edge of the
    search range, not an estimate.
    """
    if cv is None:
        return "not computed (too few benchmarks)"
    if not cv.corner:
        return "inside the range the model can produce, so the match is an interior solution"
    side = "below" if cv.empirical < cv.pred_range[0] else "above"
    end = "smallest" if side == "below" else "largest"
    return (
        f"{side} every value the model can produce, so the best match is the {end} D allowed: the edge of the "
        "search range, not an estimate"
    )


def cv_corner_evidence(cv: SwapCV) -> str:
    """The ledger's evidence for a cross-validated D that is a corner solution ('' for an interior one)."""
    if not cv.corner:
        return ""
    return (
        f"corner solution: empirical {cv.empirical:.3f} outside the predictions "
        f"[{cv.pred_range[0]:.3f}, {cv.pred_range[1]:.3f}]"
    )


def d_range_evidence(D_powerlaw: int, cv: SwapCV, horn: int, D_at_1e2: int, n_sig: int) -> str:
    """The ledger's evidence for the range the three estimators of D span (App. G.3)."""
    three = [horn, D_powerlaw, cv.D]
    return (
        f"power law {D_powerlaw}, cross-validation {cv.D}{' (a corner)' if cv.corner else ''}, Horn "
        f"{horn}: the three span [{min(three)}, {max(three)}]; D_powerlaw is {D_at_1e2} at "
        f"eps = 1e-2; n_sig = {n_sig} <= D holds"
    )


def same_range_text(estimates: Sequence[float], paper_range: tuple[float, float]) -> str:
    """'the same as' when the estimates span exactly the paper's range, else 'not'."""
    return "the same as" if (min(estimates), max(estimates)) == tuple(paper_range) else "not"


# -- the frontier threshold and the population (App. H.16, H.34, H.44) ---------------------------
def decrease_steps(decs: Sequence[tuple[float, float, float]]) -> str:
    """Decreases of a threshold curve in words: 'q = 0.6 to 0.7 (-0.120), ...', or 'none'."""
    return ", ".join(f"q = {a:.1f} to {b:.1f} (-{d:.3f})" for a, b, d in decs) or "none"


def value_at(table: pd.DataFrame, q: float, column: str = "d_eff", spec: str = ".2f") -> str:
    """``table.loc[q, column]`` formatted, or 'not computed' when the curve skipped that threshold."""
    return format(table.loc[q, column], spec) if q in table.index else NOT_COMPUTED


def within_band(x: float, lo: float, hi: float) -> bool:
    """Whether ``lo <= x <= hi`` (a value against the band the paper states)."""
    return bool(lo <= x <= hi)


def band_word(x: float, lo: float, hi: float) -> str:
    """'inside' or 'outside' the band [lo, hi]."""
    return "inside" if within_band(x, lo, hi) else "outside"


def curve_evidence(curve: ThresholdCurve, min_models: int) -> str:
    """The ledger's evidence for the monotonicity of a threshold curve judged on slices of >= ``min_models``."""
    c = curve
    return (
        f"d_eff at q = {', '.join(f'{q:.1f}' for q in c.table.index)} (slices of >= {min_models} models): "
        + ", ".join(f"{v:.3f}" for v in c.table["d_eff"])
        + (f"; decreases at {decrease_steps(c.decreases)}" if c.decreases else "")
    )


def monotone_by_steps(steps: StepChanges, evidence: str, q_max: float | None = None) -> Verdict:
    """Whether d_eff is monotone non-decreasing in the threshold, judged step by step with intervals.

    A step whose simultaneous interval (:func:`~blindspot.diagnose.robustness.step_changes`, Bonferroni
    over the steps) lies below zero is a decrease larger than the resampling noise: the statement fails
    (:func:`~blindspot.core.verdict.judge` with the claim "change < 0" supported). With no decrease among the
    point estimates it holds; with dips none of which is significant it is not resolved at 95%.

    Parameters
    ----------
    steps : StepChanges
        The curve's steps with their intervals.
    evidence : str
        The curve's values in words (:func:`curve_evidence`), to which the test's findings are added.
    q_max : float, optional
        Judge only the steps that end at or below this threshold (App. H.16's LiveBench exception).

    Returns
    -------
    Verdict
        Statistical; its test is the step with the strongest evidence of a decrease.
    """
    t = steps.table if q_max is None else steps.table[steps.table["q_to"] <= q_max + 1e-9]
    if t.empty:
        raise ValueError("no step of the curve ends at or below the threshold judged")
    m = len(steps.table)
    name = (
        f"paired bootstrap of each step over its slice's models ({steps.n_boot} resamples), "
        f"simultaneous {steps.level:.0%} intervals over {m} steps (Bonferroni)"
    )
    tests = {i: StatTest(name, float(r.change), (float(r.lo), float(r.hi)), widened="") for i, r in t.iterrows()}
    decreasing = [i for i, x in tests.items() if judge(x, "<", 0.0) is True]
    worst = min(decreasing, key=lambda i: t.loc[i, "hi"]) if decreasing else t["change"].idxmin()
    dips = t[t["change"] < 0]
    holds: bool | None = False if decreasing else (True if dips.empty else None)

    def step(i: int) -> str:
        r = t.loc[i]
        return f"q = {r.q_from:g} to {r.q_to:g} ({r.change:+.3f} [{r.lo:+.3f}, {r.hi:+.3f}])"

    if decreasing:
        found = "significant decreases at " + ", ".join(step(i) for i in decreasing)
    elif len(dips):
        found = "no dip is larger than the resampling noise: " + ", ".join(step(i) for i in dips.index)
    else:
        found = "no step decreases"
    return Verdict(holds, f"{evidence}; {found}", basis=STATISTICAL, test=tests[worst])


def monotone_up_to(curve: ThresholdCurve, q_max: float) -> Verdict:
    """The curve never decreases up to the threshold ``q_max`` (every slice judged, whatever its size).

    App. H.16's LiveBench exception ('non-monotone above q = 0.6'): every step up to it must rise.
    """
    upto = curve.table[curve.table.index <= q_max + 1e-9]
    decs = [d for d in curve.decreases if d[1] <= q_max + 1e-9]
    return Verdict(
        not decs,
        f"d_eff at q = {', '.join(f'{q:.1f}' for q in upto.index)} (n = "
        + ", ".join(str(int(n)) for n in upto["n"])
        + "): "
        + ", ".join(f"{v:.3f}" for v in upto["d_eff"])
        + f"; the paper excepts only q above {q_max:.1f}"
        + (f"; decreases at {decrease_steps(decs)}" if decs else ""),
    )


# -- correlation methods and populations (§8, App. H.2, H.3, H.6, H.28, H.38, H.48) --------------
@dataclass(frozen=True)
class MethodGaps:
    """How far the rank-correlation d_eff are from Pearson's on the Table 1 slices.

    Attributes
    ----------
    pearson_spearman : Series
        |d_eff Pearson - d_eff Spearman| per slice.
    pearson_rank : Series
        The larger of |P - Spearman| and |P - Kendall_sin| per slice.
    raw_kendall : float
        The largest |P - Kendall_raw| (another scale of correlation).
    rank_below : bool
        Whether both Pearson-scale rank methods give a d_eff at most Pearson's on every slice.
    """

    pearson_spearman: pd.Series
    pearson_rank: pd.Series
    raw_kendall: float
    rank_below: bool


def method_gaps(methods: pd.DataFrame, slices: Sequence[str]) -> MethodGaps:
    """:class:`MethodGaps` of the methods table (one row per slice: ``pearson``, ``spearman``,
    ``kendall_sin``, ``|P - S|``, ``|P - K_sin|``, ``|P - K_raw|``) on the given slices."""
    m = methods.loc[list(slices)]
    return MethodGaps(
        m["|P - S|"],
        m[["|P - S|", "|P - K_sin|"]].max(axis=1),
        float(m["|P - K_raw|"].max()),
        bool((m[["spearman", "kendall_sin"]].max(axis=1) <= m["pearson"]).all()),
    )


def below_word(below: bool) -> str:
    """'below' when every rank method is at most Pearson, else 'not always below'."""
    return "below" if below else "not always below"


def methods_within(gaps: MethodGaps, threshold: float) -> Verdict:
    """§8: the Pearson-scale methods agree within ``threshold`` (largest rank-method gap below it)."""
    return Verdict(
        gaps.pearson_rank.max() < threshold,
        f"largest |Pearson - Spearman or Kendall_sin| {gaps.pearson_rank.max():.3f} ({gaps.pearson_rank.idxmax()}); "
        f"raw Kendall up to {gaps.raw_kendall:.2f}; every rank method {below_word(gaps.rank_below)} Pearson",
    )


def pearson_spearman_within(gaps: MethodGaps, threshold: float) -> Verdict:
    """App. H.6: Pearson and Spearman d_eff agree within ``threshold`` on every slice."""
    return Verdict(
        gaps.pearson_spearman.max() < threshold,
        f"largest |Pearson - Spearman| {gaps.pearson_spearman.max():.3f} ({gaps.pearson_spearman.idxmax()})",
    )


def gaps_within(intervals: pd.DataFrame, threshold: float, what: str, n_boot: int) -> Verdict:
    """Whether a gap between two d_eff methods stays below ``threshold`` on every slice, judged on intervals.

    ``intervals`` is :func:`~blindspot.diagnose.robustness.method_gap_intervals` (simultaneous over the
    slices). The statement fails where some slice's interval lies wholly above the threshold, holds where
    every slice's interval lies below it, and is otherwise not resolved at 95%
    (:func:`~blindspot.core.verdict.judge`).

    Parameters
    ----------
    intervals : DataFrame
        Per slice: ``gap``, ``lo``, ``hi``.
    threshold : float
        The paper's bound on the gap.
    what : str
        The gap in words (``"|Pearson - Spearman|"``).
    n_boot : int
        Resamples per slice (named in the test).

    Returns
    -------
    Verdict
        Statistical; its test is the slice with the largest gap.
    """
    name = (
        f"bootstrap of {what} over each slice's models ({n_boot} resamples, paired across methods), "
        f"simultaneous 95% intervals over {len(intervals)} slices (Bonferroni)"
    )
    tests = {s: StatTest(name, float(r.gap), (float(r.lo), float(r.hi))) for s, r in intervals.iterrows()}
    calls = {s: judge(t, "<", threshold) for s, t in tests.items()}
    worst = intervals["gap"].idxmax()
    above = [s for s, c in calls.items() if c is False]
    holds: bool | None = False if above else (True if all(calls.values()) else None)
    listed = "; ".join(f"{s} {r.gap:.3f} [{r.lo:.3f}, {r.hi:.3f}]" for s, r in intervals.iterrows())
    found = (
        f"above {threshold:g} beyond the noise on {listing(above)}"
        if above
        else ("below it on every slice" if holds else f"no slice is resolved above {threshold:g}")
    )
    return Verdict(holds, f"{what} per slice: {listed}; {found}", basis=STATISTICAL, test=tests[worst])


def crossing_in_band(
    crossing: tuple[float, float, float], band: tuple[float, float], n_boot: int, evidence: str
) -> Verdict:
    """App. H.44: the dump's top-fraction curve crosses the frontier's d_eff inside the stated band of fractions.

    ``crossing`` is :func:`~blindspot.diagnose.robustness.crossing_fraction` (estimate and interval, with
    both the dump and the reference frontier resampled); the statement holds when the interval lies
    inside ``band``, fails when it misses the band, and is otherwise not resolved at 95%
    (:func:`~blindspot.core.verdict.judge`, claim ``'in'``).

    Parameters
    ----------
    crossing : (float, float, float)
        The crossing fraction and its 95% interval.
    band : (float, float)
        The fractions the paper names (0.15, 0.20).
    n_boot : int
        Resamples behind the interval.
    evidence : str
        The curve's values in words, to which the test's finding is added.

    Returns
    -------
    Verdict
    """
    est, lo, hi = crossing
    test = StatTest(
        f"bootstrap of the crossing fraction ({n_boot} resamples of the dump's models and of the frontier's)",
        est,
        (lo, hi),
    )
    holds = judge(test, "in", band)
    where = {True: "inside", False: "outside", None: "across the edge of"}[holds]
    return Verdict(
        holds,
        f"{evidence}; the crossing at the top {100 * est:.0f}% has the 95% interval "
        f"[{100 * lo:.0f}%, {100 * hi:.0f}%], {where} the stated {100 * band[0]:.0f}-{100 * band[1]:.0f}%",
        basis=STATISTICAL,
        test=test,
    )


def size_control_box(suite: str, size_col: str | None, n_known: int) -> str:
    """The box a chapter shows when the model-size control cannot run (too few known sizes)."""
    have = "no such column" if size_col is None else f"{n_known} in {size_col!r}"
    return f"The size control needs a parameter-count column with at least 10 known positive sizes; {suite} has {have}."


def missing_suites_box(present: Sequence[str]) -> str:
    """The box of App. H.48's section when the Extended suite or LiveBench is missing."""
    have = ("only " + ", ".join(present)) if present else "neither"
    return f"This section needs the paper's Extended suite (its v2 and v1 halves) and LiveBench; {have} is in this run."


def half_split_claim(suite: str, featured: str) -> str | None:
    """App. H.2's claim id for a suite's split-half spread: OLLM v2 and Extended have their own; on a reader's
    data the featured leaderboard stands in for the Extended one; any other suite has none."""
    if suite in ("ollm_v2", "extended"):
        return f"H2.mad.{suite}"
    return "H2.mad.extended" if suite == featured else None


# -- the one-factor null (§8's reading of d_eff) ----------------------------------------------------
@dataclass(frozen=True)
class NullComparison:
    """Statistics of a real leaderboard against their distribution over one-factor leaderboards.

    Attributes
    ----------
    table : DataFrame
        One row per statistic: ``real``, ``null mean``, ``null 5%``, ``null 95%`` and ``real outside null
        5-95%``.
    null : dict of str to array
        The simulated values of each statistic.
    """

    table: pd.DataFrame
    null: Mapping[str, np.ndarray]

    @property
    def outside(self) -> list[str]:
        """The statistics whose real value lies outside the null's 5–95% band."""
        return [k for k, v in self.table["real outside null 5-95%"].items() if v]

    def band(self, statistic: str) -> tuple[float, float]:
        """The null's 5% and 95% percentiles of a statistic."""
        lo, hi = np.percentile(self.null[statistic], [5, 95])
        return float(lo), float(hi)

    def separates(self, statistic: str) -> bool:
        """Whether the real value of ``statistic`` lies outside the null's 5–95% band."""
        return bool(self.table.loc[statistic, "real outside null 5-95%"])


def compare_to_null(real: Mapping[str, float], null: Mapping[str, np.ndarray]) -> NullComparison:
    """Each real statistic against the mean and the 5–95% band of its simulated null values.

    Parameters
    ----------
    real : mapping
        {statistic: value on the real leaderboard}.
    null : mapping
        {statistic: array of its values over the simulated one-factor leaderboards} (same keys).

    Returns
    -------
    NullComparison
    """
    table = pd.DataFrame(
        {
            "real": dict(real),
            "null mean": {k: float(np.mean(v)) for k, v in null.items()},
            "null 5%": {k: float(np.percentile(v, 5)) for k, v in null.items()},
            "null 95%": {k: float(np.percentile(v, 95)) for k, v in null.items()},
        }
    )
    table["real outside null 5-95%"] = (table["real"] < table["null 5%"]) | (table["real"] > table["null 95%"])
    return NullComparison(table, dict(null))


def null_calibration_words(
    cmp: NullComparison | None, statistics: Sequence[str], loading: float | None, swap: str, deff: str
) -> dict[str, str]:
    """The words the null-model chapter glues: each statistic's null mean and real value, the loading, the
    statistics that separate, whether d_eff and the swap rate tell one factor from several, the swap band.

    ``cmp`` is None when the one-factor model does not fit the leaderboard: every word is then 'not computed'.
    ``swap`` and ``deff`` name the swap-rate and the frontier-d_eff statistics.
    """
    out: dict[str, str] = {}
    for key in statistics:
        name = key.replace(" ", "_").replace("-", "")
        out["null_" + name] = NOT_COMPUTED if cmp is None else f"{cmp.table.loc[key, 'null mean']:.2f}"
        out["real_" + name] = NOT_COMPUTED if cmp is None else f"{cmp.table.loc[key, 'real']:.2f}"
    if cmp is None:
        out.update(
            loading=NOT_COMPUTED,
            separating=NOT_COMPUTED,
            deff_verdict="(not computed)",
            swap_verdict="(not computed)",
            null_swap_lo=NOT_COMPUTED,
            null_swap_hi=NOT_COMPUTED,
        )
        return out
    lo, hi = cmp.band(swap)
    out.update(
        loading=f"{loading:.2f}",
        separating=listing(cmp.outside),
        deff_verdict="can" if cmp.separates(deff) else "cannot",
        swap_verdict="does" if cmp.separates(swap) else "does not",
        null_swap_lo=f"{lo:.2f}",
        null_swap_hi=f"{hi:.2f}",
    )
    return out


def deff_counts_directions(
    cmp: NullComparison, deff: str, swap: str, loading: float, reps: int, limit: float
) -> Verdict:
    """§8's reading that d_eff counts independent directions: the real frontier's d_eff lies outside the range
    one-factor leaderboards produce.

    Parameters
    ----------
    cmp : NullComparison
    deff, swap : str
        The frontier-d_eff and swap-rate statistics of ``cmp``.
    loading : float
        The fitted one-factor loading.
    reps : int
        Simulated leaderboards.
    limit : float
        The closed-form d_eff of range restriction alone at the median cut.
    """
    lo, hi = cmp.band(deff)
    s_lo, s_hi = cmp.band(swap)
    return Verdict(
        cmp.separates(deff),
        f"a leaderboard with ONE latent ability and the same average correlation (loading {loading:.3f}) has frontier "
        f"d_eff {np.mean(cmp.null[deff]):.2f} (5-95%: {lo:.2f}-{hi:.2f}, {reps} simulations) against "
        f"the real {cmp.table.loc[deff, 'real']:.2f}; range restriction alone gives "
        f"{limit:.2f} in the limit. Outside the null's band: "
        f"{', '.join(cmp.outside) or 'none'}; the half-split swap rate {cmp.table.loc[swap, 'real']:.2f} (null "
        f"5-95%: {s_lo:.2f}-{s_hi:.2f})",
    )
