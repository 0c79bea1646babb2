"""blindspot.treat.spectral_weighting: f_g for the Proposition 4 experiment."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core import coverage as cv
from blindspot.data import synthetic
from blindspot.treat import spectral_weighting


def test_identity_g_is_the_coverage(rng):
    S = synthetic.random_correlations(1, 7, rng)[0]
    for T in ([0], [1, 5], [0, 2, 3, 6]):
        assert spectral_weighting.f_g(S, T, spectral_weighting.G_FAMILY["g=x"]) == pytest.approx(cv.coverage(S, T))
    assert (
        spectral_weighting.greedy_g(S, spectral_weighting.G_FAMILY["g=x"]).tolist()
        == cv.greedy_select(S).order.tolist()
    )


def test_constant_g_counts_benchmarks(rng):
    S = synthetic.random_correlations(1, 6, rng)[0]
    for T in ([0], [1, 4], [0, 2, 3]):
        assert spectral_weighting.f_g(S, T, spectral_weighting.G_FAMILY["g=1"]) == pytest.approx(len(T) / 6)


def test_f_g_bounded_and_monotone(rng):
    S = synthetic.random_correlations(1, 6, rng)[0]
    for g in spectral_weighting.G_FAMILY.values():
        perm = rng.permutation(6)
        vals = [spectral_weighting.f_g(S, perm[:r], g) for r in range(7)]
        assert vals[0] == 0.0 and vals[-1] == pytest.approx(1.0)
        assert np.all(np.diff(vals) >= -1e-12) and min(vals) >= 0


def test_family_comparison_table(rng):
    X = rng.normal(size=(40, 5)) @ rng.normal(size=(5, 5))
    tab = spectral_weighting.family_comparison(X)
    assert set(tab.g) == set(spectral_weighting.G_FAMILY) and len(tab) == 4 * 5
    assert np.allclose(tab[tab.r == 5].coverage, 1.0) and np.allclose(tab[tab.r == 5].tau, 1.0)
    with pytest.raises(ValueError, match="zero trace"):
        spectral_weighting.f_g(np.eye(3), [0], lambda x: 0 * x)
