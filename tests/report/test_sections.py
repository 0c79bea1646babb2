"""The report's numerics against independent implementations, and their cost linear in the models."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.conventions import zscore
from blindspot.core.coverage import bootstrap_greedy_orders
from blindspot.data.suites import synthetic_suite
from blindspot.prognose.width_model import gap_vs_delta2
from blindspot.report.sections import _greedy_point, _paper_directions_gram, covering_method
from blindspot.report.stability import leader_bootstrap
from blindspot.report.width_regime import width_regime
from blindspot.treat.stable_core import stable_core


@pytest.mark.parametrize("n,k", [(60, 6), (200, 12), (40, 3), (15, 40)])
def test_width_regime_equals_the_all_pairs_diagnostics(n, k):
    X = synthetic_suite(n_models=n, n_benchmarks=k, seed=2).values
    n_pc = min(5, k - 1)
    g = gap_vs_delta2(X, n_pc=n_pc, n_quad_pc=min(3, n_pc))
    w = width_regime(X)
    assert w.all_pairs
    assert w.gap_max == pytest.approx(g.gap_max, abs=1e-10)
    assert w.top_pair_residual == pytest.approx(g.top_pair_residual, abs=1e-10)
    assert w.eta_max == pytest.approx(g.eta_max, rel=1e-9)
    assert w.resolves_top_pair == g.resolves_top_pair


def test_width_regime_samples_a_bounded_number_of_pairs():
    X = synthetic_suite(n_models=3000, n_benchmarks=8, seed=1).values
    w = width_regime(X, max_pairs=10_000)
    assert not w.all_pairs and w.n_pairs <= 10_000 + 50 * 49 // 2
    full = width_regime(X, max_pairs=10**8)
    assert w.eta_max <= full.eta_max + 1e-12  # a lower bound of the all-pairs maximum
    assert w.top_pair_residual == pytest.approx(full.top_pair_residual, abs=1e-12)


def _naive_overtaken(X, n_boot, seed, top):
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    order = np.argsort(-zscore(X).mean(axis=1), kind="stable")
    m = min(top, n)
    passed, present = np.zeros(m), np.zeros(m)
    for _ in range(n_boot):
        c = np.bincount(rng.integers(0, n, n), minlength=n)
        R = X[np.repeat(np.arange(n), c)]
        sd = R.std(axis=0)
        ok = sd > 1e-9
        a = ((X[:, ok] - R[:, ok].mean(axis=0)) / sd[ok]).sum(axis=1)
        for r in range(m):
            i = order[r]
            if c[i]:
                present[r] += 1
                below = [j for j in order[r + 1 :] if c[j]]
                passed[r] += bool(below) and a[below].max() > a[i]
    return passed / np.maximum(present, 1)


@pytest.mark.parametrize("n,k", [(12, 4), (30, 6), (8, 3)])
def test_leader_bootstrap_equals_a_per_resample_loop(n, k):
    X = np.random.default_rng(n).normal(size=(n, k))
    lb = leader_bootstrap(X, n_boot=300, seed=5, top=20)
    np.testing.assert_allclose(lb.overtaken_share, _naive_overtaken(X, 300, 5, 20), atol=1e-12)
    assert lb.leader_share == pytest.approx(1 - lb.overtaken_share[0])


def test_a_dominance_chain_is_never_overtaken():
    """If each model beats the next on every benchmark, no re-standardisation can reorder them."""
    rng = np.random.default_rng(0)
    X = np.cumsum(rng.uniform(0.1, 1.0, size=(50, 5)), axis=0)[::-1]  # row i dominates row i + 1
    lb = leader_bootstrap(X, n_boot=200, seed=1)
    assert lb.leader == 0 and lb.leader_share == 1.0 and (lb.overtaken_share == 0).all()


@pytest.mark.parametrize("n,k", [(60, 8), (200, 12)])
def test_bootstrap_greedy_orders_equal_the_stable_core(n, k):
    X = synthetic_suite(n_models=n, n_benchmarks=k, seed=1).values
    top = bootstrap_greedy_orders(X, 4, 200, seed=3)
    np.testing.assert_array_equal(top, stable_core(X, r=4, n_boot=200, seed=3).top)


def test_bootstrap_greedy_orders_with_more_benchmarks_than_models():
    """Factored form: the same picks as the stable core except where a resample's rank ties the last pick."""
    X = synthetic_suite(n_models=14, n_benchmarks=30, seed=1).values
    top = bootstrap_greedy_orders(X, 3, 200, seed=3)
    ref = stable_core(X, r=3, n_boot=200, seed=3).top
    assert (top == ref).all(axis=1).mean() >= 0.99


def test_gram_directions_give_the_covering_radius_of_the_book():
    from blindspot.core.covering import covering_radius
    from blindspot.prognose.visible_radius import benchmark_directions

    X = synthetic_suite(n_models=12, n_benchmarks=30, seed=1).values
    for d in (2, 3, 4):
        a = covering_radius(benchmark_directions(X, d=d).directions).omega
        assert covering_radius(_paper_directions_gram(X, d)).omega == pytest.approx(a, abs=1e-12)


def test_greedy_point_in_factored_form_equals_greedy_select():
    from blindspot.core.coverage import greedy_select
    from blindspot.core.spectrum import correlation

    t = synthetic_suite(n_models=12, n_benchmarks=30, seed=1)
    order, cov, r, single = _greedy_point(t)
    res = greedy_select(correlation(t), target=0.9)
    assert r == res.r_target and list(order) == list(res.order)
    np.testing.assert_allclose(cov, res.coverages, atol=1e-12)
    C = correlation(t)
    C2 = C @ C
    np.testing.assert_allclose(single, (C2 * C).sum(1) / np.diag(C2) / C.shape[0], atol=1e-12)


def test_covering_method_switches_on_the_size_of_the_hull():
    assert covering_method(12, 3) == "exact" and covering_method(50, 6) == "exact"
    assert covering_method(2000, 10) == "mc" and covering_method(200, 12) == "mc"
