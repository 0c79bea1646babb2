"""Per-item results as a long table: column names, refusals, the psn_irt reader and its stand-in."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.data import item_results as ir


def test_item_frame_finds_the_columns_by_name_and_assumes_one_benchmark_without_one():
    df = pd.DataFrame({"Model_ID": ["a", "a", "b"], "doc_id": [1, 2, 1], "Correct": [True, False, True]})
    frame, notes = ir.item_frame(df)
    assert list(frame.columns) == list(ir.ITEM_COLUMNS)
    assert frame["score"].tolist() == [1.0, 0.0, 1.0] and frame["item"].tolist() == ["1", "2", "1"]
    assert (frame["benchmark"] == "all items").all() and "no benchmark column" in notes[0]


def test_item_frame_drops_missing_scores_with_a_note_and_refuses_infinite_ones():
    df = pd.DataFrame({"model": ["a", "b", "c"], "item": [1, 1, 1], "score": [1.0, np.nan, 0.0]})
    frame, notes = ir.item_frame(df)
    assert len(frame) == 2 and "1 row(s) with no score left out" in notes
    with pytest.raises(ValueError, match="infinite"):
        ir.item_frame(df.fillna(np.inf))


def test_read_long_file_csv_and_parquet_agree(tmp_path):
    df = pd.DataFrame(
        {"model": ["a", "a", "b", "b"], "task": ["t", "t", "t", "t"], "item": [0, 1, 0, 1], "score": [1, 0, 0.5, 1]}
    )
    df.to_csv(tmp_path / "x.csv", index=False)
    df.to_parquet(tmp_path / "x.parquet")
    a, b = ir.read_long_file(tmp_path / "x.csv"), ir.read_long_file(tmp_path / "x.parquet")
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert a.models == ["a", "b"] and a.benchmarks == ["t"]
    assert a.wide().loc["1", "b"] == 1.0
    assert a.table().scores.loc["b", "t"] == pytest.approx(0.75)
    with pytest.raises(ValueError, match="is not a file"):
        ir.read_long_file(tmp_path / "nope.csv")


def test_synthetic_item_responses_are_seeded_binary_and_graded_by_ability():
    one, two = ir.synthetic_item_responses(seed=3), ir.synthetic_item_responses(seed=3)
    pd.testing.assert_frame_equal(one.frame, two.frame)
    assert one.synthetic and set(one.frame["score"].unique()) <= {0.0, 1.0}
    means = one.table().scores.iloc[:, 0]
    assert means.max() - means.min() > 0.3  # abilities spread over [-1, 1.5]


def test_psn_irt_without_data_is_the_stand_in(tmp_path):
    stand_in = ir.load_psn_irt(tmp_path)
    assert stand_in.synthetic and len(stand_in.models) == 12
    with pytest.raises(ValueError, match="item_level_psn_irt"):
        ir.load_psn_irt(tmp_path, fallback=False)
    assert ir.load_alpaca_judgements(tmp_path).synthetic


def test_psn_irt_reads_the_release(data_dir):
    if not (data_dir / ir.PSN_IRT_DIR / "responses.csv").is_file():
        pytest.skip("item_level_psn_irt is not in the data directory")
    items = ir.load_psn_irt(data_dir)
    wide = items.wide()
    assert wide.shape == (41_871, 12) and not items.synthetic
    raw = pd.read_csv(data_dir / ir.PSN_IRT_DIR / "responses.csv", nrows=2, usecols=range(6))
    assert wide.loc[["item_0", "item_4"], "model 1"].tolist() == raw.loc[1, ["item_0", "item_4"]].astype(float).tolist()
    assert wide.to_numpy().mean() == pytest.approx(0.663, abs=0.001)  # PROVENANCE.md: mean correctness 0.663
