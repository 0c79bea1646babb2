"""blindspot.treat.figures: the Part III figures are drawn from result objects."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from blindspot.core import coverage as cv
from blindspot.data import synthetic
from blindspot.treat import figures, guarantees


def test_figures_draw_their_data(rng):
    S = synthetic.random_correlations(1, 5, rng)[0]
    g = cv.greedy_select(S)
    fig = figures.coverage_curves({"greedy": g.coverages, "opt": cv.brute_force_optimum(S).values[1:]}, target=0.9)
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), g.coverages)
    plt.close(fig)
    # gain_pairs: the orange points are exactly the violations counted by submodularity_violations
    C = guarantees.COUNTEREXAMPLE_3X3
    f = cv.all_subset_coverages(C)
    fig = figures.gain_pairs(f, 3)
    n_bad = len(fig.axes[0].collections[1].get_offsets())
    assert n_bad == guarantees.submodularity_violations(C, f=f).n_violations
    plt.close(fig)
    m = pd.DataFrame(np.full((2, 2), 0.9), index=["train a", "train b"], columns=["eval a", "eval b"])
    fig = figures.retention_heatmaps({"x": m, "y": m})
    assert sum(len(ax.texts) for ax in fig.axes) == 8
    plt.close(fig)
    fig = figures.core_bars(pd.Series([1.0, 0.5, 0.2], index=list("abc")), 0.9, {"a": 0.99})
    assert len(fig.axes[0].patches) == 3
    plt.close(fig)
    fig = figures.closure_plot(np.arange(1, 4), np.array([0.3, 0.6, 1.0]), np.array([0.4, 0.7, 0.9]), None)
    assert len(fig.axes[0].lines) == 2
    plt.close(fig)


def test_not_drawn_says_why():
    fig = figures.not_drawn("k = 20 benchmarks exceeds 16")
    assert "k = 20 benchmarks exceeds 16" in fig.axes[0].texts[0].get_text()
    plt.close(fig)
    with pytest.raises(ValueError, match="reason"):
        figures.not_drawn(" ")


def _overlaps(boxes) -> int:
    """How many pairs of neighbouring boxes (sorted by height on the page) overlap vertically."""
    boxes = sorted(boxes, key=lambda b: b.y0)
    return sum(1 for a, b in zip(boxes, boxes[1:]) if b.y0 < a.y1 - 0.5)


def test_the_stable_core_reads_with_30_benchmarks():
    """30 benchmarks, some with long names: one horizontal bar per benchmark, most frequent on top, every name
    written horizontally and whole (no two overlap), the frequency axis from 0 to 1."""
    rng = np.random.default_rng(3)
    names = [f"bench_{i:02d}" for i in range(26)] + [
        "industry_business_and_management_and_financial_operations",
        "industry_software_and_it_services",
        "instruction_following",
        "creative_writing",
    ]
    freq = pd.Series(rng.uniform(0, 1, 30), index=names)
    fig = figures.core_bars(freq, 0.9, {"creative_writing": 0.5})
    ax = fig.axes[0]
    bars = ax.patches
    assert len(bars) == 30
    assert all(abs(b.get_height() - bars[0].get_height()) < 1e-12 for b in bars)  # horizontal: equal heights
    np.testing.assert_allclose([b.get_width() for b in bars], np.sort(freq.to_numpy())[::-1])
    assert bars[0].get_y() < bars[-1].get_y() and ax.yaxis_inverted()  # the most frequent on top
    labels = ax.get_yticklabels()
    assert [t.get_text().replace("\n", "") for t in labels] == list(freq.sort_values(ascending=False).index)
    assert all(t.get_rotation() == 0 for t in labels)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert _overlaps([t.get_window_extent(renderer) for t in labels]) == 0
    lo, hi = ax.get_xlim()
    assert lo == 0 and 1 <= hi <= 1.1
    plt.close(fig)


def test_counts_of_benchmarks_have_whole_ticks():
    """The coverage curve's x axis counts benchmarks: its ticks are whole numbers, also for a short curve."""
    fig = figures.coverage_curves({"greedy": [0.5, 0.8, 0.95]}, target=0.9)
    fig.canvas.draw()
    ticks = [t for t in fig.axes[0].get_xticks() if fig.axes[0].get_xlim()[0] <= t <= fig.axes[0].get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    plt.close(fig)
