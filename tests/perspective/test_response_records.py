"""blindspot.perspective.response_records: the AlpacaEval slice as dkps records, and its synthetic stand-in."""

from __future__ import annotations

import pandas as pd
import pytest

from blindspot.perspective.response_records import load_alpaca_records, synthetic_response_records
from dkps.eee import canonical_records

COLS = ["model_id", "task_id", "query_id", "query", "response", "score", "suite"]


def _assert_in_the_form_dkps_eee_reads_back(rec: pd.DataFrame) -> None:
    """dkps.eee.canonical_records (what load_records returns after write_records) leaves the records as they are:
    no "<suite>/" prefix on a task id, nothing else rewritten."""
    pd.testing.assert_frame_equal(canonical_records(rec), rec.reset_index(drop=True))


def test_synthetic_stand_in(tmp_path):
    r = load_alpaca_records(tmp_path, n_models=3, n_queries=7)
    _assert_in_the_form_dkps_eee_reads_back(r.records)
    assert set(r.records.task_id) == {"alpha", "beta", "gamma"}
    assert r.synthetic and list(r.records.columns) == COLS and len(r.records) == 21
    assert r.records.equals(synthetic_response_records(3, 7).records)
    assert r.records.score.between(0, 1).all() and "SYNTHETIC" in r.describe()
    with pytest.raises(ValueError, match="not available"):
        load_alpaca_records(tmp_path, fallback=False)
    with pytest.raises(ValueError, match="n_queries"):
        load_alpaca_records(tmp_path, n_queries=0)


def test_alpaca_slice(data_dir):
    folder = data_dir / "alpaca_eval_responses"
    if not (folder / "responses.parquet").is_file():
        pytest.skip("the AlpacaEval responses are not present")
    r = load_alpaca_records(data_dir, n_models=4, n_queries=10)
    rec = r.records
    assert not r.synthetic and rec.model_id.nunique() == 4 and set(rec.query_id) == {str(q) for q in range(10)}
    assert (rec.suite == "alpaca_eval").all()
    _assert_in_the_form_dkps_eee_reads_back(rec)
    # the same rows as an independent pandas read of the parquet file, the task the subset's own name
    raw = pd.read_parquet(
        folder / "responses.parquet", columns=["model_id", "task_id", "query_id", "response", "score"]
    )
    raw = raw[raw.model_id.isin(rec.model_id.unique()) & (raw.query_id < 10)]
    merged = rec.assign(query_id=rec.query_id.astype(int)).merge(
        raw, on=["model_id", "query_id"], suffixes=("", "_raw")
    )
    assert len(merged) == len(rec) == len(raw)
    assert (merged.response == merged.response_raw).all() and (merged.score == merged.score_raw).all()
    assert (merged.task_id == merged.task_id_raw.astype(str)).all()
    models = pd.read_csv(folder / "models.csv")
    assert set(rec.model_id) <= set(models.loc[models.n_scored > 0, "model_id"])
    with pytest.raises(ValueError, match="per-response scores"):
        load_alpaca_records(data_dir, n_models=1000)
