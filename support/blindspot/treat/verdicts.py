"""What the chapters of Part III conclude from their results, decided here and tested, never in a notebook.

Each function takes computed results (greedy selections and their audits, stable cores, subset
objectives, transfers, counterfactual rankings) and returns either a
:class:`~blindspot.core.verdict.Verdict` (does a statement of the paper hold, with the evidence that
decided it, for the chapter's ledger) or the words a chapter shows. The comparisons, thresholds and
counts behind them live here, next to their tests (``tests/treat/test_verdicts.py``).

References
----------
The paper's §5 (Theorems 4 and 5, Propositions 3–5) and App. H.4, H.5, H.18, H.19, H.36, H.37, H.45; the
chapters of Part III of the book; Nemhauser, Wolsey and Fisher (1978) and Das and Kempe (2011) for the
greedy guarantees.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from blindspot.core.verdict import STATISTICAL, StatTest, Verdict, compare_words, judge, yes_no
from blindspot.treat.selector_comparison import PairedDifference, SelectorComparison, SuiteComparison

__all__ = [
    "greedy_vs_random_text",
    "beaten_text",
    "coverage_tau_text",
    "seeds_rho_evidence",
    "livebench_text",
    "core_not_run_note",
    "core_text",
    "top4_text",
    "top4_wording_evidence",
    "loo_summary",
    "fragility_summary",
    "arena_summary",
    "robust_evidence",
    "recorded_status",
    "arena_evidence",
    "slice_word",
    "exhaustive_text",
    "greedy_vs_optimum_text",
    "share_exact",
    "bound_fails_text",
    "paper_step_failures",
    "first_step_word",
    "subsets_text",
    "submodular",
    "greedy_inequality",
    "minr_bound",
    "tightness",
    "distinct_cores_text",
    "core_matches",
    "same_order_word",
    "sign_change_text",
    "matches_or_beats",
    "bridge_bound",
    "isotropy_label",
    "name_order_is_time_order",
    "beaten_cells",
    "below_volumetric",
    "within_span_constant",
    "uniform_weights_minimax",
    "no_violations",
    "transfer_box",
    "bounds_text",
    "bounds_paragraph",
    "closure_text",
    "perturbation_statement",
    "closure",
    "n_significant",
    "survives_word",
    "NONINFERIORITY_MARGIN",
    "split_test",
    "greedy_vs_random",
    "coverage_keeps_ranking",
    "random_as_good_as_any",
    "extrapolation_fails",
    "extrapolation_caveat",
    "CAVEAT_DROP",
    "SELECTOR_STATEMENTS",
    "selector_statements",
    "verdict_word",
    "statements_frame",
]


# -- Theorem 4: greedy coverage ------------------------------------------------------------------------
def slice_word(has_frontier: bool, full: str = "all models") -> str:
    """'frontier' when the featured leaderboard has a frontier slice, else the name of the full slice."""
    return "frontier" if has_frontier else full


def exhaustive_text(opt: object | None, k: int, target: float, r_show: int, max_k: int) -> str:
    """What the exhaustive search found (``brute_force_optimum``), or why it was not run."""
    if opt is None:
        return f"The exhaustive search over $2^{{{k}}}$ subsets is not run here ($k > {max_k}$)."
    return (
        f"The exhaustive search over all {2**k:,} subsets needs {opt.min_r(target)} benchmarks for "
        f"{target:.0%}, and the best {r_show} cover {opt.values[r_show]:.3f}."
    )


def greedy_vs_optimum_text(audits: Mapping[str, object], max_k: int) -> str:
    """How greedy compares with the exhaustive optimum on every audited slice, in words."""
    if not audits:
        return f"No slice has $k\\le{max_k}$, so greedy is compared with the eigenvalue bracket only."
    worst = min(a.approximation.min() for a in audits.values())
    return (
        f"On the {len(audits)} slices with $k\\le{max_k}$, greedy needs as many benchmarks as the optimum on "
        f"{sum(a.r_greedy == a.r_optimum for a in audits.values())}, and its coverage is never below {worst:.4f} of "
        "the optimum at any size."
    )


def share_exact(ratios: np.ndarray, tol: float = 1e-9) -> float:
    """Percentage of greedy/optimum ratios equal to 1 (greedy optimal), to ``tol``."""
    return 100 * float(np.mean(np.asarray(ratios) > 1 - tol))


def bound_fails_text(decided: Mapping[str, object]) -> str:
    """Where Theorem 4(c)'s bound on r_min fails, over the slices the eigenvalue bracket decides."""
    if not decided:
        return "On no slice does the bracket decide the bound."
    failing = [f"{key} (bound {m.bound}, $r_{{\\min}}$ = {m.r_min})" for key, m in decided.items() if not m.holds]
    return f"The bound fails on {len(failing)} of the {len(decided)} slices where it can be decided" + (
        ": " + "; ".join(failing) + "." if failing else "."
    )


def paper_step_failures(bounds: Sequence[object], tol: float = 1e-12) -> int:
    """How many matrices have a best single benchmark below the paper's first-step value d_eff/k."""
    return sum(b.best_single < b.paper_first_step - tol for b in bounds)


