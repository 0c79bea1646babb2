"""The sections of the practitioner report: each turns a standardised score table into findings.

Every section declares the fewest models it needs (:data:`MIN_MODELS`); on a smaller population
it is reported as skipped with that number instead of failing. Every section costs time linear
in the number of models: bootstraps go through weighted moments (:mod:`blindspot.core.spectrum`),
the width-model diagnostics through a bounded sample of pairs (:mod:`blindspot.report.width_regime`),
and with more benchmarks than models the spectrum, the bootstrap and the greedy stable core use
the n x n Gram / factored forms.

Sections, in report order (paper items in brackets):

* ``d_eff_full``, ``d_eff_frontier``: effective dimensionality with a bootstrap interval and the
  Marchenko-Pastur correction [Theorem 1];
* ``radius_gap``: population radius R, exact covering radius omega, delta_vis = 2 R omega and the
  top gap [Theorem 2, Table 2];
* ``swap``, ``rank_classes``: the chi-squared swap model and rank classes [Corollary 1, App. H.47]
  (a model of the unmeasured directions);
* ``half_split``, ``leader_bootstrap``: what the file itself shows about #1 [App. H.21];
* ``width_model``: the linear width model's error on the top pair [Proposition 1, App. H.15];
* ``greedy_subset``: the greedy subset for 90% coverage and its bootstrap stable core
  [Theorem 4, App. H.19];
* ``greedy_vs_random``: how well that many benchmarks chosen by coverage predict the others, against a random
  choice of as many, on models not used to choose, and on the frontier when fitted below it (Zhang, Dorner &
  Hardt 2025; :mod:`blindspot.treat.selector_comparison`).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core.conventions import aggregate, population_radius, top_gap, zscore
from blindspot.core.coverage import bootstrap_greedy_orders, greedy_orders_factored, greedy_select
from blindspot.core.covering import covering_radius
from blindspot.core.halfsplit import half_split, half_split_exhaustive
from blindspot.core.spectrum import (
    RESAMPLE_BYTES,
    BootstrapDeff,
    Spectrum,
    bootstrap_d_eff,
    correlation,
    mp_correction,
    spectrum_any_shape,
)
from blindspot.core.swap import p_swap_rescaled
from blindspot.data.tables import ScoreTable
from blindspot.diagnose.figures import bootstrap_hist, scree
from blindspot.prognose.rank_classes import class_sizes, rank_classes
from blindspot.prognose.visible_radius import visible_radius
from blindspot.report.report_data import FIGURES, MEASURED, MIXED, MODEL, Finding, ReportData
from blindspot.report.stability import LeaderBootstrap, leader_bootstrap
from blindspot.report.width_regime import min_models_width, width_regime
from blindspot.treat.figures import core_bars, coverage_curves
from blindspot.treat.selector_comparison import compare_selectors
from blindspot.treat.verdicts import extrapolation_caveat

__all__ = [
    "Context",
    "SECTIONS",
    "MIN_MODELS",
    "TOP",
    "section_minima",
    "run_sections",
    "covering_method",
]

#: Models listed in the rank classes and the ranking table.
TOP = 20
#: Threshold of the rank classes: P(swap) above it makes two models indistinguishable (paper App. H.47).
CLASS_THRESHOLD = 0.40
#: Coverage target of the greedy subset (paper Theorem 4).
COVERAGE_TARGET = 0.9
#: Resamples of the stable core and of the #1 bootstrap at most (the d_eff interval uses --n-boot).
N_BOOT_CORE = 500
N_BOOT_LEADER = 1000
#: Random splits of the benchmarks (all of them when there are no more).
N_SPLITS = 500
#: Estimated hull facets above which the covering radius is estimated by sampling.
MAX_FACETS = 150_000


def _fig_to_base64(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


@dataclass
class Context:
    """The populations and the settings every section reads, with shared intermediate results."""

    full: ScoreTable
    front: ScoreTable | None
    frontier_q: float
    n_boot: int
    seed: int
    progress: bool = False
    filled: int = 0
    figures: bool = True  # draw the report's figures (the survey reads the numbers only)
    frontier_models: int | None = None  # models at or above the frontier quantile, even when too few to analyse
    cache: dict[str, Any] = field(default_factory=dict)

    def spectrum(self, which: str) -> Spectrum:
        key = f"spectrum_{which}"
        if key not in self.cache:
            self.cache[key] = spectrum_any_shape(self.full if which == "full" else self.front)
        return self.cache[key]

    def ranking(self) -> tuple[np.ndarray, np.ndarray]:
        """Aggregate (mean z-score on the frontier) and the order, best first (stable)."""
        if "ranking" not in self.cache:
            a = aggregate(self.front)
            self.cache["ranking"] = (a, np.argsort(-a, kind="stable"))
        return self.cache["ranking"]

    def names(self, idx) -> list[str]:
        return [str(self.front.scores.index[i]) for i in np.atleast_1d(idx)]


# ---------------------------------------------------------------------------------------------
# the sections


def _d_eff(ctx: Context, which: str) -> Finding:
    t = ctx.full if which == "full" else ctx.front
    label = "all models" if which == "full" else "the frontier"
    sp = ctx.spectrum(which)
    boot = bootstrap_d_eff(t, n_boot=ctx.n_boot, seed=ctx.seed, progress=ctx.progress)
    ctx.cache[f"boot_{which}"] = boot
    mp = mp_correction(sp)
    lo, hi = min(boot.lo, sp.d_eff), max(boot.hi, sp.d_eff)
    widened = (lo, hi) != (boot.lo, boot.hi)
    n_pos = int(min(t.n_models, t.n_benchmarks))
    rows = [
        ("d_eff (participation ratio of the correlation eigenvalues)", f"{sp.d_eff:.2f} of at most {n_pos}"),
        ("95% bootstrap interval", f"{lo:.2f} to {hi:.2f} ({ctx.n_boot} resamples of the {t.n_models} models)"),
        ("eigenvalues above the noise edge (Marchenko-Pastur)", f"{mp.n_sig} (edge {mp.lambda_plus:.2f})"),
        ("d_eff of those eigenvalues", f"{mp.d_eff_mp:.2f}" if mp.defined else "undefined (none above the edge)"),
    ]
    reading = (
        f"These {t.n_benchmarks} benchmarks measure about {sp.d_eff:.1f} independent directions among {label} "
        f"(95% interval {lo:.1f} to {hi:.1f}); {mp.n_sig} eigenvalue(s) stand above the noise edge"
        + ("" if mp.defined else ", so the noise-corrected d_eff is undefined")
        + "."
    )
    if widened:
        reading += (
            f" The bootstrap's percentile interval ({boot.lo:.2f} to {boot.hi:.2f}) does not contain the point "
            f"estimate (resampling models duplicates rows, which biases d_eff near its extremes); the interval shown "
            f"is widened to include it."
        )
    if ctx.filled:
        reading += f" {ctx.filled} filled cells are treated as observed, so the interval understates the uncertainty."
    values = {
        "d_eff": sp.d_eff,
        "ci_lo": lo,
        "ci_hi": hi,
        "ci_percentile": [boot.lo, boot.hi],
        "ci_widened_to_point": widened,
        "n_boot": ctx.n_boot,
        "n_degenerate_resamples": boot.n_degenerate,
        "eigenvalues": sp.eigenvalues,
        "mp_edge": mp.lambda_plus,
        "n_sig": mp.n_sig,
        "d_eff_mp": mp.d_eff_mp if mp.defined else None,
        "n_models": t.n_models,
        "k": t.n_benchmarks,
    }
    title = f"Effective dimensionality, {label} (n = {t.n_models}, k = {t.n_benchmarks})"
    return Finding(f"d_eff_{'full' if which == 'full' else 'frontier'}", title, values, reading, rows, MEASURED)


def d_eff_full(ctx: Context) -> list[Finding]:
    return [_d_eff(ctx, "full")]


def d_eff_frontier(ctx: Context) -> list[Finding]:
    return [_d_eff(ctx, "front")]


def covering_method(n_directions: int, d: int) -> str:
    """'exact' when the convex hull of the 2k directions in d dimensions is small enough, else 'mc'.

    The number of facets of the hull of m points spread on S^(d-1) grows like m * 4 * 4.5^(d-3)
    (measured with qhull for d = 3..8); each costs about 3e-5 s.
    """
    est = 2 * n_directions * 4 * 4.5 ** max(d - 3, 0)
    return "exact" if est <= MAX_FACETS else "mc"


@dataclass(frozen=True)
class _Radius:
    omega: float
    d: int
    delta_vis: float


def _paper_directions_gram(X: np.ndarray, d: int) -> np.ndarray:
    """The unit benchmark directions of :func:`blindspot.prognose.visible_radius.benchmark_directions`
    (paper loadings Lambda_d V_d^T e_j) from the n x n Gram matrix, for k > n.

    C = Z^T Z / n and G = Z Z^T / n share their nonzero eigenvalues lam_i; the eigenvectors of C are
    V_i = Z^T U_i / sqrt(n lam_i) for the eigenvectors U_i of G. O(n^2 k) instead of O(k^3).
    """
    n, _ = X.shape
    if d < 2:
        raise ValueError(f"the visible dimension d = {d} is below 2")
    Z = zscore(X)
    lam, U = np.linalg.eigh(Z @ Z.T / n)
    lam, U = lam[::-1][:d], U[:, ::-1][:, :d]
    if lam[-1] <= 1e-12 * lam[0]:
        raise ValueError(f"the correlation matrix has fewer than d = {d} nonzero eigenvalues")
    L = (Z.T @ U) / np.sqrt(n * lam) * lam
    norms = np.linalg.norm(L, axis=1)
    if (norms < 1e-12).any():
        raise ValueError(f"benchmark {int(np.argmin(norms))} has no component in the top-{d} subspace")
    return L / norms[:, None]


def radius_gap(ctx: Context) -> list[Finding]:
    front = ctx.front
    R, gap = population_radius(front), top_gap(front)
    values: dict[str, Any] = {"R": R, "delta_2": gap}
    rows = [("population radius R (z-units)", f"{R:.2f}"), ("top-pair gap Delta_2 (z-units)", f"{gap:.3f}")]
    d = int(math.ceil(ctx.spectrum("front").d_eff - 1e-12))
    method = covering_method(front.n_benchmarks, d)
    try:
        if front.n_benchmarks <= front.n_models:
            vr = visible_radius(front, radius=method, n_samples=10_000, seed=ctx.seed)
            pr = _Radius(vr.omega, vr.d, vr.delta_vis)
        else:  # more benchmarks than models: the directions from the n x n Gram matrix
            U = _paper_directions_gram(front.values, d)
            omega = covering_radius(U, projective=True, method=method, n_samples=10_000, seed=ctx.seed).omega
            pr = _Radius(omega, d, 2.0 * R * omega)
        values.update(
            {
                "omega": pr.omega,
                "delta_vis": pr.delta_vis,
                "trivial_cap_2R": 2 * R,
                "d_used": pr.d,
                "omega_method": method,
            }
        )
        how = (
            "exact"
            if method == "exact"
            else f"a lower bound from 10,000 random directions (the exact hull of {2 * front.n_benchmarks} directions "
            f"in {pr.d} dimensions is too large to compute)"
        )
        rows += [
            ("covering radius omega", f"{pr.omega:.3f} rad ({how.split(' (')[0]}, d = {pr.d})"),
            ("indistinguishability radius 2R omega", f"{pr.delta_vis:.2f} (trivial bound 2R = {2 * R:.2f})"),
        ]
        extra = (
            f" Two models can differ by up to delta_vis = 2R*omega = {pr.delta_vis:.2f} (omega = {pr.omega:.3f} rad, "
            f"{how}) and still look alike on every benchmark"
            + (
                ", which exceeds the trivial bound 2R: the geometric bound says nothing here."
                if pr.delta_vis >= 2 * R
                else "."
            )
        )
    except ValueError as exc:  # directions that do not span, one visible direction, a tie at the top
        values["omega"] = None
        why = str(exc)
        if "below 2" in why:
            why = "the benchmarks span a single visible direction (d_eff rounds up to 1), so there is no angle to cover"
        extra = f" The covering radius is not available: {why}."
        rows.append(("covering radius omega", "not available"))
    reading = (
        f"The frontier spans a radius of {R:.2f} standard units, while the top two models differ by {gap:.3f} on the "
        f"aggregate: {R / gap:.0f} times smaller."
        if gap > 0
        else f"The frontier spans a radius of {R:.2f}; the top two models are tied on the aggregate."
    ) + extra
    title = "Population radius, indistinguishability radius and top-pair gap (frontier, z-score units)"
    return [Finding("radius_gap", title, values, reading, rows, MIXED)]


def _p_overtaken(a_sorted: np.ndarray, i: int, sigma_h: float) -> float:
    """1 - prod_{j below i} (1 - Phi(-(a_i - a_j) / (2 sigma_h))): some model ranked below overtakes i."""
    p = stats.norm.cdf(-(a_sorted[i] - a_sorted[i + 1 :]) / (2.0 * sigma_h))
    return float(-np.expm1(np.log1p(-np.minimum(p, 1 - 1e-16)).sum()))


def swap_and_classes(ctx: Context) -> list[Finding]:
    front = ctx.front
    a, order = ctx.ranking()
    d = ctx.spectrum("front").d_eff
    a_sorted = a[order]
    sigma_obs = float(a.std())
    D = float(max(front.n_benchmarks, np.floor(d) + 1))  # the paper's choice D = k, kept above d
    sigma_h = sigma_obs * np.sqrt((D - d) / d)
    gaps = a_sorted[0] - a_sorted[1:]
    p_top2 = float(p_swap_rescaled(gaps[0], d, D, sigma_obs))
    p_top1 = _p_overtaken(a_sorted, 0, sigma_h)
    leader, runner = ctx.names(order[:2])
    swap = Finding(
        "swap",
        f"Swap probabilities at the top (chi-squared model, rescaled; D = {D:g})",
        {
            "p_swap_top2": p_top2,
            "p_leader_overtaken": p_top1,
            "D": D,
            "d_eff": d,
            "sigma_obs": sigma_obs,
            "sigma_h": sigma_h,
            "leader": leader,
            "runner_up": runner,
        },
        f"Model, not measurement: if the unmeasured directions of capability behave like the measured ones (D = {D:g} "
        f"directions in all, {d:.1f} of them seen), the top two models swap with probability {p_top2:.2f} and the "
        f"leader is overtaken by someone with probability {p_top1:.2f} (independence approximation)."
        + (" Under that assumption the #1 spot is a coin flip." if p_top2 > 0.4 else ""),
        [
            (f"P(#1 {leader} and #2 {runner} swap)", f"{p_top2:.2f}"),
            ("P(the leader is overtaken by anyone)", f"{p_top1:.2f}"),
            ("directions assumed in all, D", f"{D:g} (seen: d_eff = {d:.2f})"),
            ("hidden-noise scale sigma_h", f"{sigma_h:.3f} z-units"),
        ],
        MODEL,
    )
    m = min(TOP, front.n_models)
    top_idx = order[:m]
    classes = rank_classes(a[top_idx], sigma_h, thr=CLASS_THRESHOLD)
    names = [[ctx.names(top_idx[i])[0] for i in c] for c in classes]
    sizes = class_sizes(classes)
    ctx.cache["classes"] = {int(top_idx[i]): ci + 1 for ci, c in enumerate(classes) for i in c}
    ctx.cache["p_overtaken"] = {int(order[i]): _p_overtaken(a_sorted, i, sigma_h) for i in range(m)}
    ctx.cache["sigma_h"] = sigma_h
    cls = Finding(
        "rank_classes",
        f"Rank equivalence classes of the top {m} (P(swap) > {CLASS_THRESHOLD:.2f} within a class)",
        {"sizes": sizes, "classes": names, "sigma_h": sigma_h},
        f"Under the same model, the top {m} models fall into {len(sizes)} class(es) of sizes {sizes}: "
        + (
            f"the {sizes[0]} models of the first class cannot be told apart by this leaderboard."
            if sizes[0] > 1
            else "the leader forms a class of its own."
        ),
        [("class sizes, best class first", ", ".join(map(str, sizes))), ("first class", ", ".join(names[0][:8]))],
        MODEL,
    )
    return [swap, cls]


def split_halves(ctx: Context) -> list[Finding]:
    front = ctx.front
    k = front.n_benchmarks
    X = front.values
    batch = int(max(1, RESAMPLE_BYTES // (8 * 8 * front.n_models)))
    r = k // 2
    if math.comb(k, r) <= N_SPLITS:
        hs = half_split_exhaustive(X, batch=batch)
    else:
        hs = half_split(X, n_trials=N_SPLITS, seed=ctx.seed, batch=batch)
    ctx.cache["half_split"] = hs
    how = f"all {hs.n_trials} splits" if hs.exhaustive else f"{hs.n_trials} random splits"
    values = {
        "top1_disagree": hs.top1_swap_rate,
        "top1_se": hs.top1_se,
        "top5_any_change": hs.frac_top5_any,
        "mean_top5_changes": hs.mean_top5_changes,
        "n_splits": hs.n_trials,
        "exhaustive": hs.exhaustive,
        "n_vis": hs.n_vis,
    }
    reading = (
        f"Measured on your file: splitting the {k} benchmarks into halves of {r} and {k - r} ({how}), each half "
        f"ranking the frontier by its own aggregate, the halves disagree on #1 in {hs.top1_swap_rate:.0%} of splits "
        f"and on the membership of the top 5 in {hs.frac_top5_any:.0%} (on average {hs.mean_top5_changes:.1f} of the "
        f"top 5 change)."
    )
    rows = [
        ("halves disagree on #1", f"{hs.top1_swap_rate:.0%} of splits (se {hs.top1_se:.0%})"),
        ("halves disagree on the top 5", f"{hs.frac_top5_any:.0%} of splits (mean {hs.mean_top5_changes:.1f} changes)"),
        ("splits", f"{how}, {r} + {k - r} benchmarks"),
    ]
    return [
        Finding(
            "half_split", "What the file shows: the top when the benchmarks are split in halves", values, reading, rows
        )
    ]


def resample_models(ctx: Context) -> list[Finding]:
    nb = min(ctx.n_boot, N_BOOT_LEADER)
    lb: LeaderBootstrap = leader_bootstrap(ctx.front.values, n_boot=nb, seed=ctx.seed, top=TOP)
    ctx.cache["leader_bootstrap"] = lb
    leader = ctx.names(lb.leader)[0]
    runner = ctx.names(lb.top[1])[0] if lb.top.size > 1 else None
    reading = (
        f"Measured on your file: resampling the {ctx.front.n_models} frontier models ({nb} bootstrap resamples, every "
        f"benchmark re-standardised on each) keeps {leader} at #1 in {lb.leader_share:.0%} of the resamples that "
        f"contain it"
        + (
            f"; #2 {runner} is passed by a model from below in {lb.overtaken_share[1]:.0%} of its resamples."
            if runner
            else "."
        )
    )
    rows = [
        (f"{leader} stays #1", f"{lb.leader_share:.0%} of {lb.n_with_leader} resamples containing it"),
        (
            "top models passed by a lower-ranked one",
            ", ".join(f"#{i + 1}: {v:.0%}" for i, v in enumerate(lb.overtaken_share[:5])),
        ),
    ]
    values = {
        "leader": leader,
        "leader_first_share": lb.leader_share,
        "n_with_leader": lb.n_with_leader,
        "n_boot": nb,
        "overtaken_share_top": {ctx.names(i)[0]: float(v) for i, v in zip(lb.top, lb.overtaken_share)},
    }
    return [
        Finding("leader_bootstrap", "What the file shows: the top when the models are resampled", values, reading, rows)
    ]


def width_model(ctx: Context) -> list[Finding]:
    g = width_regime(ctx.front.values, ctx.front.benchmarks, seed=ctx.seed)
    pairs = f"all {g.n_pairs} pairs" if g.all_pairs else f"{g.n_pairs} pairs (the top 50 and a random sample)"
    values = {
        "r2_gap_max": g.gap_max,
        "r2_gap_benchmark": g.gap_max_benchmark,
        "delta_2": g.delta2,
        "top_pair_residual": g.top_pair_residual,
        "top_pair_benchmark": g.top_pair_benchmark,
        "resolves_top_pair": g.resolves_top_pair,
        "eta_max": g.eta_max,
        "eta_pairs": g.n_pairs,
        "eta_all_pairs": g.all_pairs,
        "top_pair_bound": g.top_pair_bound,
    }
    rows = [
        (
            "linear model's error on the top pair",
            f"{g.top_pair_residual:.3f} z-units (worst on {g.top_pair_benchmark})",
        ),
        ("top-pair gap Delta_2", f"{g.delta2:.3f} z-units"),
        ("largest R^2 gain of the quadratic terms", f"{g.gap_max:.3f} ({g.gap_max_benchmark})"),
        ("smoothness eta (max over pairs)", f"{g.eta_max:.3g} over {pairs}"),
    ]
    reading = (
        (
            f"Measured: the linear width model's error on the top pair ({g.top_pair_residual:.3f}) is below their gap "
            f"({g.delta2:.3f}): the linear picture is adequate at the top."
        )
        if g.resolves_top_pair
        else (
            f"Measured: the linear width model misjudges the top pair by {g.top_pair_residual:.3f}, more than their gap "
            f"{g.delta2:.3f}: the ranking at the top lies inside the model's own error."
        )
    )
    return [
        Finding(
            "width_model",
            "Width-model regime (linear vs quadratic fit on the top principal components)",
            values,
            reading,
            rows,
        )
    ]


def _single_coverage(C: np.ndarray) -> np.ndarray:
    """f({j}) = (Sigma^3)_jj / ((Sigma^2)_jj tr Sigma): the share of the suite's variance one benchmark carries."""
    C2 = C @ C
    return (C2 * C).sum(axis=1) / np.diag(C2) / np.trace(C)


