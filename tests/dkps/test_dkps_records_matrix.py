"""The records' vectors as one matrix, and the vectorised key bookkeeping, against row-by-row references."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dkps.layout import unique_keys
from dkps.records import first_rows, key_codes, validate
from dkps.statistics import query_registry


def frame(n_models=5, n_tasks=3, n_q=4, d=6, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(f"m{m}", f"t{t}", f"q{q}") for m in range(n_models) for t in range(n_tasks) for q in range(n_q)]
    df = pd.DataFrame(rows, columns=["model_id", "task_id", "query_id"]).sample(frac=1.0, random_state=seed)
    df = df.reset_index(drop=True)
    U = {(t, q): rng.normal(size=d) for _, t, q in rows}
    df["query_embedding"] = [U[(t, q)].copy() for t, q in zip(df.task_id, df.query_id)]
    return df, rng.normal(size=(len(df), d))


def test_rows_of_one_matrix_are_used_without_a_copy():
    df, R = frame()
    df["response_embedding"] = list(R)
    rec = validate(df, require_query=True)
    assert rec.response_matrix is R  # the caller's array itself
    assert all(v is w for v, w in zip(rec.response_vectors, df.response_embedding))
    # the query vectors are separate arrays: one stack of them, whose rows are the vectors
    assert rec.query_matrix is not None and rec.query_matrix.base is None
    for i, v in enumerate(rec.query_vectors):
        assert np.shares_memory(v, rec.query_matrix) and v.tobytes() == rec.query_matrix[i].tobytes()


@pytest.mark.parametrize("how", ["permuted", "subset", "separate", "lists"])
def test_other_layouts_are_stacked_bit_for_bit(how):
    df, R = frame(seed=1)
    perm = np.random.default_rng(2).permutation(len(R))
    vecs = {
        "permuted": [R[i] for i in perm],  # views of R, but not in R's order
        "subset": list(R[:-1]) + [R[0]],  # views of R, one repeated
        "separate": [r.copy() for r in R],
        "lists": [r.tolist() for r in R],
    }[how]
    df["response_embedding"] = vecs
    rec = validate(df, require_query=True)
    M = rec.response_matrix
    assert M is not None and not np.shares_memory(M, R)
    np.testing.assert_array_equal(M, np.stack([np.asarray(v, dtype=float) for v in vecs]))
    assert all(v.tobytes() == M[i].tobytes() for i, v in enumerate(rec.response_vectors))


def test_no_matrix_when_a_vector_is_missing_or_the_lengths_differ():
    df, R = frame(seed=3)
    df["response_embedding"] = list(R)
    df["response"] = "text"
    df.loc[2, "response_embedding"] = None
    rec = validate(df, require_query=True)
    assert rec.response_matrix is None and rec.response_vectors[2] is None
    df, R = frame(seed=3)
    df["suite"] = np.where(df.task_id == "t0", "a", "b")
    df["response_embedding"] = [r if s == "a" else r[:3] for r, s in zip(R, df.suite)]
    assert validate(df, require_query=True).response_matrix is None


@pytest.mark.parametrize("which", ["all", "some", "none"])
def test_stacked_equals_np_stack(which):
    df, R = frame(seed=4)
    df["response_embedding"] = list(R)
    rec = validate(df, require_query=True)
    idx = {"all": np.arange(len(R)), "some": np.array([5, 1, 1, 7]), "none": np.arange(3)}[which]
    for kind, vecs in (("response", rec.response_vectors), ("query", rec.query_vectors)):
        got = rec.stacked(kind, idx)
        assert got.tobytes() == np.stack([vecs[i] for i in idx]).tobytes()
    assert rec.stacked("response", np.arange(len(R))) is R


def test_nan_is_named_before_an_overflow_earlier_in_the_column():
    df, R = frame(seed=5)
    R[1, 0] = 1e200  # its squared norm overflows
    R[7, 2] = np.nan
    df["response_embedding"] = list(R)
    with pytest.raises(ValueError, match="row 7 contains NaN or inf"):
        validate(df, require_query=True)
    R[7, 2] = 0.0
    with pytest.raises(ValueError, match="row 1 has values up to 1e\\+200, too large"):
        validate(df, require_query=True)


def test_key_codes_and_first_rows_against_a_dict():
    df, _ = frame(seed=6)
    codes = key_codes(df)
    seen: dict = {}
    ref = np.array([seen.setdefault(k, len(seen)) for k in zip(df.task_id, df.query_id)])
    np.testing.assert_array_equal(codes, ref)
    firsts = {}
    for i, k in enumerate(zip(df.task_id, df.query_id)):
        firsts.setdefault(k, i)
    np.testing.assert_array_equal(first_rows(codes), sorted(firsts.values()))
    idx = np.random.default_rng(0).permutation(len(df))[:25]
    keys, tasks = unique_keys(df, idx)
    ref_keys = list(dict.fromkeys((df.task_id[i], df.query_id[i]) for i in idx))
    assert keys == ref_keys and tasks == [k[0] for k in ref_keys]


def _registry_by_rows(rec, known=None):
    """The registry's definition, row by row: the first vector and the first text of each key."""
    reg = {} if known is None else dict(known)
    for i in range(len(rec)):
        key = (rec.frame.task_id[i], rec.frame.query_id[i])
        v, s = rec.query_vectors[i], rec.query_text[i]
        if v is None and s is None:
            continue
        old = reg.get(key)
        reg[key] = (v, s) if old is None else (old[0] if old[0] is not None else v, old[1] if old[1] is not None else s)
    return reg


def test_query_registry_equals_the_row_by_row_definition():
    df, R = frame(seed=7)
    df["response_embedding"] = list(R)
    rng = np.random.default_rng(1)
    df["query"] = [f"{t}/{q}" if rng.random() < 0.5 else None for t, q in zip(df.task_id, df.query_id)]
    df["query_embedding"] = [v if rng.random() < 0.5 else None for v in df.query_embedding]
    rec = validate(df)
    first, second = rec.take(np.arange(30)), rec.take(np.arange(30, len(rec)))
    for got, want in (
        (query_registry(rec), _registry_by_rows(rec)),
        (query_registry(second, query_registry(first)), _registry_by_rows(second, _registry_by_rows(first))),
    ):
        assert list(got) == list(want)  # same keys, same order
        for k in want:
            assert got[k][1] == want[k][1]
            assert (got[k][0] is None and want[k][0] is None) or got[k][0] is want[k][0]
