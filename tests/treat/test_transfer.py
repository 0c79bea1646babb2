"""blindspot.treat.transfer: retention matrices, halves, late Kendall, cross-suite transfer (App. H.14, H.18, H.22)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot import data
from blindspot.core import coverage as cv
from blindspot.treat import transfer as tf


def _scores(rng, n=120, k=8):
    L = rng.normal(size=(k, 3))
    return rng.normal(size=(n, 3)) @ L.T + 0.6 * rng.normal(size=(n, k))


def test_ordered_parts_sort_split_and_drop():
    key = ["d", "a", "c", "b", "f", "e", "h", "g", "i", "k", "j", "l", "m", "n"]
    parts = tf.ordered_parts(key, 4)
    assert [len(p) for p in parts] == [3, 3, 3, 3]
    flat = [key[i] for p in parts for i in p]
    assert flat == sorted(key)[:12]  # sorted, last two dropped
    with_nan = pd.Series([3.0, np.nan, 1.0, 2.0, 5.0, 4.0, 6.0])
    p2 = tf.ordered_parts(with_nan, 2)
    assert 1 not in np.concatenate(p2)
    with pytest.raises(ValueError, match="at least 3 per part"):
        tf.ordered_parts(range(8), 4)
    with pytest.raises(ValueError, match="n_parts"):
        tf.ordered_parts(range(8), 1)


def test_calendar_parts():
    dates = ["2024-05-01", "2024-07-02", None, "2024-05-30", "2025-01-03"]
    parts, labels = tf.calendar_parts(dates)
    assert labels == ["2024Q2", "2024Q3", "2025Q1"]
    assert [p.tolist() for p in parts] == [[0, 3], [1], [4]]


def test_retention_matrix_diagonal_and_range(rng):
    X = _scores(rng)
    parts = tf.ordered_parts(np.arange(120), 4)
    rm = tf.retention_matrix(X, parts, r=3)
    for i, p in enumerate(parts):
        own = cv.greedy_select(np.corrcoef(X[p], rowvar=False), r=3).coverages[-1]
        assert rm.M[i, i] == pytest.approx(own)
    assert ((rm.M > 0) & (rm.M <= 1 + 1e-12)).all()
    np.testing.assert_allclose(np.diag(rm.ratio), 1.0)
    assert rm.off_diagonal().size == 12
    np.testing.assert_allclose(rm.frame(ratio=True).to_numpy(), rm.M / np.diag(rm.M)[None, :])


def test_identical_parts_give_a_constant_matrix(rng):
    X = _scores(rng, n=30)
    Y = np.vstack([X, X, X, X])
    parts = [np.arange(30) + 30 * i for i in range(4)]
    rm = tf.retention_matrix(Y, parts, r=4)
    assert np.allclose(rm.M, rm.M[0, 0])


def test_halves_transfer_same_population_is_one(rng):
    X = _scores(rng)
    h = tf.halves_transfer(X, X, r_values=(2, 3))
    np.testing.assert_allclose(h["ratio"], 1.0)
    with pytest.raises(ValueError, match="must share"):
        tf.halves_transfer(X, X[:, :5])


def test_late_kendall_full_subset(rng):
    X = _scores(rng)
    res = tf.late_kendall(X, range(8), n_random=5, seed=0)
    assert res.tau == pytest.approx(1.0) and res.shared == 10
    assert tf.top_shared(np.arange(20.0), np.arange(20.0)[::-1], top=5) == 0


def test_cross_suite_transfer_self_and_errors(rng):
    X = _scores(rng)
    res = tf.cross_suite_transfer(X, X, r=3)
    assert res.retention == pytest.approx(1.0) and res.op_norm_full == pytest.approx(0.0)
    assert res.source_subset == res.target_subset
    Y = X + 0.8 * rng.normal(size=X.shape)
    res2 = tf.cross_suite_transfer(X, Y, r=3)
    D = np.corrcoef(X, rowvar=False) - np.corrcoef(Y, rowvar=False)
    assert res2.op_norm_full == pytest.approx(np.linalg.norm(D, 2))
    assert res2.op_norm_restricted <= res2.op_norm_full + 1e-12  # restriction cannot increase the norm
    with pytest.raises(ValueError, match="select the shared ones"):
        tf.cross_suite_transfer(X, X[:, :5])
    a = pd.DataFrame(X, columns=list("abcdefgh"))
    b = pd.DataFrame(X, columns=list("abcdefgz"))
    with pytest.raises(ValueError, match="names differ"):
        tf.cross_suite_transfer(a, b)


def test_submission_dates_earliest_per_name():
    meta = pd.DataFrame(
        {"model_name": ["m1", "m1", "m2", "m3"], "submission_date": ["2024-08-01", "2024-06-01", "2024-07-01", None]},
        index=["e1", "e2", "e3", "e4"],
    )
    scores = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [2.0, 1.0, 4.0, 3.0]}, index=meta.index)
    dump = data.ScoreTable(scores, meta, "dump", "test")
    d = tf.submission_dates(dump, ["m2", "m1", "m3", "m9"])
    assert d["m1"] == pd.Timestamp("2024-06-01") and d["m2"] == pd.Timestamp("2024-07-01")
    assert pd.isna(d["m3"]) and pd.isna(d["m9"])
    with pytest.raises(ValueError, match="needs metadata columns"):
        tf.submission_dates(dump, ["m1"], column="release")


def test_table_dates_parses_date_columns():
    df = pd.DataFrame(
        {
            "model": ["a", "b", "c", "d"],
            "release_date": ["2024-01-05", "2023-06-01", "not a date", "2024-03-01"],
            "x": [1.0, 2.0, 3.0, 5.0],
            "y": [2.0, 1.0, 4.0, 3.0],
        }
    )
    t = data.table_from_frame(df)
    dates = tf.table_dates(t)
    assert list(dates) == ["release_date"]
    assert dates["release_date"].index.tolist() == ["a", "b", "c", "d"]
    assert dates["release_date"].isna().tolist() == [False, False, True, False]
    assert tf.table_dates(data.table_from_frame(df.drop(columns="release_date"))) == {}


def test_order_agreement_same_reversed_and_errors():
    key = pd.Series(np.arange(16.0), index=[f"m{i}" for i in range(16)])
    same = tf.order_agreement(key, key * 2)
    assert same.identical_parts and same.tau == pytest.approx(1.0) and same.n == 16
    rev = tf.order_agreement(key, -key)
    assert rev.same_part == 0.0 and rev.tau == pytest.approx(-1.0)
    names = pd.Series(list("pbdhaecgfojklimn"), index=key.index)
    mixed = tf.order_agreement(names, key)
    assert 0.0 <= mixed.same_part < 1.0 and not mixed.identical_parts
    with pytest.raises(ValueError, match="same models"):
        tf.order_agreement(key, key.iloc[::-1])
