"""Figures of the routing chapter (Part V), drawn from a :class:`~dkps.routing.mimicry_study.MimicryStudy`.

Every function returns a matplotlib Figure and never shows or saves it; call
:func:`blindspot.core.theme.use_theme` first.
"""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from dkps.routing.mimicry_study import MimicryStudy

__all__ = ["bandwidth_curve", "unpairing_figure"]

matplotlib.use("Agg")


def bandwidth_curve(study: MimicryStudy) -> plt.Figure:
    """Mimicry error against the bandwidth (multiples of the median anchor distance), with the
    random and oracle brackets, static (the sigma -> infinity limit), task and the CV choices."""
    t = study.table.set_index("method")
    cur = study.curve()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained", gridspec_kw=dict(width_ratios=[1.6, 1]))
    ax = axes[0]
    ax.errorbar(cur.fraction, cur.error, yerr=cur.se, marker="o", color="C0", capsize=3, label="qa (query-aware)")
    for name, style, color in (("static", "-", "C3"), ("task", "--", "C2"), ("profile", ":", "C4")):
        if name in t.index:
            ax.axhline(t.loc[name, "error"], ls=style, color=color, lw=1.4, label=name)
    cv_f = np.array([r.sigma_cv_global / r.med for r in study.results])
    ax.errorbar(
        [float(np.exp(np.mean(np.log(cv_f))))],
        [t.loc["cv-global", "error"]],
        yerr=[t.loc["cv-global", "se"]],
        marker="*",
        ms=12,
        color="C1",
        ls="none",
        label="cv-global (geometric-mean sigma)",
    )
    ax.set_xscale("log", base=2)
    ax.set_xlabel(r"bandwidth $\sigma$ / median anchor distance")
    ax.set_ylabel("mimicry error (mean over decisions)")
    ax.set_title("inside the brackets")
    ax.legend(fontsize=8, loc="best")
    ax2 = axes[1]
    names = ["oracle", "qa-0.25x", "task", "static", "profile", "random"]
    names = [n for n in names if n in t.index]
    vals = [t.loc[n, "error"] for n in names]
    ses = [t.loc[n, "se"] for n in names]
    colors = ["0.4", "C0", "C2", "C3", "C4", "0.7"][: len(names)]
    ax2.barh(names, vals, xerr=ses, color=colors)
    lo = min(vals)
    ax2.set_xlim(lo - 0.15 * (max(vals) - lo), max(vals) + 0.05 * (max(vals) - lo))
    ax2.invert_yaxis()
    ax2.set_xlabel("mimicry error")
    ax2.set_title("random and oracle bracket every router")
    return fig


def unpairing_figure(study: MimicryStudy) -> plt.Figure:
    """Share of the paired router's gain over random that each unpaired router keeps, per regime."""
    u = study.unpairing
    methods = ["qa-fact", "task-fact", "static-fact", "rf"]
    regimes = list(dict.fromkeys(u.regime))
    fig, ax = plt.subplots(figsize=(7.5, 3.8), layout="constrained")
    w = 0.8 / len(methods)
    for k, m in enumerate(methods):
        vals = [float(u[(u.regime == g) & (u.method == m)].gain_ratio.iloc[0]) for g in regimes]
        ax.bar(np.arange(len(regimes)) + (k - 1.5) * w, vals, width=w, label=m, color=f"C{k}")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_xticks(np.arange(len(regimes)), [f"{g}\n({u[u.regime == g].overlap.iloc[0]:.0f} shared)" for g in regimes])
    ax.set_ylabel("gain over random / paired qa's gain")
    ax.legend(fontsize=8, ncols=2)
    return fig
