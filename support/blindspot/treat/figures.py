"""Figures of Part III (Treat): greedy coverage, stable core, transfer, subset objectives, bounds.

Every function draws from result objects of :mod:`blindspot.core.coverage`, :mod:`blindspot.treat.stable_core`,
:mod:`blindspot.treat.transfer`, :mod:`blindspot.treat.subset_objectives`, :mod:`blindspot.treat.radius_from_coverage`,
:mod:`blindspot.treat.perturbation` :mod:`blindspot.treat.counterfactual` and :mod:`blindspot.treat.selector_comparison`, and returns a Figure (never shows
or saves it). Call :func:`blindspot.core.theme.use_theme` first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from blindspot.core.theme import PALETTE, not_drawn

__all__ = [
    "coverage_curves",
    "ratio_distribution",
    "gain_pairs",
    "core_bars",
    "retention_heatmaps",
    "objective_curves",
    "bridge_terms",
    "closure_plot",
    "counterfactual_scatter",
    "rho_vs_population",
    "selector_curves",
    "not_drawn",
]


def coverage_curves(
    curves: Mapping[str, Sequence[float]],
    target: float | None = None,
    band: tuple[np.ndarray, np.ndarray] | None = None,
) -> plt.Figure:
    """Coverage f(T_r) against r for several selections (e.g. greedy and brute-force optimum)."""
    fig, ax = plt.subplots()
    for i, (label, c) in enumerate(curves.items()):
        r = np.arange(1, len(c) + 1)
        ax.plot(r, c, "o-" if i == 0 else "s--", color=PALETTE[i % len(PALETTE)], label=label, ms=4)
    if band is not None:
        lo, hi = band
        ax.fill_between(np.arange(1, len(lo) + 1), lo, hi, color="0.6", alpha=0.25, label="random subsets (±1 sd)")
    if target is not None:
        ax.axhline(target, color="0.3", ls=":", lw=1, label=f"target {target:.0%}")
    ax.set_xlabel("number of benchmarks r")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # a count: whole numbers only
    ax.set_ylabel(r"coverage $f(T_r)$")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    return fig


def ratio_distribution(ratios: np.ndarray, guarantees: Mapping[str, float]) -> plt.Figure:
    """Histogram of each matrix's worst greedy/optimum ratio, with the guarantees as vertical lines."""
    worst = np.asarray(ratios).min(axis=1)
    fig, ax = plt.subplots()
    ax.hist(worst, bins=40, color=PALETTE[0], alpha=0.8)
    for i, (label, g) in enumerate(guarantees.items()):
        ax.axvline(g, color=PALETTE[(i + 1) % len(PALETTE)], ls="--", label=f"{label} = {g:.3f}")
    ax.set_xlabel(r"$\min_r f(T_r^{greedy}) / f(T_r^{*})$ of one random matrix")
    ax.set_ylabel("matrices")
    ax.legend(fontsize="small", loc="upper left")
    fig.tight_layout()
    return fig


def gain_pairs(f: np.ndarray, k: int, max_points: int = 20000, seed: int = 0) -> plt.Figure:
    """Scatter of the gain of x at A (horizontal) against its gain at A + y (vertical), all (A, x, y).

    Submodularity puts every point on or below the diagonal; points above it are violations.
    """
    masks = np.arange(1 << k)
    xs, ys = [], []
    for x in range(k):
        for y in range(k):
            if x == y:
                continue
            A = masks[((masks >> x) & 1 == 0) & ((masks >> y) & 1 == 0)]
            xs.append(f[A | (1 << x)] - f[A])
            ys.append(f[A | (1 << x) | (1 << y)] - f[A | (1 << y)])
    gx, gy = np.concatenate(xs), np.concatenate(ys)
    rng = np.random.default_rng(seed)
    if gx.size > max_points:
        keep = rng.choice(gx.size, max_points, replace=False)
        gx, gy = gx[keep], gy[keep]
    bad = gy > gx + 1e-12
    fig, ax = plt.subplots(figsize=(5.2, 5.0))
    ax.scatter(gx[~bad], gy[~bad], s=3, alpha=0.3, color=PALETTE[0], label="diminishing returns")
    ax.scatter(gx[bad], gy[bad], s=4, alpha=0.5, color=PALETTE[3], label="violation (gain grows)")
    m = max(gx.max(), gy.max())
    ax.plot([0, m], [0, m], color="0.3", lw=1)
    ax.set_xlabel(r"gain of $x$ after $A$")
    ax.set_ylabel(r"gain of $x$ after $A\cup\{y\}$")
    ax.legend(fontsize="small", loc="upper left", markerscale=3)
    fig.tight_layout()
    return fig


