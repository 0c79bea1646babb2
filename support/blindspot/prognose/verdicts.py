"""What the chapters of Part II conclude from their results, decided here and tested, never in a notebook.

Each function takes computed results (covering radii, ratio tables, swap rates, rank classes) and
returns either a :class:`~blindspot.core.verdict.Verdict` (does a statement of the paper hold, with the
evidence that decided it, for the chapter's ledger) or the words a chapter glues into a sentence.
The comparisons, thresholds and counts behind those words live here, next to their tests
(``tests/prognose/test_verdicts.py``).

References
----------
The paper's §4 (Theorem 2, Table 2, Corollaries 1–2, Propositions 1–2) and App. C, G.2, H.7, H.11, H.12,
H.20–H.24, H.41; the chapters of Part II of the book.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from blindspot.core.verdict import Verdict, compare_words
from blindspot.prognose.covering_checks import AppCConstants, AppCRow, ClosedFormCheck, ClusteredRate, RateFits

__all__ = [
    "monte_carlo_words",
    "cover_word",
    "found_below",
    "found_word",
    "slopes_within",
    "rate_holds_any_directions",
    "appc_evidence",
    "appc_planar_evidence",
    "curse_matches",
    "rounded_ratios_agree",
    "agree_word",
    "omega_stated",
    "visible_nonvacuous",
    "radius_gap_ratios_agree",
    "h41_robust",
    "n_above_trivial",
    "geometry_dominates",
    "all_splits_text",
    "large_r_gaps",
    "above_text",
    "sd_evidence",
    "agreement_evidence",
    "worked_example",
    "side_word",
    "at_or_below",
    "fkg_direction",
    "union_bound_below_one",
    "d_trend",
    "citation_range",
    "others_above",
    "same_number_word",
    "sigma_meaning",
    "rules_agree",
    "where_rules_part",
    "class_sizes_match",
    "families_present",
    "increases_word",
    "isotropic_is_minimum",
    "is_word",
    "compare_words",
    "gaussian_schur",
    "isotropic_lower_bound",
    "isotropy_maximises",
    "isotropy_conclusion",
    "n_reaching",
    "flips_word",
    "first_flip_text",
    "premise_literal",
    "premise_reached",
    "converse",
    "n_above",
    "meets_word",
    "breaks_word",
    "lowest_is",
    "epsilon_covers_top_pair",
    "width_representation_bound_survives",
    "lipschitz_tautology",
    "symmetric_counterexamples",
    "narrower_yet_larger_in_3d",
    "no_phenomenon_below_3",
]


# -- Theorem 2: the indistinguishability radius -----------------------------------------------------
def monte_carlo_words(check: ClosedFormCheck) -> str:
    """Whether every sampled covering radius of a :class:`~.covering_checks.ClosedFormCheck` stays at or below
    the exact one, in words.

    Sampling query directions can only miss the worst direction, so the sampled max–min is a lower bound.
    """
    below = check.monte_carlo_below
    return "every Monte Carlo value is at or below" if below else "some Monte Carlo values are above"


def cover_word(share_random_worse: float | None) -> str:
    """How a suite's directions cover the sphere against random ones: 'worse than most' (under 10% of the
    random sets cover worse), 'better than most' (over 90%) or 'about as well as'; '(not computed)' for None
    (the check was skipped, :class:`~.covering_checks.SuiteCover`)."""
    if share_random_worse is None:
        return "(not computed)"
    if share_random_worse < 0.1:
        return "worse than most"
    if share_random_worse > 0.9:
        return "better than most"
    return "about as well as"


def found_below(appc: AppCConstants, dims: Sequence[int] = (3, 4, 5)) -> bool:
    """Whether the searched 12-line configurations cover at or below App. C's printed radius in every dimension."""
    return all(appc.rows[d].found_lines <= appc.rows[d].paper for d in dims)


def found_word(below: bool) -> str:
    """'below every one of them' or 'not below all of them'."""
    return "below every one of them" if below else "not below all of them"


