"""Each column profiled once: the loader's steps read one ColumnProfile per column, and a profile taken on fewer
rows is the profile of the column written with those rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot import data
from blindspot.data import profile
from blindspot.data.profile import parse_number_column, profile_column


def _same(a: profile.ColumnProfile, b: profile.ColumnProfile) -> None:
    assert (a.error is None) == (b.error is None) and a.error == b.error
    assert a.is_number == b.is_number and a.is_text == b.is_text
    np.testing.assert_array_equal(a.present, b.present)
    if a.number is not None:
        np.testing.assert_array_equal(a.number.values, b.number.values)
        np.testing.assert_array_equal(a.number.bad, b.number.bad)
        assert a.number.notation == b.number.notation
        assert (a.number.uncertainty is None) == (b.number.uncertainty is None)


COLUMNS = {
    "plain": ["0.5", "0.6", None, "n/a", "0.7", "0.1", "0.9", "0.3"],
    "percent": ["61.2%", "50%", "n/a", "12.5%", "70%", "1%", "2%", "3%"],
    "comma decided by one row": ["1,234", "2,345", "1,234.5", "3,456", "4,567", "5,678", "6,789", "7,891"],
    "decimal comma": ["61,2", "50,1", "-", "12,5", "70,0", "1,5", "2,5", "3,5"],
    "plus minus": ["61.2 ± 0.3", "50 ± 1", "12", "", "70 +/- 2", "1", "2", "3"],
    "mostly text": ["gpt", "llama", "0.5", "qwen", "x", "y", "z", "w"],
    "mixed percent": ["61.2%", "50", "12.5%", "70%", "1%", "2%", "3%", "4%"],
    "numbers": [0.5, 0.6, np.nan, 0.7, 0.8, 0.1, 0.2, 0.3],
    "flags": [True, False, True, True, False, True, False, True],
}


@pytest.mark.parametrize("column", list(COLUMNS))
def test_a_profile_taken_on_fewer_rows_is_the_profile_of_those_rows(column):
    col = pd.Series(COLUMNS[column], name=column)
    whole = profile_column(col)
    rng = np.random.default_rng(0)
    masks = [np.arange(8) != 2, np.arange(8) >= 4] + [rng.random(8) < 0.6 for _ in range(20)]
    for mask in masks:
        _same(whole.take(mask), profile_column(col[mask].reset_index(drop=True)))


def test_the_notation_is_decided_again_on_the_rows_kept():
    col = pd.Series(COLUMNS["comma decided by one row"])
    assert profile_column(col).number.notation == "thousands"  # 1,234.5 decides the commas
    fewer = profile_column(col).take(np.arange(8) != 2)  # without it, 1,234 may be either
    assert fewer.number is None and "thousands separator or a decimal comma" in fewer.error
    with pytest.raises(ValueError, match="thousands separator or a decimal comma"):
        fewer.numbers()
    with pytest.raises(ValueError, match="mixes percent strings"):
        parse_number_column(pd.Series(COLUMNS["mixed percent"]), "m")
    assert profile_column(pd.Series(COLUMNS["mixed percent"])).is_number  # the refusal reaches the user


def test_a_file_s_columns_are_read_once(tmp_path, monkeypatch):
    """Every text column's cells are read once on the way to a table, with a summary row, a row left out and a
    duplicate kept first (before: up to five readings of a column: models column, summary rows, roles twice)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(10, 90, size=(30, 4))
    df = pd.DataFrame({"model": [f"m{i:02d}" for i in range(30)], "org": ["o"] * 30})
    for j, b in enumerate("abcd"):
        df[b] = [f"{x:.1f}%" for x in X[:, j]]
    df.loc[len(df)] = ["Average", "-", *[f"{x:.1f}%" for x in X.mean(axis=0)]]
    df.loc[len(df)] = ["m03", "o", "1%", "2%", "3%", "4%"]  # a duplicate: the first is kept
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    scans: list[int] = []
    real = profile._scan
    monkeypatch.setattr(profile, "_scan", lambda col: scans.append(len(col)) or real(col))
    t = data.load_scores(path, duplicates="first", exclude_rows=["m05"])
    assert list(t.benchmarks) == list("abcd") and t.n_models == 29
    np.testing.assert_allclose(t.scores.loc["m00"].to_numpy(), np.round(X[0], 1))
    assert len(scans) == len(df.columns)  # each column's cells read once: model, org and the four scores
    assert any("percent strings" in n for n in t.notes) and any("'Average'" in n for n in t.notes)
