"""blindspot.data.response_stores: each response store's one reader reads what is asked, and refuses in one line.

The rules of each store (the AlpacaEval pool and model kinds, Arena-Bench's grades by content) are tested
through their loaders in tests/perspective (test_alpaca.py, test_arena_bench.py, test_response_records.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.data.response_stores import (
    RESPONSE_COLUMNS,
    AlpacaEvalStore,
    judged_answer,
    read_arena_bench,
    read_response_file,
    store_folder,
)


@pytest.fixture
def store(tmp_path):
    """Three models x six queries in two tasks, query ids stored as integers (as in the real file)."""
    folder = tmp_path / "alpaca_eval_responses"
    folder.mkdir()
    rows = [
        dict(model_id=m, task_id="t0" if q < 3 else "t1", query_id=np.int64(q), query=f"q{q}", response=f"{m}:{q}",
             score=float(q) / 10, generator=m)
        for q in range(6)
        for m in ("a", "b", "c")
    ]  # fmt: skip
    pd.DataFrame(rows).to_parquet(folder / "responses.parquet")
    pd.DataFrame(
        {"task_id": ["t0"] * 3 + ["t1"] * 3, "query_id": range(6), "query": [f"q{q}" for q in range(6)]}
    ).to_csv(folder / "queries.csv", index=False)
    pd.DataFrame({"model_id": ["a", "b", "c"], "n_scored": [6, 0, 6]}).to_csv(folder / "models.csv", index=False)
    return folder


def test_the_alpaca_reader_reads_only_the_rows_asked_for(store):
    s = AlpacaEvalStore(store)
    every = s.responses()
    assert list(every.columns) == list(RESPONSE_COLUMNS) and len(every) == 18
    some = s.responses(query_ids=["1", "4"], models=["a", "c"])
    assert sorted(zip(some.model_id, some.query_id)) == [("a", "1"), ("a", "4"), ("c", "1"), ("c", "4")]
    assert some.query_id.map(type).eq(str).all()  # ids as text, whatever the file stores
    assert s.queries().query_id.tolist() == [str(q) for q in range(6)]
    assert s.models().model_id.tolist() == ["a", "b", "c"]
    assert s.source == str(store / "responses.parquet")


def test_the_alpaca_folder_is_the_folder_itself_or_under_the_data_directory(store):
    assert store_folder("alpaca", store) == store.resolve()
    assert store_folder("alpaca", store.parent) == store.resolve()
    assert store_folder("alpaca", store / "..").resolve() == store.resolve()
    assert store_folder("arena", store.parent) is None  # no arena_bench_v1/ beside it
    (store.parent / "arena_bench_v1").mkdir()
    (store.parent / "arena_bench_v1" / "question.jsonl").write_text("")
    assert store_folder("arena", store.parent) == (store.parent / "arena_bench_v1").resolve()
    with pytest.raises(ValueError, match="no response store 'helm'; the stores are alpaca, arena"):
        store_folder("helm", store)


def test_a_missing_file_of_the_store_is_one_line(store):
    (store / "models.csv").unlink()
    with pytest.raises(ValueError, match="the AlpacaEval store has no models.csv"):
        AlpacaEvalStore(store).models()


def test_the_judged_answer_is_the_text_between_the_markers():
    prompt = "[Question]\nq\n[The Start of Assistant's Answer]\n  the answer \n[The End of Assistant's Answer]\n"
    assert judged_answer(prompt) == "the answer"
    assert judged_answer("no markers") is None and judged_answer(None) is None


def test_an_arena_folder_without_answers_has_prompts_and_no_grades(tmp_path):
    (tmp_path / "question.jsonl").write_text('{"question_id": 1, "turns": ["hi"]}\n\n{"question_id": 2, "turns": []}\n')
    files = read_arena_bench(tmp_path)
    assert files.queries.query_id.tolist() == ["1", "2"] and files.queries["query"].tolist()[0] == "hi"
    assert files.queries["query"].isna().tolist() == [False, True]
    assert files.answers == {} and files.grades == {} and files.notes == ()


def test_a_readers_response_file_is_read_by_its_suffix_or_refused_in_one_line(tmp_path):
    recs = pd.DataFrame({"model_id": ["m"], "task_id": ["t"], "query_id": ["1"], "score": [0.5]})
    recs.to_parquet(tmp_path / "r.parquet")
    recs.to_csv(tmp_path / "r.csv", index=False)
    assert read_response_file(tmp_path / "r.parquet").equals(recs)
    assert read_response_file(tmp_path / "r.csv").score.tolist() == [0.5]
    with pytest.raises(ValueError, match="does not exist"):
        read_response_file(tmp_path / "none.parquet")
