"""blindspot.treat.subset_objectives: alternative subset rules and rank preservation (App. H.4, H.5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core import coverage as cv
from blindspot.data import synthetic
from blindspot.treat import subset_objectives as so


def _scores(rng, n=60, k=7):
    L = rng.normal(size=(k, 3))
    return rng.normal(size=(n, 3)) @ L.T + 0.7 * rng.normal(size=(n, k))


def test_every_method_returns_a_permutation(rng):
    S = synthetic.random_correlations(1, 9, rng)[0]
    for name, order in so.subset_method_orders(S).items():
        assert sorted(order.tolist()) == list(range(9)), name


def test_identity_every_method_covers_r_over_k():
    k = 6
    for order in so.subset_method_orders(np.eye(k)).values():
        for r in range(1, k + 1):
            assert cv.coverage(np.eye(k), order[:r]) == pytest.approx(r / k)


def test_max_diversity_and_max_uncorrelated_coincide(rng):
    # argmax_r min_s (1 - |x_rs|) == argmin_r max_s |x_rs|: the two rules are one rule
    for _ in range(20):
        S = synthetic.random_correlations(1, 8, rng)[0]
        assert so.max_diversity_order(S).tolist() == so.max_uncorrelated_order(S).tolist()


def test_facility_location_is_greedy_on_F(rng):
    S = synthetic.random_correlations(1, 7, rng)[0]
    F = lambda T: np.abs(S[:, T]).max(axis=1).sum()  # noqa: E731
    order = so.facility_location_order(S)
    for r in range(7):
        T = order[:r].tolist()
        vals = {j: F(T + [j]) for j in range(7) if j not in T}
        assert vals[order[r]] == pytest.approx(max(vals.values()))


def test_pca_greedy_takes_one_per_block_first():
    # two blocks: {0,1,2} strongly correlated, {3,4} strongly correlated, no cross-correlation
    S = np.eye(5)
    S[np.ix_([0, 1, 2], [0, 1, 2])] = 0.8
    S[np.ix_([3, 4], [3, 4])] = 0.6
    np.fill_diagonal(S, 1.0)
    order = so.pca_greedy_order(S)
    assert int(order[0]) in (0, 1, 2) and int(order[1]) in (3, 4)


def test_tau_of_full_set_is_one_and_affine_invariant(rng):
    X = _scores(rng)
    assert so.subset_tau(X, range(7)) == pytest.approx(1.0)
    Y = X * np.array([2, 3, 0.5, 1, 7, 1, 1]) + 10  # positive affine maps per column
    assert so.subset_tau(Y, [0, 3]) == pytest.approx(so.subset_tau(X, [0, 3]))
    with pytest.raises(ValueError, match="empty"):
        so.subset_tau(X, [])
    with pytest.raises(ValueError, match="indices must be in"):
        so.subset_tau(X, [7])


def test_compare_objectives_table(rng):
    X = _scores(rng)
    cmp = so.compare_objectives(pd.DataFrame(X, columns=list("abcdefg")), n_random=20, seed=0)
    tau = cmp.wide("tau")
    assert np.allclose(tau.loc[7], 1.0)  # every method at r = k uses every benchmark
    cov = cmp.wide("coverage")
    assert np.allclose(cov.loc[7], 1.0)
    assert (cov["spectral_greedy"] <= cv.brute_force_optimum(np.corrcoef(X, rowvar=False)).values[1:] + 1e-12).all()
    rnd = cmp.table[cmp.table.method == "random"]
    assert (rnd.tau_sd >= 0).all() and rnd.tau_sd.iloc[-1] == pytest.approx(0.0)
    b = cmp.beaten("coverage")
    assert (b["coverage"] > b["coverage_spectral_greedy"]).all()
    with pytest.raises(ValueError, match="metric"):
        cmp.wide("speed")


def test_vectorised_kendall_matches_scipy_with_ties(rng):
    from scipy import stats

    x = rng.integers(0, 6, 40).astype(float)
    Y = rng.integers(0, 4, (40, 9)).astype(float)
    Y[:, 0] = x  # identical ranking
    ref = [stats.kendalltau(x, Y[:, i]).statistic for i in range(9)]
    np.testing.assert_allclose(so.kendall_tau_b_many(x, Y, batch=4), ref, atol=1e-12)
    with pytest.raises(ValueError, match="constant ranking"):
        so.kendall_tau_b_many(x, np.ones((40, 1)))
    with pytest.raises(ValueError, match="must match"):
        so.kendall_tau_b_many(x, Y[:10])


def test_random_subsets_reproducible_and_distinct(rng):
    a = so.random_subsets(9, 4, 30, np.random.default_rng(1))
    b = so.random_subsets(9, 4, 30, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert all(len(set(row)) == 4 for row in a)
    with pytest.raises(ValueError, match="1 <= r <= k"):
        so.random_subsets(3, 4, 2, rng)


def test_coverage_vs_tau_shapes(rng):
    res = so.coverage_vs_tau(_scores(rng), r=3, n=25, seed=0)
    assert res.coverages.shape == res.taus.shape == (25,)
    assert -1 <= res.rho <= 1 and 0 <= res.p <= 1
