"""blindspot.diagnose.robustness: d_eff against the population and the correlation method (App. H.6, H.16)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core.conventions import frontier_mask
from blindspot.core.spectrum import d_eff
from blindspot.data.suites import load_suite
from blindspot.data.tables import table_from_frame
from blindspot.diagnose import robustness as rb, verdicts


def _one_factor(rng, n=3000, k=8):
    return 0.8 * rng.normal(size=(n, 1)) + 0.6 * rng.normal(size=(n, k))


def test_threshold_curve_basics(rng):
    X = _one_factor(rng)
    c = rb.deff_vs_q(X, n_boot=30)
    assert c.table.loc[0.0, "d_eff"] == pytest.approx(d_eff(X))
    assert np.all(np.diff(c.table["n"].to_numpy()) <= 0)
    assert (c.table["lo"] <= c.table["hi"]).all()
    assert c.monotone  # one factor, large n: range restriction makes it rise


def test_decreases_are_found():
    assert rb.decreases([0, 0.1, 0.2, 0.3], [1.0, 2.0, 1.5, 3.0]) == [(0.1, 0.2, 0.5)]
    assert rb.decreases([0, 0.1], [1.0, 1.0]) == []


def test_curve_among_large_slices_drops_the_small_ones_and_their_decreases():
    table = pd.DataFrame({"q": [0.0, 0.1, 0.2, 0.3], "n": [100, 50, 25, 10], "d_eff": [1.0, 2.0, 3.0, 2.5]})
    table = table.set_index("q")
    c = rb.ThresholdCurve(table, rb.decreases(table.index, table["d_eff"]))
    assert c.decreases == [(0.2, 0.3, 0.5)] and not c.monotone
    big = c.among(20)
    assert big.monotone and list(big.table.index) == [0.0, 0.1, 0.2] and big.skipped == [0.3]
    assert not c.among(10).monotone
    with pytest.raises(ValueError, match="keeps 101 models"):
        c.among(101)


def test_small_slices_are_skipped(rng):
    c = rb.deff_vs_q(rng.normal(size=(30, 4)), qs=[0.0, 0.5, 0.9], min_n=8)
    assert c.skipped == [0.9] and list(c.table.index) == [0.0, 0.5]


def test_top_fraction_sweep_is_the_threshold_curve(rng):
    X = _one_factor(rng, n=500)
    s = rb.top_fraction_sweep(X, fractions=(0.5, 1.0, 0.2))
    assert s.table["fraction"].tolist() == [1.0, 0.5, 0.2]
    assert s.table["d_eff"].iloc[1] == pytest.approx(d_eff(X[frontier_mask(X, 0.5)]))


def test_method_agreement(rng):
    X = rng.multivariate_normal(np.zeros(5), 0.5 * np.eye(5) + 0.5, size=4000)
    a = rb.method_agreement(X)
    assert set(a.d_eff) == {"pearson", "spearman", "kendall_sin", "kendall_raw"}
    assert a.gap_to_pearson["kendall_sin"] < 0.1  # sin(pi tau / 2) is consistent for Gaussian data
    assert a.gap_to_pearson["kendall_raw"] > 0.3  # raw tau is on another scale
    assert a.max_gap == max(a.gap_to_pearson.values())
    # Spearman is invariant to monotone column transforms
    Y = X.copy()
    Y[:, 0] = np.exp(Y[:, 0])
    assert rb.method_agreement(Y).d_eff["spearman"] == pytest.approx(a.d_eff["spearman"])


def test_imputed_submatrix_on_a_toy_frame():
    df = pd.DataFrame(
        {"a": [1.0, 2.0, np.nan, 4.0], "b": [1.0, np.nan, 3.0, 5.0], "c": [np.nan] * 3 + [1.0]}, index=list("wxyz")
    )
    im = rb.imputed_submatrix(df, min_benchmark_obs=3, min_model_obs=1)
    assert list(im.scores.columns) == ["a", "b"] and im.shape == (4, 2)
    assert im.imputed_fraction == pytest.approx(2 / 8)
    assert im.scores.loc["y", "a"] == pytest.approx(7 / 3) and im.scores.loc["x", "b"] == pytest.approx(3.0)
    assert im.complete_rows() == 2 and im.max_observed_per_model == 2
    with pytest.raises(ValueError, match="benchmark"):
        rb.imputed_submatrix(df, min_benchmark_obs=5)


def test_residualize_is_orthogonal_to_the_covariate(rng):
    c = rng.normal(size=100)
    X = np.outer(c, rng.normal(size=4)) + rng.normal(size=(100, 4))
    Rz = rb.residualize(X, c)
    assert np.abs(Rz.T @ c).max() < 1e-9 and np.abs(Rz.mean(axis=0)).max() < 1e-12
    with pytest.raises(ValueError, match="constant"):
        rb.residualize(X, np.ones(100))
    with pytest.raises(ValueError, match="NaN"):
        rb.residualize(X, np.r_[np.nan, c[1:]])


def test_family_rule_and_best_per_family(rng):
    assert rb.family_key("Qwen/Qwen2.5-72B-Instruct") == "Qwen/Qwen2.5"
    assert rb.family_key("meta-llama/Llama-3-8B") == "meta-llama/Llama"
    names = ["o/A-1", "o/A-2", "o/B-1", "p/A-9"]
    df = pd.DataFrame({"model": names, "x": [1.0, 5.0, 2.0, 3.0], "y": [1.0, 5.0, 2.0, 0.0]})
    best = rb.family_best(table_from_frame(df))
    assert sorted(best.scores.index) == ["o/A-2", "o/B-1", "p/A-9"]


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda X: rb.deff_vs_q(X, qs=[0.5, 0.2]), "increasing"),
        (lambda X: rb.deff_vs_q(X, qs=[1.0]), "increasing and in"),
        (lambda X: rb.deff_vs_q(X, min_n=2), "min_n"),
        (lambda X: rb.deff_vs_q(X[:9], qs=[0.5], min_n=8), "every threshold"),
        (lambda X: rb.top_fraction_sweep(X, fractions=(0.0,)), "fractions"),
    ],
)
def test_bad_input(rng, call, match):
    with pytest.raises(ValueError, match=match):
        call(rng.normal(size=(40, 5)))


def test_nan_scores_raise(rng):
    X = rng.normal(size=(40, 5))
    X[2, 2] = np.nan
    with pytest.raises(ValueError, match="missing or infinite"):
        rb.deff_vs_q(X)


def test_paper_populations(data_dir):
    full = load_suite("ollm_v2_full", data_dir=data_dir, fallback=False)
    s = rb.top_fraction_sweep(full)
    assert s.table["d_eff"].round(2).tolist() == [1.78, 1.96, 2.19, 2.33, 2.45, 3.17, 3.94]
    ext = rb.deff_vs_q(load_suite("extended", data_dir=data_dir, fallback=False))
    assert [(a, b) for a, b, _ in ext.decreases] == [(0.5, 0.6), (0.8, 0.9)]
    im = rb.imputed_submatrix(load_suite("epoch", data_dir=data_dir, fallback=False))
    assert im.shape == (49, 31) and round(d_eff(im.scores), 2) == 7.12


def test_mean_imputation_inflates_deff(rng):
    X = _one_factor(rng, n=400, k=8)
    base = d_eff(X)
    out = rb.imputation_inflation(X, 0.6, reps=5, seed=1)
    assert out.shape == (5,) and np.all(out > base)
    assert rb.imputation_inflation(X, 0.0, reps=2) == pytest.approx([base, base])
    with pytest.raises(ValueError, match="missing_fraction"):
        rb.imputation_inflation(X, 1.0)


def _two_regime_population(n: int, seed: int) -> np.ndarray:
    """Models whose mean score orders them; the top half has independent benchmarks (d_eff near k) and
    the bottom half one shared factor (d_eff near 1): the slice at q = 0.5 is far more spread out."""
    rng = np.random.default_rng(seed)
    k = 5
    level = np.sort(rng.normal(size=n))
    noise_low = rng.normal(size=(n, 1)) + 0.1 * rng.normal(size=(n, k))
    noise_high = rng.normal(size=(n, k))
    top = level >= np.median(level)
    X = np.where(top[:, None], noise_high, noise_low) * 0.3 + 10 * level[:, None]
    return X


def test_step_changes_resample_each_step_in_pairs_and_match_the_curve():
    X = _two_regime_population(400, seed=3)
    curve = rb.deff_vs_q(X, (0.0, 0.5, 0.8), min_n=8)
    steps = rb.step_changes(X, curve, n_boot=300, seed=0)
    t = steps.table
    assert list(t["q_from"]) == [0.0, 0.5] and list(t["q_to"]) == [0.5, 0.8]
    assert np.allclose(t["change"], np.diff(curve.table["d_eff"]))  # the point is the curve's own step
    assert (t["lo"] <= t["change"]).all() and (t["change"] <= t["hi"]).all()
    assert list(t["n_from"]) == [400, 200] and (t["resamples"] == 300).all()
    again = rb.step_changes(X, curve, n_boot=300, seed=0)
    pd.testing.assert_frame_equal(t, again.table)  # seeded
    with pytest.raises(ValueError, match="at least 100 resamples"):
        rb.step_changes(X, curve, n_boot=50)


def test_weighted_d_eff_equals_d_eff_of_the_repeated_rows():
    """A resample as row counts gives the d_eff of the matrix with each row repeated that many times."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4)) @ rng.normal(size=(4, 4))
    W = rng.integers(0, 3, size=(3, 60)).astype(float)
    got = rb._weighted_deff(X, W)
    want = [d_eff(np.repeat(X, w.astype(int), axis=0)) for w in W]
    assert np.allclose(got, want, rtol=1e-10)


