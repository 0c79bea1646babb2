"""What the survey measures beyond blindspot analyze (blindspot.diagnose.survey_estimates): the intervals its
statements are judged on (planted answers), ties at the top of a half, release dates and editions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import blindspot
from blindspot.core.conventions import frontier_mask
from blindspot.core.spectrum import d_eff
from blindspot.data.suites import synthetic_suite
from blindspot.data.tables import ScoreTable
from blindspot.diagnose.survey_estimates import (
    compare_editions,
    frontier_estimates,
    frontier_gap,
    halves_ties,
    paired_frontier_gap,
    release_columns,
    releases_sentence,
    too_few_models,
    widened_estimate,
)
from blindspot.diagnose.survey_statements import EXCEEDS, INSIDE, band_status, gap_status


def _table(X: np.ndarray) -> ScoreTable:
    idx = pd.Index([f"m{i:04d}" for i in range(X.shape[0])], name="model")
    return ScoreTable(
        pd.DataFrame(X, index=idx, columns=[f"b{j}" for j in range(X.shape[1])]), pd.DataFrame(index=idx), "t", "test"
    )


def _equicorrelated_blocks(n: int, k: int, b: int, rho: float, seed: int) -> np.ndarray:
    """k benchmarks in b blocks, correlation rho within a block and 0 across: d_eff = k / (1 + (k/b - 1) rho^2)."""
    rng = np.random.default_rng(seed)
    F = np.repeat(rng.normal(size=(n, b)), k // b, axis=1)
    return np.sqrt(rho) * F + np.sqrt(1 - rho) * rng.normal(size=(n, k))


def test_a_planted_d_eff_lies_in_its_interval_and_inside_the_band():
    k, b, rho = 12, 3, 0.8
    planted = k / (1 + (k / b - 1) * rho**2)  # 4.11 (the chapter's exercise)
    fe = frontier_estimates(_table(_equicorrelated_blocks(4000, k, b, rho, seed=1)), n_boot=200, seed=0)
    e = fe.d_eff_all
    assert e.lo <= planted <= e.hi and e.hi - e.lo < 0.5
    assert band_status(e, k) == INSIDE


def test_the_frontier_interval_is_blindspot_analyzes():
    t = _table(_equicorrelated_blocks(300, 6, 2, 0.6, seed=2))
    fe = frontier_estimates(t, n_boot=100, seed=3)
    rep = blindspot.analyze(t, n_boot=100, seed=3, figures=False)
    v = rep.finding("d_eff_frontier").values
    assert (fe.d_eff_frontier.value, fe.d_eff_frontier.lo, fe.d_eff_frontier.hi) == pytest.approx(
        (v["d_eff"], v["ci_lo"], v["ci_hi"])
    )
    assert fe.n_frontier == rep.settings["n_frontier"]


def test_a_planted_frontier_gap_is_resolved_and_covered():
    """One strong common factor: selecting the top half by the mean removes much of it, so the frontier's d_eff
    is larger. The large-sample gap (n = 200,000) lies in the paired interval of a sample of 2,000."""

    def sample(n, seed):
        rng = np.random.default_rng(seed)
        return 0.9 * rng.normal(size=(n, 1)) + np.sqrt(1 - 0.81) * rng.normal(size=(n, 5))

    big = sample(200_000, 0)
    m = frontier_mask(big, 0.5, rule="mean z-score")
    truth = d_eff(big[m]) - d_eff(big)
    g = frontier_gap(_table(sample(2000, 1)), 0.5, n_boot=300, seed=0)
    assert truth > 0.3 and g.lo <= truth <= g.hi
    assert gap_status(g) == EXCEEDS


def test_the_paired_gap_point_is_the_difference_of_the_two_d_eff_and_seeded():
    X = _equicorrelated_blocks(200, 6, 3, 0.5, seed=4)
    m = frontier_mask(X, 0.5, rule="mean z-score")
    g = paired_frontier_gap(X, 0.5, n_boot=100, seed=7)
    assert g.value == pytest.approx(d_eff(X[m]) - d_eff(X))
    assert g == paired_frontier_gap(X, 0.5, n_boot=100, seed=7)
    assert g.lo <= g.value <= g.hi
    with pytest.raises(ValueError, match="complete"):
        paired_frontier_gap(np.where(X > 2, np.nan, X), 0.5)


def test_a_widened_interval_says_so():
    assert widened_estimate(4.74, 3.02, 4.63).hi == 4.74
    assert "percentile interval is [3.02, 4.63]" in widened_estimate(4.74, 3.02, 4.63).widened
    assert widened_estimate(4.0, 3.02, 4.63).widened == ""


def _tied_top(first_is_runner_up: bool) -> ScoreTable:
    """30 models x 3 benchmarks; A leads b0 and b1 by a margin and ties B at the top of b2."""
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 0.5, size=(30, 3))
    A, B = (1, 0) if first_is_runner_up else (0, 1)
    X[A] = [1.0, 1.0, 0.9014]
    X[B] = [0.7, 0.7, 0.9014]
    return _table(X)


def test_a_planted_tie_at_the_top_of_a_half_decides_the_halves_agreement():
    ties = halves_ties(_tied_top(True))
    assert (ties.n_splits, ties.n_tied) == (3, 1)
    assert (ties.agree_low, ties.agree_high) == pytest.approx((2 / 3, 1.0))
    assert ties.decides(0.9) and ties.ties == ("b2: m0000, m0001 tie at 0.9014",)
    untied = _tied_top(True)
    untied.scores.iloc[0, 2] = 0.95
    t2 = halves_ties(untied)
    assert t2.n_tied == 0 and t2.agree_low == t2.agree_high and not t2.decides(0.9)


def test_too_few_models():
    assert too_few_models(7, 6) is None
    assert "rank at most 5" in too_few_models(6, 6)


def _with_meta(meta: dict) -> ScoreTable:
    t = synthetic_suite(n_models=5, n_benchmarks=3)
    return ScoreTable(t.scores, pd.DataFrame(meta, index=t.scores.index), "t", "test")


def test_release_columns_need_a_date_word_and_dates():
    t = _with_meta(
        {
            "release_date": ["2024-01-02", "2024-03-01", None, "2023-12-31", "2025-01-01"],
            "upload_date": ["soon", "later", "never", "x", "y"],  # a date word, but no dates
            "organization": ["a", "b", "c", "d", "e"],
            "params_b": [1, 2, 3, 4, 5],
        }
    )
    assert release_columns(t) == ["release_date"]
    assert release_columns(synthetic_suite(n_models=5, n_benchmarks=3)) == []
    with pytest.raises(ValueError, match="ScoreTable"):
        release_columns(pd.DataFrame())


def _survey_rows(rows: dict) -> pd.DataFrame:
    cols = ["d_eff_all", "d_eff_all_lo", "d_eff_all_hi", "d_eff_frontier", "d_eff_frontier_lo", "d_eff_frontier_hi"]
    df = pd.DataFrame.from_dict(rows, orient="index", columns=cols)
    df["not_computed"] = ["", "d_eff (frontier): too few"][: len(df)] + [""] * max(0, len(df) - 2)
    return df


def test_compare_editions():
    t = _survey_rows({"v1": [1.5, 1.4, 1.6, 2.0, 1.8, 2.2], "v2": [1.8, 1.7, 1.9, None, None, None]})
    c = compare_editions(t, "v1", "v2")
    assert c.change == pytest.approx(0.3) and not c.overlap
    assert (
        c.sentence
        == "on all models, d_eff rises from 1.5 (1.4–1.6) to 1.8 (1.7–1.9); the two 95% intervals do not overlap"
    )
    t.loc["v2", "d_eff_all_lo"] = 1.55
    assert compare_editions(t, "v1", "v2").overlap
    with pytest.raises(ValueError, match="not computed on 'v2'"):
        compare_editions(t, "v1", "v2", population="frontier")
    with pytest.raises(ValueError, match="not a row"):
        compare_editions(t, "v1", "v3")
    with pytest.raises(ValueError, match="population"):
        compare_editions(t, "v1", "v2", population="top")


def test_releases_sentence():
    assert releases_sentence({"a": [], "b": []}) == "a and b carry no release date"
    assert releases_sentence({"a": ["release_date"], "b": []}) == "a carries release_date; b carries no release date"
    assert releases_sentence({}) == "no table was looked at for release dates"
