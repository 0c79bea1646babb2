"""Figures of the survey of public leaderboards, drawn from the survey's table.

Each function takes the frame of :attr:`blindspot.report.survey.table.Survey.table` (one row per
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


def _separate(y: np.ndarray, gap: float) -> np.ndarray:
    """Positions as close to ``y`` as possible, in the same order, at least ``gap`` apart (pool-adjacent
    averaging of the offsets: the least-squares solution of the ordered, spaced problem)."""
    order = np.argsort(y, kind="stable")
    base = gap * np.arange(y.size)
    blocks: list[list[float]] = []  # [sum of (y - base), count]
    for v in y[order] - base:
        blocks.append([v, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s_, c = blocks.pop()
            blocks[-1][0] += s_
            blocks[-1][1] += c
    fitted = np.concatenate([np.full(c, s_ / c) for s_, c in blocks]) + base
    out = np.empty_like(fitted)
    out[order] = fitted
    return out


def _label_points(ax: plt.Axes, x: np.ndarray, y: np.ndarray, texts: Sequence[str]) -> None:
    """Write each text right of its point on a log-log axes, joined to it by a thin line.

    Points close in x form a group whose labels stand in one column right of the group, spread apart
    vertically (:func:`_separate`); a group whose labels would run into the next group's points or labels
    (both horizontally and vertically) is merged with it.
    """
    lx, ly = np.log10(x), np.log10(y)
    (x0, x1), (y0, y1) = np.log10(ax.get_xlim()), np.log10(ax.get_ylim())
    pos_ax = ax.get_position()
    height_in = pos_ax.height * ax.figure.get_figheight()
    width_in = pos_ax.width * ax.figure.get_figwidth()
    gap = (y1 - y0) * (8.5 / 72) / height_in  # one line of 7-point text, in log10 units
    char = (x1 - x0) * (4.2 / 72) / width_in  # one character of it
    order = np.argsort(lx, kind="stable")
    groups: list[list[int]] = [[int(order[0])]]
    for a, b in zip(order[:-1], order[1:]):
        if lx[b] - lx[a] > 0.05:
            groups.append([])
        groups[-1].append(int(b))

    def place(idx: list[int]) -> tuple[np.ndarray, float]:
        return _separate(ly[idx], gap), float(lx[idx].max() + np.log10(1.1))

    merged = True
    while merged:
        merged = False
        for g in range(len(groups) - 1):
            pos, col = place(groups[g])
            ends = col + char * np.array([len(texts[i]) for i in groups[g]])
            nxt = groups[g + 1]
            npos, _ = place(nxt)
            others = np.r_[ly[nxt], npos]
            if ends.max() > lx[nxt].min() and (np.abs(pos[:, None] - others[None, :]) < gap).any():
                groups[g] = groups[g] + groups.pop(g + 1)
                merged = True
                break
    for idx in groups:
        pos, col = place(idx)
        for i, pi in zip(idx, pos):
            ax.annotate(
                texts[i],
                (x[i], y[i]),
                xytext=(10**col, 10**pi),
                textcoords="data",
                fontsize=7,
                color="0.25",
                va="center",
                arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.5, "shrinkA": 0, "shrinkB": 2},
            )


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
    anchor = np.where(np.isfinite(f), f, allm)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1.6, kmax)
    ax.set_ylim(0.8, max(float(np.nanmax(np.r_[hi, allm])) * 1.4, band[1] * 1.5))
    _label_points(ax, x, anchor, [str(names.get(n, n)) for n in v.index])
    ticks = [t for t in (2, 3, 5, 10, 20, 50, 100) if t <= kmax]
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(matplotlib.ticker.FixedLocator([1, *ticks]))
        axis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("benchmarks k")
    ax.set_ylabel(r"$d_{\mathrm{eff}}$")
    ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    fig.tight_layout()
    return fig


def leader_resolution(
    frame: pd.DataFrame, threshold: float = 0.9, labels: Mapping[str, str] | None = None
) -> plt.Figure:
    """Whether each leaderboard's #1 is resolved: one row per leaderboard, with how often the halves of its
    benchmarks agree on #1 (circle) and how often #1 stays first when the models are resampled (square).

    The dashed line is ``threshold``; #1 is resolved when both markers are at or right of it (the report's
    rule), and the row's name is then in bold. A leaderboard whose benchmarks could not be split has its
    square only. Leaderboards where neither was measured are left out.
    """
    v = _numeric(frame, ["top1_halves_agree", "top1_kept_share"])
    v = v[v["top1_kept_share"].notna()]
    names = labels or {}
    fig, ax = plt.subplots(figsize=(6.4, 1.6 + 0.28 * max(len(v), 1)))
    if v.empty:
        ax.text(0.5, 0.5, "no leaderboard has a measured #1", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    y = np.arange(len(v))[::-1]
    halves = v["top1_halves_agree"].to_numpy(dtype=float)
    kept = v["top1_kept_share"].to_numpy(dtype=float)
    ax.axvspan(threshold, 1.03, color=PALETTE[2], alpha=0.13, lw=0)
    ax.axvline(threshold, color="0.4", lw=0.8, ls="--")
    for yi, h, kk in zip(y, halves, kept):
        if np.isfinite(h):
            ax.plot([min(h, kk), max(h, kk)], [yi, yi], color="0.8", lw=1, zorder=1)
    ax.scatter(halves, y, s=26, color=PALETTE[0], label="halves of the benchmarks agree on #1", zorder=3)
    ax.scatter(kept, y, s=26, marker="s", color=PALETTE[1], label="resamples of the models keep #1 first", zorder=3)
    resolved = (kept >= threshold) & (~np.isfinite(halves) | (halves >= threshold))
    ax.set_yticks(y, [str(names.get(n, n)) for n in v.index], fontsize="small")
    for tick, r in zip(ax.get_yticklabels(), resolved):
        tick.set_fontweight("bold" if r else "normal")
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.7, len(v) - 0.3)
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.set_xlabel("share of splits / resamples")
    ax.grid(axis="y", visible=False)
    ax.legend(fontsize="x-small", loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
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