def first_step_word(bound: object) -> str:
    """'and also' when a matrix's best single benchmark reaches the paper's first step d_eff/k, else 'but not'."""
    return "but not" if paper_step_failures([bound]) else "and also"


def subsets_text(k: int, exhaustive: bool) -> str:
    """The number of subsets enumerated, or '2^k (not run here)'."""
    return f"{2**k:,}" if exhaustive else f"2^{k} (not run here)"


def submodular(
    audits: Mapping[str, object], alone: float, after: float, c3: object, ck: object | None, label: str
) -> Verdict:
    """Theorem 4(a): coverage is submodular, i.e. no diminishing-returns comparison is violated on any slice.

    ``alone``/``after`` are the 3x3 example's marginal gains of benchmark 2 alone and after benchmark 1;
    ``c3`` its violations; ``ck`` the featured slice's audit (for the book value).
    """
    per_slice = "; ".join(
        f"{key}: {a.violations.n_violations:,} of {a.violations.n_total:,}" for key, a in audits.items()
    )
    return Verdict(
        sum(a.violations.n_violations for a in audits.values()) == 0,
        f"violated diminishing-returns comparisons: {per_slice}; the 3x3 positive definite matrix of (a): "
        f"f({{2}}) = {alone:.4f} < f({{1,2}}) - f({{1}}) = {after:.4f} ({c3.n_violations} violations)",
        book=f"{ck.violations.n_violations:,} of {ck.violations.n_total:,} ({label})" if ck is not None else None,
    )


def _worst(audits: Mapping[str, object]) -> str:
    return min(audits, key=lambda key: audits[key].approximation.min())


def greedy_inequality(audits: Mapping[str, object], worst_random: np.ndarray, n_random: int) -> Verdict:
    """Theorem 4(b)'s inequality: greedy's coverage is at least (1 - 1/e) of the optimum on every audited slice."""
    w = _worst(audits)
    return Verdict(
        all(a.approximation.min() >= 1 - np.exp(-1) - 1e-12 for a in audits.values()),
        f"worst greedy/optimum ratio {audits[w].approximation.min():.4f} ({w}); over "
        f"{n_random} random 12 x 12 correlation matrices the worst is {np.min(worst_random):.4f}",
        book=float(audits[w].approximation.min()),
    )


def minr_bound(decided: Mapping[str, object], eye: object, minr: Mapping[str, object], label: str) -> Verdict:
    """Theorem 4(c): the bound on the number of benchmarks greedy needs holds on every decided slice."""
    return Verdict(
        all(m.holds for m in decided.values()),
        "bound vs r_min: "
        + "; ".join(f"{key} {m.bound} vs {m.r_min}" for key, m in decided.items())
        + f"; identity Sigma (k = 12): {eye.bound} vs {eye.r_min}; what holds: max_j f({{j}}) >= 1/d_eff",
        book=f"bound {minr[label].bound} vs r_min {minr[label].r_min} ({label})",
    )


def tightness(tight: pd.DataFrame, audits: Mapping[str, object], worst_random: np.ndarray, n_random: int) -> Verdict:
    """Theorem 4's tightness: the weighted-coverage example reaches 1 - (1 - 1/k)^k and falls towards 1 - 1/e."""
    ratio = tight["greedy / optimum"]
    if audits:
        w = _worst(audits)
        worst_here = (
            f"greedy's worst ratio to the optimum here is {audits[w].approximation.min():.4f} ({w}), "
            f"{n_random} random matrices: {np.min(worst_random):.4f}; "
        )
        tail = (
            f"this objective is not in the class: {sum(a.violations.n_violations for a in audits.values()):,} violated "
            "diminishing-returns comparisons (T4a)"
        )
    else:
        worst_here, tail = "", "this objective is not in the class (T4a)"
    return Verdict(
        bool(
            tight["matches 1 - (1 - 1/k)^k"].all() and ratio.is_monotonic_decreasing and (ratio > 1 - np.exp(-1)).all()
        ),
        "weighted maximum coverage, greedy / exhaustive optimum: "
        + ", ".join(f"k = {kk}: {v:.4f}" for kk, v in ratio.items())
        + f" (1 - (1 - 1/k)^k, falling to 1 - 1/e = {1 - np.exp(-1):.4f}); "
        + worst_here
        + tail,
        book=float(audits[_worst(audits)].approximation.min()) if audits else None,
    )


# -- the stable core (App. H.19) -----------------------------------------------------------------------
def core_not_run_note(study: object) -> str | None:
    """Why the core is not computed (``r`` not below the number of benchmarks), as a box; None when it is."""
    if study.core is not None:
        return None
    f = study.front
    return (
        f":::{{important}}\n**The core is not computed on this leaderboard.** It counts the greedy top r = {study.r}, "
        f"and {f.name} has only {f.n_benchmarks} benchmarks, so every benchmark would be in every resample's "
        "top r. Set `r` below the number of benchmarks to run this chapter.\n:::"
    )


def core_text(study: object) -> str | None:
    """The core and its frequencies in words (``study``: :class:`~.core_study.CoreStudy`); None without a core."""
    core, f = study.core, study.front
    if core is None:
        return None
    members = ", ".join(f"{b} ({core.frequencies[b]:.2f})" for b in core.core) or "empty"
    return (
        f"Over {study.n_boot} resamples of the {f.n_models} frontier models the core is "
        f"{members}. The {f.n_benchmarks} "
        f"frequencies sum to {core.frequencies.sum():.0f}, the number of slots counted. {core.n_degenerate} resamples "
        "had a benchmark that was constant within the resample."
    )


