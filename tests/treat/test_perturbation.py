"""blindspot.treat.perturbation: Proposition 5 and Theorem 5, as stated and corrected."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.data import synthetic
from blindspot.treat import perturbation


def test_equal_matrices_give_equality(rng):
    S = synthetic.random_correlations(1, 6, rng)[0]
    for proj in ("fixed", "own"):
        for bound in ("paper", "rank", "nuclear"):
            c = perturbation.stability_check(S, S, [0, 2], proj, bound)
            assert c.f_prime == pytest.approx(c.f) and c.perturbation == pytest.approx(0.0, abs=1e-12)
            assert c.holds and c.holds_two_sided


def test_corrected_bound_holds_on_random_pairs(rng):
    A, B, Ts = perturbation.random_stability_pairs(300, 6, rng, "independent")
    for a, b, T in zip(A, B, Ts):
        for bound in ("rank", "nuclear"):
            c = perturbation.stability_check(a, b, T, "fixed", bound)
            assert c.holds_two_sided, (bound, T)
            # the exact identity behind it: f' - f = tr(P (Sigma' - Sigma)) / k
            assert abs(c.f_prime - c.f) <= c.margin + 1e-12


def test_paper_bound_has_a_counterexample():
    rng = np.random.default_rng(0)
    A, B, Ts = perturbation.random_stability_pairs(200, 6, rng, "independent")
    bad = [perturbation.stability_check(a, b, T, "fixed", "paper") for a, b, T in zip(A, B, Ts)]
    fails = [c for c in bad if not c.holds]
    assert fails, "the stated Proposition 5 should fail on some random pair"
    worst = max(fails, key=lambda c: c.violation)
    assert worst.f_prime < worst.f - worst.perturbation / 6


def test_vectorised_counts_agree_with_per_pair_checks():
    n, k, seed = 80, 5, 3
    v = perturbation.stability_violations(n, k, seed, "independent")
    A, B, Ts = perturbation.random_stability_pairs(n, k, np.random.default_rng(seed), "independent")
    for proj in ("fixed", "own"):
        for bound in ("paper", "rank", "nuclear"):
            checks = [perturbation.stability_check(a, b, T, proj, bound) for a, b, T in zip(A, B, Ts)]
            assert v.count(proj, bound) == sum(not c.holds for c in checks), (proj, bound)
            assert v.table.loc[(proj, bound), "n_two_sided"] == sum(not c.holds_two_sided for c in checks)
    assert v.count("fixed", "rank") == 0 and v.count("fixed", "nuclear") == 0


def test_sample_pairs_are_correlations(rng):
    A, B, Ts = perturbation.random_stability_pairs(10, 5, rng, "sample", n_obs=20)
    np.testing.assert_allclose(np.einsum("bii->bi", B), 1.0)
    assert all(1 <= len(T) <= 4 for T in Ts)
    with pytest.raises(ValueError, match="n_obs must be at least"):
        perturbation.random_stability_pairs(2, 5, rng, "sample", n_obs=5)


def test_bad_inputs(rng):
    S = synthetic.random_correlations(1, 4, rng)[0]
    with pytest.raises(ValueError, match="projector must be"):
        perturbation.stability_check(S, S, [0], "mine")
    with pytest.raises(ValueError, match="bound must be"):
        perturbation.stability_check(S, S, [0], "fixed", "loose")
    with pytest.raises(ValueError, match="same benchmarks"):
        perturbation.stability_check(S, np.eye(3), [0])
    with pytest.raises(ValueError, match="tr Sigma = tr Sigma'"):
        perturbation.stability_check(S, 2 * S, [0], "fixed", "rank")
