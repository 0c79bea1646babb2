"""Tests of Proposition 1 and the width-model diagnostics (App. H.10, H.15)."""

import numpy as np
import pytest

from blindspot.core.conventions import top_gap, zscore
from blindspot.prognose import width_model as wm


def _low_rank(n=80, k=9, r=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, r)) @ rng.normal(size=(r, k)) + 40


def test_exactly_linear_benchmarks_have_r2_one_and_no_gap():
    d = wm.linearisation_diagnostics(_low_rank())
    assert np.allclose(d.r2_lin, 1.0, atol=1e-10) and np.allclose(d.gap, 0.0, atol=1e-10)


def test_quadratic_benchmark_is_caught():
    rng = np.random.default_rng(1)
    F = rng.normal(size=(200, 2))
    S = np.column_stack(
        [
            F[:, 0],
            F[:, 1],
            F[:, 0] + F[:, 1],
            F[:, 0] - 0.5 * F[:, 1],
            F[:, 0] ** 2 + 0.3 * F[:, 1],
            F[:, 0] * F[:, 1] + F[:, 0],
        ]
    )
    d = wm.linearisation_diagnostics(S, n_pc=3, n_quad_pc=2)
    assert d.gap.max() > 0.05 and d.r2_quad.min() > d.r2_lin.min()
    assert np.all(d.r2_quad >= d.r2_lin - 1e-12)  # nested models


def test_eta_max_equals_brute_force():
    rng = np.random.default_rng(2)
    S = rng.normal(size=(25, 7))
    d = wm.linearisation_diagnostics(S, n_pc=3, n_quad_pc=2)
    Z = zscore(S)
    pcs = wm.pc_scores(Z, 3)
    A = np.hstack([np.ones((25, 1)), pcs])
    for j in range(7):
        r = Z[:, j] - A @ np.linalg.lstsq(A, Z[:, j], rcond=None)[0]
        best = max(abs(r[a] - r[b]) / np.sum((pcs[a] - pcs[b]) ** 2) for a in range(25) for b in range(a + 1, 25))
        assert d.eta_max.iloc[j] == pytest.approx(best, rel=1e-9)


def test_lipschitz_constants_never_exceed_one():
    rng = np.random.default_rng(3)
    for _ in range(5):
        L = wm.lipschitz_constants(rng.normal(size=(30, 6)) * rng.uniform(0.1, 10, 6))
        assert np.all(L <= 1 + 1e-12)  # |x_b| <= ||x||: a tautology (H.10's L_b <= 0.993)
    # two models differing in one benchmark only attain it
    S = np.array([[0.0, 0, 0], [1, 0, 0], [5, 3, 2], [2, 7, 1]])
    assert wm.lipschitz_constants(S).iloc[0] == pytest.approx(1.0)


def test_width_model_check_stated_fails_corrected_holds():
    rng = np.random.default_rng(4)
    C = rng.normal(size=(40, 4))
    c0 = np.zeros(4)
    g = np.array([3.0, 0.0, 0.0, 0.0])  # ||grad|| = 3 != 1
    eta0 = 0.05
    pi = lambda X: X @ g + eta0 * np.sum((X - c0) ** 2, axis=1)  # noqa: E731
    chk = wm.width_model_check(pi, g, c0, C, eta0)
    assert not chk.stated_holds and chk.corrected_holds
    # a unit gradient and a linear benchmark: both forms hold with eta = 0
    g1 = np.array([0.6, 0.8, 0.0, 0.0])
    chk1 = wm.width_model_check(lambda X: X @ g1, g1, c0, C, 0.0)
    assert chk1.stated_holds and chk1.corrected_holds and chk1.n_pairs == 780


def test_gap_vs_delta2_fields():
    S = _low_rank(seed=5)
    g = wm.gap_vs_delta2(S)
    assert g.delta2 == pytest.approx(top_gap(S))
    assert g.top_pair_residual == pytest.approx(0.0, abs=1e-9) and g.resolves_top_pair
    rng = np.random.default_rng(6)
    g2 = wm.gap_vs_delta2(rng.normal(size=(60, 10)))
    assert g2.resolves_top_pair == (g2.top_pair_residual < g2.delta2)
    assert g2.top_pair_residual <= g2.top_pair_bound + 1e-9  # eta_max is the max over all pairs


def test_summary():
    d = wm.linearisation_diagnostics(np.random.default_rng(7).normal(size=(50, 6)), benchmarks=list("abcdef"))
    s = wm.summarise(d)
    assert s.r2_min == d.r2_lin.min() and s.r2_min_benchmark == d.r2_lin.idxmin()
    assert s.r2_min <= s.r2_median <= s.r2_max


def test_bad_input():
    with pytest.raises(ValueError, match="n_quad_pc"):
        wm.linearisation_diagnostics(np.random.default_rng(0).normal(size=(30, 6)), n_pc=3, n_quad_pc=4)
    with pytest.raises(ValueError, match="too few"):
        wm.linearisation_diagnostics(np.random.default_rng(0).normal(size=(10, 6)))
    with pytest.raises(ValueError, match="grad"):
        wm.width_model_check(lambda X: X[:, 0], np.zeros(2), np.zeros(2), np.eye(2), 0.1)
    with pytest.raises(ValueError, match="benchmark names"):
        wm.lipschitz_constants(np.random.default_rng(0).normal(size=(5, 3)), ["a"])


@pytest.mark.parametrize("eta", [0.05, 0.1, 0.3])
def test_triangle_counterexample_closed_form(eta):
    ex = wm.triangle_counterexample(eta)
    # left side sqrt(3) eta against the stated eta diam^2 (diam = 1); the proof's 2 eta diam^2 holds
    assert ex.check.diam == pytest.approx(1.0)
    assert ex.lhs == pytest.approx(np.sqrt(3) * eta) and ex.rhs == pytest.approx(eta)
    assert not ex.check.stated_holds and ex.check.corrected_holds
    assert ex.hypotheses.grad_norm == pytest.approx(1.0)
    # every hypothesis holds: increasing in both coordinates on the hull, remainder within eta ||c - c0||^2
    assert ex.hypotheses.monotone and ex.hypotheses.smooth(eta)
    assert ex.refutes_statement


def test_triangle_counterexample_rejects_a_non_monotone_eta():
    with pytest.raises(ValueError, match="monotone"):
        wm.triangle_counterexample(0.4)


def test_check_hypotheses_linear_and_non_monotone():
    g = np.array([0.5, 2.0, 1.0])
    C = np.random.default_rng(0).normal(size=(10, 3))
    lin = wm.check_hypotheses(lambda X: X @ g, lambda X: np.broadcast_to(g, X.shape), np.zeros(3), C)
    assert lin.min_partial == pytest.approx(0.5) and lin.max_remainder_ratio == pytest.approx(0, abs=1e-12)
    assert lin.grad_norm == pytest.approx(np.linalg.norm(g))
    # 3 c_1 + 0.05 ||c||^2 on Gaussian points (the book's earlier example): the gradient 0.1 c_2 is
    # negative where c_2 < 0, so hypothesis (i) fails there
    h = np.array([3.0, 0, 0])
    q = wm.check_hypotheses(lambda X: X @ h + 0.05 * (X**2).sum(axis=1), lambda X: h + 0.1 * X, np.zeros(3), C)
    assert not q.monotone and q.smooth(0.05) and not q.smooth(0.04)
