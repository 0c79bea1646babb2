"""blindspot.core.spectrum: Theorem 1's d_eff, the MP correction and the bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from blindspot.core import spectrum as sp


def test_identity_gives_k_and_rank_one_gives_1():
    assert sp.participation_ratio(np.linalg.eigvalsh(np.eye(7))) == pytest.approx(7.0)
    assert sp.participation_ratio(np.linalg.eigvalsh(np.ones((5, 5)))) == pytest.approx(1.0)


def test_identity_from_orthogonal_data():
    # columns of a centred Hadamard-like design are exactly uncorrelated
    H = np.array([[1, 1, 1, 1], [1, -1, 1, -1], [1, 1, -1, -1], [1, -1, -1, 1]], float)[:, 1:]
    assert sp.d_eff(np.vstack([H, H])) == pytest.approx(3.0)


@pytest.mark.parametrize("k,rho", [(2, 0.5), (6, 0.3), (12, 0.8), (12, -0.05)])
def test_equicorrelated_closed_form(k, rho):
    C = np.full((k, k), rho) + (1 - rho) * np.eye(k)
    assert sp.participation_ratio(np.linalg.eigvalsh(C)) == pytest.approx(k / (1 + (k - 1) * rho**2), rel=1e-12)


def test_blocks_of_identical_columns(rng):
    base = rng.normal(size=(400, 3))
    X = np.repeat(base, [2, 3, 4], axis=1)
    X = X + 1e-9 * rng.normal(size=X.shape)  # avoid exact ties, keep blocks perfectly correlated
    # independent blocks of sizes 2, 3, 4 -> eigenvalues ~ (2, 3, 4, 0...) -> (9^2)/(4+9+16)
    assert sp.d_eff(X) == pytest.approx(81 / 29, rel=0.05)


def test_frobenius_form_equals_eigen_form(rng):
    X = rng.normal(size=(60, 8)) @ rng.normal(size=(8, 8))
    C = sp.correlation(X)
    assert sp.d_eff(X) == pytest.approx(8**2 / np.sum(C**2), rel=1e-12)


def test_invariances(rng):
    X = rng.normal(size=(80, 5)) @ rng.normal(size=(5, 5))
    d = sp.d_eff(X)
    a, b = rng.uniform(0.1, 10, 5), rng.normal(size=5)
    assert sp.d_eff(X * a + b) == pytest.approx(d, rel=1e-10)  # positive affine per column
    assert sp.d_eff(X[rng.permutation(80)]) == pytest.approx(d, rel=1e-10)  # row order
    assert sp.d_eff(X[:, rng.permutation(5)]) == pytest.approx(d, rel=1e-10)  # column order
    mono = np.column_stack([np.exp(X[:, 0]), X[:, 1] ** 3, X[:, 2:]])
    assert sp.d_eff(mono, "spearman") == pytest.approx(sp.d_eff(X, "spearman"), rel=1e-12)


def test_bounds(rng):
    for n in (5, 20, 200):
        X = rng.normal(size=(n, 10))
        d = sp.d_eff(X)
        assert 1 <= d <= min(10, n - 1) + 1e-9


def test_spearman_matches_scipy(rng):
    X = rng.normal(size=(40, 4))
    np.testing.assert_allclose(sp.correlation(X, "spearman"), stats.spearmanr(X).statistic, atol=1e-12)


def test_kendall_sin_close_to_pearson_for_gaussian(rng):
    L = np.linalg.cholesky(np.array([[1, 0.6, 0.3], [0.6, 1, 0.5], [0.3, 0.5, 1]]))
    X = rng.normal(size=(3000, 3)) @ L.T
    np.testing.assert_allclose(sp.correlation(X, "kendall_sin"), sp.correlation(X), atol=0.03)
    raw = sp.correlation(X, "kendall_raw")
    assert raw[0, 1] == pytest.approx(stats.kendalltau(X[:, 0], X[:, 1]).statistic)


def test_bad_inputs():
    with pytest.raises(ValueError, match="unknown correlation method"):
        sp.correlation(np.ones((4, 2)), "cosine")
    X = np.column_stack([np.arange(5.0), np.full(5, 2.0)])
    with pytest.raises(ValueError, match="constant"):
        sp.d_eff(X)
    with pytest.raises(ValueError, match="at least 3 models"):
        sp.d_eff(np.ones((2, 3)))
    with pytest.raises(ValueError, match="missing or infinite"):
        sp.d_eff(np.array([[1.0, 2], [np.nan, 1], [3, 4]]))
    with pytest.raises(ValueError, match="all eigenvalues are zero"):
        sp.participation_ratio(np.zeros(3))


def test_mp_edges_formula():
    lo, hi = sp.mp_edges(148, 12)
    g = 12 / 148
    assert (lo, hi) == pytest.approx(((1 - g**0.5) ** 2, (1 + g**0.5) ** 2))
    with pytest.raises(ValueError):
        sp.mp_edges(0, 3)


def test_mp_density_integrates_to_one():
    from scipy.integrate import quad

    g = 0.25
    lo, hi = sp.mp_edges(100, 25)
    total, _ = quad(lambda x: sp.mp_density(np.array([x]), g)[0], lo, hi)
    assert total == pytest.approx(1.0, abs=1e-6)


def test_null_spectrum_stays_in_bulk():
    """Marchenko–Pastur: i.i.d. normal, n = 2000, k = 200: < 1% outside the bulk, mean max near lambda_+."""
    lam = sp.null_eigenvalues(2000, 200, n_rep=3, seed=0)
    lo, hi = sp.mp_edges(2000, 200)
    assert ((lam < lo * 0.98) | (lam > hi * 1.02)).mean() < 0.01
    assert lam[:, 0].mean() == pytest.approx(hi, rel=0.03)


def test_spiked_model_has_one_signal(rng):
    n, k = 500, 20
    X = rng.normal(size=(n, k)) + 1.5 * rng.normal(size=(n, 1))  # one common factor, strong spike
    mp = sp.mp_correction(X)
    assert mp.n_sig == 1 and mp.defined and mp.d_eff_mp == pytest.approx(1.0)


def test_mp_undefined_and_bounded(rng):
    mp = sp.mp_correction(rng.normal(size=(2000, 5)))
    assert mp.n_sig == 0 and not mp.defined and np.isnan(mp.d_eff_mp) and "undefined" in mp.reason
    X = rng.normal(size=(300, 10)) + rng.normal(size=(300, 2)) @ (2 * rng.normal(size=(2, 10)))
    mp = sp.mp_correction(X)
    assert 1 <= mp.d_eff_mp <= mp.n_sig


def _bootstrap_loop(X, B, seed):
    """Brute-force reference: one resample at a time, dropping constant columns."""
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    out = []
    for _ in range(B):
        R = X[rng.integers(0, n, n)]
        R = R[:, R.std(axis=0) > 1e-12]
        lam = np.linalg.eigvalsh(np.corrcoef(R, rowvar=False))
        out.append(lam.sum() ** 2 / (lam**2).sum())
    return np.array(out)


def test_bootstrap_matches_loop_and_is_deterministic(rng):
    X = rng.normal(size=(31, 6)) @ rng.normal(size=(6, 6))
    X[:, 5] = np.where(np.arange(31) < 2, 1.0, 0.0)  # nearly constant: some resamples drop it
    b1 = sp.bootstrap_d_eff(X, n_boot=200, seed=3, batch=64)
    b2 = sp.bootstrap_d_eff(X, n_boot=200, seed=3)
    np.testing.assert_array_equal(b1.samples, b2.samples)
    np.testing.assert_allclose(b1.samples, _bootstrap_loop(X, 200, 3), rtol=1e-10)
    assert b1.lo <= np.median(b1.samples) <= b1.hi
    b3 = sp.bootstrap_d_eff(X, n_boot=200, seed=4)
    assert not np.array_equal(b1.samples, b3.samples)


def test_bootstrap_spearman_and_errors(rng):
    X = rng.normal(size=(40, 4))
    b = sp.bootstrap_d_eff(X, n_boot=50, method="spearman")
    assert b.point == pytest.approx(sp.d_eff(X, "spearman"))
    with pytest.raises(ValueError, match="n_boot"):
        sp.bootstrap_d_eff(X, n_boot=1)
    with pytest.raises(ValueError, match="method"):
        sp.bootstrap_d_eff(X, method="kendall_sin")


def test_table1_reproduces(data_dir):
    """Table 1: d_eff to 3 decimals on the paper's data."""
    from blindspot import data
    from blindspot.diagnose import tables

    tabs = {s: data.load_suite(s, data_dir=data_dir, fallback=False) for s in ("ollm_v2", "extended", "livebench")}
    t = tables.deff_table(tables.full_and_frontier(tabs), n_boot=20)
    expect = {
        ("ollm_v2", "full"): 1.883,
        ("ollm_v2", "frontier"): 2.863,
        ("extended", "full"): 2.108,
        ("extended", "frontier"): 4.802,
        ("livebench", "full"): 2.633,
        ("livebench", "frontier"): 4.739,
    }
    for key, v in expect.items():
        assert t.loc[key, "d_eff"] == pytest.approx(v, abs=5e-4)
    assert t.loc[("extended", "frontier"), "n"] == 148


