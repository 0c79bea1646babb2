"""blindspot.treat.selector_comparison and ridge_loo: greedy coverage against random subsets + ridge."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.linear_model import Ridge, RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from blindspot.core.conventions import frontier_mask
from blindspot.data.tables import ScoreTable
from blindspot.treat import selector_comparison as sc, verdicts
from blindspot.treat.ridge_loo import ALPHAS, ridge_loo


def _two_latent(rng, n=80, K=6):
    """Every benchmark an exact (generic) linear combination of two latent abilities: rank 2."""
    return rng.normal(size=(n, 2)) @ rng.normal(size=(2, K)) + 50.0


def _noisy(rng, n=90, K=6, noise=0.6):
    L = rng.normal(size=(K, 2))
    return rng.normal(size=(n, 2)) @ L.T + noise * rng.normal(size=(n, K))


def _table(Z, name):
    cols = [f"b{j}" for j in range(Z.shape[1])]
    return ScoreTable(pd.DataFrame(Z, columns=cols), pd.DataFrame(index=range(len(Z))), name, "test")


# -- ridge with leave-one-out ---------------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 3, 5])
def test_ridge_loo_equals_scikit_learn_ridgecv(rng, p):
    B, n, m = 3, 30, 4
    A = rng.normal(size=(B, n, p)) * rng.uniform(0.5, 20, size=p)
    Y = A[0] @ rng.normal(size=(p, m)) + rng.normal(size=(n, m))
    At = rng.normal(size=(B, 7, p))
    res = ridge_loo(A, Y, At)
    for b in range(B):
        ref = make_pipeline(StandardScaler(), RidgeCV(alphas=ALPHAS, alpha_per_target=True)).fit(A[b], Y)
        np.testing.assert_allclose(res.predictions[b], ref.predict(At[b]), atol=1e-9)
        np.testing.assert_allclose(res.alpha[b], ref[-1].alpha_)


def test_ridge_loo_mse_equals_refitting_without_each_model(rng):
    # the closed form e_i / (1 - H_ii) against n refits (features standardised once on all training rows)
    n, p, m, alpha = 25, 3, 2, 3.0
    A = rng.normal(size=(n, p))
    Y = A @ rng.normal(size=(p, m)) + rng.normal(size=(n, m))
    res = ridge_loo(A[None], Y, A[None, :1], alphas=np.array([alpha]))
    Z = (A - A.mean(0)) / A.std(0)
    errs = np.empty((n, m))
    for i in range(n):
        keep = np.arange(n) != i
        fit = Ridge(alpha=alpha).fit(Z[keep], Y[keep])
        errs[i] = Y[i] - fit.predict(Z[i : i + 1])[0]
    np.testing.assert_allclose(res.loo_mse[0], (errs**2).mean(axis=0), rtol=1e-10)


def test_ridge_loo_refuses_bad_input(rng):
    A = rng.normal(size=(2, 10, 2))
    with pytest.raises(ValueError, match="missing"):
        ridge_loo(np.where(A > 2, np.nan, A), rng.normal(size=(10, 3)), A[:, :2])
    with pytest.raises(ValueError, match="positive"):
        ridge_loo(A, rng.normal(size=(10, 3)), A[:, :2], alphas=np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="3 training rows"):
        ridge_loo(A[:, :2], rng.normal(size=(2, 3)), A[:, :2])
    with pytest.raises(ValueError, match="do not match"):
        ridge_loo(A, rng.normal(size=(9, 3)), A[:, :2])


# -- Kendall tau, vectorised ----------------------------------------------------------------------------
@pytest.mark.parametrize("block_bytes", [2**25, 1])
def test_kendall_tau_b_pairs_equals_scipy_with_ties(rng, block_bytes):
    x = rng.normal(size=(40, 25))
    y = x + rng.normal(size=(40, 25))
    x[3, :6] = 0.0
    y[5] = np.round(y[5])
    y[9] = 1.0  # constant: undefined
    ref = np.array([stats.kendalltau(a, b).statistic for a, b in zip(x, y)])
    got = sc.kendall_tau_b_pairs(x, y, block_bytes=block_bytes)
    np.testing.assert_allclose(got, ref, atol=1e-12, equal_nan=True)
    assert np.isnan(got[9])


# -- splits -------------------------------------------------------------------------------------------
def test_extrapolation_fits_below_the_frontier_and_predicts_it(rng):
    X = _noisy(rng, n=60)
    front = frontier_mask(X)
    ex, n_tr, n_te = sc.model_splits(X, "extrapolation", n_splits=5, seed=1)
    inter, n_tr2, n_te2 = sc.model_splits(X, "interpolation", n_splits=5, seed=1)
    assert (n_tr, n_te) == (n_tr2, n_te2) == (int(0.8 * (~front).sum()), int(0.8 * front.sum()))
    for tr, te in ex:
        assert not front[tr].any() and front[te].all()
    for tr, te in inter:
        assert len(tr) == n_tr and len(te) == n_te and not set(tr) & set(te)
    assert any(front[tr].any() for tr, _ in inter)  # a random split mixes the frontier in


def test_max_models_caps_each_side(rng):
    X = _noisy(rng, n=200)
    _, n_tr, n_te = sc.model_splits(X, "interpolation", n_splits=1, max_models=30)
    assert (n_tr, n_te) == (30, 30)


# -- the planted answer --------------------------------------------------------------------------------
def test_rank_two_table_any_two_benchmarks_predict_the_rest(rng):
    X = _two_latent(rng)
    c = sc.compare_selectors(X, "interpolation", n_splits=4, n_random=15)
    w = c.wide("r2")
    assert (w.loc[2:] > 0.999).all().all()  # every selector, random included, from k = 2 on
    assert (w.loc[1] < 0.99).all()  # one benchmark cannot carry two directions
    assert (c.wide("tau").loc[2:] > 0.99).all().all()
    assert (c.wide("top1").loc[2:] == 1.0).all().all()
    assert (c.wide("mae").loc[2:] < 1e-2).all().all()


def test_prediction_greedy_takes_the_hub_first(rng):
    # benchmark 0 is the sum of four independent ones: it alone predicts something of each of the others
    Z = rng.normal(size=(120, 4))
    X = np.column_stack([Z.sum(axis=1), Z])
    assert sc.prediction_greedy_order(X)[0] == 0


def test_column_order_does_not_change_the_comparison(rng):
    # facility location and max-diversity break their (structural) ties by column order, as the paper's rules
    # do: max-diversity starts at argmax diag Sigma, all ones; facility location's gains tie whenever two
    # candidates improve the same rows. Every other selector, and the exact random mean, must not move.
    X = _noisy(rng, n=70, K=5)
    names = [f"b{j}" for j in range(5)]
    perm = [3, 0, 4, 1, 2]
    kw = dict(n_splits=3, n_random=10, seed=2)  # every subset enumerated: the random mean is exact too
    a = sc.compare_selectors(pd.DataFrame(X, columns=names), "interpolation", **kw)
    b = sc.compare_selectors(pd.DataFrame(X[:, perm], columns=[names[j] for j in perm]), "interpolation", **kw)
    free = ["coverage_greedy", "pca_greedy", "prediction_greedy", "random"]
    key = ["split", "selector", "k"]

    def part(frame, cols):
        return frame[frame.selector.isin(free)].sort_values(cols).reset_index(drop=True)

    pd.testing.assert_frame_equal(part(a.splits, key), part(b.splits, key), atol=1e-9)
    pd.testing.assert_frame_equal(
        part(a.orders, ["split", "selector", "position"]), part(b.orders, ["split", "selector", "position"])
    )
    pb = ["selector", "k", "benchmark"]
    pd.testing.assert_frame_equal(part(a.per_benchmark, pb), part(b.per_benchmark, pb), atol=1e-9)


def test_results_frames_have_their_documented_columns(rng):
    c = sc.compare_selectors(_noisy(rng), "extrapolation", n_splits=2, n_random=5)
    assert list(c.splits.columns) == list(sc.SPLIT_COLUMNS)
    assert list(c.draws.columns) == [*sc.SPLIT_COLUMNS, "draw"]
    assert list(c.per_benchmark.columns) == list(sc.PER_BENCHMARK_COLUMNS)
    assert c.ks == (1, 2, 3, 4, 5)
    assert set(c.splits.selector) == set(sc.SELECTORS)
    cur = c.curves("r2")
    assert (cur["lo"] <= cur["mean"] + 1e-12).all() and (cur["mean"] <= cur["hi"] + 1e-12).all()
    assert cur.loc["random", "draw_lo"].notna().all() and cur.loc["coverage_greedy", "draw_lo"].isna().all()


def test_refusals(rng):
    X = _noisy(rng)
    with pytest.raises(ValueError, match="missing"):
        sc.compare_selectors(np.where(X > 2, np.nan, X))
    with pytest.raises(ValueError, match="budgets"):
        sc.compare_selectors(X, ks=[0, 2])
    with pytest.raises(ValueError, match="budgets"):
        sc.compare_selectors(X, ks=[6])
    with pytest.raises(ValueError, match="regime"):
        sc.compare_selectors(X, regime="frontier")
    with pytest.raises(ValueError, match="at least 5 and 3"):
        sc.compare_selectors(X[:8])
    with pytest.raises(ValueError, match="n_random"):
        sc.compare_selectors(X, n_random=0)
    c = sc.compare_selectors(X, n_splits=2, n_random=3)
    with pytest.raises(ValueError, match="selector"):
        c.paired("greedy", "random")
    with pytest.raises(ValueError, match="metric"):
        c.wide("rmse")


def test_suites_skip_what_cannot_be_compared_and_drop_incomplete_models(rng):
    X = _noisy(rng, n=40)
    X[0, 1] = np.nan

    res = sc.compare_suites({"a": _table(X, "a"), "tiny": _table(_noisy(rng, n=8), "tiny")}, n_splits=2, n_random=3)
    assert res.tables["a"].n_models == 39 and any("missing" in n for n in res.tables["a"].notes)
    assert set(res.results) == {("a", "interpolation"), ("a", "extrapolation")}
    assert set(res.skipped) == {("tiny", "interpolation"), ("tiny", "extrapolation")}
    assert list(res.summary().columns) == list(sc.SUMMARY_COLUMNS)
    assert res.curve_table("r2").index.names == ["suite", "regime", "k"]
    with pytest.raises(ValueError, match="14 complete models"):
        sc.compare_suites({"tiny": _table(_noisy(rng, n=8), "tiny")}, n_splits=2, n_random=3)


# -- verdicts on planted per-split values -------------------------------------------------------------
def _fake(regime: str, values: dict[str, np.ndarray], metric: str = "r2") -> sc.SelectorComparison:
    rows = []
    for sel in sc.SELECTORS:
        v = values.get(sel, values["random"])
        for s, x in enumerate(v):
            for k in (1, 2):
                row = dict.fromkeys(sc.METRICS, 0.5)
                row[metric] = x
                rows.append({"split": s, "selector": sel, "k": k, **row})
    splits = pd.DataFrame(rows)[list(sc.SPLIT_COLUMNS)]
    draws = splits[splits.selector == "random"].assign(draw=0)
    return sc.SelectorComparison(
        splits, draws, pd.DataFrame(), pd.DataFrame(), regime, ("a", "b", "c"), 10, 10, len(v), 1, 0, "fake"
    )


def test_greedy_vs_random_follows_the_calibrated_rule(rng):
    base = rng.normal(0.5, 0.01, size=40)
    ahead = verdicts.greedy_vs_random(_fake("interpolation", {"random": base, "coverage_greedy": base + 0.1}))
    behind = verdicts.greedy_vs_random(_fake("interpolation", {"random": base, "coverage_greedy": base - 0.3}))
    spread = rng.normal(0.0, 0.5, size=40)
    unclear = verdicts.greedy_vs_random(_fake("interpolation", {"random": base, "coverage_greedy": base + spread}))
    assert (ahead.holds, behind.holds, unclear.holds) == (True, False, None)
    assert ahead.basis == "statistical" and ahead.test.interval[0] > 0


def test_random_as_good_as_any_fails_when_some_selector_is_clearly_better(rng):
    base = rng.normal(0.5, 0.01, size=30)
    better = verdicts.random_as_good_as_any(_fake("interpolation", {"random": base, "pca_greedy": base + 0.2}))
    equal = verdicts.random_as_good_as_any(_fake("interpolation", {"random": base}))
    assert better.holds is False and "pca_greedy" in better.evidence
    assert equal.holds is True


def test_extrapolation_verdicts_need_the_extrapolation_regime(rng):
    c = _fake("interpolation", {"random": rng.normal(size=10)})
    with pytest.raises(ValueError, match="extrapolation"):
        verdicts.extrapolation_fails(c)
    with pytest.raises(ValueError, match="extrapolation"):
        verdicts.coverage_keeps_ranking(c)
    low = _fake("extrapolation", {"random": rng.normal(-1.0, 0.05, size=20)})
    assert verdicts.extrapolation_fails(low).holds is True
    high = _fake("extrapolation", {"random": rng.normal(0.6, 0.05, size=20)})
    assert verdicts.extrapolation_fails(high).holds is False
    tau = _fake("extrapolation", {"random": np.full(20, 0.5), "coverage_greedy": np.full(20, 0.7)}, metric="tau")
    assert verdicts.coverage_keeps_ranking(tau).holds is True


def test_extrapolation_caveat_only_when_the_frontier_is_predicted_worse(rng):
    good = _fake("interpolation", {"random": rng.normal(0.8, 0.01, size=20)})
    bad = _fake("extrapolation", {"random": rng.normal(0.1, 0.01, size=20)})
    assert "frontier" in verdicts.extrapolation_caveat(good, bad, 1)
    assert verdicts.extrapolation_caveat(good, good, 1) == ""
    assert verdicts.extrapolation_caveat(good, None, 1) == ""


def test_selector_curves_draws_each_selector_mean(rng):
    import matplotlib.pyplot as plt

    from blindspot.treat import figures

    X = _noisy(rng, n=60)
    cur = {
        ("a", r): sc.compare_selectors(X, r, n_splits=2, n_random=4).curves("r2")
        for r in ("interpolation", "extrapolation")
    }
    fig = figures.selector_curves(cur, "R^2")
    first = fig.axes[0].lines[0]
    np.testing.assert_allclose(first.get_ydata(), cur[("a", "interpolation")].loc["coverage_greedy", "mean"])
    assert len(fig.axes) == 2 and len(fig.axes[1].lines) == len(sc.SELECTORS)
    plt.close(fig)


def test_statements_cover_each_regime_they_are_about(rng):
    res = sc.compare_suites({"a": _table(_noisy(rng, n=50), "a")}, n_splits=3, n_random=4)
    found = verdicts.selector_statements(res)
    assert set(found) == {
        ("greedy_vs_random", "a", "interpolation"),
        ("greedy_vs_random", "a", "extrapolation"),
        ("random_as_good_as_any", "a", "interpolation"),
        ("random_as_good_as_any", "a", "extrapolation"),
        ("coverage_keeps_ranking", "a", "extrapolation"),
        ("extrapolation_fails", "a", "extrapolation"),
    }
    frame = verdicts.statements_frame(found)
    assert set(frame.verdict) <= {"holds", "fails", "not resolved at 95%"}
    assert (frame.lo <= frame.estimate + 1e-12).all() and (frame.estimate <= frame.hi + 1e-12).all()


def test_a_subset_of_selectors_gives_the_same_numbers(rng):
    X = _noisy(rng, n=60, K=7)
    full = sc.compare_selectors(X, n_splits=2, n_random=5, ks=[3])
    part = sc.compare_selectors(X, n_splits=2, n_random=5, ks=[3], selectors=["coverage_greedy"])
    assert set(part.splits.selector) == {"coverage_greedy", "random"}
    keep = full.splits[full.splits.selector.isin(["coverage_greedy", "random"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(keep, part.splits)
    with pytest.raises(ValueError, match="not compared"):
        part.paired("pca_greedy", "random")
    with pytest.raises(ValueError, match="unknown selector"):
        sc.compare_selectors(X, selectors=["greedy"])
