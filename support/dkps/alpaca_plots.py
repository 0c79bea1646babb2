"""Figures of the book's Part V on AlpacaEval, drawn from :mod:`dkps.winrate` and
:mod:`dkps.adversarial` results. Each function returns a matplotlib Figure (never shown or saved)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .adversarial import AdversarialPicture  # noqa: E402
from .plots import _COLORS, _MARKERS  # noqa: E402
from .winrate import METHODS, TARGETS, WinRateStudy  # noqa: E402

__all__ = ["mae_figure", "unpaired_figure", "adversarial_figure"]

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
    fig, axes = plt.subplots(len(targets), len(holdouts), figsize=(5.2 * len(holdouts), 3.6 * len(targets)),
                             squeeze=False, sharex=True)
    ms = sorted(s.m.unique())
    for r, target in enumerate(targets):
        for c, holdout in enumerate(holdouts):
            ax = axes[r, c]
            d0 = s[(s.target == target) & (s.holdout == holdout)]
            present = [m for m in METHODS if m in set(d0.method)]
            for i, name in enumerate(present):
                d = d0[d0.method == name].sort_values("m")
                jitter = 1 + 0.03 * (i - (len(present) - 1) / 2)
                ax.errorbar(d.m * jitter, d.mae, yerr=d.se.fillna(0), marker=_MARKERS[name], color=_COLORS[name],
                            capsize=3, label=name)
            _log2_axis(ax, ms)
            ax.set_title(f"{TARGETS[target]}, holdout = {holdout}", fontsize="medium")
            if c == 0:
                ax.set_ylabel("MAE (win-rate points)")
            if r == len(targets) - 1:
                ax.set_xlabel("responses per task m")
    axes[0, 0].legend(ncol=2, fontsize="small")
    fig.tight_layout()
    return fig


def unpaired_figure(paired: WinRateStudy, unpaired: WinRateStudy, holdout: str = "family",
                    eval_set: str = "all") -> plt.Figure:
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
                ax.errorbar(d.m, d.mae, yerr=d.se.fillna(0), marker=_MARKERS[name], color=_COLORS[name], ls=ls,
                            capsize=3, label=f"{name}, {tag}")
        _log2_axis(ax, ms)
        ax.set_xlabel("responses per task m")
        ax.set_ylabel("MAE (win-rate points)")
        ax.set_title(f"{TARGETS[target]}, holdout = {holdout}", fontsize="medium")
    axes[0, 0].legend(fontsize="small")
    fig.tight_layout()
    return fig


def adversarial_figure(pic: AdversarialPicture, label_kinds=("adversarial", "reference"), label_z: float = 3.0) -> plt.Figure:
    """Left: the quality view of the perspective space (population coloured by the leaderboard
    target; excluded models marked). Right: predicted-from-responses against leaderboard target.
    Excluded models of ``label_kinds``, and any with ``|gap_z| > label_z``, are named."""
    m = pic.models
    pop = m[m.kind == "population"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
    ax = axes[0]
    sc = ax.scatter(pop.view1, pop.view2, c=pop.y, cmap="viridis", s=26, edgecolor="k", linewidth=0.2,
                    label="population")
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
