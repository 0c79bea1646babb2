"""Tests of Proposition 2 (swap probability under an anisotropic hidden spectrum)."""

import numpy as np
import pytest

from blindspot.core import swap as sw
from blindspot.prognose import anisotropic_swap


def test_gil_pelaez_equals_chi2_exact_for_isotropic_spectra():
    g = np.array([0.0, 0.5, 3.0, 10.0, 25.0])
    for nu in (1, 3, 45):
        assert np.allclose(
            anisotropic_swap.p_swap_spectrum_exact(g, np.ones(nu)), sw.p_swap_pair(g, 2, 2 + nu), atol=1e-7
        )


@pytest.mark.parametrize("lam", [[5, 1, 1, 1, 1, 1], [10] + [0] * 9, [3.0, 2.0, 0.5]])
@pytest.mark.parametrize("delta", [1.0, 3.0, 10.0])
def test_exact_matches_monte_carlo(lam, delta):
    p, se = anisotropic_swap.p_swap_mc(delta, lam, n_draws=200_000, seed=5)
    assert abs(p - anisotropic_swap.p_swap_spectrum_exact(delta, lam)) < 3 * se


def test_gaussian_swap_at_known_spectra():
    # Delta = 3, trace 10: Phi(-3 / (2 sqrt(sum lambda^2))) = 0.318 / 0.392 / 0.440
    for lam, want in (([1.0] * 10, 0.318), ([5, 1, 1, 1, 1, 1], 0.392), ([10] + [0] * 9, 0.440)):
        assert anisotropic_swap.p_swap_gauss(3, lam) == pytest.approx(want, abs=5e-4)


def test_gaussian_monotone_along_majorisation_chain():
    path = anisotropic_swap.anisotropy_path(6, 10.0, np.linspace(0, 1, 21))
    for a, b in zip(path[:-1], path[1:]):
        assert anisotropic_swap.majorizes(b, a)
    for delta in (0.1, 1.0, 3.0, 10.0):
        p = [anisotropic_swap.p_swap_gauss(delta, lam) for lam in path]
        assert np.all(np.diff(p) > 0)


def test_robin_hood_never_increases_gaussian_and_dirichlet_above_isotropic():
    rng = np.random.default_rng(0)
    iso = np.full(5, 2.0)
    for _ in range(200):
        lam = rng.dirichlet(np.ones(5)) * 10
        i, j = rng.choice(5, 2, replace=False)
        rh = anisotropic_swap.robin_hood(lam, int(i), int(j), rng.uniform(0, 0.5))
        assert anisotropic_swap.majorizes(lam, rh) and rh.sum() == pytest.approx(10)
        assert anisotropic_swap.p_swap_gauss(2.0, rh) <= anisotropic_swap.p_swap_gauss(2.0, lam) + 1e-15
        assert anisotropic_swap.p_swap_gauss(2.0, lam) >= anisotropic_swap.p_swap_gauss(2.0, iso) - 1e-15
    scan = anisotropic_swap.schur_scan(n_pairs=50, exact=False, seed=1)
    assert scan.violations_gauss == 0 and scan.iso_violations_gauss == 0


def test_exact_law_reverses_for_small_gaps_but_not_large_ones():
    iso, spike = np.full(6, 10 / 6), np.r_[10.0, np.zeros(5)]
    # small gap: one hidden direction swaps *less* than six equal ones (Prop. 2 holds only approximately)
    assert anisotropic_swap.p_swap_spectrum_exact(1.0, spike) < anisotropic_swap.p_swap_spectrum_exact(1.0, iso) - 0.005
    p1, se1 = anisotropic_swap.p_swap_mc(1.0, spike, 400_000, seed=1)
    p2, se2 = anisotropic_swap.p_swap_mc(1.0, iso, 400_000, seed=2)
    assert p2 - p1 > 3 * np.hypot(se1, se2)
    # large gap: the Gaussian direction holds exactly along the whole chain
    path = anisotropic_swap.anisotropy_path(6, 10.0, np.linspace(0, 1, 11))
    assert np.all(np.diff([anisotropic_swap.p_swap_spectrum_exact(10.0, lam) for lam in path]) > 0)