def top4_text(study: object) -> str:
    """The core counted in the top 4, and how stable the top 4 is, in words."""
    jac, same = study.top4_stability
    if jac is None:
        return "Not computed on this leaderboard (it needs r >= 4 and the core above)."
    core, top4 = study.core, study.top4()
    in_top4 = ", ".join(f"{b} {top4.loc[b, 'in top 4']:.2f}" for b in core.core) or "(no core)"
    return (
        f"In the top 4 the core members appear with frequencies {in_top4}, and the greedy top 4 of the full "
        f"sample is {', '.join(core.point_order[:4])}. The top-4 set of a resample has a mean Jaccard index of "
        f"{jac:.3f} with the full sample's top 4 and equals it in {100 * same:.0f}% of resamples."
    )


def top4_wording_evidence(core: object, want: Sequence[str], r: int) -> str:
    """The ledger's evidence for SC.top4_wording: the paper's core counted in the top r and in the top 4."""
    in7, in4 = core.frequencies[want], core.top_m_frequencies(4)[want]
    return (
        f"counted in the greedy top {r} (App. H.19): "
        + ", ".join(f"{b} {in7[b]:.2f}" for b in want)
        + "; counted in the greedy top 4: "
        + ", ".join(f"{b} {in4[b]:.2f}" for b in want)
        + f"; the full-sample top 4 is {', '.join(core.point_order[:4])}"
    )


def distinct_cores_text(n_seeds: int, n_distinct: int, jaccard: Sequence[float]) -> str:
    """How many distinct cores the bootstrap seeds give, and the range of their top-4 Jaccard index."""
    text = f"The {n_seeds} seeds give {n_distinct} distinct core{'s' if n_distinct != 1 else ''}"
    if jaccard:
        return text + f", and the top-4 Jaccard index ranges from {min(jaccard):.3f} to {max(jaccard):.3f}."
    return text + "."


def core_matches(core: Sequence[str], paper: Sequence[str], threshold: float, r: int, n_boot: int) -> Verdict:
    """App. H.19's stable core is the one the bootstrap finds (as sets of benchmark names)."""
    return Verdict(
        sorted(core) == sorted(paper),
        f"book core: {', '.join(core) or 'empty'} (frequency >= {threshold} in the greedy top {r}, {n_boot} resamples)",
        book=", ".join(core),
    )


# -- other subset objectives (App. H.4, H.5, H.45) -------------------------------------------------------
def same_order_word(same: bool, yes: str = "the same order", no: str = "different orders") -> str:
    """Whether two selection rules give the same order, in words."""
    return yes if same else no


def sign_change_text(rho: pd.Series) -> str:
    """' and changes sign.' when the values straddle 0, else '.'."""
    return " and changes sign." if rho.min() < 0 < rho.max() else "."


def beaten_cells(beaten: pd.DataFrame) -> str:
    """The (rule, r) cells where another rule beats spectral greedy, as 'rule at r = 2, 3; ...', or 'none'."""
    return "; ".join(f"{m} at r = {', '.join(str(r) for r in g['r'])}" for m, g in beaten.groupby("method")) or "none"


def greedy_vs_random_text(tau_vs_random: pd.DataFrame, r_hi: int) -> str:
    """App. H.4 in words: greedy's tau against random subsets' at r = 2 and at ``r_hi``
    (``tau_vs_random``: :meth:`~.objectives_study.ObjectivesStudy.greedy_vs_random`)."""
    t = tau_vs_random
    return (
        f"At $r$ = 2 greedy's pair ranks the models with $\\tau$ = {t.loc[2, 'greedy tau']:.3f}, random "
        f"pairs with {t.loc[2, 'random tau']:.3f} ± {t.loc[2, 'random sd']:.3f}. At $r$ = {r_hi}: "
        f"{t.loc[r_hi, 'greedy tau']:.3f} for greedy against {t.loc[r_hi, 'random tau']:.3f} "
        "for the random mean."
    )


def beaten_text(beaten_tau: pd.DataFrame, beaten_cov: pd.DataFrame) -> str:
    """Where another rule beats spectral greedy, on tau and on coverage, and by how much at most, in words."""
    margin = (beaten_cov["coverage"] - beaten_cov["coverage_spectral_greedy"]).max() if len(beaten_cov) else 0.0
    return (
        f"On $\\tau$ spectral greedy is beaten in {len(beaten_tau)} (rule, $r$) cells ({beaten_cells(beaten_tau)}); "
        f"on coverage in {len(beaten_cov)} ({beaten_cells(beaten_cov)}), by at most {margin:.4f}. Greedy is a good "
        "coverage heuristic but not an optimal one ({ref}`ch-greedy-coverage`); on the paper's data its own five-way "
        "table (App. H.5) shows the same comparison as this one."
    )


