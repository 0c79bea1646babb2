"""blindspot.treat.guarantees: what Theorem 4 claims, checked (submodularity, the greedy guarantee, the min-r bound)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from blindspot.core import coverage as cv
from blindspot.core.spectrum import participation_ratio
from blindspot.data import synthetic
from blindspot.treat import guarantees


def _gamma_loop(S):
    k = S.shape[0]
    f = {}
    for m in range(k + 1):
        for T in itertools.combinations(range(k), m):
            f[frozenset(T)] = cv.coverage(S, T)
    best = np.inf
    for L in f:
        rest = [j for j in range(k) if j not in L]
        for m in range(2, len(rest) + 1):
            for Sset in itertools.combinations(rest, m):
                den = f[L | frozenset(Sset)] - f[L]
                if den > 1e-12:
                    num = sum(f[L | {x}] - f[L] for x in Sset)
                    best = min(best, num / den)
    return min(best, 1.0)


def test_approximation_ratios_match_per_matrix(rng):
    stack = synthetic.random_correlations(6, 7, rng)
    ratios = guarantees.approximation_ratios(stack, batch=4)
    for b in range(6):
        ref = cv.greedy_select(stack[b]).coverages / cv.brute_force_optimum(stack[b]).values[1:]
        np.testing.assert_allclose(ratios[b], ref, atol=1e-10)
    assert np.all(ratios <= 1 + 1e-12) and np.all(ratios[:, 0] == pytest.approx(1.0))


# --- submodularity -------------------------------------------------------------------------------


def test_counterexample_3x3_violates_diminishing_returns():
    C = guarantees.COUNTEREXAMPLE_3X3
    assert np.linalg.eigvalsh(C)[0] > 0  # positive definite
    alone = cv.coverage(C, [1])
    after = cv.coverage(C, [0, 1]) - cv.coverage(C, [0])
    assert alone == pytest.approx(0.4989, abs=1e-4) and after == pytest.approx(0.5226, abs=1e-4)
    chk = guarantees.submodularity_violations(C)
    assert chk.n_violations > 0 and not chk.submodular
    A, x, y, g_a, g_ay = chk.example
    fA = cv.coverage(C, A)
    assert g_ay - g_a == pytest.approx(chk.max_violation)
    assert g_a == pytest.approx(cv.coverage(C, A + (x,)) - fA)


def test_modular_identity_has_no_violations_and_ratio_one():
    chk = guarantees.submodularity_violations(np.eye(5))
    assert chk.n_violations == 0 and chk.n_total == 5 * 4 * 2**3
    assert guarantees.submodularity_ratio(np.eye(5)).gamma == pytest.approx(1.0)


def test_submodularity_ratio_matches_a_plain_loop(rng, random_corr):
    S = guarantees.COUNTEREXAMPLE_3X3
    assert guarantees.submodularity_ratio(S).gamma == pytest.approx(_gamma_loop(S), abs=1e-10)
    S5 = random_corr(rng, 5)
    assert guarantees.submodularity_ratio(S5).gamma == pytest.approx(_gamma_loop(S5), abs=1e-10)


def test_das_kempe_guarantee_holds_on_random_matrices(rng, random_corr):
    for _ in range(15):
        S = random_corr(rng, 7)
        f = cv.all_subset_coverages(S)
        gam = guarantees.submodularity_ratio(S, f=f).gamma
        assert 0 < gam <= 1
        g = cv.greedy_select(S)
        bf = cv.brute_force_optimum(S)
        assert np.all(g.coverages >= guarantees.greedy_guarantee(gam) * bf.values[1:] - 1e-12)


def test_greedy_guarantee_values():
    assert guarantees.greedy_guarantee(1.0) == pytest.approx(1 - 1 / math.e)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        guarantees.greedy_guarantee(1.5)


# --- the min-r bound and the one-step fact ------------------------------------------------------


def test_minr_bound_fails_on_identity():
    k = 10
    assert guarantees.minr_bound_paper(k, k, 0.9) == 0
    g = cv.greedy_select(np.eye(k), target=0.9)
    assert g.r_target == math.ceil(0.9 * k)  # the bound says 0
    with pytest.raises(ValueError, match="infinite at tau = 1"):
        guarantees.minr_bound_paper(k, 2.0, 1.0)


def test_singleton_bound_holds_and_paper_first_step_fails(rng, random_corr):
    for _ in range(200):
        S = random_corr(rng, int(rng.integers(2, 12)))
        sb = guarantees.singleton_bound(S)
        assert sb.holds
        assert sb.best_single == pytest.approx(cv.greedy_select(S, r=1).coverages[0])
    eye = guarantees.singleton_bound(np.eye(6))
    assert eye.best_single == pytest.approx(1 / 6) and eye.paper_first_step == pytest.approx(1.0)


def test_greedy_audit_is_consistent(rng, random_corr):
    S = random_corr(rng, 7)
    chk = guarantees.greedy_audit(S, target=0.8)
    row = chk.row()
    assert row["r_greedy"] >= row["r_optimum"]
    assert row["r_greedy"] == cv.greedy_select(S, target=0.8).r_target
    assert row["min_ratio"] <= 1 + 1e-12 and row["guarantee"] == pytest.approx(1 - math.exp(-row["gamma"]))
    assert row["bound_holds"] == (row["r_bound_paper"] >= row["r_optimum"])


# --- the paper's data (skipped without a data directory) ----------------------------------------


def test_extended_frontier_numbers(data_dir):
    from blindspot import data
    from blindspot.core import conventions, spectrum

    ef = conventions.frontier(data.load_suite("extended", data_dir=data_dir, fallback=False))
    S = spectrum.correlation(ef)
    g = cv.greedy_select(S, target=0.9, r=12, names=ef.benchmarks)
    assert g.selected[:7] == ["MMLU", "HellaSwag", "IFEval", "MUSR", "GSM8K", "MATH Lvl 5", "BBH"]
    assert g.r_target == 7 and g.coverages[6] == pytest.approx(0.911, abs=5e-4)
    bf = cv.brute_force_optimum(S)
    assert bf.min_r(0.9) == 7
    assert (
        guarantees.minr_bound_paper(12, participation_ratio(np.linalg.eigvalsh(S)), 0.9) == 5
    )  # the stated bound, contradicted by 7
    f = cv.all_subset_coverages(S)
    chk = guarantees.submodularity_violations(S, f=f)
    assert (chk.n_violations, chk.n_total) == (17684, 135168)
    assert guarantees.submodularity_ratio(S, f=f).gamma == pytest.approx(0.534, abs=5e-4)


# --- the min-r bound on any k: Ky Fan below, greedy above ----------------------------------------


def test_minr_check_identity_fails_and_brackets_agree():
    chk = guarantees.minr_check(np.eye(10), 0.9)
    assert chk.bound == 0 and chk.r_lower == chk.r_greedy == chk.r_optimum == 9
    assert chk.holds is False and chk.r_min == "9"
    no_bf = guarantees.minr_check(np.eye(10), 0.9, exhaustive=False)
    assert no_bf.r_optimum is None and no_bf.holds is False  # decided by the eigenvalue bound alone


def test_minr_check_bracket_contains_the_optimum(rng, random_corr):
    for _ in range(40):
        S = random_corr(rng, int(rng.integers(3, 10)), n_factors=int(rng.integers(1, 4)))
        tau = float(rng.uniform(0.5, 0.95))
        exact = guarantees.minr_check(S, tau)
        assert exact.r_lower <= exact.r_optimum <= exact.r_greedy
        assert exact.r_optimum == cv.brute_force_optimum(S).min_r(tau)
        fast = guarantees.minr_check(S, tau, exhaustive=False)
        if fast.holds is not None:  # a decided bracket agrees with the exhaustive verdict
            assert fast.holds == exact.holds
    with pytest.raises(ValueError, match="infinite at tau = 1"):
        guarantees.minr_check(np.eye(3), 1.0)


def test_minr_check_holds_on_a_single_factor():
    # one dominant factor: d_eff near 1, the bound is generous and the optimum needs few benchmarks
    S = np.full((6, 6), 0.95) + 0.05 * np.eye(6)
    chk = guarantees.minr_check(S, 0.9)
    assert chk.r_optimum == 1 and chk.bound >= 1 and chk.holds is True


def test_greedy_audit_ratio_is_optional(rng, random_corr):
    S = random_corr(rng, 6)
    full = guarantees.greedy_audit(S)
    lean = guarantees.greedy_audit(S, with_ratio=False)
    assert full.ratio is not None and lean.ratio is None
    assert lean.row()["gamma"] is None and lean.row()["violations"] == full.row()["violations"]
