"""blindspot.treat.iterative_closure: Theorem 5, iterative blind-spot closure."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.data import synthetic
from blindspot.treat import iterative_closure


def test_closure_curve_monotone_and_ends_at_one(rng):
    S = synthetic.random_correlations(1, 8, rng)[0]
    cc = iterative_closure.closure_curve(S)
    assert np.all(np.diff(cc.f) >= -1e-12) and cc.f[-1] == pytest.approx(1.0)
    assert np.all(cc.f >= cc.valid - 1e-12)  # the valid bound 1 - exp(-gamma t / k)
    assert cc.rank == 8


def test_closure_claim_fails_on_identity():
    cc = iterative_closure.closure_curve(np.eye(5))
    assert cc.f[0] == pytest.approx(1 / 5) and cc.claimed[0] == pytest.approx(1.0)
    assert cc.failing_t == [1, 2, 3, 4]  # holds only at t = k where f = 1
    assert list(cc.frame().columns) == ["benchmark", "f", "claimed", "holds", "valid_lower"]


def test_valid_closure_bound_on_many_random_matrices(rng):
    for S in synthetic.random_correlations(25, 7, rng):
        cc = iterative_closure.closure_curve(S)
        assert np.all(cc.f >= cc.valid - 1e-12)


def test_failures_by_start_identity_and_consistency(rng):
    k = 6
    cc = iterative_closure.closure_curve(np.eye(k))
    by = cc.failures_by_start()
    assert by[0] == cc.failing_t
    # f(T_{m+t}) = (m + t)/k against the claimed 1: fails until m + t = k
    assert all(by[m] == list(range(1, k - m)) for m in range(k))
    S = synthetic.random_correlations(1, 7, rng)[0]
    cc = iterative_closure.closure_curve(S)
    for m, bad in cc.failures_by_start().items():
        for t in range(1, 8 - m):
            assert (t in bad) == (cc.f[m + t - 1] < 1 - (1 - cc.d_eff / 7) ** t - 1e-12)