def coverage_tau_text(ct: object, r: int, rho: pd.Series) -> str:
    """App. H.45 in words: Spearman rho of coverage and tau, and its range over seeds."""
    return (
        f"Spearman $\\rho$ = {ct.rho:.3f} ($p$ = {ct.p:.2f}) with {r}-subsets; across {len(rho)} seeds it ranges "
        f"from {rho.min():.3f} to {rho.max():.3f}" + sign_change_text(rho)
    )


def seeds_rho_evidence(rho: pd.Series) -> str:
    """The ledger's evidence for App. H.45's rho: its range over the seeds."""
    return f"across {len(rho)} seeds rho ranges from {rho.min():.2f} to {rho.max():.2f}"


def livebench_text(lb: object, lb4: pd.DataFrame | None) -> str | None:
    """App. H.43 in words: greedy against random subsets of LiveBench's sub-tasks at r = 4 and 5 (None when the
    table is absent or lacks them)."""
    if lb4 is None or not {4, 5} <= set(lb4.index):
        return None
    return (
        f"On LiveBench's {lb.n_benchmarks} sub-tasks (all {lb.n_models} models) greedy's four give $\\tau$ = "
        f"{lb4.loc[4, 'greedy tau']:.3f} against {lb4.loc[4, 'random tau']:.3f} for random 4-subsets; at $r$ = 5, "
        f"{lb4.loc[5, 'greedy tau']:.3f} against {lb4.loc[5, 'random tau']:.3f}."
    )


def matches_or_beats(beaten_tau: pd.DataFrame, beaten_cov: pd.DataFrame, same_rule: bool) -> Verdict:
    """App. H.4–H.5: spectral greedy matches or beats every other rule on tau and on coverage at every r."""
    return Verdict(
        len(beaten_tau) == 0 and len(beaten_cov) == 0,
        f"beaten on tau in {len(beaten_tau)} cells ({beaten_cells(beaten_tau)}) and on coverage in {len(beaten_cov)} "
        f"({beaten_cells(beaten_cov)}); max-diversity and max-uncorrelated give "
        f"{same_order_word(same_rule, 'the same', 'different')} orders",
        book=f"{len(beaten_tau)} tau cells, {len(beaten_cov)} coverage cells beaten",
    )


# -- App. H.13 (temporal transfer) --------------------------------------------------------------------------
def name_order_is_time_order(agree: object, off: np.ndarray, off_time: np.ndarray, time_key: str) -> Verdict:
    """App. H.13's quarters are chronological: the quarters by name (the paper's code) are the quarters by date.

    ``agree`` is the :class:`~blindspot.treat.transfer.OrderAgreement` of the name order against the
    ``time_key`` order (it holds when every dated model lands in the same quarter); ``off`` and ``off_time``
    are the off-diagonal coverages of the transfer matrices by name and by date.
    """
    return Verdict(
        agree.identical_parts,
        f"quarters by name (the paper's code): off-diagonal [{off.min():.3f}, {off.max():.3f}]; they put "
        f"{100 * agree.same_part:.0f}% of the {agree.n} dated models in the quarter of their {time_key} (about "
        f"{100 / agree.n_parts:.0f}% for unrelated orders); Kendall tau of name order vs {time_key} order "
        f"{agree.tau:.2f}; ordered by {time_key} the off-diagonal range is [{off_time.min():.3f}, {off_time.max():.3f}]",
        book=f"{100 * agree.same_part:.0f}% in the same quarter",
    )


# -- Propositions 3 and 4 (the bridge) ------------------------------------------------------------------
def bridge_bound(caps: object, r: int) -> Verdict:
    """Proposition 3: two bodies with equal widths on the selected benchmarks are within 2R sqrt(1 - tau)."""
    if not caps.holds:
        evidence = (
            f"two caps of the ball on either side of the direction of most uncovered variance at r = {r}: "
            f"width gap on the selected benchmarks {caps.visible_gap:.1e}, Hausdorff distance {caps.hausdorff:.2f} R > "
            f"2R sqrt(1 - tau) = {caps.term:.3f} R (tau = {caps.tau:.4f})"
        )
    else:
        evidence = (
            f"the cap pair's Hausdorff distance {caps.hausdorff:.2f} R is within 2R sqrt(1 - tau) = {caps.term:.3f} R "
            f"(tau = {caps.tau:.4f})"
        )
    return Verdict(caps.holds, evidence, book=f"distance {caps.hausdorff:.2f} R vs term {caps.term:.3f} R")


def isotropy_label(term_kappa1: float, isotropic: float, r: int, m: int, kappas: Sequence[float]) -> Verdict:
    """Proposition 3's "isotropic" label: does 2R sqrt(1 - tau) equal the isotropic term 2R sqrt((1 - tau)/m)?

    ``term_kappa1`` is the term for kappa = 1 (the single-direction case) and ``isotropic`` the one for
    kappa = 1/m, both in units of R, with m uncovered directions at ``r``; ``kappas`` are the readings of
    kappa_orth. The label holds only when the two coincide (m = 1).
    """
    return Verdict(
        bool(np.isclose(isotropic, term_kappa1)),
        f"at r = {r}, m = {m} uncovered directions: the isotropic term (kappa = 1/m) is {isotropic:.3f} R, the "
        f"paper's 'isotropic' 2R sqrt(1 - tau) = {term_kappa1:.3f} R is kappa = 1, the single-direction case; the "
        f"three readings of kappa_orth lie in [{min(kappas):.3f}, {max(kappas):.3f}]",
        book=f"kappa = 1 term {term_kappa1:.3f} R; isotropic {isotropic:.3f} R",
    )


