"""blindspot.perspective.eee_study: an EEE instance record, the schema survey and a round trip as results."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from blindspot.perspective import eee_study
from blindspot.perspective.response_records import synthetic_response_records


@pytest.fixture(scope="module")
def records() -> pd.DataFrame:
    # as the chapter's loader gives them: no id is changed here to suit the adapter
    return synthetic_response_records(n_models=3, n_queries=6, seed=0).records


def test_without_a_data_directory_nothing_is_staged(tmp_path):
    assert eee_study.staged_folder(tmp_path) is None
    (tmp_path / "eee_samples").mkdir()
    assert eee_study.staged_folder(tmp_path) == tmp_path / "eee_samples"


def test_an_example_is_written_when_nothing_is_staged(records):
    ex = eee_study.example_record(None, records)
    first = records.iloc[0]
    assert ex.record["input"]["raw"] == first["query"] and "write_records" in ex.quantities()["example_where"]
    assert json.loads(ex.text(10**6)) == ex.record and len(ex.text(50)) == 50


def test_an_unknown_version_is_rejected_by_name():
    s = eee_study.schema_survey(None)
    assert "1.0.0" in s.rejection and s.survey is None
    q = s.quantities()
    assert set(q) == {"rejection", "survey_sentence", "layouts", "all_read"} and "not available" in q["layouts"]
    assert list(s.table().columns) == ["file"]


def test_the_round_trip_gives_back_every_field_and_aggregates_that_agree(records):
    trip = eee_study.round_trip(records, None, synthetic=True, source_organization="test")
    q = trip.quantities()
    assert trip.identical and q["identical"] == "identical" and q["n_back"] == q["n_records"] == len(records)
    assert q["n_models"] == 3 and q["n_files"] == len(trip.written) and q["source"] == "synthetic placeholder"
    assert q["valid"].startswith("not checked")
    # the aggregate's score of a cell is the mean of its records' scores
    agg = trip.aggregates()
    means = records.groupby(["model_id", "task_id"]).score.mean()
    for (model, task), row in agg.iterrows():
        assert row["aggregate JSON"] == pytest.approx(means.loc[(model, task)])
    assert q["agg_maxdiff"] < 1e-12 and q["agg_word"] == "agree"
    assert all(not p.startswith("/") for p in trip.written_table(2)["written file"])


def test_a_changed_record_is_not_identical(records):
    trip = eee_study.round_trip(records)
    changed = eee_study.RoundTrip(records.assign(score=records.score + 1), trip.back, trip.folder, trip.written, None)
    assert not changed.identical and changed.quantities()["identical"] == "NOT identical"


def test_the_staged_examples_are_read_when_present(data_dir):
    staged = eee_study.staged_folder(data_dir)
    if staged is None:
        pytest.skip("the staged EEE examples are not in this data directory")
    assert eee_study.example_record(staged, pd.DataFrame()).where == "the staged 0.3.0 demo record"
    survey = eee_study.schema_survey(staged)
    assert "0.3.0" in survey.quantities()["layouts"] and len(survey.table()) >= 3
