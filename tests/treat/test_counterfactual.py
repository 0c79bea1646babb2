"""blindspot.treat.counterfactual: leave-one-benchmark-out and external evaluations (App. H.36, H.37)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core import conventions, coverage as cv
from blindspot.data import synthetic
from blindspot.treat import counterfactual as cf


def _scores(rng, n=80, k=7):
    L = rng.normal(size=(k, 3))
    return rng.normal(size=(n, 3)) @ L.T + 0.6 * rng.normal(size=(n, k))


def test_blind_loading_range_and_sum(rng):
    S = synthetic.random_correlations(1, 9, rng)[0]
    for d in (0, 2, 5, 9):
        b = cf.blind_loading(S, d)
        assert ((b >= -1e-12) & (b <= 1 + 1e-12)).all()
        assert b.sum() == pytest.approx(9 - d)
    with pytest.raises(ValueError, match="d must be in"):
        cf.blind_loading(S, 10)


def test_identical_columns():
    rng = np.random.default_rng(0)
    x = rng.normal(size=50)
    X = np.column_stack([x, 2 * x + 1, 3 * x - 4, x])
    assert np.all(cf.lobo_rank_change(X) == 0)
    # rank one: d = round(d_eff) = 1 and every benchmark loads 1/k on the only direction
    np.testing.assert_allclose(cf.blind_loading(np.corrcoef(X, rowvar=False)), 1 - 1 / 4, atol=1e-12)


def _rank_change_loop(X, top=None):
    Z = conventions.zscore(X)
    full = Z.mean(1)
    keep = np.argsort(-full, kind="stable")[:top] if top else np.arange(len(full))
    out = []
    for j in range(X.shape[1]):
        sub = np.delete(Z, j, axis=1).mean(1)
        out.append(np.abs(conventions.ranks(sub[keep]) - conventions.ranks(full[keep])).mean())
    return np.array(out)


def test_rank_change_matches_a_plain_loop(rng):
    X = _scores(rng)
    np.testing.assert_allclose(cf.lobo_rank_change(X), _rank_change_loop(X))
    np.testing.assert_allclose(cf.lobo_rank_change(X, top=20), _rank_change_loop(X, 20))
    np.testing.assert_allclose(cf.lobo_rank_change(X, top=80), cf.lobo_rank_change(X))
    with pytest.raises(ValueError, match="top must be"):
        cf.lobo_rank_change(X, top=1)


def test_coverage_loss_and_counterfactual_table(rng):
    X = _scores(rng)
    S = np.corrcoef(X, rowvar=False)
    loss = cf.lobo_coverage_loss(S)
    for j in (0, 3):
        assert loss[j] == pytest.approx(1 - cv.coverage(S, [i for i in range(7) if i != j]))
    res = cf.counterfactual(pd.DataFrame(X, columns=list("abcdefg")))
    assert list(res.table.index) == list("abcdefg")
    assert -1 <= res.rho <= 1 and 0 <= res.p <= 1
    assert 0 <= res.top_overlap(3) <= 3
    assert ((res.table.tau > 0) & (res.table.tau <= 1)).all()
    tab = cf.rho_by_population(X, [10, 80])
    assert tab.loc[80, "rho"] == pytest.approx(res.rho)


def test_match_models():
    m = cf.match_models(
        ["llama-2-7b-chat", "gpt-4", "Zephyr-7B-beta"],
        ["meta-llama/Llama-2-7b-chat-hf", "HuggingFaceH4/zephyr-7b-beta", "x/zephyr-7b-beta"],
    )
    assert m.left.tolist() == ["llama-2-7b-chat", "Zephyr-7B-beta"]
    assert m.right.tolist() == ["meta-llama/Llama-2-7b-chat-hf", "HuggingFaceH4/zephyr-7b-beta"]
    assert m.n_candidates.tolist() == [1, 2]


def test_external_alignment(rng):
    X = _scores(rng, n=60, k=6)
    E = pd.DataFrame(
        {
            "copy": X[:, 0],
            "agg": conventions.aggregate(X),
            "noise": rng.normal(size=60),
            "sparse": np.r_[rng.normal(size=5), np.full(55, np.nan)],
        }
    )
    res = cf.external_alignment(X, E, d=2, min_models=10)
    assert "sparse" not in res.table.index
    assert ((res.table.blind >= -1e-12) & (res.table.blind <= 1 + 1e-12)).all()
    # the aggregate is nearly the first principal direction, so almost all of it is visible
    assert res.table.loc["agg", "blind"] < res.table.loc["noise", "blind"]
    full = cf.external_alignment(X, E, d=6, min_models=10)
    np.testing.assert_allclose(full.table.blind, 0.0, atol=1e-12)  # d = k: nothing is blind
    with pytest.raises(ValueError, match="one row per row"):
        cf.external_alignment(X, E.iloc[:10])
