"""blindspot.treat.stable_core: bootstrap frequencies of the greedy top r (App. H.19)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core import coverage as cv
from blindspot.treat import stable_core as sc


def _scores(rng, n, k=8, f=3, noise=0.6):
    L = rng.normal(size=(k, f))
    return rng.normal(size=(n, f)) @ L.T + noise * rng.normal(size=(n, k))


def test_frequencies_sum_to_r_and_core_is_threshold(rng):
    X = _scores(rng, 60)
    res = sc.stable_core(X, r=4, n_boot=50, seed=1)
    assert res.frequencies.sum() == pytest.approx(4.0)
    assert ((res.frequencies >= 0) & (res.frequencies <= 1)).all()
    assert set(res.core) == set(res.frequencies.index[res.frequencies >= 0.9])
    assert res.top.shape == (50, 4)
    assert all(len(set(row)) == 4 for row in res.top)  # no benchmark twice in one top r
    assert res.top_m_frequencies(4).sum() == pytest.approx(4.0)


def test_huge_sample_is_deterministic(rng):
    # n = 40,000 rows: every resample has essentially the population Sigma, so the top r never changes
    k = 6
    L = np.array([[1.0, 0, 0], [0.5, 0, 0], [0, 0.8, 0], [0, 0.3, 0], [0, 0, 0.6], [0.2, 0.2, 0.2]])
    noise = np.array([0.2, 0.9, 0.3, 0.9, 0.4, 0.9])
    X = rng.normal(size=(40000, 3)) @ L.T + noise * rng.normal(size=(40000, k))
    res = sc.stable_core(X, r=3, n_boot=20, seed=0)
    assert set(np.unique(res.frequencies.to_numpy())) <= {0.0, 1.0}
    assert set(res.core) == set(res.point_order[:3])
    assert res.top_m_stability(3) == (1.0, 1.0)


def test_column_permutation_invariance(rng):
    X = _scores(rng, 80, k=7)
    names = [f"b{j}" for j in range(7)]
    a = sc.stable_core(pd.DataFrame(X, columns=names), r=3, n_boot=40, seed=3)
    perm = rng.permutation(7)
    b = sc.stable_core(pd.DataFrame(X[:, perm], columns=[names[j] for j in perm]), r=3, n_boot=40, seed=3)
    pd.testing.assert_series_equal(a.frequencies.sort_index(), b.frequencies.sort_index())


def test_batching_does_not_change_the_answer(rng):
    X = _scores(rng, 50)
    a = sc.stable_core(X, r=3, n_boot=30, seed=5, batch=7)
    b = sc.stable_core(X, r=3, n_boot=30, seed=5, batch=250)
    np.testing.assert_array_equal(a.top, b.top)


def test_resample_correlations_match_corrcoef(rng):
    X = _scores(rng, 30)
    idx = np.random.default_rng(0).integers(0, 30, (4, 30))
    C, n_deg = sc.resample_correlations(X, idx)
    assert n_deg == 0
    for b in range(4):
        np.testing.assert_allclose(C[b], np.corrcoef(X[idx[b]], rowvar=False), atol=1e-12)


def test_each_resample_is_the_greedy_of_its_own_correlation(rng):
    X = _scores(rng, 40)
    res = sc.stable_core(X, r=3, n_boot=10, seed=2)
    rs = np.random.default_rng(2)
    for b in range(10):
        idx = rs.choice(40, 40, replace=True)
        assert res.top[b].tolist() == cv.greedy_select(np.corrcoef(X[idx], rowvar=False), r=3).order.tolist()


def test_constant_column_in_a_resample_is_counted():
    X = np.column_stack([np.r_[np.ones(9), 2.0], np.arange(10.0), np.sin(np.arange(10.0))])
    idx = np.array([np.arange(9), np.arange(1, 10)])  # resample 0 misses the only non-1 value of column 0
    C, n_deg = sc.resample_correlations(X, idx)
    assert n_deg == 1 and C[0, 0, 1] == 0.0 and C[0, 0, 0] == 1.0


@pytest.mark.parametrize(
    "kw,msg",
    [
        ({"r": 0}, "r must be"),
        ({"r": 9}, "r must be"),
        ({"n_boot": 1}, "n_boot must be"),
        ({"threshold": 0.0}, "threshold"),
        ({"threshold": 1.5}, "threshold"),
    ],
)
def test_bad_parameters(rng, kw, msg):
    with pytest.raises(ValueError, match=msg):
        sc.stable_core(_scores(rng, 20), **kw)
