"""prepare_scores: the score matrix of the practitioner's chapter, a suite, a file, or the stand-in marked synthetic."""

from __future__ import annotations

import pandas as pd

from blindspot.data.suites import synthetic_suite
from blindspot.report.prepare import SYNTHETIC_FILE, prepare_scores


def test_without_data_the_stand_in_is_read_like_a_file_and_marked_synthetic(tmp_path):
    p = prepare_scores("arena_categories", data_dir=tmp_path, scratch=tmp_path, seed=4)
    assert (tmp_path / SYNTHETIC_FILE).is_file()
    assert p.table.synthetic and p.table.name == "synthetic"
    assert p.table.source == str(tmp_path / SYNTHETIC_FILE)
    expected = synthetic_suite(seed=4).scores
    pd.testing.assert_frame_equal(p.table.scores, expected, check_names=False, check_dtype=False)


def test_a_file_is_read_as_it_is_and_not_marked(tmp_path):
    f = tmp_path / "mine.csv"
    synthetic_suite(n_models=20, n_benchmarks=4, seed=2).scores.reset_index().to_csv(f, index=False)
    p = prepare_scores(f, scratch=tmp_path / "scratch")
    assert not p.table.synthetic and p.table.n_models == 20
    assert not (tmp_path / "scratch").exists()
