"""blindspot.perspective.adversarial and blindspot.perspective.response_variance: placing excluded models; what embeddings encode (item 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.perspective import adversarial, alpaca, response_variance


# ------------------------------------------------------------------------------------ quality view
def test_quality_view_recovers_a_linear_target_and_projects_the_rest():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    b = np.array([1.0, -2.0, 0.5, 0.0])
    y = X @ b + 3.0
    fit = np.ones(40, dtype=bool)
    fit[-5:] = False
    y_obs = np.where(fit, y, np.nan)
    view, r2 = adversarial.quality_view(X, y_obs, fit)
    assert r2 == pytest.approx(1.0)
    # axis 1 is the centred coordinates along b/|b| for every row, fitted or not
    mu = X[fit].mean(axis=0)
    np.testing.assert_allclose(view[:, 0], (X - mu) @ b / np.linalg.norm(b), atol=1e-10)
    assert abs(np.corrcoef(view[:, 0], y)[0, 1]) > 0.999999
    v, *_ = np.linalg.lstsq(X - mu, view[:, 1], rcond=None)  # axis 2 is a linear read-out too ...
    np.testing.assert_allclose((X - mu) @ v, view[:, 1], atol=1e-10)
    assert abs(v @ b) < 1e-8 and np.linalg.norm(v) == pytest.approx(1.0)  # ... along a unit direction orthogonal to b
    with pytest.raises(ValueError, match="same n"):
        adversarial.quality_view(X, y_obs[:-1], fit)
    with pytest.raises(ValueError, match="at least 3 fitted rows"):
        adversarial.quality_view(X, y_obs, np.zeros(40, dtype=bool))
    with pytest.raises(ValueError, match="not linearly related"):
        adversarial.quality_view(np.zeros((10, 2)), np.arange(10.0), np.ones(10, dtype=bool))


# ------------------------------------------------------------------------------------ picture
@pytest.fixture(scope="module")
def synth():
    return alpaca.synthetic_alpaca_eval(seed=1, n_models=30, n_families=10, n_queries_per_task=4)


def test_picture_places_the_excluded_model_without_letting_it_teach(synth):
    d = synth
    pic = adversarial.adversarial_picture(d.responses, d.models, d.task_weights)
    m = pic.models
    assert set(pic.excluded.index) == {"NullModel"}
    pop = m[m.kind == "population"]
    # kNN predictions are weighted means of population targets: inside their range
    lo, hi = pop.y.min(), pop.y.max()
    assert lo - 1e-9 <= m.loc["NullModel", "y_hat"] <= hi + 1e-9
    assert all("NullModel" not in nb for nb in m.neighbours)  # never anyone's neighbour
    np.testing.assert_allclose(m.gap, m.y - m.y_hat)
    assert pic.population_mae == pytest.approx(pop.gap.abs().mean())
    assert pic.gap_sd == pytest.approx(pop.gap.std(ddof=1))
    np.testing.assert_allclose(m.gap_z, m.gap / pic.gap_sd)
    assert np.median(m.isolation[m.kind == "population"]) == pytest.approx(1.0)  # the reference scale
    # the excluded model's leaderboard number reaches nobody: changing it changes no prediction
    m2 = d.models.copy()
    m2.loc["NullModel", "win_rate"] = 1.0
    pic2 = adversarial.adversarial_picture(d.responses, m2, d.task_weights)
    np.testing.assert_allclose(pic2.models.y_hat, m.y_hat, atol=1e-12)
    with pytest.raises(ValueError, match="no excluded model"):
        adversarial.adversarial_picture(d.responses[d.responses.model_id != "NullModel"], d.models, d.task_weights)
    with pytest.raises(ValueError, match="target must be one of"):
        adversarial.adversarial_picture(d.responses, d.models, d.task_weights, target="elo")


def test_base_rank_of_a_length_variant(synth):
    d = synth
    base = d.population[3]
    rows = d.responses[d.responses.model_id == base].copy()
    rows["model_id"] = base + "_verbose"
    rows["response_embedding"] = [v + 1e-3 for v in rows.response_embedding]  # a near copy of its base
    models = d.models.copy()
    models.loc[base + "_verbose"] = models.loc[base]
    models.loc[base + "_verbose", "kind"] = "length variant"
    pic = adversarial.adversarial_picture(pd.concat([d.responses, rows], ignore_index=True), models, d.task_weights)
    assert pic.models.loc[base + "_verbose", "base_rank"] == 1.0
    assert pic.models.loc[base + "_verbose", "neighbours"].split(", ")[0] == base
    assert np.isnan(pic.models.loc["NullModel", "base_rank"])
    g = pic.length_variant_gaps()
    assert list(g.index) == ["verbose"] and g.loc["verbose", "n"] == 1
    assert g.loc["verbose", "gap"] == pytest.approx(pic.models.loc[base + "_verbose", "gap"])


# ------------------------------------------------------------------------------------ variance shares
def test_variance_shares_on_a_known_two_way_layout():
    rng = np.random.default_rng(3)
    M, Q, dim = 12, 9, 5
    a = rng.normal(size=(M, dim)) * 0.5  # model effects
    b = rng.normal(size=(Q, dim)) * 2.0  # query effects
    a -= a.mean(axis=0)
    b -= b.mean(axis=0)
    X = a[:, None, :] + b[None, :, :] + 7.0
    rows = [
        dict(model_id=f"m{i}", task_id=f"t{q % 3}", query_id=str(q), response_embedding=X[i, q])
        for i in range(M)
        for q in range(Q)
    ]
    s = response_variance.response_variance(pd.DataFrame(rows))
    tot = Q * (a**2).sum() + M * (b**2).sum()
    assert s.model == pytest.approx(Q * (a**2).sum() / tot)
    assert s.query == pytest.approx(M * (b**2).sum() / tot)
    assert s.residual == pytest.approx(0.0, abs=1e-12)
    # with noise the three shares still add to one (orthogonal decomposition)
    rows2 = [dict(r, response_embedding=r["response_embedding"] + rng.normal(size=dim)) for r in rows]
    s2 = response_variance.response_variance(pd.DataFrame(rows2))
    assert s2.query + s2.model + s2.residual == pytest.approx(1.0)
    assert s2.residual > 0.01 and (s2.n_models, s2.n_queries, s2.dim) == (M, Q, dim)
    # a model that missed a query is left out of the balanced design
    s3 = response_variance.response_variance(pd.DataFrame(rows[1:]))
    assert s3.n_models == M - 1
    with pytest.raises(ValueError, match="at least 2 models"):
        response_variance.response_variance(pd.DataFrame(rows[: Q + 1]))
    with pytest.raises(ValueError, match="need the columns"):
        response_variance.response_variance(pd.DataFrame(rows).drop(columns="task_id"))
