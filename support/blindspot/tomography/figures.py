"""Figures of the geometric-tomography chapter (Theorem 3), drawn from blindspot.tomography.reconstruction results.

Every function returns a matplotlib Figure and never shows or saves it; call
``blindspot.core.theme.use_theme()`` first so the book's theme applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import NullFormatter

from blindspot.core.theme import PALETTE
from blindspot.tomography.reconstruction import (
    DiscWitness,
    ErrorCurve,
    HomogeneityCheck,
    RateFit,
    WidthPicture,
    XrayParity,
)

__all__ = ["width_pictures", "error_curves", "witness_figure", "homogeneity_figure", "xray_figure"]

matplotlib.use("Agg")  # headless: the book renders figures from notebook outputs (no second, inline copy)


def _closed(xy: np.ndarray) -> np.ndarray:
    return np.vstack([xy, xy[:1]])


def width_pictures(pictures: Sequence[Sequence[WidthPicture]], show_trig: bool = True) -> plt.Figure:
    """Small multiples: one row per body, one column per m.

    Each panel shows the body (filled), its m width slabs (pairs of grey lines), the half-plane
    reconstruction (solid outline) and, optionally, the envelope of the trigonometric
    interpolant (dashed), with both Hausdorff errors in the title.
    """
    rows, cols = len(pictures), max(len(r) for r in pictures)
    fig, axes = plt.subplots(rows, cols, figsize=(2.45 * cols, 2.55 * rows), squeeze=False)
    for i, row in enumerate(pictures):
        for j, pic in enumerate(row):
            ax = axes[i, j]
            lim = 1.15 * float(np.max(np.abs(pic.polygon)))
            span = np.linspace(-2 * lim, 2 * lim, 2)
            for th, w in zip(pic.theta, pic.widths):
                u, v = np.array([np.cos(th), np.sin(th)]), np.array([-np.sin(th), np.cos(th)])
                for sgn in (1, -1):
                    p = sgn * (w / 2) * u[None, :] + span[:, None] * v[None, :]
                    ax.plot(p[:, 0], p[:, 1], color="0.6", lw=0.5, alpha=0.6 if pic.m <= 16 else 0.35)
            b = _closed(pic.body_boundary)
            ax.fill(b[:, 0], b[:, 1], color=PALETTE[0], alpha=0.35, lw=0)
            ax.plot(b[:, 0], b[:, 1], color=PALETTE[0], lw=1.2)
            poly = _closed(pic.polygon)
            ax.plot(poly[:, 0], poly[:, 1], color=PALETTE[3], lw=1.2)
            if show_trig:
                tb = _closed(pic.trig_boundary)
                ax.plot(tb[:, 0], tb[:, 1], color=PALETTE[2], lw=1.0, ls="--")
            ax.set_xlim(-lim, lim)
            ax.set_ylim(-lim, lim)
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
            ax.grid(False)
            ax.set_title(f"m = {pic.m}\nδ poly {pic.error_halfplane:.1e}, trig {pic.error_trig:.1e}", fontsize=7.5)
            if j == 0:
                ax.set_ylabel(pic.body, fontsize=8.5)
        for j in range(len(row), cols):
            axes[i, j].set_visible(False)
    handles = [
        Patch(facecolor=PALETTE[0], alpha=0.35, edgecolor=PALETTE[0], label="body K"),
        Line2D([], [], color="0.6", lw=0.8, label="the m width slabs"),
        Line2D([], [], color=PALETTE[3], lw=1.2, label="intersection of the slabs"),
    ]
    if show_trig:
        handles.append(Line2D([], [], color=PALETTE[2], lw=1.0, ls="--", label="trigonometric interpolant"))
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / (2.55 * rows)))
    return fig


def _fit_label(fit: RateFit | None) -> str:
    if fit is None:
        return "no power law"
    return f"slope {fit.slope:.2f} [{fit.ci_low:.2f}, {fit.ci_high:.2f}]"


def error_curves(
    panels: Mapping[str, Sequence[tuple[ErrorCurve, RateFit | None]]],
    bands: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray, str]] | None = None,
    ylims: Mapping[str, tuple[float, float]] | None = None,
) -> plt.Figure:
    """Log–log error against m, one panel per key; each fitted line is drawn over its fit range.

    ``bands[panel] = (ms, lower, upper, label)`` shades the region between two bounds (e.g. the
    minimax lower bound and the half-plane upper bound of the class curvature >= κ);
    ``ylims[panel]`` fixes a panel's y range.  Legends sit below the panels.
    """
    n = len(panels)
    n_items = max(len(v) for v in panels.values()) + (1 if bands else 0)
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 3.6 + 0.22 * n_items), squeeze=False)
    for ax, (title, items) in zip(axes[0], panels.items()):
        if bands and title in bands:
            ms, lo, hi, label = bands[title]
            ax.fill_between(ms, lo, hi, color="0.85", label=label)
            ax.plot(ms, lo, color="0.5", lw=0.8, ls=":")
        for k, (curve, fit) in enumerate(items):
            c = PALETTE[k % len(PALETTE)]
            keep = curve.errors > 0
            ax.plot(curve.ms[keep], curve.errors[keep], "o", color=c, ms=4, label=f"{curve.body}: {_fit_label(fit)}")
            ax.plot(curve.ms[keep], curve.errors[keep], "-", color=c, lw=0.6, alpha=0.5)
            if fit is not None:
                mm = np.geomspace(fit.m_min, fit.m_max, 20)
                ax.plot(mm, fit.predict(mm), "-", color=c, lw=2.2, alpha=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # over less than a decade the minor labels collide
        if ylims and title in ylims:
            ax.set_ylim(*ylims[title])
        ax.set_xlabel("number of widths m")
        ax.set_ylabel(r"Hausdorff error $\delta_H$")
        ax.set_title(title)
        ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False)
    fig.tight_layout()
    return fig


def witness_figure(witness: DiscWitness) -> plt.Figure:
    """Left: h of the disc and of the perturbed body, equal at the m width directions.
    Right: the perturbed body's radius of curvature, which touches 0 (convexity is tight) and 2r."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    t = np.linspace(0, np.pi, 4000)
    tj = np.pi * np.arange(witness.m) / witness.m
    ax = axes[0]
    ax.plot(t, np.full_like(t, witness.radius), color=PALETTE[0], label="disc, h = r")
    ax.plot(t, witness.radius + witness.perturbation(t), color=PALETTE[3], label=r"$h = r + \varepsilon\sin(2m\theta)$")
    ax.plot(tj, np.full_like(tj, witness.radius), "ko", ms=5, label="the m width directions")
    ax.set_xlabel(r"direction $\theta$")
    ax.set_ylabel(r"support function $h(\theta)$")
    ax.set_title(f"m = {witness.m}: same widths, δ_H = ε = {witness.epsilon:.2e}")
    ax.legend(fontsize=7)
    ax = axes[1]
    ax.plot(t, witness.radius_of_curvature(t), color=PALETTE[3])
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set_xlabel(r"direction $\theta$")
    ax.set_ylabel(r"radius of curvature $h + h''$")
    ax.set_title("convex (>= 0), curvature >= 1/(2r)")
    fig.tight_layout()
    return fig