def below_volumetric(omega: pd.DataFrame, r: int, n_dirs: int) -> Verdict:
    """App. H.45: the exact within-span covering radius at ``r`` lies below the 'Rogers optimum' it is compared with.

    ``omega`` is indexed by r with ``exact pi - arccos(1/sqrt r)``, ``'Rogers optimum'``, ``exact / Rogers`` and
    ``MC (Sigma = I) / Rogers``.
    """
    row = omega.loc[r]
    rogers = row["'Rogers optimum'"]
    return Verdict(
        bool(row["exact / Rogers"] < 1),
        f"exact pi - arccos(1/sqrt {r}) = {row['exact pi - arccos(1/sqrt r)']:.4f} against the Rogers "
        f"optimum {rogers:.4f}: ratio {row['exact / Rogers']:.4f}; the Monte "
        f"Carlo with {n_dirs:,} directions gives {row['MC (Sigma = I) / Rogers']:.3f}, from below",
        book=float(row["exact / Rogers"]),
    )


def within_span_constant(gram_dev: float, k: int, tol: float = 1e-8) -> Verdict:
    """The code's omega_within depends on the selection: false when the prefixes' rows are orthonormal
    (largest Gram deviation at most ``tol``), since then it is the constant pi - arccos(1/sqrt r)."""
    return Verdict(
        bool(gram_dev > tol),
        f"the code's rows for the greedy prefixes r = 2..{k} are orthonormal (largest Gram deviation "
        f"{gram_dev:.1e}), so its omega_within is pi - arccos(1/sqrt r) for every Sigma and every selection; the Monte "
        f"Carlo ratios decline with r because the Monte Carlo underestimates that constant more as r grows",
        book=f"Gram deviation {gram_dev:.1e}",
    )


def uniform_weights_minimax(gap: float, tol: float = 1e-9) -> Verdict:
    """Proposition 4: uniform weights give the coverage f along greedy's prefixes (largest gap below ``tol``)."""
    return Verdict(
        gap < tol,
        f"uniform weights (g = 1) give f_1(T) = rank/k; along greedy's prefixes it differs from f by up to "
        f"{gap:.3f}; the minimax itself is not well posed (no map from capability covariances to g(Sigma))",
        book=f"largest gap f_1 - f: {gap:.3f}",
    )


def no_violations(v: object, name: str) -> Verdict:
    """Proposition 4's submodularity: no diminishing-returns comparison violated on the leaderboard ``name``."""
    return Verdict(
        v.n_violations == 0,
        f"{v.n_violations:,} of {v.n_total:,} diminishing-returns comparisons violated on {name} "
        f"(max {v.max_violation:.3f}); the same check as Theorem 4(a)",
        book=f"{v.n_violations:,} of {v.n_total:,} violated",
    )


# -- Proposition 5 and Theorem 5 (stability, transfer, closure) -----------------------------------------
def transfer_box(r: int, src_name: str, tgt_name: str | None, n_shared: int) -> str:
    """The box of a run without cross-suite transfer: what it needs and what this run has."""
    have = (
        f"this run has one leaderboard, {src_name}."
        if tgt_name is None
        else f"{src_name} and {tgt_name} share {n_shared}."
    )
    return (
        ":::{important}\n**No cross-suite transfer on this data.** It needs two leaderboards (`scores` with two "
        f"entries) that share more than r = {r} benchmarks; " + have + " Proposition 5 on random pairs and Theorem 5 "
        "still run.\n:::"
    )


def bounds_text(holds: Mapping[str, bool]) -> str:
    """Whether each bound holds on a pair, as 'name: yes, name: no'."""
    return ", ".join(f"{b}: {yes_no(h)}" for b, h in holds.items())


def bounds_paragraph(holds: Mapping[str, bool]) -> str:
    """Whether each of Proposition 5's bounds holds on a pair (:func:`bounds_text`), and why the corrected are wider."""
    return (
        "Does each bound hold on this pair? "
        + bounds_text(holds)
        + ". The corrected ones are wider because they account for every direction of the subset's span, not only the "
        "worst one."
    )


def closure_text(cc: object, by_start: Mapping[int, Sequence[int]], eye: object, k: int) -> str:
    """Theorem 5's closure rate against greedy on the featured frontier and on the identity, in words."""
    bad_starts = [m for m, ts in by_start.items() if ts]
    fails = ("t = " + ", ".join(map(str, cc.failing_t))) if cc.failing_t else "no step"
    text = (
        f"The claimed rate needs $f(T_1)\\ge\\deff/k$ at the first step; here $f(T_1)$ = {cc.f[0]:.3f} against "
        f"{cc.claimed[0]:.3f}, and from the empty set the claim fails at {fails}. Over every start m = 0..{k - 1} "
        f"it fails for {len(bad_starts)} starts"
        + (f" ({', '.join(map(str, bad_starts))})." if bad_starts else ".")
        + f" On $\\Sigma=I$ it fails at {len(eye.failing_t)} of the {k} steps ($f(T_1)=1/k$ while $\\deff/k=1$). "
        f"What holds: $f(T_t)$ is non-decreasing and reaches 1 at $t=\\operatorname{{rank}}\\Sigma$ = {cc.rank}."
    )
    if cc.gamma is not None:
        text += (
            f" With the submodularity ratio $\\gamma$ = {cc.gamma:.3f}, greedy also satisfies "
            f"$f(T_t)\\ge1-e^{{-\\gamma t/k}}$, a valid but weak rate ({cc.valid[-1]:.3f} at $t=k$)."
        )
    return text


