"""Figures of Part V (Perspective spaces), drawn from result objects.

Every function returns a matplotlib Figure and never shows or saves it; call
:func:`blindspot.core.theme.use_theme` first.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from blindspot.core.theme import PALETTE
from blindspot.perspective.adversarial import AdversarialPicture
from blindspot.perspective.sparse import CompletedSpectrum, MaskedCV
from blindspot.perspective.synthetic_studies import METHODS, PairingStudy, PerspectivePicture, QueryEfficiencyStudy
from blindspot.perspective.winrate import METHODS as WINRATE_METHODS, TARGETS, WinRateStudy

__all__ = [
    "perspective_figure",
    "pairing_figure",
    "query_efficiency_figure",
    "mae_figure",
    "unpaired_figure",
    "adversarial_figure",
    "cv_by_benchmark",
    "deff_estimates",
    "calibration",
    "offload_curves",
]


matplotlib.use("Agg")


_COLORS = dict(zip(METHODS, sns.color_palette("colorblind", len(METHODS))))


_MARKERS = dict(zip(METHODS, "osD^vX"))


def perspective_figure(pic: PerspectivePicture) -> plt.Figure:
    """Left: MDS axes 1–2 coloured by latent ability. Right: the same space seen along the
    direction that best predicts the ability (``pic.view``)."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), layout="constrained")
    vmin, vmax = np.percentile(pic.ability, [2, 98])
    for ax, XY, xl, yl in (
        (axes[0], pic.coords[:, :2], "MDS axis 1", "MDS axis 2"),
        (axes[1], pic.view, "along the ability direction", "leading orthogonal direction"),
    ):
        sc = ax.scatter(
            XY[:, 0], XY[:, 1], c=pic.ability, cmap="viridis", vmin=vmin, vmax=vmax, s=36, edgecolor="k", linewidth=0.3
        )
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.set_aspect("equal", adjustable="datalim")
    axes[0].set_title("classical MDS, first two axes")
    axes[1].set_title(f"rotated: ability direction ($R^2$ = {pic.view_r2:.2f})")
    fig.colorbar(sc, ax=axes, shrink=0.8, label="latent ability (general factor)")
    return fig