def _single_coverage_gram(F: np.ndarray) -> np.ndarray:
    """:func:`_single_coverage` for Sigma = F^T F (F: n x k, k > n): (Sigma^p)_jj = f_j^T G^(p-1) f_j, G = F F^T."""
    G = F @ F.T
    GF = G @ F
    return (GF * GF).sum(axis=0) / (F * GF).sum(axis=0) / np.trace(G)


def _greedy_point(front: ScoreTable) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """Greedy order, coverage curve (to the target), r for the target, single-benchmark coverages (Theorem 4).

    With k <= n: :func:`blindspot.core.coverage.greedy_select` on the correlation matrix. With
    k > n: the same selection in factored form (:func:`greedy_orders_factored` on Z / sqrt(n)),
    which never forms the k x k matrix.
    """
    n, k = front.n_models, front.n_benchmarks
    if k <= n:
        C = correlation(front)
        res = greedy_select(C, target=COVERAGE_TARGET, names=front.benchmarks)
        return res.order, res.coverages, int(res.r_target), _single_coverage(C)
    F = zscore(front.values) / np.sqrt(n)
    order, cov = greedy_orders_factored(F.T[None], min(k, n))
    order, cov = order[0], cov[0]
    r = int(np.flatnonzero(cov >= COVERAGE_TARGET - 1e-10)[0] + 1)
    return order[:r], cov[:r], r, _single_coverage_gram(F)


