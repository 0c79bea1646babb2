"""blindspot.core.halfsplit: the half-split swap experiment and the chi-squared calibration (App. H.21, G.2)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from blindspot.core import halfsplit as hs
from blindspot.core.conventions import frontier, zscore
from blindspot.core.spectrum import d_eff
from blindspot.core.swap import p_swap_rescaled
from blindspot.data.suites import load_suite


def _naive(S, perms, r):
    """Per-trial loop (the paper's algorithm, written plainly) for comparison."""
    Z = zscore(S)
    s1, c5 = [], []
    for p in perms:
        av, ah = Z[:, p[:r]].mean(1), Z[:, p[r:]].mean(1)
        ov, oh = np.argsort(-av, kind="stable"), np.argsort(-ah, kind="stable")
        s1.append(ov[0] != oh[0])
        c5.append(5 - len(set(ov[:5]) & set(oh[:5])))
    return np.array(s1), np.array(c5)


def test_batched_equals_naive_loop(rng):
    S = rng.normal(size=(40, 10)) + rng.normal(size=(40, 1))
    res = hs.half_split(S, n_trials=60, seed=5)
    g = np.random.default_rng(5)
    perms = [g.permutation(10) for _ in range(60)]
    s1, c5 = _naive(S, perms, 5)
    assert np.array_equal(res.top1_swap, s1.astype(int))
    assert np.array_equal(res.top5_changes, c5)
    assert res.sd_top5_changes == pytest.approx(c5.std())


def test_identical_columns_never_swap(rng):
    x = rng.normal(size=(30, 1))
    res = hs.half_split(np.hstack([x * a + b for a, b in zip(range(1, 9), range(8))]), n_trials=50)
    assert res.top1_swap_rate == 0.0 and res.mean_top5_changes == 0.0


def test_pure_noise_swaps_with_probability_1_minus_1_over_n():
    n, reps = 8, 600
    g = np.random.default_rng(0)
    rates = [hs.half_split(g.normal(size=(n, 12)), n_trials=1, seed=i).top1_swap_rate for i in range(reps)]
    p = 1 - 1 / n
    assert np.mean(rates) == pytest.approx(p, abs=3 * np.sqrt(p * (1 - p) / reps))


def test_exhaustive_counts_and_column_order_invariance(rng):
    S = rng.normal(size=(25, 8)) + 2 * rng.normal(size=(25, 1))
    ex = hs.half_split_exhaustive(S)
    assert ex.n_trials == comb(8, 4) and ex.exhaustive
    perm = rng.permutation(8)
    ex2 = hs.half_split_exhaustive(S[:, perm])
    assert ex2.top1_swap_rate == ex.top1_swap_rate and ex2.mean_top5_changes == ex.mean_top5_changes


def test_chi2_calibration_matches_a_direct_computation(rng):
    S = rng.normal(size=(50, 8)) + rng.normal(size=(50, 1))
    tab = hs.chi2_calibration(S, r_list=[3, 4], n_trials=40, seed=2)
    g = np.random.default_rng(2)
    Z = zscore(S)
    for r in (3, 4):
        emp, pred = [], []
        for _ in range(40):
            p = g.permutation(8)
            av, ah = Z[:, p[:r]].mean(1), Z[:, p[r:]].mean(1)
            o = np.argsort(-av)
            emp.append(ah[o[1]] > ah[o[0]])
            pred.append(p_swap_rescaled(av[o[0]] - av[o[1]], d_eff(S[:, p[:r]]), 8, av.std()))
        assert tab.loc[r, "empirical"] == pytest.approx(np.mean(emp))
        assert tab.loc[r, "predicted"] == pytest.approx(np.mean(pred), abs=1e-12)
    assert (tab["pred_max"] <= 0.5).all()


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda S: hs.half_split(S, n_vis=0), "n_vis must be"),
        (lambda S: hs.half_split(S, n_vis=8), "n_vis must be"),
        (lambda S: hs.half_split(S, n_trials=0), "n_trials"),
        (lambda S: hs.half_split(S[:4]), "at least 5 models"),
        (lambda S: hs.chi2_calibration(S, r_list=[1]), "every r"),
        (lambda S: hs.chi2_calibration(S, r_list=[5], D=5), "must exceed"),
    ],
)
def test_bad_input(rng, call, match):
    with pytest.raises(ValueError, match=match):
        call(rng.normal(size=(20, 8)))


def test_nan_and_single_model_frontier(rng):
    S = rng.normal(size=(20, 8))
    S[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing or infinite"):
        hs.half_split(S)
    with pytest.raises(ValueError, match="at least 3 models"):
        hs.half_split(rng.normal(size=(1, 8)))


def test_h21_and_g2_reproduce(data_dir):
    f = frontier(load_suite("extended", data_dir=data_dir, fallback=False))
    h = hs.half_split(f)
    assert (h.top1_swap_rate, round(h.mean_top5_changes, 2), round(h.sd_top5_changes, 2)) == (0.924, 2.83, 0.92)
    tab = hs.chi2_calibration(f)
    assert tab["empirical"].round(3).tolist() == [0.334, 0.298, 0.388, 0.454, 0.400, 0.442, 0.500]
    assert tab["gap_pp"].round(1).tolist() == [14.0, 17.3, 8.4, 1.3, 6.7, 2.8, 3.1]


def test_half_split_in_batches_is_identical():
    X = np.random.default_rng(4).normal(size=(80, 10))
    a = hs.half_split(X, n_trials=137, seed=3)
    b = hs.half_split(X, n_trials=137, seed=3, batch=10)
    np.testing.assert_array_equal(a.top1_swap, b.top1_swap)
    np.testing.assert_array_equal(a.top5_changes, b.top5_changes)
    e1, e2 = hs.half_split_exhaustive(X[:, :8]), hs.half_split_exhaustive(X[:, :8], batch=7)
    np.testing.assert_array_equal(e1.top5_changes, e2.top5_changes)


def test_top_set_equals_a_stable_sort_with_ties():
    """The O(n) top-5 membership and top-1 agree with a stable descending argsort, ties included."""
    rng = np.random.default_rng(0)
    for _ in range(40):
        n, k = int(rng.integers(5, 40)), int(rng.integers(2, 9))
        Z = np.round(rng.normal(size=(n, k)), 1)  # rounded: many ties
        M = hs.split_masks(np.stack([rng.permutation(k) for _ in range(30)]), max(1, k // 2))
        Mf = M.astype(float)
        a_v, a_h = Z @ (Mf / Mf.sum(1, keepdims=True)).T, Z @ ((1 - Mf) / (1 - Mf).sum(1, keepdims=True)).T
        ov, oh = np.argsort(-a_v, 0, kind="stable"), np.argsort(-a_h, 0, kind="stable")
        sets = [np.zeros(a_v.shape, bool) for _ in range(2)]
        for s, o in zip(sets, (ov, oh)):
            s[o[:5], np.arange(a_v.shape[1])[None, :]] = True
        swap1, changes = hs._evaluate(Z, M)
        np.testing.assert_array_equal(swap1, ov[0] != oh[0])
        np.testing.assert_array_equal(changes, 5 - (sets[0] & sets[1]).sum(0))
