"""Time in the survey: release-date columns and d_eff from one edition to the next (blindspot.diagnose.survey_time)."""

from __future__ import annotations

import pandas as pd
import pytest

from blindspot.data.suites import synthetic_suite
from blindspot.data.tables import ScoreTable
from blindspot.diagnose.survey_time import compare_editions, release_columns, releases_sentence


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


def _table(rows: dict) -> pd.DataFrame:
    cols = ["d_eff_all", "d_eff_all_lo", "d_eff_all_hi", "d_eff_frontier", "d_eff_frontier_lo", "d_eff_frontier_hi"]
    df = pd.DataFrame.from_dict(rows, orient="index", columns=cols)
    df["not_computed"] = ["", "d_eff (frontier): too few"][: len(df)] + [""] * max(0, len(df) - 2)
    return df


def test_compare_editions():
    t = _table({"v1": [1.5, 1.4, 1.6, 2.0, 1.8, 2.2], "v2": [1.8, 1.7, 1.9, None, None, None]})
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