def test_a_planted_dip_fails_a_planted_rise_holds_and_a_dip_within_the_noise_is_not_resolved():
    """Planted: the top half is one-factor (low d_eff) under a spread-out bottom half, so the step to
    q = 0.5 is a real decrease and monotonicity fails; the mirror image rises and holds. A dip whose interval
    straddles zero is not resolved; judged only up to a threshold before it, the curve holds."""
    X = _two_regime_population(400, seed=3)
    rise = rb.deff_vs_q(X, (0.0, 0.5), min_n=8)
    v = verdicts.monotone_by_steps(rb.step_changes(X, rise, n_boot=300, seed=0), "planted rise")
    assert not rise.decreases and v.holds is True
    Xrev = -X[::-1]  # the one-factor models now score highest
    curve = rb.deff_vs_q(Xrev, (0.0, 0.5), min_n=8)
    v = verdicts.monotone_by_steps(rb.step_changes(Xrev, curve, n_boot=300, seed=0), "planted dip")
    assert curve.decreases and v.holds is False and v.basis == "statistical" and v.test.interval[1] < 0
    assert "significant decreases at q = 0 to 0.5" in v.evidence
    table = pd.DataFrame(
        {"q_from": [0.0, 0.1], "q_to": [0.1, 0.2], "n_from": [50, 45], "n_to": [45, 40],
         "change": [0.2, -0.1], "lo": [0.05, -0.4], "hi": [0.4, 0.2], "resamples": [200, 200]}
    )  # fmt: skip
    within = verdicts.monotone_by_steps(rb.StepChanges(table, 200, 0.95), "noise")
    assert within.holds is None and within.test.estimate == -0.1 and "no dip is larger" in within.evidence
    assert verdicts.monotone_by_steps(rb.StepChanges(table, 200, 0.95), "x", q_max=0.1).holds is True


