"""Which leaderboards a folder holds (blindspot.data.discovery), on folders built with a known answer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from blindspot.data import discovery, read_table


def _eee_store(root: Path, boards: dict[str, int], k: int = 3, seed: int = 0) -> None:
    """Every Eval Ever records at the store's level: <board>/<developer>/<model>/<uuid>.json."""
    rng = np.random.default_rng(seed)
    for board, n in boards.items():
        for i in range(n):
            rec = {
                "schema_version": "0.2.0",
                "evaluation_id": f"{board}/org_m{i}/1700000000",
                "retrieved_timestamp": "1700000000",
                "source_metadata": {"source_name": board, "source_type": "documentation"},
                "model_info": {"name": f"m{i}", "id": f"org/m{i}", "developer": "org"},
                "evaluation_results": [
                    {
                        "evaluation_name": f"b{j}",
                        "metric_config": {"score_type": "continuous", "min_score": 0.0, "max_score": 1.0},
                        "score_details": {"score": float(rng.uniform(0.1, 0.9))},
                    }
                    for j in range(k)
                ],
            }
            p = root / board / "org" / f"m{i}" / "0001.json"
            p.parent.mkdir(parents=True)
            p.write_text(json.dumps(rec))


def test_a_store_of_records_is_one_leaderboard_per_subfolder(tmp_path):
    _eee_store(tmp_path, {"alpha": 6, "beta": 5})
    assert discovery.record_depth(tmp_path) == discovery.STORE_DEPTH
    got = discovery.leaderboard_sources(tmp_path)
    assert got == [("alpha", tmp_path / "alpha"), ("beta", tmp_path / "beta")]
    assert [read_table(p).n_models for _, p in got] == [6, 5]  # each source reads as its own leaderboard


def test_one_leaderboards_records_are_one_source(tmp_path):
    _eee_store(tmp_path, {"alpha": 6})
    board = tmp_path / "alpha"
    assert discovery.record_depth(board) == 3
    assert discovery.leaderboard_sources(board) == [("alpha", board)]


def test_a_folder_of_score_files_is_one_leaderboard_per_file_and_other_files_are_not_read(tmp_path):
    for name in ("b.csv", "a.tsv", "c.parquet.gz"):
        (tmp_path / name).write_text("x")
    (tmp_path / "README.md").write_text("not a score file")
    (tmp_path / "sub").mkdir()
    assert discovery.score_files(tmp_path) == [tmp_path / n for n in ("a.tsv", "b.csv", "c.parquet.gz")]
    assert [name for name, _ in discovery.leaderboard_sources(tmp_path)] == ["a", "b", "c.parquet"]


def test_a_folder_with_nothing_to_read_is_one_line_naming_what_was_looked_for(tmp_path):
    (tmp_path / "notes.md").write_text("x")
    with pytest.raises(ValueError, match="no score file .*no Every Eval Ever records"):
        discovery.leaderboard_sources(tmp_path)
