"""Figures of Part II (Prognose), drawn from result objects.

Every function returns a matplotlib Figure and never shows or saves it; call
:func:`blindspot.core.theme.use_theme` first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from blindspot.core.convex_bodies import PlanarBody
from blindspot.core.covering import CoveringRate
from blindspot.core.halfsplit import HalfSplit
from blindspot.core.theme import PALETTE
from blindspot.prognose.indistinguishability import LipschitzWitness

__all__ = [
    "sampling_error",
    "witness_2d",
    "covering_rates",
    "bound_check",
    "visible_radius_bars",
    "noise_bars",
    "top5_hist",
    "calibration",
    "swap_vs_gap",
    "d_trends",
    "top1_reliability",
    "rank_class_axis",
    "anisotropy_curves",
    "prior_swap_bars",
    "reversal_hist",
    "addition_slope",
    "r2_bars",
    "top_pair_residuals",
    "bodies_and_widths",
    "needle_figure",
    "paired_differences",
    "paired_vs_unpaired",
    "detectable_curve",
]

matplotlib.use("Agg")  # headless, as the other parts' figures: a glued figure appears only where it is glued


def sampling_error(df: pd.DataFrame) -> plt.Figure:
    """Error of the sampled covering radius (exact - sampled) against the number of queries, per d.

    ``df`` has columns d, n_samples, error (radians).
    """
    fig, ax = plt.subplots()
    for i, (d, g) in enumerate(df.groupby("d")):
        ax.plot(g["n_samples"], g["error"], "o-", color=PALETTE[i], label=f"d = {d} (m = {int(g['m'].iloc[0])})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("query directions N")
    ax.set_ylabel("exact - sampled covering radius (rad)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def witness_2d(w: LipschitzWitness) -> plt.Figure:
    """The tightness construction of Theorem 2(d) in the plane: benchmark lines, K (a segment), L (a rhombus)."""
    if w.v0.size != 2:
        raise ValueError("witness_2d draws planar witnesses only (d = 2)")
    fig, ax = plt.subplots(figsize=(5.2, 5.2))
    th = np.linspace(0, 2 * np.pi, 400)
    ax.plot(w.R * np.cos(th), w.R * np.sin(th), color="0.75", lw=1, label=r"ball $B_R$")
    for j, u in enumerate(w.U):
        ax.plot(
            [-1.15 * w.R * u[0], 1.15 * w.R * u[0]],
            [-1.15 * w.R * u[1], 1.15 * w.R * u[1]],
            color=PALETTE[0],
            lw=0.9,
            ls="--",
            label="benchmark directions" if j == 0 else None,
        )
    K = w.points_K()
    ax.plot(K[:, 0], K[:, 1], color=PALETTE[1], lw=3, label="K (segment)")
    e, t = w.R * w.basis[0], w.t * w.v0
    L = np.array([e, t, -e, -t, e])
    ax.fill(L[:, 0], L[:, 1], color=PALETTE[2], alpha=0.25)
    ax.plot(L[:, 0], L[:, 1], color=PALETTE[2], lw=1.5, label="L (rhombus)")
    ax.annotate("", xy=t, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=PALETTE[3], lw=1.5))
    ax.text(*(0.55 * t + 0.06 * w.R * w.basis[0]), r"$\delta_H = t$", color=PALETTE[3])
    ax.set_aspect("equal")
    ax.set_xlim(-1.25 * w.R, 1.25 * w.R)
    ax.set_ylim(-1.25 * w.R, 1.25 * w.R)
    ax.legend(fontsize="small", loc="lower left")
    fig.tight_layout()
    return fig


def covering_rates(rates: Mapping[int, CoveringRate]) -> plt.Figure:
    """log omega against log m for each d: trials (dots), the OLS fit (line) and the theory slope (dashed)."""
    fig, ax = plt.subplots(figsize=(6.8, 4.2))
    for i, (d, r) in enumerate(rates.items()):
        c = PALETTE[i % len(PALETTE)]
        ax.scatter(np.repeat(r.ms[None, :], r.omegas.shape[0], 0), r.omegas, s=8, color=c, alpha=0.35)
        x = np.log(r.ms)
        b = np.mean(np.log(r.omegas)) - r.slope * x.mean()
        ax.plot(
            r.ms,
            np.exp(b + r.slope * x),
            color=c,
            lw=2,
            label=f"d = {d}: slope {r.slope:.3f} [{r.slope_lo:.3f}, {r.slope_hi:.3f}]",
        )
        bt = np.mean(np.log(r.omegas)) - r.theory * x.mean()
        ax.plot(r.ms, np.exp(bt + r.theory * x), color=c, lw=1, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of random directions m")
    ax.set_ylabel(r"exact covering radius $\omega_m$ (rad)")
    ax.legend(fontsize="small", title="fit (dashed: slope -1/(d-1))", title_fontsize="small")
    fig.tight_layout()
    return fig


def bound_check(observed: np.ndarray, bound: np.ndarray, trivial: np.ndarray) -> plt.Figure:
    """Observed Hausdorff distance against Theorem 2(a)'s bound eps + 2 R omega (all points must lie below y = x)."""
    fig, ax = plt.subplots(figsize=(5.2, 4.4))
    ax.scatter(bound, observed, s=14, color=PALETTE[0], label="random body pairs")
    hi = float(max(bound.max(), observed.max())) * 1.05
    ax.plot([0, hi], [0, hi], color="0.3", lw=1, label="bound = observed")
    ax.scatter(bound, trivial, s=8, marker="_", color=PALETTE[3], label="trivial 2R")
    ax.set_xlabel(r"Theorem 2(a) bound $\varepsilon + 2R\omega$")
    ax.set_ylabel(r"exact $\delta_H(K, L)$")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def visible_radius_bars(t2: pd.DataFrame) -> plt.Figure:
    """delta_vis (stated and code), the trivial cap 2R and Delta_2 per suite, log scale."""
    suites = list(dict.fromkeys(t2.index.get_level_values(0)))
    series = {
        r"$2R\omega$, stated formula": [t2.loc[(s, "stated"), "delta_vis"] for s in suites],
        r"$2R\omega$, paper's code (Table 2)": [t2.loc[(s, "code"), "delta_vis"] for s in suites],
        r"trivial cap $2R$": [t2.loc[(s, "stated"), "trivial_cap"] for s in suites],
        r"top-pair gap $\Delta_2$": [t2.loc[(s, "stated"), "delta2"] for s in suites],
    }
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    x = np.arange(len(suites))
    w = 0.8 / len(series)
    for i, (name, v) in enumerate(series.items()):
        ax.bar(x + (i - (len(series) - 1) / 2) * w, v, w, label=name, color=PALETTE[i])
    ax.set_xticks(x, suites)
    ax.set_yscale("log")
    ax.set_ylabel("standardised units")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def noise_bars(
    df: pd.DataFrame, paper_main_text: Mapping[str, float], paper_appendix: Mapping[str, float]
) -> plt.Figure:
    """Geometric/statistical ratios per suite for both numerators, with the paper's two sets of figures
    (its main text's, and App. H.12's)."""
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    suites = list(df.index)
    x = np.arange(len(suites))
    ax.bar(x - 0.2, df["ratio_piR_over_k"], 0.4, color=PALETTE[0], label=r"book: $\pi R/k$ over $\sigma_{boot}$")
    ax.bar(x + 0.2, df["ratio_delta_vis"], 0.4, color=PALETTE[1], label=r"book: $2R\omega$ over $\sigma_{boot}$")
    for i, s in enumerate(suites):
        if s in paper_appendix:
            ax.plot(i - 0.2, paper_appendix[s], "k_", ms=22, mew=2, label="paper, H.12" if i == 1 else None)
        if s in paper_main_text:
            ax.plot(i + 0.2, paper_main_text[s], "kx", ms=9, mew=2, label="paper, main text (v16)" if i == 0 else None)
    ax.set_xticks(x, suites)
    ax.set_yscale("log")
    ax.set_ylabel("geometric / statistical radius")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def top5_hist(hs: HalfSplit, exhaustive: HalfSplit | None = None) -> plt.Figure:
    """Distribution of top-5 changes between the two halves."""
    fig, ax = plt.subplots()
    bins = np.arange(-0.5, 6.5)
    ax.hist(
        hs.top5_changes,
        bins=bins,
        density=True,
        alpha=0.6,
        color=PALETTE[0],
        label=f"{hs.n_trials} random splits (mean {hs.mean_top5_changes:.2f})",
    )
    if exhaustive is not None:
        ax.hist(
            exhaustive.top5_changes,
            bins=bins,
            density=True,
            histtype="step",
            lw=2,
            color=PALETTE[1],
            label=f"all {exhaustive.n_trials} splits (mean {exhaustive.mean_top5_changes:.2f})",
        )
    ax.set_xlabel("top-5 models that differ between the halves")
    ax.set_ylabel("fraction of splits")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def calibration(tab: pd.DataFrame, paper: Sequence[float] | None = None) -> plt.Figure:
    """Empirical top-2 swap rate (with 2 SE bars) and the chi-squared prediction against r."""
    fig, ax = plt.subplots()
    r = tab.index.to_numpy()
    ax.errorbar(
        r,
        tab["empirical"],
        yerr=2 * tab["se_pp"] / 100,
        fmt="o-",
        color=PALETTE[0],
        capsize=3,
        label="empirical (2 SE)",
    )
    ax.plot(r, tab["predicted"], "s-", color=PALETTE[1], label=r"$\chi^2$ prediction (mean)")
    ax.fill_between(r, tab["pred_min"], tab["pred_max"], color=PALETTE[1], alpha=0.12, label="prediction range")
    if paper is not None:
        ax.plot(r, paper, "kx", label="paper, G.2 (empirical)")
    ax.axhline(0.5, color="0.5", lw=0.8, ls=":")
    ax.set_xlabel("visible benchmarks r")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("P(second beats first on the held-out set)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def swap_vs_gap(
    gaps: np.ndarray,
    curves: Mapping[str, np.ndarray],
    mc: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    title: str = "",
) -> plt.Figure:
    """Swap probability against the visible gap: one line per formula, Monte Carlo points with 3-SE bars."""
    fig, ax = plt.subplots()
    styles = ["-", "--", ":", "-."]
    for i, (label, p) in enumerate(curves.items()):
        ax.plot(gaps, p, styles[i % len(styles)], color=PALETTE[i], lw=2, label=label)
    if mc is not None:
        x, p, se = mc
        ax.errorbar(x, p, yerr=3 * se, fmt="o", color="k", ms=4, capsize=2, label="Monte Carlo (±3 SE)")
    ax.set_xlabel(r"visible gap $\Delta = X_i - X_j$ ($\chi^2$ units)")
    ax.set_ylabel(r"$P(Z_j > Z_i \mid \Delta)$")
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def d_trends(table: pd.DataFrame, rescaled_sweep: pd.DataFrame) -> plt.Figure:
    """The six-prior rows of the paper's code (validation_v8.py exp1a) against D (solid) beside the
    rescaled sweep of App. G.1 (dashed, :func:`blindspot.core.swap.d_sweep`)."""
    fig, ax = plt.subplots(figsize=(6.8, 4.0))
    Ds = [float(c) for c in table.columns]
    for i, (prior, row) in enumerate(table.iterrows()):
        ax.plot(Ds, row.to_numpy(dtype=float), "o-", color=PALETTE[i % len(PALETTE)], label=f"v8: {prior}")
    ax.plot(
        rescaled_sweep["D"], rescaled_sweep["p_swap"], "k--", lw=2, label=r"G.1: $\sigma_h=\sigma_{obs}\sqrt{(D-d)/d}$"
    )
    ax.axhspan(0.38, 0.49, color="0.85", zorder=0, label='paper: "[0.38, 0.49]"')
    ax.set_xscale("log")
    ax.set_xlabel("ambient dimension D")
    ax.set_ylabel(r"top-2 swap probability at $\Delta_2$")
    ax.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    return fig


