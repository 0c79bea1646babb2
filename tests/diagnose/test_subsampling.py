"""blindspot.diagnose.subsampling: split-half reliability (App. H.2) and the saturation curve (App. H.3)."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.spectrum import d_eff
from blindspot.data.suites import load_suite
from blindspot.diagnose import subsampling as ss


def _one_factor(rng, n, k=6):
    return 0.8 * rng.normal(size=(n, 1)) + 0.6 * rng.normal(size=(n, k))


def test_split_half_agrees_with_a_loop_over_the_same_splits(rng):
    X = _one_factor(rng, 41)
    r = ss.split_half_deff(X, n_splits=25, seed=3)
    perm_rng = np.random.default_rng(3)
    for b in range(25):
        p = perm_rng.permutation(41)
        assert r.halves[b, 0] == pytest.approx(d_eff(X[p[:20]]), rel=1e-10)
        assert r.halves[b, 1] == pytest.approx(d_eff(X[p[20:40]]), rel=1e-10)  # the 41st model sits out
    assert r.half_size == 20 and r.n_splits == 25
    assert r.mad == pytest.approx(np.mean(np.abs(r.halves[:, 0] - r.halves[:, 1])))


def test_split_half_mad_shrinks_like_one_over_root_n(rng):
    small = ss.split_half_deff(_one_factor(rng, 200), n_splits=300).mad
    large = ss.split_half_deff(_one_factor(rng, 3200), n_splits=300).mad
    assert 2.5 < small / large < 6.5  # sixteen times the models: about a quarter of the spread


def test_split_half_is_invariant_to_rescaling_the_benchmarks(rng):
    X = _one_factor(rng, 60)
    Y = X * np.array([1, 10, 0.1, 3, 7, 2]) + np.array([5, -1, 0, 2, 100, 9])  # positive affine per column
    assert ss.split_half_deff(Y, n_splits=40, seed=2).mad == pytest.approx(
        ss.split_half_deff(X, n_splits=40, seed=2).mad
    )


def test_split_half_input_checks(rng):
    with pytest.raises(ValueError, match="at least 6 models"):
        ss.split_half_deff(rng.normal(size=(5, 3)))
    with pytest.raises(ValueError, match="n_splits"):
        ss.split_half_deff(rng.normal(size=(20, 3)), n_splits=1)


def test_saturation_full_size_is_the_full_d_eff_and_spread_shrinks(rng):
    X = _one_factor(rng, 300)
    s = ss.saturation_curve(X, sizes=(30, 100, 300, 400), n_draws=60, seed=1)
    assert s.skipped == [400]
    assert s.table.loc[300, "mean"] == pytest.approx(d_eff(X))
    assert s.table.loc[300, "hi"] - s.table.loc[300, "lo"] < 1e-9
    sd = s.table["sd"].to_numpy()
    assert sd[0] > sd[1] > sd[2]
    assert (s.table["lo"] <= s.table["mean"]).all() and (s.table["mean"] <= s.table["hi"]).all()


def test_saturation_agrees_with_a_loop_over_the_same_draws(rng):
    X = _one_factor(rng, 80)
    s = ss.saturation_curve(X, sizes=(10, 40), n_draws=5, seed=7)
    r = np.random.default_rng(7)
    for m in (10, 40):
        for b in range(5):
            assert s.draws[m][b] == pytest.approx(d_eff(X[r.choice(80, size=m, replace=False)]), rel=1e-10)


def test_saturation_input_checks(rng):
    X = rng.normal(size=(20, 3))
    with pytest.raises(ValueError, match="at least 3 models"):
        ss.saturation_curve(X, sizes=(2, 10))
    with pytest.raises(ValueError, match="exceeds"):
        ss.saturation_curve(X, sizes=(50,))
    with pytest.raises(ValueError, match="n_draws"):
        ss.saturation_curve(X, sizes=(10,), n_draws=1)


def test_paper_values(data_dir):
    """App. H.2 and H.3 on the paper's matrices (the protocol reconstructed in the module docstring)."""
    ext = load_suite("extended", data_dir=data_dir)
    assert round(ss.split_half_deff(ext).mad, 2) == 0.12
    sat = ss.saturation_curve(ext).table
    assert [round(sat.loc[50, c], 2) for c in ("mean", "lo", "hi")] == [2.07, 1.79, 2.44]
    assert [round(sat.loc[100, c], 2) for c in ("mean", "lo", "hi")] == [2.10, 1.89, 2.31]
    # OLLM v2: 0.0948, which the paper prints as 0.10
    assert ss.split_half_deff(load_suite("ollm_v2", data_dir=data_dir)).mad == pytest.approx(0.0948, abs=1e-4)