def perturbation_statement(vi: object, vs: object, k_pairs: int, n_pairs: int) -> Verdict:
    """Proposition 5 as stated: no violation with the proof's fixed projector, or none with each pair's own."""
    n_fixed, n_own = vi.count("fixed", "paper"), vi.count("own", "paper")
    return Verdict(
        (n_fixed == 0) or (n_own == 0),
        f"independent random {k_pairs} x {k_pairs} pairs: fixed projector (the proof's) {n_fixed} of {n_pairs} "
        f"violate it ({100 * vi.fraction('fixed', 'paper'):.1f}%, max shortfall "
        f"{vi.table.loc[('fixed', 'paper'), 'max_violation']:.3f}); own projector {n_own} of {n_pairs} "
        f"({100 * vi.fraction('own', 'paper'):.1f}%); sampling perturbations: fixed "
        f"{100 * vs.fraction('fixed', 'paper'):.1f}%, own {100 * vs.fraction('own', 'paper'):.1f}%; these shares describe "
        f"the random ensembles; with the factor |T| restored and the projector fixed, "
        f"{vi.count('fixed', 'rank') + vs.count('fixed', 'rank')} violations",
        book=f"fixed: {100 * vi.fraction('fixed', 'paper'):.1f}%; own: {100 * vi.fraction('own', 'paper'):.1f}% of pairs",
    )


def closure(cc: object, by_start: Mapping[int, Sequence[int]], eye: object, k: int) -> Verdict:
    """Theorem 5's closure rate f(T_t) >= 1 - (1 - d_eff/k)^t holds from every start."""
    bad_starts = [m for m, ts in by_start.items() if ts]
    return Verdict(
        not any(by_start.values()),
        f"f(T_1) = {cc.f[0]:.3f} {compare_words(cc.claimed[0], cc.f[0], '<', '>=')} d_eff/k = {cc.claimed[0]:.3f}; "
        f"from the empty set it fails at t = "
        f"{', '.join(map(str, cc.failing_t)) or 'none'}; it fails for {len(bad_starts)} of {k} starts m; identity fails "
        f"at {len(eye.failing_t)} of {k} steps; what holds: monotone, f = 1 at t = rank = {cc.rank}"
        + (f", and f >= 1 - exp(-gamma t/k) with gamma = {cc.gamma:.3f}" if cc.gamma is not None else ""),
        book=f"fails at t = {', '.join(map(str, cc.failing_t))}" if cc.failing_t else "holds from the empty set",
    )


# -- counterfactual validation (App. H.36, H.37) -------------------------------------------------------
def loo_summary(study: object) -> str:
    """App. H.36 in words (Markdown): rho, the benchmarks of small blind loading, the range of Kendall's tau,
    and the five benchmarks losing most coverage against the five most disruptive (``study``:
    :class:`~.counterfactual_study.CounterfactualStudy`); a note when it could not run."""
    res = study.loo
    if res is None:
        return ":::{important}\nLeave-one-out correlations need at least three benchmarks.\n:::"
    bl = res.table["blind_loading"]
    low = bl[bl < bl.max() / 2]
    top_loss = list(res.table.sort_values("coverage_loss", ascending=False).index[:5])
    top_change = list(res.table.sort_values("rank_change", ascending=False).index[:5])
    return (
        f"With $d$ = {res.d}, $\\rho$ = {res.rho:.3f} ($p$ = {res.p:.4f}). {len(low)} benchmark(s) have a blind loading "
        f"below half the largest ({', '.join(low.index)}); the other {len(bl) - len(low)} lie in "
        f"[{bl.drop(low.index).min():.2f}, {bl.drop(low.index).max():.2f}], so the correlation rests on the few points "
        f"that differ. Leaving one benchmark out keeps $\\tau$ between {res.table['tau'].min():.3f} and "
        f"{res.table['tau'].max():.3f}.\n\nThe five benchmarks whose removal loses the most coverage are "
        f"{', '.join(top_loss)}; the five most disruptive to remove are {', '.join(top_change)}: "
        f"{res.top_overlap(5)} in common."
    )


def fragility_summary(study: object) -> str:
    """Whether App. H.36's correlation survives the restriction to the frontier's top half, in words."""
    if study.loo is None:
        return ""
    return (
        f"Over the top {study.half} models, $\\rho$ = {study.rho_half:.2f} ($p$ = {study.p_half:.2f}). "
        f"{study.n_significant} of the {len(study.fragility)} "
        "population sizes give $p$ < 0.05. The number over the whole frontier "
        + survives_word(study.p_half)
        + " the restriction to its top half, the models a leaderboard reader cares about."
    )