def top1_reliability(df: pd.DataFrame) -> plt.Figure:
    """P(top-1 correct) by simulation against D, with the mean FKG lower bound, and the eq. (3) sums.

    ``df`` has columns D, n, p_correct, se, product_bound, union_bound_stated (eq. (3) literally) and
    union_bound_rescaled (eq. (3) with the code's rescaling).
    """
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8.4, 3.6))
    a1.errorbar(
        df["D"],
        df["p_correct"],
        yerr=3 * df["se"],
        fmt="o-",
        color=PALETTE[0],
        capsize=3,
        label="simulated P(top-1 correct)",
    )
    a1.plot(df["D"], df["product_bound"], "s--", color=PALETTE[1], label="FKG product (lower bound)")
    a1.axhline(1 / df["n"].iloc[0], color="0.5", ls=":", label="chance 1/n")
    a1.set_xscale("log")
    a1.set_xlabel("D")
    a1.set_ylabel("probability")
    a1.legend(fontsize="x-small")
    a2.plot(df["D"], df["union_bound_stated"], "o-", color=PALETTE[2], label="eq. (3), literal")
    a2.plot(df["D"], df["union_bound_rescaled"], "s-", color=PALETTE[3], label="eq. (3), code's rescaling")
    a2.axhline(1.0, color="k", lw=1, label="1 (a probability)")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("D")
    a2.set_ylabel("bound on P(top-1 wrong)")
    a2.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


