"""blindspot.core.coverage: f(T), greedy selection, brute force, submodularity (Theorem 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core import coverage as cv
from blindspot.data import synthetic


def _closed_form(S, T):
    """tr((Sigma^2)_TT^{-1} (Sigma^3)_TT) / tr Sigma: an independent formula for a nonsingular Sigma."""
    T = list(T)
    if not T:
        return 0.0
    S2, S3 = S @ S, S @ S @ S
    return float(np.trace(np.linalg.solve(S2[np.ix_(T, T)], S3[np.ix_(T, T)])) / np.trace(S))


# --- greedy --------------------------------------------------------------------------------------


def _literal_greedy(S):
    """Greedy straight from the definition: argmax_j coverage(T + j), ties to the lowest index."""
    k = S.shape[0]
    order = []
    for _ in range(k):
        left = [j for j in range(k) if j not in order]
        vals = np.array([cv.coverage(S, order + [j]) for j in left])
        order.append(left[int(np.argmax(vals >= vals.max() - 1e-12))])
    return order


# --- f(T) --------------------------------------------------------------------------------------


def test_coverage_endpoints_and_closed_form(rng, random_corr):
    S = random_corr(rng, 7)
    assert cv.coverage(S, []) == 0.0
    assert cv.coverage(S, range(7)) == pytest.approx(1.0, abs=1e-12)
    for T in ([0], [2, 5], [1, 3, 4, 6]):
        assert cv.coverage(S, T) == pytest.approx(_closed_form(S, T), abs=1e-10)


def test_coverage_identity_and_rank_one():
    k = 6
    for T in ([0], [1, 4], [0, 2, 3, 5]):
        assert cv.coverage(np.eye(k), T) == pytest.approx(len(T) / k)
        assert cv.coverage(np.ones((k, k)), T) == pytest.approx(1.0)


def test_coverage_is_monotone_along_random_chains(rng, random_corr):
    S = random_corr(rng, 9)
    for _ in range(5):
        perm = rng.permutation(9)
        f = [cv.coverage(S, perm[:r]) for r in range(10)]
        assert np.all(np.diff(f) >= -1e-12)


def test_coverage_accepts_names_and_dataframe(rng, random_corr):
    S = random_corr(rng, 4)
    df = pd.DataFrame(S, index=list("abcd"), columns=list("abcd"))
    assert cv.coverage(df, ["b", "d"]) == pytest.approx(cv.coverage(S, [1, 3]))
    with pytest.raises(ValueError, match="benchmark 'z' is not one of"):
        cv.coverage(df, ["z"])
    with pytest.raises(ValueError, match="out of range"):
        cv.coverage(S, [4])


def test_all_subset_coverages_match_coverage_and_stack(rng, random_corr):
    S = random_corr(rng, 6)
    f = cv.all_subset_coverages(S)
    for mask in range(64):
        T = [j for j in range(6) if mask >> j & 1]
        assert f[mask] == pytest.approx(cv.coverage(S, T), abs=1e-10)
    stack = synthetic.random_correlations(5, 6, rng)
    F = cv.all_subset_coverages(stack, batch=2)
    for b in range(5):
        np.testing.assert_allclose(F[b], cv.all_subset_coverages(stack[b]), atol=1e-12)


def test_coverage_many_matches_coverage(rng, random_corr):
    S = random_corr(rng, 8)
    subs = np.array([rng.choice(8, 3, replace=False) for _ in range(20)])
    np.testing.assert_allclose(cv.coverage_many(S, subs), [cv.coverage(S, T) for T in subs], atol=1e-12)
    # a repeated index adds nothing, as in coverage()
    assert cv.coverage_many(S, np.array([[2, 2, 5]]))[0] == pytest.approx(cv.coverage(S, [2, 5]))
    with pytest.raises(ValueError, match=r"\(n, r\) array"):
        cv.coverage_many(S, np.array([1, 2]))
    with pytest.raises(ValueError, match="indices must be in"):
        cv.coverage_many(S, np.array([[0, 8]]))


@pytest.mark.parametrize("k", [5, 8, 12])
def test_greedy_matches_literal_definition(rng, k, random_corr):
    S = random_corr(rng, k)
    g = cv.greedy_select(S)
    assert g.order.tolist() == _literal_greedy(S)
    np.testing.assert_allclose(g.coverages, [cv.coverage(S, g.order[:r]) for r in range(1, k + 1)], atol=1e-10)
    np.testing.assert_allclose(np.cumsum(g.gains), g.coverages, atol=1e-12)


@pytest.mark.parametrize("k,f", [(40, 3), (80, 6)])
def test_incremental_greedy_matches_naive(rng, k, f, random_corr):
    S = random_corr(rng, k, f)
    a = cv.greedy_select(S)
    b = cv.greedy_select_naive(S)
    assert a.order.tolist() == b.order.tolist()
    np.testing.assert_allclose(a.coverages, b.coverages, atol=1e-9)


def test_greedy_rank_deficient_items_reach_full_coverage(rng):
    # 30 models x 80 items: rank <= 29, so coverage is 1 after at most 29 picks
    X = rng.normal(size=(30, 4)) @ rng.normal(size=(4, 80)) + 0.5 * rng.normal(size=(30, 80))
    S = np.corrcoef(X, rowvar=False)
    g = cv.greedy_select(S, target=1.0)
    assert g.r_target <= 29
    assert g.coverages[-1] == pytest.approx(1.0, abs=1e-8)
    full = cv.greedy_select(S)
    assert len(full.dependent) >= 80 - 29
    assert np.all(np.diff(full.coverages) >= -1e-12)


def test_greedy_target_and_r(rng, random_corr):
    S = random_corr(rng, 10)
    full = cv.greedy_select(S, target=0.8, r=10)
    r80 = full.r_target
    assert full.coverages[r80 - 1] >= 0.8 - 1e-10 and (r80 == 1 or full.coverages[r80 - 2] < 0.8)
    stop = cv.greedy_select(S, target=0.8)
    assert len(stop.order) == r80 and stop.order.tolist() == full.order[:r80].tolist()
    assert cv.greedy_select(S, r=3).order.tolist() == full.order[:3].tolist()
    assert full.subset(2) == full.selected[:2]
    assert list(full.frame().columns) == ["benchmark", "gain", "coverage"]


def test_greedy_ties_go_to_lowest_index():
    assert cv.greedy_select(np.eye(5)).order.tolist() == [0, 1, 2, 3, 4]


def test_duplicate_benchmarks_are_explained_not_fatal(rng, random_corr):
    S = random_corr(rng, 5)
    # column 5 duplicates column 1 (a perfectly correlated benchmark)
    D = np.zeros((6, 6))
    idx = [0, 1, 2, 3, 4, 1]
    D[:] = S[np.ix_(idx, idx)]
    g = cv.greedy_select(D, target=1.0, r=6)
    assert g.r_target == 5
    assert g.order[-1] in (1, 5) and g.order[-1] in g.dependent
    assert g.gains[-1] == pytest.approx(0.0, abs=1e-12)
    bf = cv.brute_force_optimum(D)
    assert bf.values[5] == pytest.approx(1.0)


def test_greedy_never_beats_brute_force(rng, random_corr):
    for _ in range(10):
        S = random_corr(rng, 8)
        g = cv.greedy_select(S)
        bf = cv.brute_force_optimum(S)
        assert np.all(g.coverages <= bf.values[1:] + 1e-12)
        assert bf.values[1] == pytest.approx(g.coverages[0])  # the first step is optimal
        # the optimum's subsets are consistent with their values
        for r in range(1, 9):
            assert cv.coverage(S, bf.subsets[r]) == pytest.approx(bf.values[r], abs=1e-10)


def test_greedy_orders_batch_matches_single(rng):
    stack = synthetic.random_correlations(20, 9, rng)
    orders, covs = cv.greedy_orders(stack, r=5)
    for b in range(20):
        g = cv.greedy_select(stack[b], r=5)
        assert orders[b].tolist() == g.order.tolist()
        np.testing.assert_allclose(covs[b], g.coverages, atol=1e-12)


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [0.0, -0.1, 1.5, float("nan")])
def test_bad_target(target):
    with pytest.raises(ValueError, match=r"target coverage must be in \(0, 1\]"):
        cv.greedy_select(np.eye(3), target=target)


@pytest.mark.parametrize("r", [0, 4, -1])
def test_bad_r(r):
    with pytest.raises(ValueError, match="cannot be selected from k = 3"):
        cv.greedy_select(np.eye(3), r=r)


def test_non_psd_raise_or_clip():
    A = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])  # not PSD
    assert np.linalg.eigvalsh(A)[0] < 0
    with pytest.raises(ValueError, match="not positive semi-definite.*psd='clip'"):
        cv.greedy_select(A)
    g = cv.greedy_select(A, psd="clip")
    assert g.projected
    P = cv.validate_sigma(A, psd="clip").sigma
    assert np.linalg.eigvalsh(P)[0] >= -1e-10
    np.testing.assert_allclose(np.diag(P), 1.0)
    assert g.coverages[-1] == pytest.approx(1.0)


def test_other_bad_matrices():
    with pytest.raises(ValueError, match="square"):
        cv.coverage(np.ones((2, 3)), [0])
    with pytest.raises(ValueError, match="not symmetric"):
        cv.coverage(np.array([[1.0, 0.2], [0.5, 1.0]]), [0])
    with pytest.raises(ValueError, match="NaN or infinite"):
        cv.coverage(np.array([[1.0, np.nan], [np.nan, 1.0]]), [0])
    with pytest.raises(ValueError, match="zero trace"):
        cv.coverage(np.zeros((3, 3)), [0])
    with pytest.raises(ValueError, match="exceeds 16"):
        cv.brute_force_optimum(np.eye(17))
    with pytest.raises(ValueError, match="psd='maybe' is not a policy"):
        cv.validate_sigma(np.eye(2), psd="maybe")


def test_random_correlations_are_correlations(rng):
    C = synthetic.random_correlations(50, 8, rng)
    np.testing.assert_allclose(np.einsum("bii->bi", C), 1.0)
    np.testing.assert_allclose(C, np.swapaxes(C, 1, 2))
    assert np.linalg.eigvalsh(C).min() > 0


def test_greedy_factored_equals_greedy_on_the_full_matrices():
    """Sigma = L L^T: the factored greedy picks the same benchmarks with the same coverage.

    r stays well below the rank: once the span is nearly complete every candidate's gain ties and the
    choice among them is rounding (in both implementations)."""
    rng = np.random.default_rng(11)
    for B, k, m in [(6, 12, 5), (4, 40, 40), (3, 200, 9), (5, 10, 25)]:
        L = rng.normal(size=(B, k, m)) * rng.uniform(0.2, 2.0, size=(1, 1, m))
        r = min(k, m) // 2
        o_full, c_full = cv.greedy_orders(L @ np.swapaxes(L, 1, 2), r)
        o_fac, c_fac = cv.greedy_orders_factored(L, r)
        np.testing.assert_array_equal(o_fac, o_full)
        np.testing.assert_allclose(c_fac, c_full, atol=1e-12)
    with pytest.raises(ValueError, match="factors"):
        cv.greedy_orders_factored(np.ones((3, 4)), 2)
    with pytest.raises(ValueError, match="cannot be selected"):
        cv.greedy_orders_factored(np.ones((1, 3, 2)), 4)
