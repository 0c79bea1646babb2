"""chi2_swap_study: Corollary 1's pieces on a frontier in one call, equal to the swap calls it wraps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindspot.core import conventions, swap
from blindspot.data.suites import synthetic_suite
from blindspot.prognose.chi2_swap_study import CHECK_POINT, H24_KEYS, chi2_swap_study


@pytest.fixture(scope="module")
def board():
    return synthetic_suite(n_models=40, n_benchmarks=8, seed=5, name="extended")


@pytest.fixture(scope="module")
def study(board):
    return chi2_swap_study(board, n_draws=20_000, n_trials=400, seed=0)


def test_the_inputs_and_quantities_equal_the_swap_calls(board, study):
    front = conventions.frontier(board)
    si = swap.swap_inputs(front)
    q = study.quantities()
    assert (q["n_front"], q["d_front"], q["delta2"]) == (si.n, si.d_eff, si.delta2)
    assert q["n_gaps"] == si.n - 1 and q["front_name"] == front.name
    d0, D0 = CHECK_POINT
    assert q["p10_exact"] == pytest.approx(swap.p_swap_pair(10.0, d0, D0))
    assert q["one_exact"] == pytest.approx(swap.p_top1_exact(np.random.default_rng(0).chisquare(d0, 10), d0, D0))
    assert q["prior_min"] == study.priors.to_numpy().min() <= q["iso_first"] <= q["prior_max"]
    assert q["g1_min"] == pytest.approx(study.sweep.loc[study.sweep.D >= 10, "p_swap"].min())


def test_the_pair_check_is_consistent_and_eq3_term_is_the_looser(study):
    pair = study.pair
    assert (pair["z"].abs() < 5).all()  # Monte Carlo agrees with the exact integral
    # eq. (3) divides by 2 sqrt(2 (D - d)), sqrt 2 too much: its term is above the CLT term at every gap > 0
    assert (pair["eq. (3) term"] > pair["CLT"]).all()
    v = study.claims()["C1.sqrt2"]
    assert v.value == pytest.approx(2 * math.sqrt(CHECK_POINT[1] - CHECK_POINT[0])) and len(v.data) == 0
    assert "at Delta = 10" in v.evidence


def test_the_fkg_product_is_a_lower_bound(study):
    assert study.bounds.correct_lower <= study.exact10 + 1e-12
    table = study.one_draw()
    assert table.loc["P(top-1 correct)", "simulated leaderboards (mean)"] == study.sim10.p_correct


def test_the_claims_name_every_sweep_d_and_functional(study):
    values = study.claims()
    assert set(values) == {f"C1.G1.D{D}" for D in study.sweep.D} | {"C1.priors.min", "C1.priors.max", "C1.sqrt2"}
    assert all(v.data is study.front for cid, v in values.items() if cid != "C1.sqrt2")
    h24 = study.h24_claims()
    assert list(h24) == [f"C1.H24.{k}" for k in H24_KEYS.values()]
    assert h24["C1.H24.norm2"].value == study.h24.rates["||c||^2"] and "5000 trials" in h24["C1.H24.norm2"].evidence
    assert list(study.top1.D) == [D for D in (10, 20, 50, 100) if D > study.inputs.d_eff]


def test_a_small_frontier_is_refused_in_one_line():
    with pytest.raises(ValueError, match="needs at least 3|need at least 3"):
        chi2_swap_study(synthetic_suite(n_models=4, n_benchmarks=5, seed=1), n_draws=100, n_trials=10)