def rank_class_axis(
    names: Sequence[str],
    scores: np.ndarray,
    classes: Sequence[Sequence[int]],
    author_classes: Sequence[Sequence[int]],
    threshold: float,
) -> plt.Figure:
    """Models on the aggregate axis, coloured by class; a ring marks models the paper's rule places differently.

    An arrow from each class leader spans the indistinguishability gap: models inside it are within
    ``threshold`` of the leader (P(swap) > thr).
    """
    scores = np.asarray(scores, dtype=float)
    m = len(scores)
    order = np.argsort(-scores, kind="stable")
    cls_of = {i: c for c, members in enumerate(classes) for i in members}
    auth_of = {i: c for c, members in enumerate(author_classes) for i in members}
    fig, ax = plt.subplots(figsize=(7.6, 0.32 * m + 1.4))
    for row, i in enumerate(order):
        y = m - 1 - row
        c = cls_of[i]
        ax.plot(scores[i], y, "o", color=PALETTE[c % len(PALETTE)], ms=8, zorder=3)
        if auth_of[i] != c:
            ax.plot(scores[i], y, "o", mfc="none", mec="k", ms=15, mew=1.6, zorder=4)
        ax.text(scores[i] + 0.012, y, str(names[i])[:42], va="center", fontsize=7)
    for c, members in enumerate(classes):
        lead = members[0]
        y = m - 1 - int(np.flatnonzero(order == lead)[0])
        col = PALETTE[c % len(PALETTE)]
        ax.annotate(
            "",
            xy=(scores[lead] - threshold, y + 0.45),
            xytext=(scores[lead], y + 0.45),
            arrowprops=dict(arrowstyle="<->", color=col, lw=1.5),
        )
        ax.text(
            scores[lead] - threshold / 2,
            y + 0.75,
            f"class {c + 1}: gap < {threshold:.3f}",
            ha="center",
            fontsize=7,
            color=col,
        )
    ax.set_yticks([])
    ax.set_xlabel("aggregate score (mean z-score over benchmarks)")
    lo, hi = float(np.min(scores)), float(np.max(scores))
    left = min(lo, min(float(scores[c[0]]) for c in classes) - threshold)
    ax.set_xlim(left - 0.05, hi + 0.55)
    ax.set_ylim(-1, m + 0.6)
    fig.tight_layout()
    return fig


