"""Figures of the survey of public leaderboards, drawn from the survey's table.

Each function takes the frame of :attr:`blindspot.report.survey.Survey.table` (one row per
leaderboard; a missing value, "—" in the survey, is NaN or None here and the leaderboard is left out
of the figure), returns a matplotlib Figure and never shows or saves it; call
:func:`blindspot.core.theme.use_theme` first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core.theme import PALETTE

__all__ = ["deff_against_k", "leader_resolution", "deff_change", "SURVEY_BAND"]

matplotlib.use("Agg")  # headless: the book renders figures from notebook outputs

#: The paper's band "d_eff ≈ 3-5".
SURVEY_BAND = (3.0, 5.0)


def _numeric(frame: pd.DataFrame, cols: Sequence[str]) -> pd.DataFrame:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise ValueError(f"the survey frame lacks the column(s) {missing}; pass Survey.table")
    return frame[list(cols)].apply(pd.to_numeric, errors="coerce")


def _spread(x: np.ndarray, rel: float = 0.035) -> np.ndarray:
    """Multiplicative offsets that spread the points sharing one x (log axis), centred on it."""
    out = np.ones_like(x, dtype=float)
    for v in np.unique(x):
        idx = np.flatnonzero(x == v)
        out[idx] = np.exp(rel * (np.arange(idx.size) - (idx.size - 1) / 2))
    return out


def deff_against_k(
    frame: pd.DataFrame,
    labels: Mapping[str, str] | None = None,
    band: tuple[float, float] = SURVEY_BAND,
) -> plt.Figure:
    """d_eff of each leaderboard's frontier (95% interval) against its number of benchmarks k.

    Filled circles are the frontier, hollow ones all models (the same leaderboard on one vertical);
    the lines d_eff = k (every benchmark its own direction) and d_eff = 1 (one direction), and the
    paper's band of 3 to 5 directions, shaded. Both axes are logarithmic. ``labels`` maps a
    leaderboard (the frame's index) to the short text written beside its point (default: the index).
    """
    cols = ["k_analysed", "d_eff_frontier", "d_eff_frontier_lo", "d_eff_frontier_hi", "d_eff_all"]
    v = _numeric(frame, cols)
    v = v[v["k_analysed"].notna() & (v["d_eff_frontier"].notna() | v["d_eff_all"].notna())]
    fig, ax = plt.subplots(figsize=(7.2, 4.8))
    if v.empty:
        ax.text(0.5, 0.5, "no leaderboard has a d_eff", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    k = v["k_analysed"].to_numpy(dtype=float)
    x = k * _spread(k)
    kmax = float(k.max()) * 1.6
    grid = np.geomspace(1.5, kmax, 50)
    ax.axhspan(*band, color=PALETTE[2], alpha=0.13, lw=0, label=f"the paper's {band[0]:g}–{band[1]:g}")
    ax.plot(grid, grid, color="0.35", ls="--", lw=1, label=r"$d_{\mathrm{eff}} = k$")
    ax.axhline(1.0, color="0.35", ls=":", lw=1, label=r"$d_{\mathrm{eff}} = 1$")
    allm = v["d_eff_all"].to_numpy(dtype=float)
    ax.scatter(x, allm, s=28, facecolors="none", edgecolors=PALETTE[7], label="all models", zorder=3)
    f = v["d_eff_frontier"].to_numpy(dtype=float)
    lo = v["d_eff_frontier_lo"].to_numpy(dtype=float)
    hi = v["d_eff_frontier_hi"].to_numpy(dtype=float)
    ok = np.isfinite(f)
    ax.errorbar(
        x[ok],
        f[ok],
        yerr=np.vstack([f[ok] - lo[ok], hi[ok] - f[ok]]),
        fmt="o",
        ms=5,
        color=PALETTE[0],
        ecolor=PALETTE[0],
        elinewidth=1,
        capsize=2,
        label="frontier (95% interval)",
        zorder=4,
    )
    names = labels or {}
    for j, (name, xi, yi, ai) in enumerate(zip(v.index, x, f, allm)):
        y = yi if np.isfinite(yi) else ai
        ax.annotate(
            str(names.get(name, name)),
            (xi, y),
            xytext=(5, 6 if j % 2 == 0 else -10),
            textcoords="offset points",
            fontsize=7,
            color="0.25",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1.6, kmax)
    ax.set_ylim(0.8, max(float(np.nanmax(np.r_[hi, allm])) * 1.4, band[1] * 1.5))
    ticks = [t for t in (2, 3, 5, 10, 20, 50, 100) if t <= kmax]
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(matplotlib.ticker.FixedLocator([1, *ticks]))
        axis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("benchmarks k")
    ax.set_ylabel(r"$d_{\mathrm{eff}}$")
    ax.legend(fontsize="x-small", loc="upper left")
    fig.tight_layout()
    return fig


def leader_resolution(
    frame: pd.DataFrame, threshold: float = 0.9, labels: Mapping[str, str] | None = None
) -> plt.Figure:
    """Whether each leaderboard's #1 is resolved: how often the halves of its benchmarks agree on #1
    (x) against how often #1 stays first when the models are resampled (y).

    The shaded corner, both at least ``threshold``, is where the report calls #1 resolved; a
    leaderboard whose benchmarks could not be split is drawn at x = 1.02 with a square marker (it is
    decided on the resampling alone).
    """
    v = _numeric(frame, ["top1_halves_agree", "top1_kept_share"])
    v = v[v["top1_kept_share"].notna()]
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    ax.fill_between([threshold, 1.04], threshold, 1.04, color=PALETTE[2], alpha=0.15, lw=0, label="#1 resolved")
    ax.axvline(threshold, color="0.5", lw=0.8, ls="--")
    ax.axhline(threshold, color="0.5", lw=0.8, ls="--")
    split = v["top1_halves_agree"].notna()
    xs = v["top1_halves_agree"].where(split, 1.02).to_numpy(dtype=float)
    ys = v["top1_kept_share"].to_numpy(dtype=float)
    ax.scatter(xs[split.to_numpy()], ys[split.to_numpy()], s=30, color=PALETTE[0], zorder=3)
    if (~split).any():
        ax.scatter(
            xs[~split.to_numpy()],
            ys[~split.to_numpy()],
            s=30,
            marker="s",
            color=PALETTE[3],
            zorder=3,
            label="benchmarks not split",
        )
    names = labels or {}
    for j, (name, xi, yi) in enumerate(zip(v.index, xs, ys)):
        ax.annotate(
            str(names.get(name, name)),
            (xi, yi),
            xytext=(-4, 6 if j % 2 == 0 else -10),
            textcoords="offset points",
            fontsize=7,
            color="0.25",
            ha="right",
        )
    ax.set_xlim(-0.04, 1.06)
    ax.set_ylim(-0.04, 1.06)
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_xlabel("splits of the benchmarks whose halves agree on #1")
    ax.set_ylabel("resamples of the models that keep #1 first")
    ax.legend(fontsize="x-small", loc="lower left")
    fig.tight_layout()
    return fig


def deff_change(frame: pd.DataFrame, labels: Mapping[str, str] | None = None) -> plt.Figure:
    """d_eff with its 95% interval on all models and on the frontier, one row of the frame after the
    other (e.g. a leaderboard's first and second edition on the same models), joined by a line."""
    cols = [
        "d_eff_all",
        "d_eff_all_lo",
        "d_eff_all_hi",
        "d_eff_frontier",
        "d_eff_frontier_lo",
        "d_eff_frontier_hi",
    ]
    v = _numeric(frame, cols)
    names = labels or {}
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    x = np.arange(len(v))
    for i, (which, label) in enumerate((("all", "all models"), ("frontier", "frontier"))):
        y = v[f"d_eff_{which}"].to_numpy(dtype=float)
        lo, hi = v[f"d_eff_{which}_lo"].to_numpy(dtype=float), v[f"d_eff_{which}_hi"].to_numpy(dtype=float)
        off = (i - 0.5) * 0.08
        ax.errorbar(
            x + off,
            y,
            yerr=np.vstack([y - lo, hi - y]),
            fmt="o-",
            color=PALETTE[i],
            capsize=3,
            label=label,
        )
    ax.set_xticks(x, [str(names.get(n, n)) for n in v.index], fontsize="small")
    ax.set_xlim(-0.4, len(v) - 0.6)
    ax.set_ylabel(r"$d_{\mathrm{eff}}$ (95% interval)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