# ---------------------------------------------------------------------------------------------
# bounded-memory bootstrap: every path gives the numbers of the per-resample loop


def test_bootstrap_gram_form_when_benchmarks_outnumber_models(rng):
    X = rng.normal(size=(12, 30)) @ rng.normal(size=(30, 30))
    b = sp.bootstrap_d_eff(X, n_boot=120, seed=5)
    np.testing.assert_allclose(b.samples, _bootstrap_loop(X, 120, 5), rtol=1e-9)
    assert b.point == pytest.approx(sp.d_eff(X), rel=1e-10)


def test_bootstrap_row_chunked_moments_agree(rng, monkeypatch):
    X = rng.normal(size=(60, 7)) @ rng.normal(size=(7, 7))
    ref = sp.bootstrap_d_eff(X, n_boot=90, seed=2)
    monkeypatch.setattr(sp, "RESAMPLE_BYTES", 4_000)  # forces the counts path, tiny batches and row chunks
    small = sp.bootstrap_d_eff(X, n_boot=90, seed=2)
    np.testing.assert_allclose(small.samples, ref.samples, rtol=1e-6)  # single-precision products


def test_resampled_moments_match_double_precision(rng):
    X = rng.normal(50, 15, size=(5000, 9)) @ rng.normal(size=(9, 9))
    Xc = X - X.mean(axis=0)
    counts = sp.resample_counts(np.random.default_rng(0), 5000, 6)
    C, ok = sp.resampled_correlations(Xc, counts)
    for b in range(6):
        R = np.repeat(X, counts[b], axis=0)
        np.testing.assert_allclose(C[b], np.corrcoef(R, rowvar=False), atol=1e-6)
    assert ok.all()