def test_linear_functional_model_depends_on_visible_share():
    emp = np.linspace(3, 0.2, 12)
    adv = anisotropic_swap.simulate_linear_functional(
        anisotropic_swap.linear_functional_prior("adversarial", 12), n=50, n_draws=300, seed=0
    )
    assert adv.swap_rate == 0.0 and adv.visible_share == 1.0
    iso = anisotropic_swap.simulate_linear_functional(np.ones(12), n=50, n_draws=3000, seed=1)
    # same visible share (1/2) by a different spectrum -> same law of (obs, full), same rate
    lumpy = np.array([4, 1, 1, 0.5, 0.25, 0.25, 1.5, 1.5, 1.5, 1.5, 0.5, 0.5])  # visible 7 = hidden 7
    other = anisotropic_swap.simulate_linear_functional(lumpy, n=50, n_draws=3000, seed=2)
    assert other.visible_share == pytest.approx(0.5)
    assert abs(iso.swap_rate - other.swap_rate) < 3 * np.hypot(iso.se, other.se) + 1e-12
    t = anisotropic_swap.linear_functional_table(emp / emp.sum() * 12, n=50, n_draws=300)
    assert t.loc["adversarial", "swap_rate"] == 0.0
    rev = anisotropic_swap.linear_functional_table(emp / emp.sum() * 12, n=50, n_draws=300, reverse=True)
    assert rev.loc["1/i^2", "swap_rate"] > t.loc["isotropic", "swap_rate"]


def test_priors_table_exact_close_to_gaussian_for_isotropic():
    emp = np.linspace(3, 0.2, 12)
    ex = anisotropic_swap.priors_table_exact(0.0718, 4.8, 0.565, emp / emp.sum() * 12, D_list=(10, 50))
    g = sw.priors_table(0.0718, 4.8, 0.565, emp / emp.sum() * 12, D_list=(10, 50))
    assert np.allclose(ex.loc["isotropic"], g.loc["isotropic"], atol=0.01)
    assert ex.loc["adversarial", 10] < g.loc["adversarial", 10] - 0.01  # the Gaussian form overstates it


def test_bad_input():
    with pytest.raises(ValueError, match="non-negative"):
        anisotropic_swap.p_swap_gauss(1.0, [1.0, -0.5])
    with pytest.raises(ValueError, match="gap Delta must be finite and >= 0"):
        anisotropic_swap.p_swap_spectrum_exact(-1.0, [1.0])
    with pytest.raises(ValueError, match="zero trace"):
        anisotropic_swap.p_swap_mc(1.0, [0.0, 0.0])
    with pytest.raises(ValueError, match="unknown prior"):
        anisotropic_swap.linear_functional_prior("uniform")
    with pytest.raises(ValueError, match=r"t must be in \[0, 1/2\]"):
        anisotropic_swap.robin_hood([1, 2], 0, 1, 0.7)
    with pytest.raises(ValueError, match="n_visible"):
        anisotropic_swap.simulate_linear_functional(np.ones(4), n_visible=4)


def test_four_prior_variant_uses_one_fresh_stream_per_prior():
    emp = np.linspace(3, 0.2, 12)
    emp = emp / emp.sum() * 12
    four = ("isotropic", "empirical", "1/i", "1/i^2")
    t = anisotropic_swap.linear_functional_table(emp, n=40, n_draws=200, seed=1, priors=four, same_seed=True)
    assert list(t.index) == list(four)
    for name in four:  # each row is the simulation with default_rng(1), whatever its position
        e = anisotropic_swap.linear_functional_prior(name, 12, emp)
        assert (
            t.loc[name, "swap_rate"]
            == anisotropic_swap.simulate_linear_functional(e, n=40, n_draws=200, seed=1).swap_rate
        )
    # the default (seed + index per prior) agrees on the first prior only
    six = anisotropic_swap.linear_functional_table(emp, n=40, n_draws=200, seed=1)
    assert six.loc["isotropic", "swap_rate"] == t.loc["isotropic", "swap_rate"]
    with pytest.raises(ValueError, match="priors"):
        anisotropic_swap.linear_functional_table(emp, priors=("uniform",))
