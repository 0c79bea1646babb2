"""blindspot.prognose.statistical_radius: geometric vs column-bootstrap radius (App. H.12)."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.conventions import frontier, zscore
from blindspot.data.suites import load_suite
from blindspot.prognose import statistical_radius as sr


def test_batched_sd_equals_a_plain_loop(rng):
    S = rng.normal(size=(40, 7)) @ rng.normal(size=(7, 7))
    sd = sr.column_bootstrap_sd(S, n_boot=50, seed=3)
    g = np.random.default_rng(3)
    Z = zscore(S)
    aggs = np.array([Z[:, g.choice(7, size=7, replace=True)].mean(axis=1) for _ in range(50)])
    assert sd == pytest.approx(aggs.std(axis=0), abs=1e-12)


def test_invariant_to_positive_affine_columns(rng):
    S = rng.normal(size=(60, 6)) @ rng.normal(size=(6, 6))
    a = sr.noise_ratio(S, n_boot=100)
    b = sr.noise_ratio(3.0 * S + 7.0, n_boot=100)
    assert b.ratio == pytest.approx(a.ratio, rel=1e-10)
    assert sr.noise_ratio(S, n_boot=100).ratio == a.ratio  # same seed, same value


def test_geometric_radius_is_pi_R_over_k(rng):
    S = rng.normal(size=(30, 5))
    r = sr.noise_ratio(S, n_boot=20)
    assert r.geom == pytest.approx(np.pi * np.linalg.norm(zscore(S), axis=1).max() / 5)
    d = sr.noise_ratio(S, n_boot=20, numerator="delta_vis", delta_vis=4.0)
    assert d.ratio == pytest.approx(4.0 / r.stat)


def test_identical_columns_raise(rng):
    x = rng.normal(size=(30, 1))
    with pytest.raises(ValueError, match="infinite"):
        sr.noise_ratio(np.hstack([x, 2 * x + 1, 5 * x]), n_boot=20)


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(numerator="x"), "numerator must be"),
        (dict(numerator="delta_vis"), "needs delta_vis"),
        (dict(n_boot=1), "n_boot"),
    ],
)
def test_bad_options(rng, kw, match):
    with pytest.raises(ValueError, match=match):
        sr.noise_ratio(rng.normal(size=(20, 4)), **kw)


def test_h12_reproduces(data_dir):
    f = frontier(load_suite("extended", data_dir=data_dir, fallback=False))
    r = sr.noise_ratio(f)
    assert (round(r.geom, 2), round(r.stat, 3), round(r.ratio, 2)) == (1.91, 0.214, 8.95)