def core_bars(freq: pd.Series, threshold: float, paper: Mapping[str, float] | None = None) -> plt.Figure:
    """Bootstrap frequency of each benchmark in the greedy top r: horizontal bars, most frequent on top, with the
    core threshold as a dashed line and the paper's frequencies as black ticks.

    One row per benchmark, the figure as tall as the benchmarks need (30 benchmarks read as well as 12):
    the names are written horizontally beside their bars, never rotated or cut.

    Parameters
    ----------
    freq : Series
        Frequency (0 to 1) of each benchmark, indexed by benchmark name.
    threshold : float
        The stable core's threshold (bars at or above it are green).
    paper : mapping, optional
        {benchmark: the paper's frequency}, drawn as black ticks.

    Returns
    -------
    Figure
    """
    f = freq.sort_values(ascending=False)
    n = len(f)
    names = [_two_lines(str(b)) for b in f.index]
    lines = sum(name.count("\n") + 1 for name in names)
    fig, ax = plt.subplots(figsize=(6.4, 1.5 + 0.22 * max(lines, 4) + 0.08 * n))
    y = np.arange(n)
    colours = [PALETTE[2] if v >= threshold - 1e-12 else PALETTE[0] for v in f]
    ax.barh(y, f.to_numpy(), height=0.7, color=colours, label="book")
    if paper:
        ax.scatter(
            [paper[b] for b in f.index if b in paper],
            [i for i, b in enumerate(f.index) if b in paper],
            color="k",
            marker="|",
            s=160,
            linewidths=2,
            zorder=3,
            label="paper",
        )
    ax.axvline(threshold, color="0.3", ls="--", lw=1, label=f"core threshold {threshold:.2f}")
    ax.set_yticks(y, names, fontsize="small" if n > 14 else "medium")
    ax.set_ylim(n - 0.5, -0.5)  # the most frequent on top
    ax.set_xlabel("frequency in greedy top r")
    ax.set_xlim(0, 1.05)
    ax.grid(axis="y", visible=False)
    ax.legend(fontsize="small", loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    fig.tight_layout()
    return fig


def _two_lines(name: str, width: int = 26) -> str:
    """A long benchmark name on two lines, broken at the separator (``_``, ``-``, space) nearest its middle."""
    if len(name) <= width:
        return name
    cuts = [i for i, c in enumerate(name) if c in "_- " and 0 < i < len(name) - 1]
    if not cuts:
        return name
    i = min(cuts, key=lambda j: abs(j - len(name) / 2))
    return name[: i + 1] + "\n" + name[i + 1 :] if name[i] != " " else name[:i] + "\n" + name[i + 1 :]


def retention_heatmaps(
    mats: Mapping[str, pd.DataFrame], vmin: float | None = None, vmax: float | None = None
) -> plt.Figure:
    """Side-by-side heatmaps of transfer matrices (rows = trained on, columns = evaluated on)."""
    n = len(mats)
    fig, axes = plt.subplots(1, n, figsize=(3.9 * n, 3.7), squeeze=False)
    fig.subplots_adjust(wspace=0.55, left=0.07, right=0.9, bottom=0.18)
    allv = np.concatenate([m.to_numpy().ravel() for m in mats.values()])
    vmin = allv.min() if vmin is None else vmin
    vmax = allv.max() if vmax is None else vmax
    im = None
    for ax, (title, m) in zip(axes[0], mats.items()):
        im = ax.imshow(m.to_numpy(), cmap="viridis", vmin=vmin, vmax=vmax)
        for (i, j), v in np.ndenumerate(m.to_numpy()):
            ax.text(j, i, f"{v:.3f}", ha="center", va="center", fontsize=7, color="w" if v < (vmin + vmax) / 2 else "k")
        ax.set_xticks(range(m.shape[1]), [c.replace("eval ", "") for c in m.columns], rotation=40, fontsize=7)
        ax.set_yticks(range(m.shape[0]), [c.replace("train ", "") for c in m.index], fontsize=7)
        ax.set_title(title, fontsize="small")
        ax.grid(False)
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="coverage")
    return fig