def homogeneity_figure(check: HomogeneityCheck) -> plt.Figure:
    """Measured error of t·K divided by the paper's R/(κm²) and by 1/(κm²), against the dilation t."""
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    ax.plot(check.scales, check.paper_ratio, "o-", color=PALETTE[3], label=r"error / $(R/(\kappa m^2))$ (paper)")
    ax.plot(
        check.scales, check.corrected_ratio, "s-", color=PALETTE[0], label=r"error / $(1/(\kappa m^2))$ (corrected)"
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("dilation factor t (body t·K)")
    ax.set_ylabel("ratio")
    ax.set_title(f"{check.body}, m = {check.m}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def xray_figure(parity: XrayParity, direction: int = 0) -> plt.Figure:
    """X-rays (chord lengths) of the two width-indistinguishable bodies in one of the m directions."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    ax = axes[0]
    ax.plot(parity.offsets, parity.xray_disc[direction], color=PALETTE[0], label="disc")
    ax.plot(parity.offsets, parity.xray_perturbed[direction], color=PALETTE[3], ls="--", label="perturbed disc")
    ax.set_xlabel("offset t of the X-ray line")
    ax.set_ylabel("chord length")
    ax.set_title(f"X-ray in width direction {direction} of m = {parity.m}")
    ax.legend(fontsize=8)
    ax = axes[1]
    ax.plot(parity.offsets, parity.xray_perturbed[direction] - parity.xray_disc[direction], color=PALETTE[3])
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set_xlabel("offset t of the X-ray line")
    ax.set_ylabel("difference of chord lengths")
    ax.set_title(f"widths differ by {parity.width_gap:.0e}; X-rays by up to {parity.xray_gaps[direction]:.1e}")
    fig.tight_layout()
    return fig
