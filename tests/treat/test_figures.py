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