def objective_curves(
    wide_cov: pd.DataFrame, wide_tau: pd.DataFrame, random_sd: pd.DataFrame | None = None
) -> plt.Figure:
    """Coverage (left) and Kendall tau (right) against r for each subset rule."""
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 4.0))
    panels = ((axes[0], wide_cov, r"coverage $f(T_r)$"), (axes[1], wide_tau, r"Kendall $\tau$ with full aggregate"))
    for ax, w, lab in panels:
        for i, m in enumerate(w.columns):
            style = "o-" if m == "spectral_greedy" else ".--"
            ax.plot(
                w.index,
                w[m],
                style,
                color=PALETTE[i % len(PALETTE)],
                label=m,
                ms=4,
                lw=2 if m == "spectral_greedy" else 1,
            )
            if m == "random" and random_sd is not None:
                sd = random_sd["coverage_sd" if w is wide_cov else "tau_sd"]
                ax.fill_between(w.index, w[m] - sd, w[m] + sd, color=PALETTE[i % len(PALETTE)], alpha=0.15)
        ax.set_xlabel("number of benchmarks r")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(lab)
    axes[1].legend(fontsize="x-small", loc="lower right")
    fig.tight_layout()
    return fig


def bridge_terms(path: pd.DataFrame) -> plt.Figure:
    """The orthogonal term of Proposition 3 (units of R) against r: kappa = 1, the kappa_orth readings,
    and the isotropic kappa = 1/dim."""
    fig, ax = plt.subplots()
    cols = [
        ("term_kappa1", r"$\kappa=1$ (paper's 'isotropic' $2R\sqrt{1-\tau}$)"),
        ("term_unselected_block", r"$\kappa_{orth}$: unselected block"),
        ("term_schur", r"$\kappa_{orth}$: Schur complement"),
        ("term_residual", r"$\kappa_{orth}$: residual $P^\perp\Sigma P^\perp$"),
        ("term_isotropic", r"$\kappa = 1/\dim$ (truly isotropic)"),
    ]
    for i, (c, lab) in enumerate(cols):
        ax.plot(path.index, path[c], "o-" if i == 0 else ".--", color=PALETTE[i], label=lab, ms=4)
    ax.set_xlabel("number of benchmarks r (greedy order)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("orthogonal term / R")
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


def closure_plot(
    t: np.ndarray, f: np.ndarray, claimed: np.ndarray, valid: np.ndarray | None, label: str = ""
) -> plt.Figure:
    """Theorem 5: greedy coverage against the claimed 1 - (1 - d/k)^t and the valid 1 - exp(-gamma t/k)."""
    fig, ax = plt.subplots()
    ax.plot(t, f, "o-", color=PALETTE[0], label=f"greedy f(T_t) {label}".strip())
    ax.plot(t, claimed, "s--", color=PALETTE[3], label=r"claimed $1-(1-d_{\mathrm{eff}}/k)^t$")
    if valid is not None:
        ax.plot(t, valid, "^:", color=PALETTE[2], label=r"valid $1-e^{-\gamma t/k}$")
    ax.set_xlabel("step t")
    ax.set_ylabel("coverage")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    return fig


def counterfactual_scatter(table: pd.DataFrame, rho: float) -> plt.Figure:
    """Blind loading against mean LOBO rank change, one labelled point per benchmark."""
    fig, ax = plt.subplots()
    ax.scatter(table["blind_loading"], table["rank_change"], color=PALETTE[0])
    for name, row in table.iterrows():
        ax.annotate(
            str(name), (row["blind_loading"], row["rank_change"]), fontsize=7, xytext=(3, 3), textcoords="offset points"
        )
    ax.set_xlabel("blind loading (mass outside the top-d principal directions)")
    ax.set_ylabel("mean |rank change| when left out")
    ax.set_title(f"Spearman rho = {rho:.3f}", fontsize="small")
    fig.tight_layout()
    return fig


def rho_vs_population(tab: pd.DataFrame, paper: float | None = None) -> plt.Figure:
    """Spearman rho (with p < 0.05 marked) against the number of top models averaged over."""
    fig, ax = plt.subplots()
    sig = tab["p"] < 0.05
    ax.plot(tab.index, tab["rho"], "-", color=PALETTE[0])
    ax.scatter(tab.index[~sig], tab["rho"][~sig], color=PALETTE[0], s=12, label="p >= 0.05")
    ax.scatter(tab.index[sig], tab["rho"][sig], color=PALETTE[3], s=18, label="p < 0.05")
    if paper is not None:
        ax.axhline(paper, color="0.3", ls="--", lw=1, label=f"paper {paper:+.2f} (all models)")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set_xlabel("rank change averaged over the top m models")
    ax.set_ylabel(r"Spearman $\rho$(blind loading, rank change)")
    ax.set_ylim(-1, 1)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


#: How each selector of :mod:`blindspot.treat.selector_comparison` is drawn: (label, line style).
_SELECTOR_STYLE = {
    "coverage_greedy": ("greedy coverage", "o-"),
    "facility_location": ("facility location", "s--"),
    "max_diversity": ("max-diversity", "^--"),
    "pca_greedy": ("PCA greedy", "v--"),
    "prediction_greedy": ("selection by prediction", "D:"),
    "random": ("random (mean; band: 95% of single draws)", ".-"),
}


def selector_curves(
    curves: Mapping[tuple[str, str], pd.DataFrame], ylabel: str, labels: Mapping[str, str] | None = None
) -> plt.Figure:
    """Each selector's curve against k: one row of panels per leaderboard, one column per regime.

    ``curves`` maps (suite, regime) to :meth:`SelectorComparison.curves` (index (selector, k); mean, lo, hi,
    draw_lo, draw_hi); the random selector's band is the spread of single random subsets, cut at the bottom of
    the panel (the lowest mean minus the spread of the means, at least 0.5) so that it does not flatten the lines.
    """
    suites = list(dict.fromkeys(s for s, _ in curves))
    regimes = list(dict.fromkeys(r for _, r in curves))
    if not suites:
        return not_drawn("no leaderboard could be compared")
    fig, axes = plt.subplots(
        len(suites), len(regimes), figsize=(4.6 * len(regimes), 2.4 * len(suites) + 0.6), squeeze=False
    )
    for i, suite in enumerate(suites):
        for j, regime in enumerate(regimes):
            ax = axes[i, j]
            cur = curves.get((suite, regime))
            if cur is None:
                ax.set_axis_off()
                continue
            for n, (sel, (lab, style)) in enumerate(_SELECTOR_STYLE.items()):
                c = cur.loc[sel]
                color = PALETTE[n % len(PALETTE)]
                ax.plot(c.index, c["mean"], style, color=color, label=lab, ms=3, lw=2 if n == 0 else 1)
                if sel == "random":
                    ax.fill_between(c.index, c["draw_lo"], c["draw_hi"], color=color, alpha=0.15)
            lowest = float(np.nanmin(cur["mean"].to_numpy()))
            span = float(np.nanmax(cur["mean"].to_numpy())) - lowest
            ax.set_ylim(bottom=max(ax.get_ylim()[0], lowest - max(0.5, span)))  # a wide band does not flatten the lines
            ax.set_title(f"{(labels or {}).get(suite, suite)}, {regime}", fontsize="small")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            if i == len(suites) - 1:
                ax.set_xlabel("benchmarks chosen k")
            if j == 0:
                ax.set_ylabel(ylabel)
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", ncol=3, fontsize="x-small", frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / (2.4 * len(suites) + 0.6)))
    return fig
