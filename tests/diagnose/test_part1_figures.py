"""blindspot.diagnose.figures: the Part I figures are drawn from result objects."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from blindspot.core import spectrum
from blindspot.diagnose import figures


def test_mp_overlay_draws_the_density_only_where_it_exists(rng):
    X = rng.normal(size=(40, 5))
    fig = figures.mp_overlay(spectrum.spectrum(X), spectrum.mp_correction(X))
    assert len(fig.axes[0].lines) == 1 + 1 + 5  # density, edge, one tick per eigenvalue
    plt.close(fig)
    W = rng.normal(size=(6, 9))  # more benchmarks than models: gamma > 1, no MP density
    mp = spectrum.mp_correction(W)
    assert mp.gamma > 1
    fig = figures.mp_overlay(spectrum.spectrum(W), mp)
    edge = fig.axes[0].lines[0]
    assert np.allclose(edge.get_xdata(), mp.lambda_plus) and len(fig.axes[0].lines) == 1 + 9
    plt.close(fig)


def test_capture_hist_marks_both_bounds(rng):
    f = rng.uniform(0.05, 0.3, size=500)
    fig = figures.capture_hist(f, 0.125, 0.6)
    xs = sorted(float(line.get_xdata()[0]) for line in fig.axes[0].lines)
    assert xs == [0.125, 0.6]
    assert sum(p.get_height() for p in fig.axes[0].patches) == 500
    plt.close(fig)


def test_not_computed_says_why():
    fig = figures.not_computed("too few benchmarks")
    assert "too few benchmarks" in fig.axes[0].texts[0].get_text()
    plt.close(fig)
