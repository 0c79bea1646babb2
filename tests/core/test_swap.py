"""Tests of the chi-squared swap model (Corollary 1)."""

import numpy as np
import pytest
from scipy import stats

from blindspot.core import swap as sw
from blindspot.core.conventions import aggregate


# ---------------------------------------------------------------- (a) signal-to-noise
def test_rho_closed_form_and_monte_carlo():
    assert sw.rho_snr(5, 50) == pytest.approx(np.sqrt(0.1))
    # Corr(X, Z) by simulation against sqrt(d/D) (0.316 at d = 5, D = 50); SE of a correlation ~ (1 - rho^2)/sqrt(N)
    assert sw.rho_mc(5, 50, n_draws=200_000, seed=1) == pytest.approx(sw.rho_snr(5, 50), abs=0.01)
    assert sw.rho_mc(4.8, 10, n_draws=200_000, seed=2) == pytest.approx(sw.rho_snr(4.8, 10), abs=0.01)


# ---------------------------------------------------------------- (b) pairwise swap
@pytest.mark.parametrize("delta,d,D", [(10.0, 5, 50), (5.0, 5, 50), (0.3, 4.8, 10), (2.0, 2, 5)])
def test_exact_pair_swap_matches_monte_carlo(delta, d, D):
    exact = sw.p_swap_pair(delta, d, D)
    mc = sw.simulate_pair_swap(delta, d, D, n_draws=400_000, seed=3)
    assert abs(mc.p - exact) < 3 * mc.se + 1e-12


def test_exact_pair_swap_known_values():
    # D = 50, d = 5, Delta = 10 -> CLT 0.2280, eq. (3) term 0.2991 (sqrt(2) too wide); MC 0.2243 (400k)
    assert sw.p_swap_pair(10, 5, 50, "clt") == pytest.approx(0.2280, abs=5e-5)
    assert sw.p_swap_pair(10, 5, 50, "stated") == pytest.approx(0.2991, abs=5e-5)
    assert sw.p_swap_pair(0.0, 5, 50) == 0.5


def test_exact_against_direct_quadrature_of_difference_law():
    # independent route: P(Y_j - Y_i > Delta) = E[S(Y_i + Delta)] by averaging over a fine grid of quantiles
    nu, delta = 7.0, 3.0
    u = (np.arange(200_000) + 0.5) / 200_000
    brute = stats.chi2.sf(stats.chi2.ppf(u, nu) + delta, nu).mean()
    assert sw.p_swap_pair(delta, 3, 10) == pytest.approx(brute, abs=2e-6)


def test_pair_swap_monotone_and_bounded():
    g = np.linspace(0, 40, 30)
    p = sw.p_swap_pair(g, 5, 50)
    assert np.all(np.diff(p) < 0) and p[0] == 0.5 and p[-1] > 0
    # eq. (3) uses sqrt(2) x the right sd, so each term is larger than the CLT term for Delta > 0
    assert np.all(sw.p_swap_pair(g[1:], 5, 50, "stated") > sw.p_swap_pair(g[1:], 5, 50, "clt"))


def test_clt_approaches_exact_for_many_hidden_directions():
    g = np.array([5.0, 20.0, 60.0])
    assert np.max(np.abs(sw.p_swap_pair(g, 5, 2005) - sw.p_swap_pair(g, 5, 2005, "clt"))) < 5e-3


def test_batch_matches_quad():
    g = np.array([0.0, 0.01, 1.0, 5.0, 10.0, 30.0])
    for d, D in ((5, 50), (4.8, 5.9), (2, 4)):
        assert np.allclose(sw.p_swap_pair_batch(g, d, D), sw.p_swap_pair(g, d, D), atol=1e-6)


# ---------------------------------------------------------------- (c), (d): top-1 reliability
def test_top1_exact_matches_conditional_monte_carlo():
    X = np.array([30.0, 25.0, 22.0, 21.0, 12.0])
    d, D = 5, 20
    exact = sw.p_top1_exact(X, d, D)
    rng = np.random.default_rng(4)
    Y = rng.chisquare(D - d, size=(200_000, X.size))
    mc = np.mean(np.argmax(X + Y, axis=1) == 0)
    se = np.sqrt(mc * (1 - mc) / 200_000)
    assert abs(mc - exact) < 3 * se


@pytest.mark.parametrize("seed", range(5))
def test_fkg_product_is_a_lower_bound_and_union_an_upper_bound(seed):
    rng = np.random.default_rng(seed)
    X = rng.chisquare(5, 8)
    b = sw.p_top1_bounds(X, 5, 50)
    exact = sw.p_top1_exact(X, 5, 50)
    assert b.correct_lower <= exact + 1e-9  # Harris/FKG: P(correct) >= product (the paper writes <=)
    assert 1 - exact <= b.wrong_upper + 1e-9
    assert b.i_star == int(np.argmax(X)) and b.gaps.size == 7


def test_stated_union_bound_dominates_clt_union_sum():
    gaps = np.array([0.5, 2.0, 7.0, 15.0])
    clt_union = sw.p_top1_bounds(np.r_[20.0, 20.0 - gaps], 4.8, 20, approx="clt").wrong_upper
    assert sw.top1_union_bound_stated(gaps, 4.8, 20) >= clt_union
    # literal eq. (3) on n - 1 gaps of ~0 is ~ (n - 1)/2: vacuous
    assert sw.top1_union_bound_stated(np.full(147, 0.05), 4.8, 10) > 70