def greedy_subset(ctx: Context) -> list[Finding]:
    front = ctx.front
    order, coverages, r, single = _greedy_point(front)
    chosen = [front.benchmarks[i] for i in order[:r]]
    nb = min(ctx.n_boot, N_BOOT_CORE)
    top = bootstrap_greedy_orders(front.values, r, nb, seed=ctx.seed)
    freq = pd.Series(np.bincount(top.ravel(), minlength=front.n_benchmarks) / nb, index=front.benchmarks)
    core = [b for b in freq.sort_values(ascending=False, kind="stable").index if freq[b] >= 0.9 - 1e-12]
    d = ctx.spectrum("front").d_eff
    one_direction = d < 1.5 or float(np.median(single)) >= 0.8
    ctx.cache["greedy"] = (r, chosen, core, single, one_direction)
    values = {
        "r": r,
        "k": front.n_benchmarks,
        "subset": chosen,
        "coverage": float(coverages[r - 1]),
        "stable_core": core,
        "frequencies": {str(b): float(v) for b, v in freq.items()},
        "n_boot_core": nb,
        "single_coverage_min": float(single.min()),
        "single_coverage_median": float(np.median(single)),
        "single_coverage_max": float(single.max()),
        "any_one_will_do": bool(one_direction),
    }
    rows = [
        (f"greedy subset for {COVERAGE_TARGET:.0%} coverage", f"{r} of {front.n_benchmarks}: {', '.join(chosen[:10])}"),
        ("coverage of that subset", f"{coverages[r - 1]:.0%}"),
        ("stable core (in >= 90% of resamples)", ", ".join(core) or "none"),
        (
            "share carried by one benchmark alone",
            f"{single.min():.0%} to {single.max():.0%} (median {np.median(single):.0%})",
        ),
    ]
    if one_direction:
        reading = (
            f"The benchmarks measure essentially one direction (d_eff = {d:.2f}): any one of them will do. A single "
            f"benchmark already carries {single.min():.0%} to {single.max():.0%} of the suite's variance (median "
            f"{np.median(single):.0%}); the greedy subset ({', '.join(chosen)}) is one choice among many equivalent ones, "
            f"and an empty or small stable core says the benchmarks are interchangeable, not that the choice is unstable."
        )
    else:
        reading = (
            f"{r} of the {front.n_benchmarks} benchmarks ({', '.join(chosen)}) carry {coverages[r - 1]:.0%} of the "
            f"suite's variance; {len(core)} of them ({', '.join(core) or 'none'}) are picked in at least 90% of "
            f"{nb} bootstrap resamples (the stable core). Greedy is a heuristic here: the objective is not submodular."
        )
    if ctx.figures:
        ctx.cache["figures"][FIGURES["coverage"]] = _fig_to_base64(
            coverage_curves({"greedy": coverages}, target=COVERAGE_TARGET)
        )
        shown = freq.sort_values(ascending=False, kind="stable").head(30)
        ctx.cache["figures"][FIGURES["core"]] = _fig_to_base64(core_bars(shown, 0.9))
    return [
        Finding(
            "greedy_subset",
            f"Greedy benchmark subset for {COVERAGE_TARGET:.0%} coverage and its stable core",
            values,
            reading,
            rows,
        )
    ]


