"""blindspot.perspective.sparse_study: a sparse leaderboard completed, the paper's block, and the calibration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.data.epoch_hub import sparse_stand_in
from blindspot.data.tables import ScoreTable
from blindspot.diagnose.robustness import imputed_submatrix
from blindspot.perspective import sparse, sparse_study as ss

QUICK = {"n_lambdas": 4, "max_iter": 30, "n_folds": 3}


def _pearson_deff(X: np.ndarray) -> float:
    lam = np.linalg.eigvalsh(np.corrcoef(np.asarray(X, float), rowvar=False))
    return float(lam.sum() ** 2 / (lam**2).sum())


def _block_table(seed: int = 0, n: int = 100, k: int = 12, missing: float = 0.3) -> ScoreTable:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, k)) + 0.3 * rng.normal(size=(n, k))
    X[rng.random((n, k)) < missing] = np.nan
    models = [f"m{i}" for i in range(n)]
    scores = pd.DataFrame(X, index=models, columns=[f"b{j}" for j in range(k)])
    return ScoreTable(scores, pd.DataFrame(index=models), "block", "test")


@pytest.fixture(scope="module")
def study():
    board = sparse_stand_in(seed=1)
    table = _block_table()
    hub = ss.hub_completion(board, n_repeats=1, n_boot=20, lrmc=QUICK, seed=0)
    im = imputed_submatrix(table, min_benchmark_obs=30, min_model_obs=10)
    rule = ss.rule_block(table, im, n_repeats=1, n_boot=20, lrmc=QUICK, seed=0)
    cal = ss.imputation_calibration(hub, rule, taus=[1.0], reps=1, hub_taus=[1.0], lrmc=QUICK, seed=0)
    return ss.SparseStudy(hub, rule, cal)


def test_the_completion_tables_are_the_cross_validation_and_spectrum_they_name(study):
    hub = study.hub
    t = hub.cv_table()
    assert t.loc["LRMC", "MAE (z units)"] == hub.cv.mae["lrmc"]
    assert t.loc["per-benchmark mean", "vs per-benchmark mean"] == pytest.approx(1.0)
    assert t.loc["LRMC", "vs per-benchmark mean"] == pytest.approx(hub.cv.ratio)
    spec = hub.spectrum_table()
    assert (
        spec.loc["all models", "d_eff"] == hub.spec_all.d_eff
        and spec.loc["all models", "n"] == hub.completable.shape[0]
    )
    assert f"{hub.spec_all.d_eff:.2f} [{hub.spec_all.lo:.2f}, {hub.spec_all.hi:.2f}]" in hub.spectrum_note()
    assert list(hub.per_benchmark(3)["n"]) == sorted(hub.cv.per_benchmark["n"], reverse=True)[:3]


def test_the_paper_block_compares_mean_imputation_with_an_independent_d_eff(study):
    rule = study.rule
    same = rule.comparison()
    assert same.loc["mean imputation (paper)", "d_eff all"] == pytest.approx(_pearson_deff(rule.imputed.scores))
    front = rule.imputed.scores.mean(axis=1) >= rule.imputed.scores.mean(axis=1).median()  # raw mean >= median
    assert rule.n_front == int(front.sum())
    assert same.loc["mean imputation (paper)", "d_eff frontier"] == pytest.approx(
        _pearson_deff(rule.imputed.scores[front.to_numpy()])
    )
    assert same.loc["LRMC completion", "d_eff all"] == rule.spec.d_eff and rule.mean_imputed == same.iloc[0, 0]


def test_the_ledger_values_and_the_calibrated_bias(study):
    claims = study.claims(hub_synthetic=True)
    assert list(claims) == [
        "H50.epoch.mean_imputed",
        "H50.epoch_frontier.mean_imputed",
        "H50.epoch.lrmc_same_cells",
        "H50.epoch.lrmc_hub",
        "H50.epoch_frontier.lrmc_hub",
    ]
    assert claims["H50.epoch.lrmc_hub"].value == study.hub.spec_all.d_eff
    assert claims["H50.epoch.lrmc_hub"].data == [study.rule.table, study.hub.board]  # the stand-in joins the basis
    cal = study.calibration.block
    assert study.calibration.bias("mean") == pytest.approx(float((cal.d_eff_mean - cal.d_eff_true).mean()))
    assert f"{study.calibration.bias('mean'):+.1f}" in claims["H50.epoch.lrmc_same_cells"].evidence
    assert set(study.calibration.patterns()) == {"the paper's rule's pattern", "the completable pattern"}
    assert "comes out reproduced" in study.closing(7.1, 5.7, "reproduced", on_your_data=False)
    assert "comes out" not in study.closing(7.1, 5.7, "reproduced", on_your_data=True)


def test_nothing_to_complete_and_no_block_say_so_and_record_nothing():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 4))
    X[rng.random(X.shape) < 0.7] = np.nan
    tiny = ScoreTable(pd.DataFrame(X, columns=list("abcd")), pd.DataFrame(index=range(8)), "tiny", "test")
    hub = ss.hub_completion(tiny)
    assert hub.completable is None and "Nothing to complete" in hub.completable_note()
    assert hub.cv_table() is None and hub.spectrum_table() is None and "Not computed" in hub.cv_note()
    rule = ss.rule_block(tiny, None, "too few benchmarks")
    assert rule.comparison() is None and "too few benchmarks" in rule.note() and rule.mean_imputed is None
    cal = ss.imputation_calibration(hub, rule, taus=[1.0], reps=1, hub_taus=[1.0])
    s = ss.SparseStudy(hub, rule, cal)
    assert cal.table() is None and "Nothing to calibrate" in s.calibration_note()
    assert s.claims() == {} and s.closing(7.1, 5.7, None, on_your_data=False) == ""
    assert "No result" in s.summary(None)


def test_a_block_without_holes_has_nothing_to_calibrate():
    table = _block_table(missing=0.0)
    im = imputed_submatrix(table, 30, 10)
    rule = ss.rule_block(table, im, n_repeats=1, n_boot=20, lrmc=QUICK)
    hub = ss.HubCompletion(table, None, "none")
    assert ss.imputation_calibration(hub, rule, [1.0], 1, [1.0]).block is None


def test_shape_table_counts_models_benchmarks_and_gaps():
    t = _block_table(missing=0.25)
    row = ss.shape_table([t]).loc["block"]
    assert (row["models"], row["benchmarks"]) == (100, 12)
    assert row["missing"] == f"{float(np.isnan(t.values).mean()):.1%}"
    assert "block" in ss.your_board_note(t) and sparse.completable is not None