def test_simulated_top1_respects_bounds():
    sim = sw.simulate_chi2_top1(10, 5, 50, trials=20_000, seed=0, bound_trials=500)
    assert sim.mean_product_bound <= sim.p_correct + 3 * sim.se
    assert 1 - sim.p_correct <= sim.mean_union_bound


def test_simulated_top1_against_gaussian_construction():
    # the same model built from D Gaussian coordinates (d = 5 visible of D = 50)
    rng = np.random.default_rng(9)
    c = rng.standard_normal((20_000, 10, 50)) ** 2
    X, Z = c[..., :5].sum(-1), c.sum(-1)
    direct = np.mean(X.argmax(1) == Z.argmax(1))
    sim = sw.simulate_chi2_top1(10, 5, 50, trials=20_000, seed=1, bound_trials=10)
    assert abs(direct - sim.p_correct) < 4 * sim.se


# ---------------------------------------------------------------- the code's rescaling and its sweeps
def test_rescaled_monotone_in_D_and_tends_to_half():
    Ds = np.array([6, 10, 50, 1e3, 1e7])
    p = np.array([sw.p_swap_rescaled(0.07, 4.8, D, 0.565) for D in Ds])
    assert np.all(np.diff(p) > 0) and p[-1] == pytest.approx(0.5, abs=1e-3)


def test_d_sweep_columns():
    df = sw.d_sweep(0.0718, 4.8, 0.565, D_list=(10, 100))
    assert list(df.columns) == ["D", "rho", "p_swap"]
    assert df.rho.iloc[0] == pytest.approx(np.sqrt(0.48))


def test_prior_closed_forms():
    delta, d, so = 0.0718, 4.8, 0.565
    for D in (10, 20, 50, 100):
        h = int(D - d)
        iso = sw.p_swap_prior(delta, d, D, so, np.ones(h))
        assert iso == pytest.approx(stats.norm.cdf(-delta * np.sqrt(h) / (4 * so)))
        adv = sw.p_swap_prior(delta, d, D, so, np.r_[1.0, np.zeros(h - 1)])
        assert adv == pytest.approx(stats.norm.cdf(-delta / (4 * so)))


def test_priors_table_shape_and_opposite_trend():
    emp = np.linspace(3, 0.1, 12)
    emp = emp / emp.sum() * 12
    t = sw.priors_table(0.0718, 4.8, 0.565, emp)
    assert list(t.index) == list(sw.PRIORS) and list(t.columns) == [10, 20, 50, 100]
    assert ((t > 0) & (t <= 0.5)).all().all()
    iso = t.loc["isotropic"].to_numpy()
    assert np.all(np.diff(iso) < 0)  # the code's (validation_v8) isotropic row falls with D ...
    g1 = [sw.p_swap_rescaled(0.0718, 4.8, D, 0.565) for D in (10, 20, 50, 100)]
    assert np.all(np.diff(g1) > 0)  # ... while App. G.1's rises
    # the Pareto row is random but reproducible
    assert sw.priors_table(0.0718, 4.8, 0.565, emp, seed=3).equals(sw.priors_table(0.0718, 4.8, 0.565, emp, seed=3))


def test_empirical_prior_and_swap_inputs():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(40, 6)) @ rng.normal(size=(6, 6)) + 50
    e = sw.empirical_prior(S)
    assert e.sum() == pytest.approx(6) and np.all(np.diff(e) <= 1e-12)
    si = sw.swap_inputs(S)
    a = np.sort(aggregate(S))[::-1]
    assert si.delta2 == pytest.approx(a[0] - a[1]) and si.gaps[0] == pytest.approx(si.delta2)
    assert si.sigma_obs == pytest.approx(a.std()) and si.gaps.size == 39 and si.n == 40


# ---------------------------------------------------------------- bad input
def test_bad_input_messages():
    with pytest.raises(ValueError, match="gap Delta must be >= 0"):
        sw.p_swap_pair(-1.0, 5, 50)
    with pytest.raises(ValueError, match="must exceed the visible dimension"):
        sw.p_swap_pair(1.0, 5, 5)
    with pytest.raises(ValueError, match="must exceed the visible dimension"):
        sw.rho_snr(4.8, 4.0)
    with pytest.raises(ValueError, match="at least 2 models"):
        sw.p_top1_bounds([3.0], 5, 50)
    with pytest.raises(ValueError, match="at least 2 models"):
        sw.p_top1_exact([], 5, 50)
    with pytest.raises(ValueError, match="at least 2 models"):
        sw.simulate_chi2_top1(1, 5, 50)
    with pytest.raises(ValueError, match="unknown prior 'lognormal'"):
        sw.prior_spectrum("lognormal", 5)
    with pytest.raises(ValueError, match="unknown prior"):
        sw.priors_table(0.07, 4.8, 0.5, np.ones(12), priors=("isotropic", "flat"))
    with pytest.raises(ValueError, match="approx="):
        sw.p_swap_pair(1.0, 5, 50, approx="saddlepoint")
    with pytest.raises(ValueError, match="Delta_j must be >= 0"):
        sw.top1_union_bound_stated([1.0, -0.1], 5, 50)
    with pytest.raises(ValueError, match="sigma_obs must be positive"):
        sw.p_swap_rescaled(0.1, 4.8, 10, 0.0)
    with pytest.raises(ValueError, match="Pareto"):
        sw.prior_spectrum("Pareto(1.5)", 4)
