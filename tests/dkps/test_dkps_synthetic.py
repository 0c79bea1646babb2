"""generate_benchmark_data."""

from __future__ import annotations

import numpy as np
import pytest

from dkps import generate_benchmark_data
from dkps.synthetic import latent_r2


def test_original_model_reproduces_the_original_packages_quick_start():
    # figures of the original package at the quick-start call
    data, scores, observed, latent, tau = generate_benchmark_data(
        d_latent=5, d_obs=20, n_models=40, n_tasks=8, n_queries_per_task=16, obs_prob=0.6, random_state=0
    )
    assert len(data) == 3024 and data.query_id.nunique() == 128
    assert observed.sum() == 189 and observed.size == 320
    assert data.iloc[0][["model_id", "task_id", "query_id"]].tolist() == ["model_00", "task_001", "task001_q0000"]
    assert np.flatnonzero(observed[0]).tolist() == [1, 2, 6, 7]
    np.testing.assert_allclose(scores[0, :3], [-1.2560, -1.7315, -0.5412], atol=5e-5)
    assert len(data.embedding.iloc[0]) == 20 and len(data.query_embedding.iloc[0]) == 5
    assert latent.shape == (40, 5) and tau.shape == (8, 5)


def test_original_model_structure_and_round_trip():
    bd = generate_benchmark_data(
        d_latent=3,
        d_obs=7,
        n_models=12,
        n_tasks=5,
        n_queries_per_task=6,
        obs_prob=0.5,
        random_state=4,
        response_noise=0.3,
    )
    d = bd.data
    mi, ti = d.model_id.str[6:].astype(int), d.task_id.str[5:].astype(int)
    assert set(zip(mi, ti)) == set(zip(*np.nonzero(bd.observed)))
    assert bd.observed.any(axis=1).all() and bd.observed.any(axis=0).all()
    X = np.stack(d.embedding)
    U = np.stack(d.query_embedding)
    resid = X[:, :3] - U - bd.latent[mi]
    # residual is response_noise x N(0, 1): mean 0 and sd 0.3 within a few standard errors
    se = 0.3 / np.sqrt(resid.size)
    assert abs(resid.mean()) < 4 * se and abs(resid.std() - 0.3) < 0.03
    np.testing.assert_allclose(U, bd.params["query_embeddings"][ti, d.query_id.str[-4:].astype(int)])
    again = generate_benchmark_data(
        d_latent=3,
        d_obs=7,
        n_models=12,
        n_tasks=5,
        n_queries_per_task=6,
        obs_prob=0.5,
        random_state=4,
        response_noise=0.3,
    )
    np.testing.assert_array_equal(np.stack(again.data.embedding), X)


def test_query_obs_prob_keeps_at_least_one_query():
    bd = generate_benchmark_data(n_models=10, n_tasks=4, n_queries_per_task=5, random_state=2, query_obs_prob=0.2)
    per_cell = bd.data.groupby(["model_id", "task_id"]).size()
    assert per_cell.min() >= 1 and per_cell.max() < 5 and len(per_cell) == bd.observed.sum()