def arena_summary(study: object, paper_rho: float) -> str:
    """App. H.37's reconstruction in words: the matched models, the sparsity, rho against the paper's; a note
    when the study ran without the Arena categories (they are the paper's external data)."""
    matches, ea, arena = study.matches, study.external, study.arena
    if ea is None:
        return ":::{note}\nThe Arena categories are the paper's external data; this section runs on the paper's data only.\n:::"
    return (
        f"{len(matches)} Arena models match a model of {study.table.name} ({int((matches['n_candidates'] > 1).sum())} "
        f"with more than one candidate; the first is kept). The Arena table is sparse "
        f"({100 * arena.missing_fraction:.0f}% of cells missing), so each category has {int(ea.table['n'].min())} to "
        f"{int(ea.table['n'].max())} rated models. Over {len(ea.table)} categories, with $d$ = {ea.d}, the "
        f"reconstruction gives $\\rho$ = {ea.rho:.2f} ($p$ = {ea.p:.2f}), against the paper's {paper_rho}. With about "
        "two dozen models per category and an unpublished pipeline the paper's value cannot be checked."
    )


def recorded_status(claim: object | None, ran: bool) -> str:
    """A ledger row's status for the prose; for a value not recorded, why: the analysis did not run (fewer than
    3 benchmarks) or its correlation is undefined (a constant ranking)."""
    if claim is not None:
        return claim.status
    if not ran:
        return "not computed (fewer than 3 benchmarks)"
    return "undefined on this leaderboard (a constant ranking has no correlation)"


def robust_evidence(study: object) -> str:
    """The ledger's evidence for CF.robust: rho over the top half and how many population sizes are significant."""
    return (
        f"averaged over the top {study.half} models (ranked among themselves) p = "
        f"{study.p_half:.2f}; p < 0.05 at {study.n_significant} of {len(study.fragility)} population sizes"
    )


def arena_evidence(study: object) -> str:
    """The ledger's evidence for CF.arena_rho."""
    ea = study.external
    return (
        f"the book's reconstruction over {len(ea.table)} Arena categories and "
        f"{len(study.matches)} matched models: rho = {ea.rho:.2f} (p = {ea.p:.2f})"
    )


def n_significant(p: pd.Series, alpha: float = 0.05) -> int:
    """How many p-values are below ``alpha``."""
    return int((np.asarray(p) < alpha).sum())


def survives_word(p: float, alpha: float = 0.05) -> str:
    """'survives' when the p-value is below ``alpha``, else 'does not survive'."""
    return "does not survive" if p >= alpha else "survives"


# -- greedy coverage against the simple baseline (Zhang, Dorner & Hardt 2025) --------------------------
#: How much worse in held-out R^2 (mean over k) still counts as "as well as": the book's margin.
NONINFERIORITY_MARGIN = 0.02


def split_test(d: PairedDifference, what: str) -> StatTest:
    """The test of a quantity measured on resampled model splits: its mean and the 2.5-97.5% percentiles
    over the splits of the per-split value (mean over the budgets k)."""
    return StatTest(
        f"{what}; {d.per_split.size} resampled model splits, mean over k = {d.ks[0]}..{d.ks[-1]}, "
        "interval = 2.5-97.5% percentiles over the splits",
        estimate=d.estimate,
        interval=d.interval,
    )


def _span(d: PairedDifference) -> str:
    return f"{d.estimate:+.3f} [{d.interval[0]:+.3f}, {d.interval[1]:+.3f}]"


def greedy_vs_random(cmp: SelectorComparison, margin: float = NONINFERIORITY_MARGIN) -> Verdict:
    """ "Greedy coverage predicts held-out benchmarks at least as well as a random subset of the same size".

    Read as non-inferiority: the paired difference R^2(greedy) - R^2(random mean), per split the mean over
    every k, has its 95% interval above ``-margin`` (holds); below it, fails; else not resolved
    (:func:`blindspot.core.verdict.judge`).
    """
    d = cmp.paired("coverage_greedy", "random", "r2")
    test = split_test(d, "paired held-out R^2, greedy coverage minus the mean over random subsets")
    return Verdict(
        judge(test, ">", -margin),
        f"{cmp.regime}, {cmp.n_train} -> {cmp.n_test} models: R^2 greedy - random = {_span(d)} "
        f"(non-inferiority margin {margin})",
        book=round(d.estimate, 4),
        basis=STATISTICAL,
        test=test,
    )


def coverage_keeps_ranking(cmp: SelectorComparison) -> Verdict:
    """ "Selection by coverage keeps the frontier's ranking better than selection by prediction".

    On the extrapolation regime (the test models are the frontier): the paired difference of Kendall tau of
    the held-out mean ranking, greedy coverage minus prediction greedy (mean over k), has its interval above 0.
    """
    if cmp.regime != "extrapolation":
        raise ValueError(f"the frontier's ranking is the extrapolation regime's; got {cmp.regime!r}")
    d = cmp.paired("coverage_greedy", "prediction_greedy", "tau")
    test = split_test(d, "paired Kendall tau on the frontier, greedy coverage minus prediction greedy")
    same = float(np.mean(d.per_split == 0))
    return Verdict(
        judge(test, ">", 0.0),
        f"tau coverage - prediction = {_span(d)}; the two chose the same benchmarks at every k in "
        f"{same:.0%} of the splits",
        book=round(d.estimate, 4),
        basis=STATISTICAL,
        test=test,
    )


