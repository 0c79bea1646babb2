"""dkps refuses what it cannot use, by name, instead of returning numbers that mean nothing."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from dkps import PKPS, generate_benchmark_data
from dkps.synthetic import score_records


@pytest.fixture()
def tiny() -> pd.DataFrame:
    bd = generate_benchmark_data(d_obs=8, n_models=12, n_tasks=3, n_queries_per_task=4, obs_prob=0.8, random_state=0)
    return score_records(bd)


def test_whitening_a_task_seen_by_too_few_models_warns_naming_it(tiny):
    rec = tiny.copy()
    rec.loc[(rec.task_id == "task_000") & ~rec.model_id.isin(["model_00", "model_01"]), "score"] = np.nan
    est = PKPS().fit(rec)
    seen = int(est.targets_["task_000"].notna().sum())
    assert seen < 3
    with pytest.warns(UserWarning, match=rf"min_train=3: 'task_000' \(observed for {seen} model") as rec_w:
        out = est.predict(whiten=True, as_frame=True)
    nan_tasks = set(out.task_id[out.score_hat.isna()])
    assert nan_tasks == {"task_000"}  # the NaN cells are exactly those the warning names
    assert str(int(out.score_hat.isna().sum())) in str(rec_w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict(whiten=True, min_train=1)  # enough models at min_train=1: no NaN, no warning


def test_vectors_that_overflow_in_the_kernels_are_refused_with_their_row(tiny):
    rec = tiny.copy()
    rec.at[5, "embedding"] = np.full(8, 1e300)
    with pytest.raises(ValueError, match=r"column 'embedding': row 5 has values up to 1e\+300.*overflows"):
        PKPS().fit(rec)
    rec = tiny.copy()
    rec["query_embedding"] = [np.asarray(v, dtype=float) for v in rec.query_embedding]
    rec.at[7, "query_embedding"] = np.r_[1e160, np.zeros(7)]  # finite, but its square is not
    with pytest.raises(ValueError, match=r"column 'query_embedding': row 7 "):
        PKPS().fit(rec)
    rec = tiny.copy()
    rec.at[5, "embedding"] = np.full(8, 1e150)  # large but representable through the kernels
    PKPS().fit(rec)


def test_all_zero_embeddings_are_refused(tiny):
    rec = tiny.copy()
    rec["embedding"] = [np.zeros(8)] * len(rec)
    with pytest.raises(ValueError, match=r"column 'embedding': every embedding of suite 'default' is all zeros"):
        PKPS().fit(rec)
    rec = tiny.copy()
    rec["query_embedding"] = [np.zeros(8)] * len(rec)
    with pytest.raises(ValueError, match=r"column 'query_embedding': every embedding"):
        PKPS().fit(rec)
    rec = tiny.copy()
    rec.at[3, "embedding"] = np.zeros(8)  # one empty response (the hash embedder's zeros) stays usable
    PKPS().fit(rec)


@pytest.mark.parametrize("where", ["one row", "every row"])
def test_complex_embeddings_are_refused_with_their_row(tiny, where):
    rec = tiny.copy()
    if where == "one row":
        rec.at[5, "embedding"] = np.asarray(rec.at[5, "embedding"]) * (1 + 1j)
        row = 5
    else:
        rec["embedding"] = [np.asarray(v) + 0j for v in rec.embedding]
        row = 0
    with pytest.raises(ValueError, match=rf"column 'embedding': row {row} is not numeric \(dtype complex128\)"):
        PKPS().fit(rec)


def test_update_with_another_dimension_names_the_column_and_the_row(tiny):
    est = PKPS().fit(tiny[tiny.model_id != "model_11"])
    new = tiny[tiny.model_id == "model_11"].reset_index(drop=True)
    new["embedding"] = [np.append(v, 0.0) for v in new.embedding]
    with pytest.raises(
        ValueError, match=r"column 'embedding': row 0 has dimension 9 but suite 'default' was fitted on dimension 8"
    ):
        est.update(new)
    new = tiny[tiny.model_id == "model_11"].reset_index(drop=True)
    dim = len(new.query_embedding[0])
    new["query_embedding"] = [np.r_[v, 0.0, 0.0] for v in new.query_embedding]
    with pytest.raises(
        ValueError, match=rf"column 'query_embedding': row 0 has dimension {dim + 2} .* dimension {dim};"
    ):
        est.update(new)


@pytest.mark.parametrize("empty", [[], {}, pd.DataFrame()], ids=["list", "dict", "frame"])
def test_predict_of_no_cells_says_so(tiny, empty):
    est = PKPS().fit(tiny)
    with pytest.raises(ValueError, match="predict got no cells"):
        est.predict(empty)
    assert est.predict(pd.DataFrame({"model_id": []})) == []  # an empty request with its columns is fine
