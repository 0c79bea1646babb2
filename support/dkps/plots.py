"""Figures of the book's Part V, drawn from :mod:`dkps.study` results.

Each function returns a matplotlib Figure and never shows or saves it (the notebook glues it).
Only notebooks import this module; the estimators never do.
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from .study import METHODS, PairingStudy, PerspectivePicture, QueryEfficiencyStudy  # noqa: E402

__all__ = ["perspective_figure", "pairing_figure", "query_efficiency_figure"]

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
        sc = ax.scatter(XY[:, 0], XY[:, 1], c=pic.ability, cmap="viridis", vmin=vmin, vmax=vmax, s=36,
                        edgecolor="k", linewidth=0.3)
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
            ax.errorbar(d.share_paired, d[f"{col}_mean"], yerr=d[f"{col}_sd"], marker=_MARKERS[name],
                        color=_COLORS[name], capsize=3, label=name)
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
        ax.errorbar(d.m * jitter, d.mae_mean, yerr=d.mae_sd.fillna(0), marker=_MARKERS[name], color=_COLORS[name],
                    capsize=3, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xticks(ms)
    ax.set_xticklabels([str(m) for m in ms])
    ax.set_xlabel("queries per cell m")
    ax.set_ylabel("MAE vs full-benchmark score")
    ax.legend(ncol=2, fontsize="small")
    fig.tight_layout()
    return fig