def random_as_good_as_any(cmp: SelectorComparison, margin: float = NONINFERIORITY_MARGIN) -> Verdict:
    """Zhang, Dorner & Hardt's "random sample + regression is as good as any method", with benchmarks as units.

    Per split, the best other selector's advantage in held-out R^2 over the random mean (max over selectors of
    the mean over k); holds when its interval lies below ``margin``, fails when above.
    """
    d = cmp.best_over("random", "r2")
    test = split_test(d, "best selector's held-out R^2 minus the random subsets' mean, max over selectors")
    means = cmp.wide("r2").mean()
    best = str(means.drop("random").idxmax())
    return Verdict(
        judge(test, "<", margin),
        f"{cmp.regime}: best advantage over random = {_span(d)} (margin {margin}); on average the best is {best} "
        f"(R^2 {means[best]:.3f} against {means['random']:.3f})",
        book=round(d.estimate, 4),
        basis=STATISTICAL,
        test=test,
    )


def extrapolation_fails(cmp: SelectorComparison) -> Verdict:
    """Zhang, Dorner & Hardt's "prediction fails when extrapolating to the frontier", with benchmarks as units.

    Read as: fitted below the frontier, even the best selector predicts the frontier's held-out benchmarks no
    better than their frontier mean — its held-out R^2 (mean over k, best selector per split) has its interval
    below 0 (holds); above 0, fails.
    """
    if cmp.regime != "extrapolation":
        raise ValueError(f"extrapolation to the frontier is the extrapolation regime; got {cmp.regime!r}")
    d = cmp.best_level("r2")
    test = split_test(d, "best selector's held-out R^2 on the frontier")
    tau = cmp.splits.groupby("selector")["tau"].mean()
    return Verdict(
        judge(test, "<", 0.0),
        f"fit on {cmp.n_train} models below the frontier, {cmp.n_test} frontier models predicted: best R^2 = "
        f"{_span(d)}; Kendall tau of their held-out ranking {tau.min():.3f} to {tau.max():.3f} across selectors",
        book=round(d.estimate, 4),
        basis=STATISTICAL,
        test=test,
    )


#: The drop in held-out R^2 from interpolation to extrapolation that the report calls material.
CAVEAT_DROP = 0.05


def extrapolation_caveat(interp: SelectorComparison, extrap: SelectorComparison | None, k: int) -> str:
    """The report's caveat, or '' when it does not hold: fitted below the frontier, greedy's ``k`` predict the
    frontier worse than a random split's test models — the two percentile intervals over the splits are apart
    (the extrapolation's 97.5% below the interpolation's 2.5%) and the means differ by more than
    :data:`CAVEAT_DROP`."""
    if extrap is None:
        return ""
    a = interp.curves("r2").loc[("coverage_greedy", k)]
    b = extrap.curves("r2").loc[("coverage_greedy", k)]
    if not (b["hi"] < a["lo"] and a["mean"] - b["mean"] > CAVEAT_DROP):
        return ""
    return (
        f"Fitted on the models below your frontier and asked to predict the frontier, the same {k} give "
        f"R\u00b2 = {b['mean']:.2f} (95% of splits {b['lo']:.2f} to {b['hi']:.2f}): prediction degrades where it "
        "matters most, for models better than those it learnt from."
    )


#: The chapter's statements about the selectors: the book's two, then the peer's two (Zhang, Dorner & Hardt 2025),
#: with the regimes each is judged in.
SELECTOR_STATEMENTS = {
    "greedy_vs_random": (greedy_vs_random, ("interpolation", "extrapolation")),
    "coverage_keeps_ranking": (coverage_keeps_ranking, ("extrapolation",)),
    "random_as_good_as_any": (random_as_good_as_any, ("interpolation", "extrapolation")),
    "extrapolation_fails": (extrapolation_fails, ("extrapolation",)),
}


def selector_statements(comparison: SuiteComparison) -> dict[tuple[str, str, str], Verdict]:
    """Every statement of :data:`SELECTOR_STATEMENTS` on every compared (suite, regime):
    ``{(statement, suite, regime): Verdict}``."""
    out = {}
    for name, (decide, regimes) in SELECTOR_STATEMENTS.items():
        for (suite, regime), cmp in comparison.results.items():
            if regime in regimes:
                out[(name, suite, regime)] = decide(cmp)
    return out


def verdict_word(v: Verdict) -> str:
    """'holds', 'fails' or 'not resolved at 95%'."""
    return {True: "holds", False: "fails", None: "not resolved at 95%"}[v.holds]


def statements_frame(found: Mapping[tuple[str, str, str], Verdict]) -> pd.DataFrame:
    """The verdicts as a table: statement, suite, regime, verdict, estimate and its 95% interval."""
    rows = [
        (name, suite, regime, verdict_word(v), v.test.estimate, *v.test.interval)
        for (name, suite, regime), v in found.items()
    ]
    return pd.DataFrame(rows, columns=["statement", "suite", "regime", "verdict", "estimate", "lo", "hi"])