#: Resampled model splits and random subsets of the greedy-against-random check (the chapter uses more).
N_SPLITS_PREDICT = 10
N_RANDOM_PREDICT = 20


def greedy_vs_random(ctx: Context) -> list[Finding]:
    """k benchmarks chosen by coverage against k chosen at random: held-out R^2 of ridge on the others."""
    full = ctx.full
    K = full.n_benchmarks
    greedy = ctx.cache.get("greedy")
    k = min(greedy[0], K - 1) if greedy else max(1, K // 2)
    kw = dict(
        n_splits=N_SPLITS_PREDICT, n_random=N_RANDOM_PREDICT, ks=[k], seed=ctx.seed, selectors=["coverage_greedy"]
    )
    title = "Benchmarks chosen by coverage against a random choice"
    try:
        inter = compare_selectors(full, "interpolation", **kw)
    except ValueError as exc:  # e.g. a benchmark constant on a split's training models (a floor of zeros)
        why = f"not computed: {exc}"
        return [
            Finding("greedy_vs_random", title, {"not_computed": str(exc)}, why, [("status", why)], status="skipped")
        ]
    try:
        extra = compare_selectors(full, "extrapolation", **kw)
    except ValueError:  # a benchmark constant below the frontier: no extrapolation to report
        extra = None
    cur = inter.curves("r2")
    g, r = cur.loc[("coverage_greedy", k)], cur.loc[("random", k)]
    caveat = extrapolation_caveat(inter, extra, k)
    ex = extra.curves("r2").loc[("coverage_greedy", k)] if extra is not None else None
    values = {
        "k": k,
        "r2_coverage": float(g["mean"]),
        "r2_coverage_interval": [float(g["lo"]), float(g["hi"])],
        "r2_random": float(r["mean"]),
        "r2_random_draws": [float(r["draw_lo"]), float(r["draw_hi"])],
        "r2_coverage_frontier": None if ex is None else float(ex["mean"]),
        "r2_coverage_frontier_interval": None if ex is None else [float(ex["lo"]), float(ex["hi"])],
        "extrapolation_caveat": bool(caveat),
        "n_splits": N_SPLITS_PREDICT,
        "n_train": inter.n_train,
        "n_test": inter.n_test,
    }
    rows = [
        (
            f"{k} chosen by coverage: held-out R\u00b2",
            f"{g['mean']:.2f} (95% of splits {g['lo']:.2f} to {g['hi']:.2f})",
        ),
        (f"a random {k}", f"{r['mean']:.2f} (95% of single choices {r['draw_lo']:.2f} to {r['draw_hi']:.2f})"),
        (
            "the same, fitted below the frontier, on the frontier",
            "not computed" if ex is None else f"{ex['mean']:.2f} ({ex['lo']:.2f} to {ex['hi']:.2f})",
        ),
    ]
    reading = (
        f"{k} benchmark{'s' if k > 1 else ''} chosen by coverage predict{'' if k > 1 else 's'} the rest with "
        f"R\u00b2 = {g['mean']:.2f} (a random {k}: "
        f"{r['mean']:.2f}), by ridge regression fitted on {inter.n_train} models and scored on {inter.n_test} others, "
        f"over {N_SPLITS_PREDICT} random splits. " + caveat
    ).strip()
    return [Finding("greedy_vs_random", title, values, reading, rows)]


# ---------------------------------------------------------------------------------------------
# the registry, minimum sizes and the runner


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    run: Callable[[Context], list[Finding]]
    population: str  # "full" or "front"
    min_models: Callable[[int], int]  # k -> fewest models of that population


SECTIONS: tuple[Section, ...] = (
    Section("d_eff_full", "Effective dimensionality, all models", d_eff_full, "full", lambda k: 3),
    Section("d_eff_frontier", "Effective dimensionality, the frontier", d_eff_frontier, "front", lambda k: 3),
    Section(
        "radius_gap",
        "Population radius, indistinguishability radius and top-pair gap",
        radius_gap,
        "front",
        lambda k: 3,
    ),
    Section("swap", "Swap probabilities and rank classes (chi-squared model)", swap_and_classes, "front", lambda k: 3),
    Section("half_split", "What the file shows: benchmarks split in halves", split_halves, "front", lambda k: 5),
    Section(
        "leader_bootstrap",
        "What the file shows: #1 when the models are resampled",
        resample_models,
        "front",
        lambda k: 3,
    ),
    Section("width_model", "Width-model regime", width_model, "front", min_models_width),
    Section("greedy_subset", "Greedy benchmark subset and its stable core", greedy_subset, "front", lambda k: 3),
    Section(
        "greedy_vs_random",
        "Benchmarks chosen by coverage against a random choice",
        greedy_vs_random,
        "full",
        lambda k: 14,
    ),
)

#: Fewest models of its population each section needs, as a function of the number of benchmarks k.
MIN_MODELS = {s.key: s.min_models for s in SECTIONS}


def file_models_for(front_models: int, q: float) -> int:
    """Models a file needs so that its frontier at quantile q keeps ``front_models`` (mean >= q-quantile)."""
    n = front_models
    while True:
        m = np.arange(n, dtype=float)
        if int((m >= np.quantile(m, q)).sum()) >= front_models:
            return n
        n += 1


def section_minima(k: int, q: float = 0.5) -> dict[str, int]:
    """For each section, the fewest models the *file* needs (k benchmarks, frontier quantile q)."""
    return {
        s.key: (s.min_models(k) if s.population == "full" else file_models_for(s.min_models(k), q)) for s in SECTIONS
    }


def _skipped(s: Section, have: int, need: int, ctx: Context) -> Finding:
    if s.population == "full":
        why = f"skipped: needs at least {need} models (the file has {have})"
    else:
        file_need = file_models_for(need, ctx.frontier_q)
        why = (
            f"skipped: needs at least {need} frontier models (this frontier has {have}; at --frontier "
            f"{ctx.frontier_q:g} that takes about {file_need} models in the file, or lower --frontier)"
        )
    return Finding(s.key, s.title, {"needs_models": need, "has_models": have}, why, [("status", why)], status="skipped")


def run_sections(ctx: Context, rep: ReportData) -> None:
    """Run every section that the populations are large enough for; mark the others skipped."""
    ctx.cache["figures"] = rep.figures
    for s in SECTIONS:
        t = ctx.full if s.population == "full" else ctx.front
        have = t.n_models if t is not None else (ctx.frontier_models or 0)
        need = s.min_models(ctx.full.n_benchmarks)
        if have < need:
            rep.findings.append(_skipped(s, have, need, ctx))
            continue
        rep.findings.extend(s.run(ctx))
    if ctx.figures:
        _figures_of_spectrum(ctx, rep)


def _figures_of_spectrum(ctx: Context, rep: ReportData) -> None:
    spectra = {}
    for which, label in (("full", "all models"), ("front", "frontier")):
        if f"spectrum_{which}" in ctx.cache:
            sp = ctx.spectrum(which)
            pos = sp.eigenvalues[sp.eigenvalues > 1e-12 * sp.eigenvalues[0]]
            spectra[label] = replace(sp, eigenvalues=pos, n_benchmarks=int(pos.size))
    boot: BootstrapDeff | None = ctx.cache.get("boot_front")
    if boot is not None:
        s = boot.samples[np.isfinite(boot.samples)]
        if s.size and s.max() - s.min() > 1e-9 * max(1.0, abs(s.max())):
            rep.figures[FIGURES["bootstrap"]] = _fig_to_base64(
                bootstrap_hist({"the frontier": replace(boot, samples=s)})
            )
    if spectra:
        rep.figures[FIGURES["spectrum"]] = _fig_to_base64(scree(spectra))


def ranking_rows(ctx: Context, n_rows: int = 10) -> list[dict[str, Any]]:
    """The top of the ranking: rank, model, aggregate, rank class and P(overtaken) (model), overtaken share (measured)."""
    if ctx.front is None or "ranking" not in ctx.cache:
        return []
    a, order = ctx.ranking()
    classes = ctx.cache.get("classes", {})
    p_over = ctx.cache.get("p_overtaken", {})
    lb: LeaderBootstrap | None = ctx.cache.get("leader_bootstrap")
    measured = {} if lb is None else {int(i): float(v) for i, v in zip(lb.top, lb.overtaken_share)}
    rows = []
    for r, i in enumerate(order[: min(n_rows, len(order))]):
        nxt = float(a[i] - a[order[r + 1]]) if r + 1 < len(order) else None
        rows.append(
            {
                "rank": r + 1,
                "model": ctx.names(i)[0],
                "aggregate": float(a[i]),
                "gap_to_next": nxt,
                "rank_class": classes.get(int(i)),
                "p_overtaken_model": p_over.get(int(i)),
                "overtaken_share_measured": measured.get(int(i)),
            }
        )
    return rows