def slopes_within(
    paper_protocol: Mapping[int, tuple],
    fits: RateFits,
    n_trials: int,
    tol: float = 0.1,
) -> Verdict:
    """App. H.7: the fitted covering-rate slopes lie within ``tol`` of Theorem 2(a)'s -1/(d-1).

    Judged on the paper's own protocol (``covering_rate_paper``: {d: (ms, slope)}); the evidence also gives
    the book's exact-radius fits (:class:`~.covering_checks.RateFits`, their gaps to the theory) and the
    smallest d's slope against log(m/log m).
    """
    paper_gaps = {d: abs(s - (-1 / (d - 1))) for d, (_, s) in paper_protocol.items()}
    d_paper = max(paper_gaps, key=paper_gaps.get)
    gaps = fits.gaps
    d_book = max(gaps, key=gaps.get)
    d0 = min(fits.rates)
    return Verdict(
        paper_gaps[d_paper] <= tol,
        f"the paper's protocol: largest gap {paper_gaps[d_paper]:.3f} at d = {d_paper} ("
        + ", ".join(f"d = {d}: {g:.3f}" for d, g in paper_gaps.items())
        + "); the book's exact projective radius, "
        f"{n_trials} trials: largest gap {gaps[d_book]:.3f} at d = {d_book}; against log(m/log m) the "
        f"d = {d0} slope is {fits.rates[d0].slope_log_corrected:.3f}",
        book=f"{paper_gaps[d_paper]:.3f} (the paper's protocol); {gaps[d_book]:.3f} (exact radius)",
    )


def rate_holds_any_directions(cluster: ClusteredRate) -> Verdict:
    """Theorem 2(a)'s rate 'for any directions': false when clustered directions need a growing constant.

    ``cluster`` (:class:`~.covering_checks.ClusteredRate`) holds the exact radius and the constant the rate
    form needs for each m; the statement holds when the constant does not grow from the first m to the last.
    """
    C, ms, half_angle = cluster.constants, cluster.ms, cluster.half_angle
    return Verdict(
        bool(C[-1] <= C[0]),
        f"{len(ms)} sets of directions within {half_angle} rad of one axis (d = {cluster.d}): omega stays >= "
        f"{cluster.omegas.min():.3f} (>= pi/2 - {half_angle} for every m) while the constant the rate "
        f"needs grows from {C[0]:.2f} (m = {ms[0]}) to {C[-1]:.2f} (m = {ms[-1]}). Holds for any "
        "directions: delta_vis <= eps + 2 R omega_m; the rate needs quasi-uniform directions",
    )


def appc_evidence(row: AppCRow) -> str:
    """The ledger's evidence for one of App. C's covering radii of 12 directions (an :class:`~.covering_checks.AppCRow`)."""
    shown = "true" if row.found_lines <= row.paper else "not shown"
    return (
        f"C_d = 1 gives {row.unit:.3f}; the printed value needs C_d = "
        f"{row.c_needed:.3f}; 12 lines found by a "
        f"seeded search have covering radius {row.found_lines:.3f} (volumetric lower bound "
        f"{row.lower_bound:.3f}), so omega*_12 <= {row.paper} is "
        f"{shown} for lines"
    )


def appc_planar_evidence(omega_lines: float, omega_points: float) -> str:
    """The ledger's evidence for App. C's planar value: the exact radius of 12 equispaced lines and points."""
    return (
        f"12 equispaced lines: exact {omega_lines:.4f} = pi/24; 12 equispaced "
        f"signed points: exact {omega_points:.4f} = pi/12"
    )


def curse_matches(curse: Mapping[int, float], paper: Sequence[float] | str) -> Verdict:
    """The 'curse' table: benchmarks needed when delta halves, per dimension, against the paper's factors
    (a sequence, or the printed text "2x, 4x, ...")."""
    if isinstance(paper, str):
        paper = [float(x.strip().rstrip("x")) for x in paper.split(",")]
    return Verdict(
        [round(v, 9) for v in curse.values()] == list(paper),
        "benchmarks needed when delta halves (eps = 0, R = 100, C = 1): "
        + ", ".join(f"d = {d}: {v:g}x" for d, v in curse.items()),
        book=", ".join(f"{v:g}x" for v in curse.values()),
    )