def pairing_figure(study: PairingStudy) -> plt.Figure:
    """Latent R² and missing-cell MAE of PKPS and DKPS against the share of shared queries."""
    s = study.summary
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for name in ("PKPS", "DKPS"):
        d = s[s.method == name].sort_values("share_paired")
        for ax, col in ((axes[0], "r2"), (axes[1], "mae")):
            ax.errorbar(
                d.share_paired,
                d[f"{col}_mean"],
                yerr=d[f"{col}_sd"],
                marker=_MARKERS[name],
                color=_COLORS[name],
                capsize=3,
                label=name,
            )
    shares = sorted(s.share_paired.unique(), reverse=True)
    pools = [int(round(study.queries_per_cell / x)) for x in shares]
    for ax, yl in ((axes[0], r"latent $R^2$ of the coordinates"), (axes[1], "missing-cell MAE")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(shares)
        ax.set_xticklabels([f"{study.queries_per_cell}/{p}" for p in pools])
        ax.minorticks_off()
        ax.set_xlabel("expected share of shared queries (m / pool size)")
        ax.set_ylabel(yl)
        ax.invert_xaxis()
    axes[0].legend()
    fig.tight_layout()
    return fig


def query_efficiency_figure(study: QueryEfficiencyStudy) -> plt.Figure:
    """MAE (mean ± sd over seeds) of each estimator against the queries per cell m."""
    s = study.summary
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ms = sorted(s.m.unique())
    for i, name in enumerate(m for m in METHODS if m in set(s.method)):
        d = s[s.method == name].sort_values("m")
        jitter = 1 + 0.025 * (i - 2.5)
        ax.errorbar(
            d.m * jitter,
            d.mae_mean,
            yerr=d.mae_sd.fillna(0),
            marker=_MARKERS[name],
            color=_COLORS[name],
            capsize=3,
            label=name,
        )
    ax.set_xscale("log", base=2)
    ax.set_xticks(ms)
    ax.set_xticklabels([str(m) for m in ms])
    ax.set_xlabel("queries per cell m")
    ax.set_ylabel("MAE vs full-benchmark score")
    ax.legend(ncol=2, fontsize="small")
    fig.tight_layout()
    return fig


matplotlib.use("Agg")


_KIND_STYLE = {
    "adversarial": dict(marker="X", color="#d62728", s=110),
    "length variant": dict(marker="^", color="#ff7f0e", s=55),
    "reference": dict(marker="*", color="#9467bd", s=160),
}


def _log2_axis(ax, ms):
    ax.set_xscale("log", base=2)
    ax.set_xticks(ms)
    ax.set_xticklabels([str(m) for m in ms])
    ax.minorticks_off()


def mae_figure(study: WinRateStudy, eval_set: str = "scored") -> plt.Figure:
    """MAE (win-rate points, ± s.e. over models) against m: rows = targets, columns = holdouts."""
    s = study.summary[study.summary.eval_set == eval_set]
    targets = [t for t in TARGETS if t in set(s.target)]
    holdouts = [h for h in ("model", "family") if h in set(s.holdout)]
    fig, axes = plt.subplots(
        len(targets), len(holdouts), figsize=(5.2 * len(holdouts), 3.6 * len(targets)), squeeze=False, sharex=True
    )
    ms = sorted(s.m.unique())
    for r, target in enumerate(targets):
        for c, holdout in enumerate(holdouts):
            ax = axes[r, c]
            d0 = s[(s.target == target) & (s.holdout == holdout)]
            present = [m for m in WINRATE_METHODS if m in set(d0.method)]
            for i, name in enumerate(present):
                d = d0[d0.method == name].sort_values("m")
                jitter = 1 + 0.03 * (i - (len(present) - 1) / 2)
                ax.errorbar(
                    d.m * jitter,
                    d.mae,
                    yerr=d.se.fillna(0),
                    marker=_MARKERS[name],
                    color=_COLORS[name],
                    capsize=3,
                    label=name,
                )
            _log2_axis(ax, ms)
            ax.set_title(f"{TARGETS[target]}, holdout = {holdout}", fontsize="medium")
            if c == 0:
                ax.set_ylabel("MAE (win-rate points)")
            if r == len(targets) - 1:
                ax.set_xlabel("responses per task m")
    axes[0, 0].legend(ncol=2, fontsize="small")
    fig.tight_layout()
    return fig


def unpaired_figure(
    paired: WinRateStudy, unpaired: WinRateStudy, holdout: str = "family", eval_set: str = "all"
) -> plt.Figure:
    """PKPS and DKPS with shared queries (solid) and with each model's own queries (dashed)."""
    targets = [t for t in TARGETS if t in set(unpaired.summary.target)]
    fig, axes = plt.subplots(1, len(targets), figsize=(5.2 * len(targets), 3.8), squeeze=False)
    ms = sorted(unpaired.summary.m.unique())
    for c, target in enumerate(targets):
        ax = axes[0, c]
        for study, ls, tag in ((paired, "-", "paired"), (unpaired, "--", "unpaired")):
            s = study.summary
            s = s[(s.target == target) & (s.holdout == holdout) & (s.eval_set == eval_set) & s.m.isin(ms)]
            for name in ("DKPS", "PKPS"):
                d = s[s.method == name].sort_values("m")
                ax.errorbar(
                    d.m,
                    d.mae,
                    yerr=d.se.fillna(0),
                    marker=_MARKERS[name],
                    color=_COLORS[name],
                    ls=ls,
                    capsize=3,
                    label=f"{name}, {tag}",
                )
        _log2_axis(ax, ms)
        ax.set_xlabel("responses per task m")
        ax.set_ylabel("MAE (win-rate points)")
        ax.set_title(f"{TARGETS[target]}, holdout = {holdout}", fontsize="medium")
    axes[0, 0].legend(fontsize="small")
    fig.tight_layout()
    return fig


def adversarial_figure(
    pic: AdversarialPicture, label_kinds=("adversarial", "reference"), label_z: float = 3.0
) -> plt.Figure:
    """Left: the quality view of the perspective space (population coloured by the leaderboard
    target; excluded models marked). Right: predicted-from-responses against leaderboard target.
    Excluded models of ``label_kinds``, and any with ``|gap_z| > label_z``, are named."""
    m = pic.models
    pop = m[m.kind == "population"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    ax = axes[0]
    sc = ax.scatter(
        pop.view1, pop.view2, c=pop.y, cmap="viridis", s=26, edgecolor="k", linewidth=0.2, label="population"
    )
    fig.colorbar(sc, ax=ax, shrink=0.85, label="leaderboard score")
    ax2 = axes[1]
    ax2.scatter(pop.y_hat, pop.y, s=18, color="0.6", label="population (leave-one-model-out)")
    lim = [0, max(100.0, float(np.nanmax(m[["y", "y_hat"]].to_numpy())) + 2)]
    ax2.plot(lim, lim, color="0.3", lw=0.8, ls=":")
    for kind, style in _KIND_STYLE.items():
        d = m[m.kind == kind]
        if d.empty:
            continue
        ax.scatter(d.view1, d.view2, edgecolor="k", linewidth=0.4, label=kind, **style)
        ax2.scatter(d.y_hat, d.y, edgecolor="k", linewidth=0.4, label=kind, **style)
        named = d if kind in label_kinds else d[d.gap_z.abs() > label_z]
        if len(named):
            for name, row in named.iterrows():
                ax.annotate(name, (row.view1, row.view2), fontsize="x-small", xytext=(4, 4), textcoords="offset points")
                ax2.annotate(name, (row.y_hat, row.y), fontsize="x-small", xytext=(4, 4), textcoords="offset points")
    ax.set_xlabel(f"along the direction that predicts the target ($R^2$ = {pic.view_r2:.2f})")
    ax.set_ylabel("leading orthogonal direction")
    ax.set_title("perspective space (PKPS), quality view", fontsize="medium")
    ax.legend(fontsize="x-small", loc="best")
    ax2.set_xlim(lim)
    ax2.set_ylim(lim)
    ax2.set_xlabel(f"{TARGETS[pic.target]} predicted from the responses (PKPS kNN)")
    ax2.set_ylabel(f"leaderboard {TARGETS[pic.target]}")
    ax2.set_title("what the judge gives vs what the answers look like", fontsize="medium")
    ax2.legend(fontsize="x-small", loc="upper left")
    return fig


_LABELS = {"lrmc": "LRMC (Soft-Impute)", "mean": "per-benchmark mean", "twoway": "model + benchmark effect"}


def cv_by_benchmark(cv: MaskedCV) -> plt.Figure:
    """Cross-validated MAE (z units) of each method per benchmark, benchmarks ordered by their
    number of observed models (most observed at the top)."""
    pb = cv.per_benchmark.sort_values("n")
    k = len(pb)
    fig, ax = plt.subplots(figsize=(7.0, max(3.0, 0.17 * k + 1.2)))
    y = np.arange(k)
    for i, m in enumerate(("mean", "twoway", "lrmc")):
        ax.plot(
            pb[f"mae_{m}"],
            y,
            "o" if m == "lrmc" else "s",
            ms=4,
            color=PALETTE[[1, 2, 0][i]],
            label=f"{_LABELS[m]} (all: {cv.mae[m]:.2f})",
        )
    ax.set_yticks(y, [f"{b} ({n})" for b, n in zip(pb.index, pb["n"])], fontsize=6)
    ax.set_xlabel("cross-validated MAE on held-out observed cells (z units)")
    ax.legend(fontsize="x-small", loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def deff_estimates(
    completed: Mapping[str, CompletedSpectrum], imputed: Mapping[str, float], paper: Mapping[str, float]
) -> plt.Figure:
    """d_eff of the completed matrices with their combined intervals (circles), beside the
    mean-imputed values (squares) and the paper's (dashed lines)."""
    labels = list(completed) + list(imputed)
    fig, ax = plt.subplots(figsize=(7.0, 0.45 * len(labels) + 1.4))
    for i, sp in enumerate(completed.values()):
        ax.errorbar(sp.d_eff, i, xerr=[[sp.d_eff - sp.lo], [sp.hi - sp.d_eff]], fmt="o", color=PALETTE[0], capsize=3)
        ax.plot([sp.lo_models, sp.hi_models], [i + 0.18] * 2, color=PALETTE[0], alpha=0.5, lw=3)
    for j, v in enumerate(imputed.values()):
        ax.plot(v, len(completed) + j, "s", color=PALETTE[1])
    for j, (name, v) in enumerate(paper.items()):
        ax.axvline(v, color=PALETTE[3 + j], ls="--", lw=1, label=f"paper, {name}: {v:g}")
    ax.set_yticks(range(len(labels)), labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel(r"$d_{\mathrm{eff}}$")
    if paper:
        ax.legend(fontsize="x-small", loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(paper), frameon=False)
    fig.tight_layout()
    return fig


def calibration(cals: Mapping[str, pd.DataFrame], marks: Mapping[str, Mapping[str, float]] | None = None) -> plt.Figure:
    """True d_eff of synthetic truths against their mean-imputed and LRMC estimates, one panel per
    missingness pattern; ``marks`` draws horizontal lines at observed estimates of that pattern."""
    fig, axes = plt.subplots(1, len(cals), figsize=(4.2 * len(cals), 4.0), squeeze=False)
    for ax, (name, cal) in zip(axes[0], cals.items()):
        hi = float(max(cal[["d_eff_true", "d_eff_mean", "d_eff_lrmc"]].max())) * 1.05
        ax.plot([0, hi], [0, hi], color="0.6", lw=1, ls=":", label="estimate = truth")
        ax.plot(cal.d_eff_true, cal.d_eff_mean, "s", color=PALETTE[1], ms=5, label="mean imputation")
        ax.plot(cal.d_eff_true, cal.d_eff_lrmc, "o", color=PALETTE[0], ms=5, label="LRMC completion")
        for j, (label, v) in enumerate((marks or {}).get(name, {}).items()):
            ax.axhline(v, color=PALETTE[3 + j], lw=1, ls="--", label=label)
        ax.set_xlim(0, hi)
        ax.set_ylim(0, hi)
        ax.set_xlabel(r"true $d_{\mathrm{eff}}$ (dense synthetic matrix)")
        ax.set_ylabel(r"estimated $d_{\mathrm{eff}}$")
        ax.set_title(name, fontsize="small")
        ax.legend(fontsize="x-small")
    fig.tight_layout()
    return fig


def offload_curves(curves: pd.DataFrame, pools: tuple[str, ...], methods: tuple[str, ...]) -> plt.Figure:
    """Deviation (top) and score retention (bottom) against the offloaded share, one column per pool.

    ``curves`` is :func:`dkps.routing.offload_study.curve_table`'s frame; lines are means over seeds.
    """
    fig, axes = plt.subplots(2, len(pools), figsize=(3.2 * len(pools), 5.6), sharex=True, squeeze=False)
    colors = dict(zip(methods, sns.color_palette("colorblind", len(methods))))
    c = curves[curves.family == "policy"]
    for j, pool in enumerate(pools):
        g = c[c.pool == pool].groupby(["method", "frac"])[["deviation", "retention"]].mean()
        for m in methods:
            if m not in g.index.get_level_values(0):
                continue
            row = g.loc[m]
            style = "--" if m in ("static", "profile", "lead", "random") else "-"
            axes[0, j].plot(row.index, row.deviation, style, color=colors[m], label=m)
            axes[1, j].plot(row.index, row.retention, style, color=colors[m], label=m)
        axes[0, j].set_title(pool)
        axes[1, j].set_xlabel("share offloaded")
        axes[1, j].axhline(0.99, color="0.6", lw=0.8)
    axes[0, 0].set_ylabel("mean deviation (all eval queries)")
    axes[1, 0].set_ylabel("score retention")
    axes[0, -1].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
