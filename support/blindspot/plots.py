"""Figures of the book, drawn from result objects (one seaborn theme for the whole book).

Functions return a matplotlib Figure and never show or save it; the notebook glues it.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")  # headless: the book renders figures from notebook outputs
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import seaborn as sns  # noqa: E402

from .spectrum import BootstrapDeff, MPCorrection, Spectrum, mp_density  # noqa: E402

__all__ = ["use_theme", "PALETTE", "scree", "bootstrap_hist", "deff_bars", "mp_overlay"]

PALETTE = sns.color_palette("colorblind")


def use_theme() -> None:
    """The book's one plotting theme (seaborn whitegrid, colour-blind palette, readable sizes)."""
    sns.set_theme(style="whitegrid", palette="colorblind", context="notebook")
    # numpy >= 2 prints scalars as np.float64(...); glued numbers must print as plain numbers
    np.set_printoptions(legacy="1.25")
    _register_png_formatter()


def _register_png_formatter() -> None:
    """Inside a kernel, give Figure objects a PNG representation (so glued figures render).

    pyplot stays on the Agg backend, so figures are never shown twice: they appear only where a
    cell returns them or a glue:figure directive pastes them.
    """
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # outside Jupyter nothing needs a formatter
        return
    if get_ipython() is not None:
        set_matplotlib_formats("png")
    plt.rcParams.update({"figure.dpi": 110, "savefig.dpi": 110, "figure.figsize": (6.4, 4.0),
                         "axes.titlesize": "medium"})


def scree(spectra: Mapping[str, Spectrum], mp: Mapping[str, MPCorrection] | None = None) -> plt.Figure:
    """Eigenvalues against their index for several slices, with each slice's MP edge dashed."""
    fig, ax = plt.subplots()
    for i, (label, sp) in enumerate(spectra.items()):
        c = PALETTE[i % len(PALETTE)]
        ax.plot(np.arange(1, sp.n_benchmarks + 1), sp.eigenvalues, "o-", color=c,
                label=f"{label} (d_eff = {sp.d_eff:.2f})")
        if mp and label in mp:
            ax.axhline(mp[label].lambda_plus, color=c, ls="--", lw=1)
    ax.set_xlabel("eigenvalue index i")
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


def deff_bars(labels: Sequence[str], values: Mapping[str, Sequence[float]], ylabel: str = r"$d_{\mathrm{eff}}$"
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
    """Eigenvalues of one slice as a rug against the Marchenko–Pastur density of pure noise."""
    fig, ax = plt.subplots()
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
