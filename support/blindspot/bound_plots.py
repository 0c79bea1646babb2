"""Figures of the Theorem 2 chapters (Theorem 2, Table 2, noise ratio, half-split), drawn from
result objects. Like :mod:`blindspot.plots`, every function returns a Figure and never shows or
saves it; call :func:`blindspot.plots.use_theme` first.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .covering import CoveringRate
from .halfsplit import HalfSplit
from .indistinguishability import LipschitzWitness
from .plots import PALETTE

__all__ = ["sampling_error", "witness_2d", "covering_rates", "bound_check", "table2_bars", "noise_bars",
           "top5_hist", "calibration"]


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
        ax.plot([-1.15 * w.R * u[0], 1.15 * w.R * u[0]], [-1.15 * w.R * u[1], 1.15 * w.R * u[1]], color=PALETTE[0],
                lw=0.9, ls="--", label="benchmark directions" if j == 0 else None)
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
        ax.plot(r.ms, np.exp(b + r.slope * x), color=c, lw=2,
                label=f"d = {d}: slope {r.slope:.3f} [{r.slope_lo:.3f}, {r.slope_hi:.3f}]")
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


def table2_bars(t2: pd.DataFrame) -> plt.Figure:
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


def noise_bars(df: pd.DataFrame, paper_main: Mapping[str, float], paper_h12: Mapping[str, float]) -> plt.Figure:
    """Geometric/statistical ratios per suite for both numerators, with the paper's two sets of figures."""
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    suites = list(df.index)
    x = np.arange(len(suites))
    ax.bar(x - 0.2, df["ratio_piR_over_k"], 0.4, color=PALETTE[0], label=r"book: $\pi R/k$ over $\sigma_{boot}$")
    ax.bar(x + 0.2, df["ratio_delta_vis"], 0.4, color=PALETTE[1], label=r"book: $2R\omega$ over $\sigma_{boot}$")
    for i, s in enumerate(suites):
        if s in paper_h12:
            ax.plot(i - 0.2, paper_h12[s], "k_", ms=22, mew=2, label="paper, H.12" if i == 1 else None)
        if s in paper_main:
            ax.plot(i + 0.2, paper_main[s], "kx", ms=9, mew=2, label="paper, main text (v16)" if i == 0 else None)
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
    ax.hist(hs.top5_changes, bins=bins, density=True, alpha=0.6, color=PALETTE[0],
            label=f"{hs.n_trials} random splits (mean {hs.mean_top5_changes:.2f})")
    if exhaustive is not None:
        ax.hist(exhaustive.top5_changes, bins=bins, density=True, histtype="step", lw=2, color=PALETTE[1],
                label=f"all {exhaustive.n_trials} splits (mean {exhaustive.mean_top5_changes:.2f})")
    ax.set_xlabel("top-5 models that differ between the halves")
    ax.set_ylabel("fraction of splits")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def calibration(tab: pd.DataFrame, paper: Sequence[float] | None = None) -> plt.Figure:
    """Empirical top-2 swap rate (with 2 SE bars) and the chi-squared prediction against r."""
    fig, ax = plt.subplots()
    r = tab.index.to_numpy()
    ax.errorbar(r, tab["empirical"], yerr=2 * tab["se_pp"] / 100, fmt="o-", color=PALETTE[0], capsize=3,
                label="empirical (2 SE)")
    ax.plot(r, tab["predicted"], "s-", color=PALETTE[1], label=r"$\chi^2$ prediction (mean)")
    ax.fill_between(r, tab["pred_min"], tab["pred_max"], color=PALETTE[1], alpha=0.12, label="prediction range")
    if paper is not None:
        ax.plot(r, paper, "kx", label="paper, G.2 (empirical)")
    ax.axhline(0.5, color="0.5", lw=0.8, ls=":")
    ax.set_xlabel("visible benchmarks r")
    ax.set_ylabel("P(second beats first on the held-out set)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