def test_method_gap_intervals_cover_the_gap_and_the_rule_calls_a_planted_gap():
    """Heavy-tailed benchmarks (Pearson and Spearman disagree) against Gaussian ones (they agree): the
    interval holds the data's own gap; the planted gap is resolved above a small threshold, the Gaussian
    one below a large threshold."""
    rng = np.random.default_rng(7)
    z = rng.normal(size=(600, 1))
    gauss = z + rng.normal(size=(600, 4))
    heavy = np.exp(1.5 * (z + 0.5 * rng.normal(size=(600, 4))))  # monotone transform: ranks unchanged
    iv = rb.method_gap_intervals({"gauss": gauss, "heavy": heavy}, methods=("spearman",), n_boot=200, seed=0)
    assert ((iv["lo"] <= iv["gap"]) & (iv["gap"] <= iv["hi"])).all() and (iv["resamples"] == 200).all()
    assert iv.loc["heavy", "gap"] > iv.loc["gauss", "gap"]
    planted = verdicts.gaps_within(iv.loc[["heavy"]], threshold=0.1, what="|P - S|", n_boot=200)
    assert planted.holds is False and planted.basis == "statistical"
    agree = verdicts.gaps_within(iv.loc[["gauss"]], threshold=1.0, what="|P - S|", n_boot=200)
    assert agree.holds is True
    with pytest.raises(ValueError, match="rank methods"):
        rb.method_gap_intervals({"g": gauss}, methods=("pearson",))


def test_the_crossing_fraction_is_found_on_a_known_curve_and_judged_against_a_band():
    X = _two_regime_population(400, seed=3)
    curve = rb.deff_vs_q(X, np.round(np.arange(0, 0.85, 0.1), 10), min_n=8)
    d = curve.table["d_eff"].to_numpy()
    value = float((d.min() + d.max()) / 2)
    est, lo, hi = rb.crossing_fraction(X, curve, value, min_fraction=0.1, n_boot=200, seed=0)
    f = curve.table["fraction"].to_numpy()
    order = np.argsort(d)
    assert est == pytest.approx(np.interp(value, d[order], f[order])) and lo <= est <= hi
    assert verdicts.crossing_in_band((est, lo, hi), (lo - 0.01, hi + 0.01), 200, "x").holds is True
    assert verdicts.crossing_in_band((est, lo, hi), (hi + 0.01, hi + 0.1), 200, "x").holds is False
    assert verdicts.crossing_in_band((est, lo, hi), (est, hi + 0.1), 200, "x").holds is None


def test_frontier_above_all_models_is_judged_on_every_suite_with_intervals():
    """Spread-out top half: the frontier's d_eff exceeds all models' (holds); one suite whose top half is
    one-factor makes the statement fail; the test named is the suite with the smallest gap."""
    X = _two_regime_population(400, seed=3)

    def one_step(M: np.ndarray) -> rb.StepChanges:
        return rb.step_changes(M, rb.deff_vs_q(M, (0.0, 0.5), min_n=3), n_boot=200, level=1 - 0.05 / 2)

    up = {"a": one_step(X), "b": one_step(_two_regime_population(400, seed=4))}
    v = verdicts.frontier_exceeds_full_by_test(up)
    assert v.holds is True and "Bonferroni over 2 suites" in v.test.name
    down = {"a": one_step(X), "rev": one_step(-X[::-1])}
    v = verdicts.frontier_exceeds_full_by_test(down)
    assert v.holds is False and v.test.estimate == pytest.approx(down["rev"].table["change"].iloc[0])