# -- Table 2 and its representations (App. H.11, H.23, H.41) ---------------------------------------
def rounded_ratios_agree(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two ratio tables (a ``ratio`` column per representation) agree once rounded to integers."""
    return bool((a["ratio"].round() == b["ratio"].round()).all())


def agree_word(agree: bool) -> str:
    """'agree' or 'disagree'."""
    return "agree" if agree else "disagree"


def omega_stated(stated: pd.Series, code: pd.Series, paper_omega: float, tol: float) -> Verdict:
    """Table 2's omega comes from its stated formula: the formula's omega is within ``tol`` of the printed one.

    ``stated``/``code`` are a frontier's rows of the Table 2 rebuild (``omega``, ``ratio``).
    """
    half_pi = math.pi / 2
    return Verdict(
        abs(stated.omega - paper_omega) <= tol,
        f"the stated formula gives omega = {stated.omega:.3f} (ratio {stated.ratio:.0f}x); with the "
        f"absolute value omega <= pi/2 = {half_pi:.3f}, so {paper_omega} is out of its range; the "
        f"table's value is the code's ({code.omega:.3f}: signed directions, unscaled loadings, Monte "
        "Carlo)",
        book=float(stated.omega),
    )


def visible_nonvacuous(stated: pd.Series, code: pd.Series) -> Verdict:
    """The stated radius 2R omega says something: it is below the trivial 2R (any two bodies in B_R)."""
    return Verdict(
        stated.delta_vis < stated.trivial_cap,
        f"stated formula: 2R omega = {stated.delta_vis:.2f} vs 2R = {stated.trivial_cap:.2f} (code: "
        f"{code.delta_vis:.2f}); any two bodies in B_R are within 2R; capped ratio min(2R omega, 2R)/Delta_2 "
        f"= {stated.capped_ratio:.1f}x",
        book=float(stated.delta_vis),
    )


def radius_gap_ratios_agree(
    h23: pd.DataFrame, h41: pd.DataFrame, h41_real: pd.DataFrame, omega: float, table2_ratio: float
) -> Verdict:
    """The radius-to-gap ratios of two scripts agree once rounded (App. H.41's against App. H.23's).

    The paper presents the two tables as one result; ``holds`` is :func:`rounded_ratios_agree` on them.
    """
    return Verdict(
        rounded_ratios_agree(h41, h23),
        "H.23 (code) "
        + ", ".join(f"{m} {h23.loc[m, 'ratio']:.0f}x" for m in h23.index)
        + f"; H.41 (code) on its n = {h41['n'].iloc[0]} models "
        + ", ".join(f"{m} {h41.loc[m, 'ratio']:.0f}x" for m in h41.index)
        + f"; the script fixes omega at {omega} and cuts the frontier twice; on the real "
        "frontier it would give "
        + ", ".join(f"{m} {h41_real.loc[m, 'ratio']:.0f}x" for m in h41_real.index)
        + f"; Table 2 (z-score) {table2_ratio:.0f}x",
    )


def h41_robust(capped: Mapping[tuple[str, str], float], h23: pd.DataFrame, h41_v2: pd.DataFrame) -> Verdict:
    """App. H.41: the geometric radius exceeds the observed gap (ratio > 1) for every representation.

    ``capped`` maps (frontier, representation) to the stated ratio capped at 2R.
    """
    lo = min(capped, key=capped.get)
    return Verdict(
        min(capped.values()) > 1,
        f"stated formula capped at 2R, over {len(capped)} (frontier, representation) pairs: smallest ratio "
        f"{min(capped.values()):.1f}x ({lo[0]}, {lo[1]}), largest "
        f"{max(capped.values()):.0f}x; the code tables range "
        f"{min(h23['ratio'].min(), h41_v2['ratio'].min()):.0f}"
        f"-{max(h23['ratio'].max(), h41_v2['ratio'].max()):.0f}x",
    )


# -- geometric and statistical radii (App. H.12) ------------------------------------------------------
def n_above_trivial(noise: pd.DataFrame) -> int:
    """Frontiers whose Table 2 radius 2R omega exceeds the trivial 2R."""
    return int((noise["2 R omega (Table 2)"] > noise["trivial 2R"]).sum())


def geometry_dominates(noise: pd.DataFrame) -> Verdict:
    """The geometric radius pi R / k exceeds the bootstrap's statistical one on every frontier."""
    return Verdict(
        bool((noise["ratio_piR_over_k"] > 1).all()),
        "pi R / k over sigma_boot: "
        + ", ".join(f"{s} {r:.2f}x" for s, r in noise["ratio_piR_over_k"].items())
        + "; with 2 R omega: "
        + ", ".join(f"{s} {r:.1f}x" for s, r in noise["ratio_delta_vis"].items()),
    )


# -- the half-split experiment (App. G.2, H.21) ------------------------------------------------------
def all_splits_text(every: object | None) -> str:
    """The exhaustive half-split's top-1 swap rate in words, or why it was not run."""
    if every is None:
        return "there are too many splits to enumerate them all"
    return f"over all {every.n_trials} splits the rate is {every.top1_swap_rate:.3f}"


def large_r_gaps(calib: pd.DataFrame, r_min: int = 5) -> pd.Series:
    """The χ² calibration's gaps (percentage points) at the hidden-benchmark counts r >= ``r_min``."""
    return calib.loc[calib.index >= r_min, "gap_pp"]


def above_text(calib: pd.DataFrame, r_min: int = 5) -> str:
    """Where the empirical swap rate exceeds the χ² prediction (r >= ``r_min``), in words."""
    above = [int(r) for r in calib.index[(calib.index >= r_min) & (calib["empirical"] > calib["predicted"])]]
    if above:
        return "the empirical rate is above the prediction at r = " + ", ".join(map(str, above))
    return f"the prediction is above the empirical rate at every r >= {r_min}"


def sd_evidence(split: object, every: object | None) -> str:
    """The ledger's evidence for the sd of the top-5 changes: both ddof conventions and the exhaustive value."""
    splits_all = every if every is not None else split
    return (
        f"the {split.n_trials} per-split counts have sd {split.sd_top5_changes:.3f} (ddof 0), "
        f"{np.std(split.top5_changes, ddof=1):.3f} (ddof 1); over "
        f"{'all ' if every is not None else ''}{splits_all.n_trials} splits {splits_all.sd_top5_changes:.3f}"
    )


def agreement_evidence(big: pd.Series, calib: pd.DataFrame) -> str:
    """The ledger's evidence for App. G.2's agreement of prediction and experiment (gaps at r >= 5)."""
    return (
        "gaps for r >= 5: "
        + ", ".join(f"r = {r}: {g:.2f}" for r, g in big.items())
        + f" pp, so the range is {big.min():.1f}-{big.max():.1f} pp; the prediction ranges {calib['predicted'].min():.3f}-"
        f"{calib['predicted'].max():.3f}; binomial SE about {calib['se_pp'].mean():.1f} pp"
    )


def worked_example(k: int, needed: int, values: Mapping[str, object]) -> Verdict:
    """§4's worked example splits OLLM v2 6/6: it needs ``needed`` benchmarks, the matrix has ``k``.

    ``values`` holds the registry's Table 2 values quoted in the evidence: ``v2_delta_vis``, ``v2_delta2``,
    ``ext_delta_vis``, ``ext_delta2``.
    """
    return Verdict(
        k >= needed,
        f"the paper's OLLM v2 matrix has {k} benchmarks, so a 6/6 split cannot be run on it; delta_vis = "
        f"{values['v2_delta_vis']} and Delta_2 = {values['v2_delta2']} "
        f"are OLLM v2's Table 2 values (Extended: {values['ext_delta_vis']} and "
        f"{values['ext_delta2']}); the split's numbers are the Extended suite's",
    )


# -- the χ² swap model (Corollary 1, App. G.1, H.24) -------------------------------------------------
def side_word(value: float, reference: float) -> str:
    """'below' when ``value <= reference``, else 'above'."""
    return "below" if value <= reference else "above"


def at_or_below(rates: pd.Series, baseline: str) -> str:
    """The entries of ``rates`` other than ``baseline`` at or below it ('name (0.123), ...'), or 'none'."""
    others = rates.drop(baseline)
    return ", ".join(f"{name} ({r:.3f})" for name, r in others.items() if r <= rates[baseline]) or "none"


def fkg_direction(lower: float, exact: float, sim: object) -> Verdict:
    """Corollary 1's product of pairwise probabilities is a lower bound on P(correct top-1) (FKG direction).

    ``sim`` is a simulation of leaderboards with ``trials``, ``p_correct``, ``se`` and ``mean_product_bound``.
    """
    return Verdict(
        lower >= exact - 1e-12,
        f"one draw of X (n = 10, d = 5, D = 50): product {lower:.4f}, exact P(correct | X) "
        f"{exact:.4f}; over {sim.trials} simulated leaderboards P(correct) = {sim.p_correct:.3f} "
        f"(SE {sim.se:.3f}) vs mean product {sim.mean_product_bound:.3f}: the product is the FKG lower bound",
        book=f"product {lower:.4f}, exact {exact:.4f}",
    )


def union_bound_below_one(top1: pd.DataFrame, n_terms: int) -> Verdict:
    """The union bound on P(top-1 correct) of Eq. (3) says something: it is below 1 at every D.

    A probability bound at or above 1 is vacuous; the statement holds when the bound is below 1 throughout.
    """
    return Verdict(
        bool(top1.union_bound_stated.max() < 1),
        f"sum of {n_terms} terms: "
        + ", ".join(f"D = {D}: {u:.1f}" for D, u in zip(top1.D, top1.union_bound_stated))
        + "; with the code's rescaling "
        + ", ".join(f"{u:.1f}" for u in top1.union_bound_rescaled)
        + "; the gaps plugged in are standardised units, not chi-squared units",
        book=float(top1.union_bound_stated.iloc[0]),
    )


def d_trend(g1: pd.Series, iso: pd.Series) -> Verdict:
    """Table G.1 and the six-prior script move the same way as D grows (sign of last minus first)."""
    g1_trend, iso_trend = np.sign(g1.iloc[-1] - g1.iloc[0]), np.sign(iso.iloc[-1] - iso.iloc[0])
    return Verdict(
        bool(g1_trend == iso_trend),
        f"G.1: {g1.iloc[0]:.3f} -> {g1.iloc[-1]:.3f} (D = {g1.index[0]} -> {g1.index[-1]}); the six-prior "
        f"script's isotropic row: {iso.iloc[0]:.3f} -> {iso.iloc[-1]:.3f} (D = {iso.index[0]} -> {iso.index[-1]}); "
        "sigma_h grows like sqrt(D - d) in G.1 and shrinks like 1/sqrt(floor(D - d)) in the other",
        book=f"G.1 {g1.iloc[0]:.3f} -> {g1.iloc[-1]:.3f}; isotropic prior {iso.iloc[0]:.3f} -> {iso.iloc[-1]:.3f}",
    )


def citation_range(g1: pd.Series, priors: pd.DataFrame, cited: tuple[float, float]) -> Verdict:
    """The range the paper cites is Table G.1's (to two decimals)."""
    return Verdict(
        bool((round(g1.min(), 2), round(g1.max(), 2)) == tuple(cited)),
        f"Table G.1 (D = {g1.index[0]}-{g1.index[-1]}) spans [{g1.min():.3f}, {g1.max():.3f}]; the cited range "
        f"comes from the six-prior script, which spans [{priors.to_numpy().min():.3f}, "
        f"{priors.to_numpy().max():.3f}] and is in no table of the paper",
        book=f"[{g1.min():.3f}, {g1.max():.3f}]",
    )


def others_above(rates: pd.Series, baseline: str, threshold: float | None = None) -> Verdict:
    """App. H.24: every quality functional other than ``baseline`` has a correct-top-1 rate above ``threshold``
    (or, without one, above the baseline's)."""
    others = rates.drop(baseline)
    listing = ", ".join(f"{n} {r:.3f}" for n, r in others.items())
    if threshold is None:
        return Verdict(bool((others > rates[baseline]).all()), f"{baseline} {rates[baseline]:.3f}; {listing}")
    return Verdict(bool((others > threshold).all()), listing)


# -- rank equivalence classes (App. H.40, H.47) ------------------------------------------------------
def same_number_word(a: float, b: float) -> str:
    """'the same number' when a and b agree to 1e-9 (relative), else 'a different number'."""
    return "the same number" if np.isclose(a, b, rtol=1e-9, atol=0) else "a different number"


def sigma_meaning(cal: object, n: int) -> Verdict:
    """App. H.40's sigma_iso measures the models, not the ddof artefact sqrt(n/(n-1)) of z-scored columns."""
    return Verdict(
        not np.isclose(cal.sigma_iso, cal.ddof_artifact, rtol=1e-9, atol=0),
        f"sigma_iso = {cal.sigma_iso:.6f} and sqrt(n/(n-1)) = {cal.ddof_artifact:.6f} for n = {n}: "
        "z-scored columns (ddof 0) under a ddof-1 covariance have variance n/(n-1) whatever the data",
        book=f"sqrt(n/(n-1)) = {cal.ddof_artifact:.4f}",
    )


def where_rules_part(study: object) -> str:
    """Where the paper's code's classes first differ from the stated rule's, in words (``study``:
    :class:`~.rank_class_study.RankClassStudy`), or that they do not."""
    cmp, names, a, thr = study.comparison, study.names, study.top_scores, study.thr
    if cmp.extra_model is None:
        return (
            "On these models the two rules give the same classes: no class is followed by a model it could "
            "admit by mistake."
        )
    lead = cmp.author[cmp.first_difference][0]
    return (
        f"The first disagreement is in class {cmp.first_difference + 1}: the paper's code admits "
        f"{names[cmp.extra_model]} (rank {cmp.extra_model + 1}), whose aggregate is "
        f"{a[lead] - a[cmp.extra_model]:.3f} below the leader {names[lead]}, more than the threshold, so their swap "
        f"probability is {cmp.p_with_leader:.3f} < {thr:.2f}. By the paper's own criterion that pair is "
        f"distinguishable, yet the code's class holds it: its smallest within-class swap probability is "
        f"{cmp.min_p_within_author:.3f}."
    )


def rules_agree(cmp: object) -> bool:
    """Whether the stated rule and the paper's code form the same rank classes (``rank_classes.compare_rules``)."""
    return cmp.correct == cmp.author


def class_sizes_match(
    sizes: Sequence[int], sizes_code: Sequence[int], paper: Sequence[int], cmp: object, thr: float
) -> Verdict:
    """App. H.47's class sizes come out of its stated rule (the code's are given beside them)."""
    extra = (
        f"; the extra model has P(swap) = {cmp.p_with_leader:.3f} < {thr:.2f} with its class leader"
        if cmp.p_with_leader is not None
        else ""
    )
    return Verdict(
        list(sizes) == list(paper),
        f"the stated rule (P(swap) > {thr:.2f} with every member) gives {' + '.join(map(str, sizes))}; "
        f"the paper's script (experiments/v15_experiments.py, block A2) compares swap_prob[idx, m] where its "
        f"comment's rule needs swap_prob[other, m], and that gives {' + '.join(map(str, sizes_code))}{extra}",
        book=" + ".join(map(str, sizes)),
    )


def families_present(present: Mapping[str, bool], in_code: Mapping[str, bool]) -> Verdict:
    """App. H.47's model families are all in the top class under the stated rule."""
    return Verdict(
        all(present.values()),
        "top class under the stated rule: "
        + ", ".join(f"{f} {'yes' if v else 'no'}" for f, v in present.items())
        + "; under the paper's code: "
        + ", ".join(f"{f} {'yes' if v else 'no'}" for f, v in in_code.items()),
        book=", ".join(f for f, v in present.items() if v),
    )


# -- swap monotonicity and the Schur order (Proposition 2, App. G.2, G.4) ----------------------------
def increases_word(values: Sequence[float]) -> str:
    """'increases' when the sequence is strictly increasing, else 'does not increase'."""
    return "increases" if bool(np.all(np.diff(np.asarray(values, dtype=float)) > 0)) else "does not increase"


def isotropic_is_minimum(table: pd.DataFrame, tol: float = 1e-12) -> bool:
    """Whether the ``isotropic`` row of a swap-probability table (priors x D) is the smallest in every column."""
    return bool((table >= table.loc["isotropic"] - tol).all().all())


def is_word(flag: bool) -> str:
    """'is' or 'is not'."""
    return "is" if flag else "is not"


def gaussian_schur(scan: object) -> Verdict:
    """Proposition 2 under the Gaussian approximation: no random majorisation check and no spectrum fails."""
    return Verdict(
        scan.violations_gauss == 0 and scan.iso_violations_gauss == 0,
        f"{scan.violations_gauss} violations in {3 * scan.n_pairs} random majorisation checks and "
        f"{scan.iso_violations_gauss} random spectra below the isotropic one (Gaussian approximation)",
        book=f"{scan.violations_gauss} violations in {3 * scan.n_pairs} checks",
    )


def isotropic_lower_bound(exact: pd.DataFrame, gauss: pd.DataFrame, D: int, delta2: float, scan: object) -> Verdict:
    """Proposition 2's lower bound: the isotropic spectrum swaps least, under the exact law of the swap."""
    return Verdict(
        isotropic_is_minimum(exact),
        f"exact law at Delta_2 = {delta2:.4f}: adversarial {exact.loc['adversarial', D]:.3f} vs isotropic "
        f"{exact.loc['isotropic', D]:.3f} (D = {D}); the Gaussian form gives "
        f"{gauss.loc['adversarial', D]:.3f} vs {gauss.loc['isotropic', D]:.3f}; {scan.violations_exact} of "
        f"{3 * scan.n_pairs} random majorisation checks fail under the exact law, {scan.violations_exact_by_delta[0]} "
        "of them at Delta = 1",
        book=f"exact: adversarial {exact.loc['adversarial', D]:.3f}, isotropic {exact.loc['isotropic', D]:.3f} (D = {D})",
    )


def isotropy_maximises(linear: pd.DataFrame) -> Verdict:
    """App. G.4: the isotropic prior has the largest swap rate among the priors simulated."""
    rates = ", ".join(f"{p} {r:.3f}" for p, r in linear["swap_rate"].items())
    return Verdict(
        bool(linear.loc["isotropic", "swap_rate"] >= linear["swap_rate"].max()),
        f"G.4's priors: {rates}",
        book=f"largest: {linear['swap_rate'].idxmax()}",
    )


def isotropy_conclusion(linear: pd.DataFrame, reversed_: pd.DataFrame) -> Verdict:
    """App. G.4's conclusion survives reversing the priors (the large eigenvalues hidden)."""
    iso = linear.loc["isotropic", "swap_rate"]
    return Verdict(
        bool(iso >= max(linear["swap_rate"].max(), reversed_["swap_rate"].max())),
        f"with the large eigenvalues hidden: adversarial {reversed_.loc['adversarial', 'swap_rate']:.3f}, "
        f"1/i^2 {reversed_.loc['1/i^2', 'swap_rate']:.3f} against isotropic "
        f"{iso:.3f}; the rate depends only on the visible variance share",
        book=f"reversed priors: adversarial {reversed_.loc['adversarial', 'swap_rate']:.3f}, isotropic {iso:.3f}",
    )


# -- rank reversal (Corollary 2, App. H.9) -----------------------------------------------------------
def n_reaching(d_effs: np.ndarray, m: int) -> int:
    """Draws whose d_eff reaches n - 1 (``m`` models), where Corollary 2's premise no longer holds."""
    return int(np.sum(np.asarray(d_effs) >= m - 1))


def flips_word(flipped: bool, yes: str = "swaps the two models", no: str = "leaves their order") -> str:
    """The words for whether an added model reversed a pair."""
    return yes if flipped else no


def first_flip_text(events: pd.DataFrame) -> str:
    """The first reversal of a draw in words (``events``: :func:`~.rank_reversal.reversal_events`), or that none occurs."""
    if not len(events):
        return "No model of this draw reverses a pair of the others."
    ev = events.iloc[0]
    return (
        f"Adding {ev['added']} moves {ev['below_before']} above {ev['above_before']}, although neither changed a score."
    )


def premise_literal(rates: object, m: int, n_draws: int) -> Verdict:
    """Corollary 2 read literally: among draws with d_eff < n - 1, some addition reverses a pair."""
    met = rates.d_effs < m - 1
    n_rev = int((rates.counts[met] > 0).sum())
    return Verdict(
        bool(met.any() and (rates.counts[met] > 0).any()),
        f"{int(met.sum())} of {n_draws} draws meet d_eff < n - 1; the z-mean reverses a pair in {n_rev} of them",
        book=f"{n_rev} of {int(met.sum())} draws reverse",
    )


def premise_reached(rates: object, m: int, n_draws: int, k: int, raw_reversals: int) -> Verdict:
    """Corollary 2's premise is restrictive only if some draw reaches d_eff >= n - 1."""
    n_hit = n_reaching(rates.d_effs, m)
    return Verdict(
        bool((rates.d_effs >= m - 1).any()),
        f"{n_hit} of {n_draws} draws reach d_eff >= n - 1 = {m - 1} (largest "
        f"d_eff {rates.d_effs.max():.2f}; d_eff <= min(k, n - 1) = {min(k, m - 1)}); on the same "
        f"draws the raw mean, median and geometric mean reverse {raw_reversals} pairs "
        f"and the z-mean {int(rates.counts.sum())}: the aggregator, not d_eff, decides",
        book=f"{n_hit} of {n_draws} draws with d_eff >= n - 1",
    )


def converse(ce2: object, ce3: object) -> Verdict:
    """The converse of Corollary 2 (d_eff = n - 1 protects the ranking) fails on the constructed examples."""
    return Verdict(
        not (ce2.d_eff >= ce2.n - 1 - 1e-9 and bool(ce2.flipped)),
        f"S = [[1, 1, 0], [0, 0, 5]] has d_eff = {ce2.d_eff:.0f} = n - 1; adding (100, 100, 2.5) moves the z-means "
        f"from {np.round(ce2.before, 3).tolist()} to {np.round(ce2.after, 3).tolist()}; also S = [[1, 1], [0, -2], "
        f"[-1, 1]] (d_eff = {ce3.d_eff:.0f} = n - 1) with (0, 10) added flips {ce3.flipped}",
        book=f"d_eff = n - 1 = {ce2.n - 1}, and one added model {flips_word(bool(ce2.flipped), 'reverses', 'keeps')} the pair",
    )


# -- the width model (Proposition 1, App. H.10, H.15) ------------------------------------------------
def n_above(values: Sequence[float] | pd.Series, bound: float) -> int:
    """How many of ``values`` exceed ``bound``."""
    return int((np.asarray(values) > bound).sum())


def meets_word(flag: bool) -> str:
    """'meets every hypothesis' or 'does not meet every hypothesis'."""
    return "meets every hypothesis" if flag else "does not meet every hypothesis"


def breaks_word(flag: bool) -> str:
    """'breaks' or 'does not break'."""
    return "breaks" if flag else "does not break"


def lowest_is(summary: object, benchmark: str, r2_benchmark: float, r2_full: float, summary_full: object) -> Verdict:
    """App. H.15: ``benchmark`` has the lowest R^2 of the width model on the frontier."""
    return Verdict(
        summary.r2_min_benchmark == benchmark,
        f"{benchmark} has R^2 {r2_benchmark:.3f} on the frontier; the lowest is {summary.r2_min_benchmark} "
        f"({summary.r2_min:.3f}); on all models {benchmark} has {r2_full:.3f} and the lowest is "
        f"{summary_full.r2_min_benchmark}",
        book=f"lowest: {summary.r2_min_benchmark} {summary.r2_min:.3f}",
    )


def epsilon_covers_top_pair(fr: object, sf: object, sr: object) -> Verdict:
    """App. H.15's epsilon (the largest R^2 gap) bounds the width model's error on the frontier's top pair."""
    return Verdict(
        fr.top_pair_residual <= sf.gap_max,
        f"epsilon := the largest R^2 gap = {sf.gap_max:.3f} (all models; the frontier's reaches {sr.gap_max:.3f}, "
        f"{sr.gap_max_benchmark}); the width model's error on the frontier's top pair is {fr.top_pair_residual:.3f} "
        f"z-units against Delta_2 = {fr.delta2:.3f}; eta_max runs from {sf.eta_min:.1f} to {sf.eta_max:.1f} (all models)",
        book=fr.top_pair_residual,
    )


def width_representation_bound_survives(tri: object) -> Verdict:
    """The width representation's stated remainder bound eta diam^2 (Proposition 1) survives the triangle population.

    It does not: the left side exceeds eta diam^2 on the triangle population (the proof gives 2 eta diam^2).
    """
    h = tri.hypotheses
    return Verdict(
        not tri.refutes_statement,
        f"triangle population (diam {tri.check.diam:.0f}), pi = <a, c> + {tri.eta:g} (<c, u>^2 - <c, w>^2): monotone "
        f"(smallest partial derivative {h.min_partial:.3f}), remainder ratio "
        f"{h.max_remainder_ratio:.3f} <= eta, ||grad|| = {h.grad_norm:.3f}; left side "
        f"{tri.lhs:.4f} > eta diam^2 = {tri.rhs:.4f}; the proof's 2 eta diam^2 = {2 * tri.rhs:.4f} holds",
        book=tri.lhs,
    )


def lipschitz_tautology(L_data: np.ndarray, L_noise: np.ndarray) -> Verdict:
    """App. H.10's L_b <= 1 says something about the data only if some data could exceed 1 (noise does not)."""
    return Verdict(
        bool((np.asarray(L_noise) > 1 + 1e-12).any()),
        f"max L_b = {np.max(L_data):.3f} on the data and {np.max(L_noise):.3f} on Gaussian noise of the same shape: "
        "|x_b| <= ||x||_2 for every vector, so L_b <= 1 for any data",
        book=float(np.max(L_noise)),
    )


# -- the Shephard corollary (App. H.20) --------------------------------------------------------------
def narrower_yet_larger_in_3d(prism: object) -> Verdict:
    """The main text's existence claim: in D = 3 a body narrower in every direction can have more volume
    (``prism``: :class:`~.domination.PrismPair`, a disk and a Reuleaux triangle times an interval)."""
    return Verdict(
        prism.contradiction,
        "D = 3: disk x [0, 0.99] vs Reuleaux triangle x [0, 1]: every width ratio <= "
        f"{prism.max_width_ratio:.3f} over {prism.n_dirs} directions, volumes "
        f"{prism.vol_K:.4f} > {prism.vol_L:.4f}",
        book=f"D = 3: volumes {prism.vol_K:.4f} > {prism.vol_L:.4f}",
    )


def no_phenomenon_below_3(rd: object, needle: object) -> Verdict:
    """The conjectured threshold D >= 3: false when the disk and the Reuleaux triangle (``rd``:
    :class:`~.domination.ReuleauxDisk`) do it in D = 2, and a needle does it with finitely many directions."""
    return Verdict(
        not rd.contradiction,
        f"D = 2, all directions: disk of diameter 0.99 (widths <= {rd.w_K_max:.3f}) "
        f"vs Reuleaux triangle (widths >= {rd.w_L_min:.6f}), areas {rd.area_K:.4f} > "
        f"{rd.area_L:.4f}; with finitely many directions a needle (widths >= "
        f"{needle.widths_needle.min():.2f} > 2, area {needle.vol_needle:.3f} < "
        f"{needle.vol_ball:.3f}) does it in any D >= 2",
        book=f"D = 2: areas {rd.area_K:.4f} > {rd.area_L:.4f}",
    )


def symmetric_counterexamples(sym: Mapping[int, object]) -> Verdict:
    """Width domination implies volume domination for symmetric bodies: a counterexample among the pairs?"""
    n_v = sum(s.n_violations for s in sym.values())
    return Verdict(
        n_v > 0,
        "; ".join(
            f"D = {D}: {s.n_violations} of {s.n_dominated} width-dominated symmetric pairs have the larger volume"
            for D, s in sym.items()
        )
        + "; w = 2h for symmetric bodies, so w_K < w_L everywhere puts K inside L in any dimension",
        book=f"{n_v} of {sum(s.n_dominated for s in sym.values())} dominated pairs",
    )
