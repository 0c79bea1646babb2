"""Figures of Part I (Diagnose), drawn from result objects.

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

from blindspot.core.spectrum import BootstrapDeff, MPCorrection, Spectrum, mp_density
from blindspot.core.theme import PALETTE
from blindspot.diagnose.ambient_dimension import Horn, PowerLaw, SwapCV
from blindspot.diagnose.robustness import ThresholdCurve

__all__ = [
    "scree",
    "bootstrap_hist",
    "deff_bars",
    "mp_overlay",
    "powerlaw_fit",
    "swap_cv_curve",
    "horn_plot",
    "threshold_curves",
    "population_sweep",
    "null_vs_real",
    "observed_mask",
    "capture_hist",
    "not_computed",
]


matplotlib.use("Agg")  # headless: the book renders figures from notebook outputs


def scree(spectra: Mapping[str, Spectrum], mp: Mapping[str, MPCorrection] | None = None) -> plt.Figure:
    """Eigenvalues against their index for several slices, with each slice's MP edge dashed."""
    fig, ax = plt.subplots()
    for i, (label, sp) in enumerate(spectra.items()):
        c = PALETTE[i % len(PALETTE)]
        ax.plot(
            np.arange(1, sp.n_benchmarks + 1), sp.eigenvalues, "o-", color=c, label=f"{label} (d_eff = {sp.d_eff:.2f})"
        )
        if mp and label in mp:
            ax.axhline(mp[label].lambda_plus, color=c, ls="--", lw=1)
    ax.set_xlabel("eigenvalue index i")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(r"$\lambda_i$ of the correlation matrix")
    ax.set_yscale("log")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def bootstrap_hist(boots: Mapping[str, BootstrapDeff]) -> plt.Figure:
    """Histograms of bootstrap d_eff samples with the point estimate and percentile interval."""
    fig, ax = plt.subplots()
    for i, (label, b) in enumerate(boots.items()):
        c = PALETTE[i % len(PALETTE)]
        ax.hist(b.samples, bins=40, alpha=0.45, color=c, label=f"{label}: {b.point:.2f} [{b.lo:.2f}, {b.hi:.2f}]")
        ax.axvline(b.point, color=c, lw=2)
        ax.axvspan(b.lo, b.hi, color=c, alpha=0.08)
    ax.set_xlabel(r"$d_{\mathrm{eff}}$ of a bootstrap resample")
    ax.set_ylabel("resamples")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def deff_bars(
    labels: Sequence[str], values: Mapping[str, Sequence[float]], ylabel: str = r"$d_{\mathrm{eff}}$"
) -> plt.Figure:
    """Grouped bars: one group per label, one bar per series in ``values``."""
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    x = np.arange(len(labels))
    w = 0.8 / max(len(values), 1)
    for i, (name, v) in enumerate(values.items()):
        ax.bar(x + (i - (len(values) - 1) / 2) * w, v, w, label=name, color=PALETTE[i % len(PALETTE)])
    ax.set_xticks(x, labels, rotation=15)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def mp_overlay(sp: Spectrum, mp: MPCorrection) -> plt.Figure:
    """Eigenvalues of one slice as a rug against the Marchenko–Pastur density of pure noise.

    The density is drawn for gamma = k/n <= 1 (at least as many models as benchmarks); for more
    benchmarks than models only the edge and the eigenvalues are drawn.
    """
    fig, ax = plt.subplots()
    if mp.gamma <= 1:
        grid = np.linspace(max(mp.lambda_minus, 1e-3), mp.lambda_plus, 400)
        ax.plot(grid, mp_density(grid, mp.gamma), color="0.3", label=f"MP density, gamma = {mp.gamma:.3f}")
    ax.axvline(mp.lambda_plus, color="0.3", ls="--", lw=1, label=rf"edge $\lambda_+$ = {mp.lambda_plus:.3f}")
    for lam in sp.eigenvalues:
        ax.axvline(lam, ymax=0.25, color=PALETTE[3] if lam > mp.lambda_plus else PALETTE[0], lw=2)
    ax.set_xscale("log")
    ax.set_xlabel(r"eigenvalue $\lambda$")
    ax.set_ylabel("density")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def powerlaw_fit(p: PowerLaw) -> plt.Figure:
    """Eigenvalues against their index (log-log), the power-law fit and its extrapolation to eps."""
    fig, ax = plt.subplots()
    i = np.arange(1, p.eigenvalues.size + 1)
    ax.plot(i, np.maximum(p.eigenvalues, 1e-9), "o", color=PALETTE[0], label="eigenvalues")
    grid = np.geomspace(1, p.D * 1.2, 200)
    ax.plot(
        grid,
        np.exp(p.intercept) * grid ** (-p.alpha),
        color=PALETTE[1],
        label=rf"fit $\lambda_i \propto i^{{-{p.alpha:.2f}}}$",
    )
    ax.axhline(p.eps, color="0.4", ls=":", lw=1, label=rf"$\varepsilon$ = {p.eps:g}")
    ax.axvline(p.D, color=PALETTE[3], ls="--", lw=1, label=f"D = {p.D}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("index i")
    ax.set_ylabel(r"$\lambda_i$")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def swap_cv_curve(cv: SwapCV) -> plt.Figure:
    """Predicted swap probability against D with the empirical half-split rate."""
    fig, ax = plt.subplots()
    ax.plot(cv.Ds, cv.predicted, color=PALETTE[0], label=r"rescaled $\chi^2$ prediction")
    ax.axhline(cv.empirical, color=PALETTE[3], ls="--", label=f"empirical rate {cv.empirical:.3f}")
    ax.axvline(cv.D, color="0.4", ls=":", label=f"argmin D = {cv.D}" + (" (corner)" if cv.corner else ""))
    ax.set_xscale("log")
    ax.set_xlabel("ambient dimension D")
    ax.set_ylabel("P(top two swap)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def horn_plot(h: Horn) -> plt.Figure:
    """Eigenvalues against the position-wise null percentile of Horn's parallel analysis."""
    fig, ax = plt.subplots()
    i = np.arange(1, h.eigenvalues.size + 1)
    ax.plot(i, h.eigenvalues, "o-", color=PALETTE[0], label="data")
    ax.plot(i, h.null_percentile, "s--", color="0.4", label=f"{h.percentile:.0f}th percentile of {h.n_perm} nulls")
    ax.set_xlabel("eigenvalue index i")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(r"$\lambda_i$")
    ax.set_title(f"Horn: {h.n_signal} eigenvalue(s) above the null")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def threshold_curves(
    curves: Mapping[str, ThresholdCurve], theory: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None
) -> plt.Figure:
    """d_eff against the frontier threshold q per suite; decreases circled; optional one-factor curves (dotted)."""
    fig, ax = plt.subplots(figsize=(6.8, 4.2))
    for i, (name, c) in enumerate(curves.items()):
        col = PALETTE[i % len(PALETTE)]
        t = c.table
        ax.plot(t.index, t["d_eff"], "o-", color=col, label=name)
        if "lo" in t:
            ax.fill_between(t.index, t["lo"], t["hi"], color=col, alpha=0.12)
        for _, q1, _ in c.decreases:
            ax.plot(q1, t.loc[q1, "d_eff"], "o", ms=13, mfc="none", mec=PALETTE[3], mew=1.5)
        if theory and name in theory:
            q, d = theory[name]
            ax.plot(q, d, ":", color=col, lw=1.5)
    ax.set_xlabel("frontier threshold q (keep mean score >= q-quantile)")
    ax.set_ylabel(r"$d_{\mathrm{eff}}$ of the frontier")
    ax.legend(fontsize="small", title="red circles: d_eff decreases", title_fontsize="small")
    fig.tight_layout()
    return fig


def population_sweep(
    sweep: ThresholdCurve,
    fine: ThresholdCurve,
    paper: Mapping[float, float] | None = None,
    marker: tuple[float, float] | None = None,
    marker_label: str = "",
) -> plt.Figure:
    """d_eff against the kept top fraction (log x), with bootstrap band, a fine grid and, on the paper's
    data, the paper's values (crosses) and a horizontal reference line at ``marker = (x_label, y)``."""
    fig, ax = plt.subplots(figsize=(6.8, 4.2))
    t = sweep.table
    if "lo" in t:
        ax.fill_between(t["fraction"], t["lo"], t["hi"], color=PALETTE[0], alpha=0.2, label="95% bootstrap band")
    ax.plot(t["fraction"], t["d_eff"], "o", color=PALETTE[0], label="book")
    ax.plot(fine.table["fraction"], fine.table["d_eff"], "-", color=PALETTE[0], lw=1, alpha=0.7, label="fine grid")
    if paper:
        ax.plot(list(paper), list(paper.values()), "kx", ms=8, label="paper (H.44)")
    if marker is not None:
        ax.axhline(marker[1], color=PALETTE[3], ls=":", lw=1)
        ax.text(marker[0], marker[1], " " + marker_label, color=PALETTE[3], va="bottom", fontsize="small")
    ax.set_xscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("top fraction of models kept (by mean score)")
    ax.set_ylabel(r"$d_{\mathrm{eff}}$")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def null_vs_real(null: Mapping[str, np.ndarray], real: Mapping[str, float]) -> plt.Figure:
    """One panel per statistic: the null replicates (strip) and the real frontier's value (line)."""
    keys = list(null)
    fig, axes = plt.subplots(1, len(keys), figsize=(2.6 * len(keys), 3.6))
    axes = np.atleast_1d(axes)
    rng = np.random.default_rng(0)
    for ax, k in zip(axes, keys):
        v = np.asarray(null[k], dtype=float)
        ax.scatter(rng.uniform(-0.15, 0.15, v.size), v, s=12, color=PALETTE[0], alpha=0.7, label="one-factor null")
        ax.axhline(real[k], color=PALETTE[3], lw=2, label="real frontier")
        ax.set_xticks([])
        ax.set_title(k, fontsize="small")
    axes[0].legend(fontsize="x-small", loc="best")
    fig.tight_layout()
    return fig


def observed_mask(observed: pd.DataFrame) -> plt.Figure:
    """Which cells of an imputed matrix were observed (dark) and which were filled (light)."""
    fig, ax = plt.subplots(figsize=(7.0, 4.6))
    ax.imshow(observed.to_numpy(dtype=float), aspect="auto", cmap="Greys", vmin=0, vmax=1.3, interpolation="none")
    ax.grid(False)
    ax.set_xticks(range(observed.shape[1]), observed.columns, rotation=90, fontsize=6)
    ax.set_yticks([])
    ax.set_ylabel(f"{observed.shape[0]} models")
    ax.set_title(f"observed cells (dark): {observed.to_numpy().mean():.0%}", fontsize="small")
    fig.tight_layout()
    return fig


def capture_hist(f: np.ndarray, expectation: float, kyfan: float) -> plt.Figure:
    """Histogram of the variance captured by random subspaces, with d/D (Theorem 1(b)) and the Ky Fan
    bound (Theorem 1(a)) marked."""
    fig, ax = plt.subplots()
    ax.hist(f, bins=60, color=PALETTE[0], alpha=0.7)
    ax.axvline(expectation, color="k", lw=2, label="d / D (Theorem 1(b))")
    ax.axvline(kyfan, color=PALETTE[3], lw=2, ls="--", label="Ky Fan bound (Theorem 1(a))")
    ax.set_xlabel("captured fraction f(V)")
    ax.set_ylabel("random subspaces")
    ax.legend()
    fig.tight_layout()
    return fig


def not_computed(reason: str) -> plt.Figure:
    """A small empty panel saying why a figure could not be drawn on this data (its caption stays valid)."""
    fig, ax = plt.subplots(figsize=(6.0, 1.2))
    ax.text(0.5, 0.5, f"Not computed on this data: {reason}", ha="center", va="center", wrap=True)
    ax.set_axis_off()
    return fig
