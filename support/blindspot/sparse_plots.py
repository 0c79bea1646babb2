"""Figures of the sparse-leaderboard chapter, drawn from :mod:`blindspot.sparse` results. Every
function returns a Figure and never shows or saves it; call :func:`blindspot.plots.use_theme` first.
"""

from __future__ import annotations

from typing import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .plots import PALETTE
from .sparse import CompletedSpectrum, MaskedCV

__all__ = ["cv_by_benchmark", "deff_estimates", "calibration"]

_LABELS = {"lrmc": "LRMC (Soft-Impute)", "mean": "per-benchmark mean", "twoway": "model + benchmark effect"}


def cv_by_benchmark(cv: MaskedCV) -> plt.Figure:
    """Cross-validated MAE (z units) of each method per benchmark, benchmarks ordered by their
    number of observed models (most observed at the top)."""
    pb = cv.per_benchmark.sort_values("n")
    k = len(pb)
    fig, ax = plt.subplots(figsize=(7.0, max(3.0, 0.17 * k + 1.2)))
    y = np.arange(k)
    for i, m in enumerate(("mean", "twoway", "lrmc")):
        ax.plot(pb[f"mae_{m}"], y, "o" if m == "lrmc" else "s", ms=4, color=PALETTE[[1, 2, 0][i]],
                label=f"{_LABELS[m]} (all: {cv.mae[m]:.2f})")
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
    for i, (name, sp) in enumerate(completed.items()):
        ax.errorbar(sp.d_eff, i, xerr=[[sp.d_eff - sp.lo], [sp.hi - sp.d_eff]], fmt="o", color=PALETTE[0], capsize=3)
        ax.plot([sp.lo_models, sp.hi_models], [i + 0.18] * 2, color=PALETTE[0], alpha=0.5, lw=3)
    for j, (name, v) in enumerate(imputed.items()):
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
