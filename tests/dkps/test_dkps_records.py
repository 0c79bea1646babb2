"""Records layer: containers, validation, derived per-cell tables, output contract."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dkps import DKPS, PKPS, NotFittedError, SampleScore, UnknownIdError
from dkps.records import cell_tables, coerce, validate


def rows_basic():
    rng = np.random.default_rng(0)
    out = []
    for m in range(4):
        for t in range(2):
            for q in range(3):
                out.append(
                    dict(
                        model_id=f"m{m}",
                        task_id=f"t{t}",
                        query_id=f"q{q}",
                        response_embedding=rng.normal(size=5).tolist(),
                        query_embedding=[float(t), float(q), 1.0],
                        score=float(rng.random()),
                    )
                )
    return out


# ----------------------------------------------------------------------------- containers
def test_four_containers_give_identical_fits():
    rows = rows_basic()
    df = pd.DataFrame(rows)
    dol = {k: [r[k] for r in rows] for k in rows[0]}
    forms = [df, rows, dol, json.dumps(rows), json.dumps(dol)]
    fits = [PKPS(query_kwargs=dict(bandwidth="median")).fit(f) for f in forms]
    preds = [pd.DataFrame(f.predict(holdout=None, cells=[{"model_id": "m1"}])) for f in fits]
    for f, p in zip(fits[1:], preds[1:]):
        np.testing.assert_array_equal(f.distance_matrix_, fits[0].distance_matrix_)
        np.testing.assert_array_equal(p.score_hat.to_numpy(), preds[0].score_hat.to_numpy())


def test_coerce_never_mutates_and_keeps_unknown_columns():
    rows = rows_basic()
    df = pd.DataFrame(rows)
    df["extra"] = 1
    before = df.copy()
    out = coerce(df)
    out.loc[0, "score"] = -5
    pd.testing.assert_frame_equal(df, before)
    assert "extra" in out.columns and list(out.model_id) == list(df.model_id)


# ----------------------------------------------------------------------------- table
BASE = dict(model_id="m0", task_id="t0", query_id="q0", response_embedding=[1.0, 2.0], score=0.5)


def two(**over):
    a = dict(BASE)
    b = dict(BASE, model_id="m1", response_embedding=[0.5, 1.0])
    a.update(over)
    return [a, b]


@pytest.mark.parametrize(
    "records, exc, match",
    [
        (None, TypeError, "DataFrame"),
        (3, TypeError, "DataFrame"),
        (np.zeros((2, 2)), TypeError, "DataFrame"),
        ([BASE, 5], TypeError, "element 1"),
        ("{not json", ValueError, "not valid JSON"),
        ("[1, 2]", ValueError, "list of objects"),
        ('"text"', ValueError, "list of objects"),
        ({"model_id": ["a", "b"], "task_id": ["t"]}, ValueError, "unequal lengths"),
        ({"model_id": "a"}, ValueError, "scalar"),
        ([], ValueError, "zero rows"),
    ],
)
def test_container_errors(records, exc, match):
    with pytest.raises(exc, match=match):
        validate(records)


def test_duplicate_column_names():
    df = pd.DataFrame([[1, 2]], columns=["model_id", "model_id"])
    with pytest.raises(ValueError, match="duplicate column"):
        validate(df)


@pytest.mark.parametrize("col", ["model_id", "task_id", "query_id"])
def test_missing_id_column(col):
    rows = [{k: v for k, v in r.items() if k != col} for r in two()]
    with pytest.raises(ValueError, match=f"no '{col}' column"):
        validate(rows)


@pytest.mark.parametrize("bad", [None, float("nan"), "", "   ", True, 1.5])
@pytest.mark.parametrize("col", ["model_id", "task_id", "query_id"])
def test_bad_id_values_name_column_and_row(col, bad):
    rows = two() + [dict(BASE, model_id="m2", query_id="q1")]
    rows[2][col] = bad
    with pytest.raises(ValueError, match=rf"column '{col}': row 2"):
        validate(rows)


def test_int_and_numpy_int_ids_become_str():
    rows = two(model_id=np.int64(7))
    rows[1]["model_id"] = 8
    rec = validate(rows)
    assert rec.frame.model_id.tolist() == ["7", "8"]


def test_response_errors():
    rows = [{k: v for k, v in r.items() if k != "response_embedding"} for r in two()]
    with pytest.raises(ValueError, match="response_embedding"):
        validate(rows)
    rows = two()
    rows[1]["response_embedding"] = None
    with pytest.raises(ValueError, match="row 1 has neither"):
        validate(rows)


@pytest.mark.parametrize(
    "vec, match",
    [
        ([[1.0, 2.0]], "1-D"),
        ([], "empty"),
        (["a", "b"], "not numeric"),
        ([1.0, np.inf], "NaN or inf"),
        ([1.0, np.nan], "NaN or inf"),
        ([True, False], "not numeric"),
        ("[1, 2", "JSON"),
        ({"a": 1}, "embeddings must be"),
    ],
)
def test_embedding_errors(vec, match):
    rows = two()
    rows[1]["response_embedding"] = vec
    with pytest.raises(ValueError, match=rf"'response_embedding': row 1 .*{match}|{match}"):
        validate(rows)


def test_embedding_json_list_and_tuple_accepted():
    rows = two()
    rows[0]["response_embedding"] = "[1, 2]"
    rows[1]["response_embedding"] = (3, 4)
    rec = validate(rows)
    np.testing.assert_array_equal(rec.response_vectors[0], [1.0, 2.0])
    assert rec.response_vectors[1].dtype == np.float64


def test_dimension_mismatch_within_suite_but_not_across():
    rows = two()
    rows[1]["response_embedding"] = [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="dimension 3"):
        validate(rows)
    rows[0]["suite"], rows[1]["suite"] = "a", "b"
    rows[1]["task_id"] = "t1"
    validate(rows)  # different suites may differ


def test_text_must_be_str():
    rows = two()
    for r in rows:
        r.pop("response_embedding")
        r["response"] = "hello"
    rows[1]["response"] = 5
    with pytest.raises(ValueError, match="'response': row 1"):
        validate(rows)


def test_query_required_for_pkps_suggests_dkps():
    with pytest.raises(ValueError, match="DKPS"):
        PKPS().fit(two())
    DKPS().fit(two())  # fine without queries


def test_inconsistent_query_embedding_and_text():
    rows = two(query_embedding=[1.0, 0.0])
    rows[1]["query_embedding"] = [1.0, 0.1]
    with pytest.raises(ValueError, match="'query_embedding': row 1"):
        validate(rows)
    rows[1]["query_embedding"] = [1.0 + 1e-9, 0.0]
    validate(rows)  # allclose
    rows = two(query="a")
    rows[1]["query"] = "b"
    with pytest.raises(ValueError, match="'query': row 1"):
        validate(rows)


@pytest.mark.parametrize("col", ["score", "sample_score", "reference_score"])
@pytest.mark.parametrize("bad, match", [("abc", "not numeric"), (np.inf, "infinite"), ([1], "not numeric")])
def test_bad_scores(col, bad, match):
    rows = two()
    rows[1][col] = bad
    with pytest.raises(ValueError, match=rf"'{col}': row 1 .*{match}|'{col}': row 1 is {match}"):
        validate(rows)


def test_scores_parse_bool_numeric_string_and_missing():
    rows = two()
    rows[0]["score"] = True
    rows[1]["score"] = " 0.25 "
    rec = validate(rows)
    np.testing.assert_array_equal(rec.frame.score.to_numpy(), [1.0, 0.25])
    rows[1]["score"] = None
    assert np.isnan(validate(rows).frame.score[1])


@pytest.mark.parametrize("col", ["sample_score", "reference_score"])
def test_cell_constant_scores(col):
    rows = two()
    rows[1]["model_id"] = "m0"
    rows[1]["query_id"] = "q1"
    rows[0][col], rows[1][col] = 0.5, 0.6
    with pytest.raises(ValueError, match=rf"'{col}': row 1 .*varies"):
        validate(rows)
    rows[1][col] = None  # missing values are ignored
    validate(rows)


def test_suite_and_family_consistency():
    rows = two(suite="a")
    rows[1]["suite"] = "b"
    rows[1]["model_id"] = "m1"
    with pytest.raises(ValueError, match="two suites"):
        validate(rows)
    rows = two(family="f")
    rows[1]["model_id"] = "m0"
    rows[1]["query_id"] = "q9"
    rows[1]["family"] = "g"
    with pytest.raises(ValueError, match="two families"):
        validate(rows)
    rows = two(suite="a")
    rows[1]["suite"] = None
    with pytest.raises(ValueError, match="'suite': row 1 is null"):
        validate(rows)


def test_validation_runs_before_any_embedding_call():
    calls = []

    def provider(texts):
        calls.append(texts)
        raise AssertionError("embedding must not be called")

    rows = [
        dict(model_id="m0", task_id="t", query_id="q", response="hi", score="bad"),
        dict(model_id="m1", task_id="t", query_id="q", response="ho", score=0.1),
    ]
    with pytest.raises(ValueError, match="'score': row 0"):
        DKPS(embedding_kwargs=dict(provider=provider)).fit(rows)
    assert calls == []


# ----------------------------------------------------------------------------- derived tables
def test_cell_tables_by_hand():
    rows = [
        dict(model_id="a", task_id="t", query_id="q1", response_embedding=[1.0], score=1.0),
        dict(model_id="a", task_id="t", query_id="q2", response_embedding=[1.0], score=0.0),
        dict(model_id="a", task_id="t", query_id="q3", response_embedding=[1.0], score=None),
        dict(model_id="a", task_id="u", query_id="q1", response_embedding=[1.0], score=1.0, sample_score=0.3),
        dict(model_id="b", task_id="t", query_id="q1", response_embedding=[1.0], score=None, reference_score=0.9),
        dict(model_id="b", task_id="u", query_id="q1", response_embedding=[1.0], score=None),
    ]
    rec = validate(rows)
    tb = cell_tables(rec.frame, ["a", "b"], ["t", "u"])
    np.testing.assert_array_equal(tb.sample, [[0.5, 0.3], [np.nan, np.nan]])
    np.testing.assert_array_equal(tb.target, [[0.5, 0.3], [0.9, np.nan]])
    np.testing.assert_array_equal(tb.n_responses, [[3, 1], [1, 1]])
    est = SampleScore().fit(rows)
    assert est.sample_scores_.loc["a", "u"] == 0.3
    st = est.score_table()
    assert st.source.tolist() == ["observed", "observed", "observed", "predicted"]
    obs = st[st.source == "observed"]
    np.testing.assert_array_equal(obs.score, [0.5, 0.3, 0.9])
    assert list(st.columns) == ["model_id", "task_id", "suite", "score", "source", "n_responses"]


def test_family_default_rule():
    rows = two()
    rows[0]["model_id"] = "openai/gpt-oss-20b"
    rec = validate(rows)
    assert rec.frame.family.tolist() == ["openai", "m1"]


# ----------------------------------------------------------------------------- output contract
def test_output_contract(small, small_bd):
    est = PKPS().fit(small)
    out = est.predict()
    assert isinstance(out, list) and all(set(d) == {"model_id", "task_id", "score_hat"} for d in out)
    assert all(type(d["score_hat"]) is float for d in out)
    got = {(d["model_id"], d["task_id"]) for d in out}
    want = {(est.model_names_[i], est.task_names_[t]) for i, t in zip(*np.nonzero(~small_bd.observed))}
    assert got == want and len(out) == len(want)
    one = est.predict([{"model_id": est.model_names_[2]}])
    assert [d["task_id"] for d in one] == est.task_names_
    dup = est.predict([{"model_id": "model_01", "task_id": "task_000"}] * 2)
    assert len(dup) == 2 and dup[0] == dup[1]
    frame = est.predict(as_frame=True)
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(out)
    with pytest.raises(UnknownIdError, match="'nope'") as ei:
        est.predict([{"model_id": "nope"}])
    assert isinstance(ei.value, KeyError) and isinstance(ei.value, ValueError)
    with pytest.raises(ValueError, match="task_999"):
        est.predict([{"model_id": "model_01", "task_id": "task_999"}])


def test_not_fitted_errors():
    for est in (PKPS(), SampleScore()):
        with pytest.raises(NotFittedError, match="fit"):
            est.predict()
        with pytest.raises(AttributeError):
            est.update(two())
        with pytest.raises(ValueError):
            est.score_table()


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(k=0), r"'k' parameter of PKPS.predict must be an int in the range \[1, inf\)"),
        (dict(k=True), "'k' parameter"),
        (dict(k=2.0), "'k' parameter"),
        (dict(holdout="x"), "holdout"),
        (dict(weights="x"), "weights"),
        (dict(min_train=0), "min_train"),
        (dict(target="x"), "target"),
    ],
)
def test_bad_predict_kwargs(small, kw, match):
    est = PKPS().fit(small)
    with pytest.raises(ValueError, match=match):
        est.predict(**kw)


def test_unknown_predict_keyword_is_typeerror(small):
    with pytest.raises(TypeError):
        PKPS().fit(small).predict(bogus=1)