def anisotropy_curves(
    alphas: np.ndarray, exact: Mapping[float, np.ndarray], gauss: Mapping[float, np.ndarray]
) -> plt.Figure:
    """Swap probability along the isotropic -> one-direction path: exact (solid) and Gaussian (dashed) per gap."""
    fig, ax = plt.subplots(figsize=(6.8, 4.2))
    for i, dlt in enumerate(exact):
        c = PALETTE[i % len(PALETTE)]
        ax.plot(alphas, exact[dlt], "-", color=c, lw=2, label=rf"$\Delta$ = {dlt:g}: exact")
        ax.plot(alphas, gauss[dlt], "--", color=c, lw=1.2, label=rf"$\Delta$ = {dlt:g}: Gaussian")
    ax.set_xlabel(r"anisotropy $\alpha$ (0 = isotropic, 1 = one hidden direction), fixed trace")
    ax.set_ylabel(r"$P(Y_j - Y_i > \Delta)$")
    ax.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    return fig


def prior_swap_bars(tables: Mapping[str, pd.DataFrame]) -> plt.Figure:
    """G.4 swap rates per prior (±3 SE) for each variant, against the prior's visible variance share."""
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    for i, (label, t) in enumerate(tables.items()):
        ax.errorbar(
            t["visible_share"], t["swap_rate"], yerr=3 * t["se"], fmt="o", color=PALETTE[i], capsize=3, label=label
        )
        for name, r in t.iterrows():
            ax.annotate(
                str(name),
                (r.visible_share, r.swap_rate),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize=7,
                color=PALETTE[i],
            )
    ax.set_xlabel("share of the variance on the visible coordinates")
    ax.set_ylabel("top-1 swap rate (simulation)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def reversal_hist(counts: Mapping[str, np.ndarray]) -> plt.Figure:
    """Histogram of reversal counts per draw for each aggregator."""
    fig, ax = plt.subplots()
    top = max(int(np.max(c)) for c in counts.values())
    bins = np.arange(-0.5, top + 1.5, 1.0)
    for i, (label, c) in enumerate(counts.items()):
        ax.hist(c, bins=bins, alpha=0.55, color=PALETTE[i], label=f"{label}: mean {np.mean(c):.2f}")
    ax.set_xlabel("reversals in one draw of models (over every added model)")
    ax.set_ylabel("draws")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def addition_slope(
    before: np.ndarray, after: np.ndarray, labels: Sequence[str], flipped: Sequence[tuple[int, int]]
) -> plt.Figure:
    """Aggregate of each existing model before and after one model is added; the flipped pairs in colour.

    With more than four models a second panel zooms on the models of the flipped pairs.
    """
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    hot = sorted({i for p in flipped for i in p})
    zoom = len(before) > 4 and len(hot) > 0
    fig, axes = plt.subplots(1, 2 if zoom else 1, figsize=(8.4 if zoom else 4.8, 3.8), squeeze=False)
    ax = axes[0, 0]
    for i, (b, a) in enumerate(zip(before, after)):
        c = PALETTE[3 + hot.index(i) % 4] if i in hot else "0.6"
        ax.plot([0, 1], [b, a], "o-", color=c, lw=2 if i in hot else 1.2, zorder=3 if i in hot else 2)
        if not zoom:
            ax.text(1.05, a, labels[i], ha="left", va="center", fontsize=8, color=c if i in hot else "0.3")
    ax.set_xticks([0, 1], ["before", "after"])
    ax.set_xlim(-0.2, 1.9 if not zoom else 1.2)
    ax.set_ylabel("z-mean aggregate")
    ax.set_title("all models" if zoom else "")
    if zoom:
        az = axes[0, 1]
        for i in hot:
            c = PALETTE[3 + hot.index(i) % 4]
            az.plot([0, 1], [before[i], after[i]], "o-", color=c, lw=2)
            az.text(-0.04, before[i], labels[i], ha="right", va="center", fontsize=8, color=c)
            az.text(1.04, after[i], labels[i], ha="left", va="center", fontsize=8, color=c)
        az.set_xticks([0, 1], ["before", "after"])
        az.set_xlim(-0.9, 1.9)
        az.set_title("the models whose order flips")
    fig.tight_layout()
    return fig


def r2_bars(diags: Mapping[str, pd.DataFrame]) -> plt.Figure:
    """Linear R^2 (bars) and quadratic R^2 (ticks) per benchmark for each population."""
    fig, ax = plt.subplots(figsize=(8.0, 3.8))
    first = next(iter(diags.values()))
    x = np.arange(len(first))
    w = 0.8 / len(diags)
    for i, (label, d) in enumerate(diags.items()):
        d = d.reindex(first.index)  # a benchmark saturated on the frontier is not in its fit: no bar there
        xs = x + (i - (len(diags) - 1) / 2) * w
        ax.bar(xs, d["r2_lin"], w, color=PALETTE[i], label=f"{label}: linear")
        ax.plot(xs, d["r2_quad"], "_", color="k", ms=12, mew=2, label="quadratic" if i == 0 else None)
    ax.set_xticks(x, list(first.index), rotation=35, ha="right", fontsize=8)
    ax.set_ylim(0.5, 1.0)
    ax.set_ylabel(r"$R^2$ on the top 5 PCs")
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


def top_pair_residuals(resid: pd.Series, delta2: float) -> plt.Figure:
    """The width model's error on the top pair's difference per benchmark, against Delta_2."""
    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    ax.bar(np.arange(len(resid)), resid.to_numpy(), color=PALETTE[0], label=r"$|r_{(1)} - r_{(2)}|$ per benchmark")
    ax.axhline(delta2, color=PALETTE[3], lw=2, label=rf"$\Delta_2$ = {delta2:.3f}")
    ax.set_xticks(np.arange(len(resid)), list(resid.index), rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("z-units")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def bodies_and_widths(K: PlanarBody, L: PlanarBody, labels: tuple[str, str], n: int = 720) -> plt.Figure:
    """Two planar bodies drawn, and their widths against the direction angle."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8.4, 3.8))
    for body, lab, c in ((K, labels[0], PALETTE[0]), (L, labels[1], PALETTE[3])):
        b = body.boundary(n)
        a1.fill(b[:, 0], b[:, 1], alpha=0.25, color=c, label=lab)
        a1.plot(np.r_[b[:, 0], b[0, 0]], np.r_[b[:, 1], b[0, 1]], color=c, lw=1.5)
    a1.set_aspect("equal")
    a1.legend(fontsize="x-small", loc="upper right")
    a1.set_title("the two bodies")
    t = np.linspace(0, np.pi, 400)
    a2.plot(t, K.width(t), color=PALETTE[0], lw=2, label=labels[0])
    a2.plot(t, L.width(t), color=PALETTE[3], lw=2, label=labels[1])
    a2.set_xlabel(r"direction angle $\theta$ (rad)")
    a2.set_ylabel(r"width $w(\theta)$")
    a2.legend(fontsize="x-small")
    a2.set_title("widths in every direction")
    fig.tight_layout()
    return fig


def needle_figure(U: np.ndarray, axis: np.ndarray, length: float, thickness: float, radius: float) -> plt.Figure:
    """A planar needle (rectangle) and a disk, with the probed directions as arrows."""
    fig, ax = plt.subplots(figsize=(5.0, 4.0))
    e = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    perp = np.array([-e[1], e[0]])
    half = length / 2
    corners = np.array(
        [
            half * e + thickness / 2 * perp,
            -half * e + thickness / 2 * perp,
            -half * e - thickness / 2 * perp,
            half * e - thickness / 2 * perp,
        ]
    )
    ax.fill(corners[:, 0], corners[:, 1], color=PALETTE[3], alpha=0.8, label="needle: wider in every probed direction")
    ax.add_patch(plt.Circle((0, 0), radius, color=PALETTE[0], alpha=0.3, label="disk: more area"))
    for u in U:
        ax.annotate("", xy=tuple(1.4 * radius * u), xytext=(0, 0), arrowprops=dict(arrowstyle="->", color="k"))
    lim = max(half, 1.5 * radius) * 1.05
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.legend(fontsize="x-small", loc="lower right")
    fig.tight_layout()
    return fig


def paired_differences(rows: pd.DataFrame) -> plt.Figure:
    """Each compared pair's difference per benchmark with its 95% interval (a forest plot).

    ``rows`` has columns pair, benchmark, difference, low, high and decision (one row per pair and
    benchmark, as :meth:`blindspot.report.compare.Comparison.differences_frame` returns); a resolved
    difference is drawn filled, an unresolved one open, and zero is marked.
    """
    rows = rows.dropna(subset=["difference"])
    pairs = list(dict.fromkeys(rows["pair"]))
    benches = list(dict.fromkeys(rows["benchmark"]))
    fig, ax = plt.subplots(figsize=(6.8, 0.5 + 0.42 * len(benches) * max(1, min(len(pairs), 4))))
    step = 0.8 / max(len(pairs), 1)
    for i, pair in enumerate(pairs):
        g = rows[rows["pair"] == pair]
        y = np.array([benches.index(b) for b in g["benchmark"]]) + (i - (len(pairs) - 1) / 2) * step
        c = PALETTE[i % len(PALETTE)]
        x = g["difference"].to_numpy(dtype=float)
        err = np.vstack([x - g["low"].to_numpy(dtype=float), g["high"].to_numpy(dtype=float) - x])
        ax.errorbar(x, y, xerr=err, fmt="none", ecolor=c, lw=1.4, capsize=2)
        resolved = g["decision"].isin(["better", "worse"]).to_numpy()
        ax.scatter(x[resolved], y[resolved], color=c, s=28, zorder=3, label=pair)
        ax.scatter(
            x[~resolved],
            y[~resolved],
            facecolor="white",
            edgecolor=c,
            s=28,
            zorder=3,
            label=None if resolved.any() else pair,
        )
    ax.axvline(0, color="0.4", lw=0.8)
    ax.set_yticks(range(len(benches)))
    ax.set_yticklabels(benches)
    ax.invert_yaxis()
    ax.set_xlabel("difference per item (B - A), 95% interval; filled = resolved after Holm")
    if len(pairs) > 1:
        ax.legend(fontsize="small", loc="best")
    else:
        ax.set_title(pairs[0], fontsize="medium")
    fig.tight_layout()
    return fig


def paired_vs_unpaired(
    p_paired: np.ndarray, p_unpaired: np.ndarray, alpha: float = 0.05, floor: float = 1e-12
) -> plt.Figure:
    """The paired test's p-value against the unpaired test's, one dot per pair of models (log axes).

    Dots below the diagonal are pairs the pairing makes more certain; the dashed lines are ``alpha``.
    p-values below ``floor`` (where every decision is the same) are drawn at the floor, as triangles.
    """
    p1 = np.asarray(p_paired, dtype=float)
    p2 = np.asarray(p_unpaired, dtype=float)
    low = (p1 < floor) | (p2 < floor)
    p1, p2 = np.clip(p1, floor, 1), np.clip(p2, floor, 1)
    fig, ax = plt.subplots(figsize=(5.2, 5.0))
    ax.plot([floor, 1], [floor, 1], color="0.6", lw=0.8)
    ax.axhline(alpha, color=PALETTE[3], ls="--", lw=0.8)
    ax.axvline(alpha, color=PALETTE[3], ls="--", lw=0.8)
    ax.scatter(p2[~low], p1[~low], s=16, color=PALETTE[0])
    ax.scatter(p2[low], p1[low], s=22, marker="v", color=PALETTE[1], label=f"below {floor:.0e} (drawn at it)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("p-value, unpaired z-test")
    ax.set_ylabel("p-value, paired (exact McNemar)")
    if low.any():
        ax.legend(fontsize="small", loc="upper left")
    fig.tight_layout()
    return fig


def detectable_curve(n: np.ndarray, detectable: np.ndarray, observed: Mapping[str, tuple[int, float]]) -> plt.Figure:
    """The minimum detectable difference against the number of items (log-log), with observed pairs marked.

    ``observed`` maps a label to (n items, |difference|): a dot above the curve is resolvable at that n.
    """
    fig, ax = plt.subplots(figsize=(6.2, 4.0))
    ax.plot(n, detectable, color=PALETTE[0], label="detectable at 80% power")
    for i, (label, (ni, d)) in enumerate(observed.items()):
        ax.scatter([ni], [max(abs(d), 1e-6)], color=PALETTE[(i + 1) % len(PALETTE)], zorder=3, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("items both models answered")
    ax.set_ylabel("|difference| per item")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
