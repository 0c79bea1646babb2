"""Tests of rank reversal on adding a model (Corollary 2, App. H.9)."""

from itertools import combinations

import numpy as np
import pytest

from blindspot.core.conventions import aggregate
from blindspot.core.spectrum import d_eff
from blindspot.prognose import rank_reversal as rr


def _brute_count(S, agg):
    """The definition, written out with explicit loops and rank arrays."""
    n = len(S)
    total = 0
    for added in range(n):
        base = [i for i in range(n) if i != added]
        rb = np.argsort(np.argsort(-agg(S[base]), kind="stable"))
        rf = np.argsort(np.argsort(-agg(S[base + [added]]), kind="stable"))[:-1]
        total += sum((rb[a] < rb[b]) != (rf[a] < rf[b]) for a, b in combinations(range(n - 1), 2))
    return total


@pytest.mark.parametrize("seed", range(4))
def test_vectorised_count_equals_brute_force(seed):
    S = np.random.default_rng(seed).normal(size=(9, 5)) * [1, 2, 3, 4, 5] + 50
    assert rr.reversal_count(S) == _brute_count(S, aggregate)
    assert rr.reversal_count(S, lambda M: aggregate(M)) == rr.reversal_count(S)


def test_rowwise_aggregators_never_reverse():
    rng = np.random.default_rng(1)
    stack = rng.uniform(1, 100, size=(30, 10, 6))
    for name in ("mean", "median", "geomean"):
        assert rr.reversal_counts(stack, name).sum() == 0
    assert rr.reversal_counts(stack, "zmean").sum() > 0


def test_converse_counterexample_is_exact():
    S, new = rr.converse_counterexample()
    assert d_eff(S) == pytest.approx(2.0) and d_eff(S) == pytest.approx(S.shape[0] - 1)
    f = rr.add_model_flips(S, new)
    assert f.flipped == [(1, 2)]
    assert np.allclose(f.before, [0.9659258, -0.7071068, -0.2588190], atol=1e-6)
    assert np.allclose(f.after, [0.5404401, -0.5, -0.8737735], atol=1e-6)
    # the z-mean is translation-invariant per column: shifting a column changes nothing
    assert rr.add_model_flips(S + [3.0, -7.0], new + [3.0, -7.0]).flipped == [(1, 2)]


def test_count_invariant_to_row_permutation():
    rng = np.random.default_rng(2)
    S = rng.normal(size=(11, 6))
    assert rr.reversal_count(S) == rr.reversal_count(S[rng.permutation(11)])


def test_events_match_count():
    S = np.random.default_rng(3).normal(size=(8, 4))
    ev = rr.reversal_events(S)
    assert len(ev) == rr.reversal_count(S)


def test_rates_reproduce_their_draws():
    rng0 = np.random.default_rng(4)
    S = rng0.normal(size=(40, 6)) @ rng0.normal(size=(6, 6))
    r = rr.reversal_rates(S, n_models=7, n_draws=15, seed=11)
    rng = np.random.default_rng(11)
    for c, de in zip(r.counts, r.d_effs):
        X = S[rng.choice(40, 7, replace=False)]
        assert c == rr.reversal_count(X)
        assert de == pytest.approx(d_eff(X))
        assert de <= min(6, 7 - 1) + 1e-9  # d_eff <= rank <= min(k, n - 1): Cor. 2's premise always holds
    assert r.frac_ge1 == np.mean(r.counts >= 1) and r.mean == pytest.approx(np.mean(r.counts))


def test_aggregator_comparison_table():
    S = np.random.default_rng(5).uniform(10, 90, size=(30, 6))
    t = rr.aggregator_comparison(S, n_models=6, n_draws=10)
    assert list(t.index) == ["mean", "zmean", "median", "geomean"]
    assert t.loc["mean", "mean_reversals"] == 0 and t.loc["median", "frac_ge1"] == 0


def test_bad_input():
    with pytest.raises(ValueError, match="at least 3 models"):
        rr.reversal_counts(np.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match="unknown aggregator"):
        rr.reversal_count(np.random.default_rng(0).normal(size=(5, 3)), "harmonic")
    with pytest.raises(ValueError, match="n_models"):
        rr.reversal_rates(np.random.default_rng(0).normal(size=(5, 3)), n_models=8)
    with pytest.raises(ValueError, match="benchmarks"):
        rr.add_model_flips(np.eye(3), [1.0, 2.0])


def test_two_model_counterexample_by_hand():
    S, new = rr.two_model_counterexample()
    f = rr.add_model_flips(S, new)
    assert f.n == 2 and f.d_eff == pytest.approx(1.0) and f.d_eff == pytest.approx(f.n - 1)
    # before: each column's z-scores are +-1, so the z-means are (1 + 1 - 1)/3 = 1/3 and -1/3
    assert np.allclose(f.before, [1 / 3, -1 / 3])
    # after, written out: z-scores (ddof 0) of each column of the three-model table, first two rows
    T = np.vstack([S, new])
    z = (T - T.mean(axis=0)) / T.std(axis=0)
    assert np.allclose(f.after, z[:2].mean(axis=1))
    assert f.after[1] > f.after[0] and f.flipped == [(0, 1)]


@pytest.mark.parametrize("seed", range(3))
def test_any_two_models_have_deff_one(seed):
    S = np.random.default_rng(seed).normal(size=(2, 5))
    assert rr.add_model_flips(S, np.zeros(5)).d_eff == pytest.approx(1.0)
