"""blindspot.diagnose.null_model: the one-factor null and range restriction."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.conventions import frontier_mask
from blindspot.core.spectrum import correlation, d_eff
from blindspot.diagnose import null_model as nm


def test_truncation_variance_ratio_against_monte_carlo():
    z = np.random.default_rng(0).standard_normal(2_000_000)
    for q in (0.0, 0.3, 0.5, 0.9):
        kept = z[z >= np.quantile(z, q)]
        assert nm.truncation_variance_ratio(q) == pytest.approx(kept.var(), rel=0.01)
    v = nm.truncation_variance_ratio(np.linspace(0, 0.95, 20))
    assert v[0] == pytest.approx(1.0) and np.all(np.diff(v) < 0)


def test_full_population_is_equicorrelated_with_loading_squared():
    assert nm.one_factor_rho(0.0, 12) == pytest.approx(0.64)
    assert nm.one_factor_deff(0.0, 12) == pytest.approx(12 / (1 + 11 * 0.64**2))


@pytest.mark.parametrize("q", [0.0, 0.5, 0.8])
def test_closed_form_matches_a_large_simulation(q):
    X = nm.one_factor_scores(200_000, 12, rng=np.random.default_rng(1))
    F = X[frontier_mask(X, q)]
    rho = correlation(F)[np.triu_indices(12, 1)].mean()
    se = (1 - rho**2) / np.sqrt(F.shape[0])
    assert rho == pytest.approx(nm.one_factor_rho(q, 12), abs=4 * se)
    assert d_eff(F) == pytest.approx(nm.one_factor_deff(q, 12), rel=0.03)


def test_range_restriction_raises_deff_with_one_factor():
    d = nm.one_factor_deff(np.linspace(0, 0.95, 40), 12)
    assert np.all(np.diff(d) > 0) and d[-1] < 12


def test_null_run_shapes_and_one_signal_eigenvalue():
    run = nm.one_factor_null(n=200, k=8, reps=5, seed=3, n_trials=50, horn_perm=30)
    assert run.deff_full.shape == (5,) and np.all(run.n_frontier == 100)
    assert np.all(run.deff_frontier > run.deff_full)
    assert np.all(run.n_sig_frontier <= 2) and run.horn_frontier.shape == (5,)
    assert np.all((run.r90_frontier >= 1) & (run.r90_frontier <= 8))
    s = run.summary()
    assert 0 <= s["half-split top-1 swap"] <= 1


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: nm.one_factor_scores(2, 5), "n must be"),
        (lambda: nm.one_factor_scores(10, 1), "k must be"),
        (lambda: nm.one_factor_rho(0.5, 12, loading=-1), "positive"),
        (lambda: nm.truncation_variance_ratio(1.0), "q must be"),
        (lambda: nm.one_factor_null(reps=0), "reps"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_one_factor_fit_recovers_the_loading():
    X = nm.one_factor_scores(50_000, 10, loading=0.7, noise=np.sqrt(1 - 0.49), rng=np.random.default_rng(2))
    a, s = nm.one_factor_fit(X)
    assert a == pytest.approx(0.7, abs=0.01) and s == pytest.approx(np.sqrt(1 - a * a))
    with pytest.raises(ValueError, match="not in"):
        nm.one_factor_fit(np.random.default_rng(0).normal(size=(200, 2)) * [1, -1] @ np.array([[1, -0.9], [0, 0.1]]))