def test_bootstrap_memory_does_not_grow_with_resamples_or_models(rng):
    import tracemalloc

    def peak(n, n_boot):
        X = rng.normal(size=(n, 40))
        tracemalloc.start()
        tracemalloc.reset_peak()
        sp.bootstrap_d_eff(X, n_boot=n_boot, seed=0)
        p = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return p - X.nbytes

    budget = sp.RESAMPLE_BYTES
    assert peak(20_000, 40) < 1.5 * budget
    assert peak(20_000, 400) < 1.5 * budget
    assert peak(60_000, 40) < 1.5 * budget


def test_bootstrap_with_a_handful_of_models_skips_degenerate_resamples(rng):
    X = rng.normal(size=(3, 4))
    b = sp.bootstrap_d_eff(X, n_boot=300, seed=1)
    assert b.n_degenerate == int(np.isnan(b.samples).sum()) > 0  # all rows identical: 1 in 9 resamples
    assert np.isfinite([b.lo, b.hi]).all() and 1 - 1e-9 <= b.lo <= b.hi <= 4


def test_correlation_eigenvalues_from_the_gram_side(rng):
    X = rng.normal(size=(9, 25))
    lam = sp.correlation_eigenvalues(X)
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))[::-1], atol=1e-10)
    assert sp.spectrum_any_shape(X).d_eff == pytest.approx(sp.d_eff(X), rel=1e-10)
    X[:, 3] = 1.0
    with pytest.raises(ValueError, match="constant"):
        sp.correlation_eigenvalues(X)


def test_kendall_tau_b_all_pairs_equals_scipy_with_ties_and_in_blocks():
    """The sign-vector cosine is scipy's tau-b, ties included, whatever the block size."""
    from scipy import stats

    from blindspot.core.spectrum import kendall_tau_b

    rng = np.random.default_rng(4)
    X = rng.normal(size=(57, 5)) @ rng.normal(size=(5, 5))
    X[:, 2] = np.round(X[:, 2])  # ties
    want = np.array([[stats.kendalltau(X[:, a], X[:, b]).statistic for b in range(5)] for a in range(5)])
    assert np.allclose(kendall_tau_b(X), want, atol=1e-12)
    assert np.allclose(kendall_tau_b(X, chunk_pairs=7), want, atol=1e-12)
