"""The report's greedy-against-random section: k chosen by coverage against a random k, and the frontier caveat."""

from __future__ import annotations

import numpy as np
import pandas as pd

import blindspot


def _board(rng, n=120, k=6, frontier_breaks=False, noise=0.3):
    """Two latent abilities and little noise; with ``frontier_breaks`` the best half's benchmarks are unrelated."""
    F = rng.normal(size=(n, 2))
    W = np.zeros((2, k))
    W[0, : k // 2], W[1, k // 2 :] = 1.0, 1.0  # two blocks of benchmarks, one ability each
    X = F @ (W + 0.3 * rng.uniform(size=(2, k))) + noise * rng.normal(size=(n, k))
    if frontier_breaks:
        top = X.mean(axis=1) >= np.median(X.mean(axis=1))
        X[top] = X[top].mean(axis=0) + 2.0 + 0.5 * rng.normal(size=(int(top.sum()), k))
    return pd.DataFrame(X, index=[f"m{i}" for i in range(n)], columns=[f"b{j}" for j in range(k)])


def test_report_says_what_k_chosen_by_coverage_predict(rng):
    rep = blindspot.analyze(_board(rng), n_boot=50, seed=0)
    f = rep.finding("greedy_vs_random")
    assert f is not None and f.status == "ok"
    v = f.values
    assert f.reading.startswith(f"{v['k']} benchmarks chosen by coverage predict the rest with R\u00b2 = ")
    assert f"(a random {v['k']}: {v['r2_random']:.2f})" in f.reading
    lo, hi = v["r2_coverage_interval"]
    assert v["k"] >= 2 and lo <= v["r2_coverage"] <= hi
    assert v["r2_coverage"] > v["r2_random"]  # two blocks: coverage takes one of each, a random pair may not
    assert v["extrapolation_caveat"] == ("predict the frontier" in f.reading)
    assert "greedy_vs_random" in rep.to_json()


def test_report_adds_the_caveat_when_the_frontier_is_not_predicted(rng):
    rep = blindspot.analyze(_board(rng, frontier_breaks=True), n_boot=50, seed=0)
    f = rep.finding("greedy_vs_random")
    assert f.values["extrapolation_caveat"]
    assert f.values["r2_coverage_frontier"] < f.values["r2_coverage"] - 0.05
    assert "predict the frontier" in f.reading


def test_report_skips_it_on_too_few_models(rng):
    rep = blindspot.analyze(_board(rng, n=10), n_boot=50, seed=0)
    assert rep.finding("greedy_vs_random").status == "skipped"