def test_factor_model_options():
    bd = generate_benchmark_data(
        n_models=20,
        n_tasks=6,
        n_queries_per_task=10,
        obs_prob=0.3,
        random_state=1,
        generative_model="factor",
        queries_per_cell=3,
        n_families=4,
        n_replicates=2,
        binary_scores=True,
    )
    d = bd.data
    assert (bd.observed.sum(axis=0) >= 2).all() and bd.observed.any(axis=1).all()
    per = d.groupby(["model_id", "task_id"]).query_id.nunique()
    assert (per == 3).all()
    assert (d.groupby(["model_id", "task_id", "query_id"]).size() == 2).all()
    fam = d.drop_duplicates("model_id").set_index("model_id").family
    assert fam["model_05"] == "family_1" and bd.params["families"][5] == 1
    assert set(d.score.unique()) <= {0.0, 1.0}
    ref = bd.params["reference"]
    mi, ti = d.model_id.str[6:].astype(int), d.task_id.str[5:].astype(int)
    np.testing.assert_array_equal(d.reference_score.to_numpy(), ref[mi, ti])
    W = bd.task_vectors
    np.testing.assert_allclose(bd.scores, bd.latent @ W.T + bd.params["task_offsets"])
    # families: latents scatter around their family centre
    Z = bd.latent
    within = np.mean([Z[bd.params["families"] == f].std(axis=0).mean() for f in range(4)])
    assert within < Z.std(axis=0).mean()


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(n_models=1), "n_models"),
        (dict(d_latent=0), "d_latent"),
        (dict(n_tasks=2.5), "n_tasks"),
        (dict(obs_prob=0), "obs_prob"),
        (dict(obs_prob=1.5), "obs_prob"),
        (dict(d_obs=3, d_latent=5), "d_obs"),
        (dict(query_obs_prob=0), "query_obs_prob"),
        (dict(n_families=3), "factor"),
        (dict(generative_model="factor", queries_per_cell=99), "queries_per_cell"),
        (dict(generative_model="factor", n_replicates=0), "n_replicates"),
        (dict(generative_model="nope"), "generative_model"),
        (dict(response_noise=-1), "response_noise"),
    ],
)
def test_bad_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        generate_benchmark_data(**kw)


def test_latent_r2_closed_forms():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(50, 3))
    assert latent_r2(Z @ rng.normal(size=(3, 3)) + 1.0, Z) == pytest.approx(1.0)
    # one predictor with known correlation: R^2 = corr^2
    x = rng.normal(size=(200, 1))
    z = x[:, 0] + rng.normal(size=200)
    assert latent_r2(x, z[:, None]) == pytest.approx(np.corrcoef(x[:, 0], z)[0, 1] ** 2)


# Reference numbers of the original package's generator (jataware/dkps f36ec7ab, dkps/synthetic.py),
# produced by running it in a throwaway environment at the quick-start sizes (d_latent=5, d_obs=20,
# 40 models, 8 tasks, 16 queries per task, obs_prob=0.6): (seed, query_obs_prob) -> rows, the sum of
# every response-embedding value, the first value of the last row's embedding, the last query id.
ORIGINAL_SPARSE_QUERIES = {
    (3, 0.5): (1650, -1349.5313824573768, -2.123309954349131, "task007_q0015"),
    (0, 0.5): (1499, -1091.3930800372814, 1.1839515413375163, "task006_q0015"),
    (1, 0.3): (895, -1249.020274563393, -1.2835084044582155, "task006_q0007"),
    (2, 0.8): (2448, 176.53906851367606, 2.6638200493234776, "task007_q0015"),
}


@pytest.mark.parametrize("seed, query_obs_prob", list(ORIGINAL_SPARSE_QUERIES))
def test_sparse_queries_draw_in_the_originals_order(seed, query_obs_prob):
    # each observed cell draws its query mask and then its responses before the next cell
    n_rows, total, first_of_last, last_query = ORIGINAL_SPARSE_QUERIES[(seed, query_obs_prob)]
    bd = generate_benchmark_data(
        d_latent=5,
        d_obs=20,
        n_models=40,
        n_tasks=8,
        n_queries_per_task=16,
        obs_prob=0.6,
        random_state=seed,
        query_obs_prob=query_obs_prob,
    )
    X = np.stack(bd.data.embedding)
    assert len(bd.data) == n_rows
    assert bd.data.query_id.iloc[-1] == last_query
    np.testing.assert_allclose(X.sum(), total, rtol=1e-12)
    np.testing.assert_allclose(X[-1, 0], first_of_last, rtol=1e-12)
    # every row still follows the generative model: response = query + latent + noise
    mi = bd.data.model_id.str[6:].astype(int)
    resid = X[:, :5] - np.stack(bd.data.query_embedding) - bd.latent[mi]
    assert abs(resid.std() - 0.5) < 0.05
