"""blindspot.prognose.standardisation: the standardisation tables of App. H.23 and H.41."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.conventions import frontier, frontier_mask, population_radius, top_gap
from blindspot.core.covering import covering_radius
from blindspot.data.suites import load_suite
from blindspot.prognose import standardisation as st


def _scores(rng, n=90, k=7, f=2):
    L = rng.normal(size=(k, f)) + np.array([1.5] + [0] * (f - 1))
    return 50 + 10 * (rng.normal(size=(n, f)) @ L.T + 0.6 * rng.normal(size=(n, k)))


def test_representations(rng):
    S = _scores(rng)
    z = st.representation(S, "z-score")
    assert z.mean(axis=0) == pytest.approx(np.zeros(S.shape[1]), abs=1e-12)
    assert z.std(axis=0) == pytest.approx(np.ones(S.shape[1]))
    mm = st.representation(S, "min-max")
    assert mm.min(axis=0) == pytest.approx(np.zeros(S.shape[1]))
    assert mm.max(axis=0) == pytest.approx(np.ones(S.shape[1]))
    ordinal = st.representation(S, "rank", ranks="ordinal")
    n = S.shape[0]
    for j in range(S.shape[1]):  # each column is a permutation of 0, 1/n, ..., (n-1)/n
        assert sorted(ordinal[:, j] * n) == pytest.approx(np.arange(n))
    assert st.representation(S, "raw") == pytest.approx(S)


def test_stated_formula_is_invariant_to_affine_rescaling(rng):
    S = _scores(rng)
    t = st.stated_ratios(S)
    for m in ("min-max", "raw"):  # the stated formula z-scores every column first
        assert t.loc[m].to_numpy() == pytest.approx(t.loc["z-score"].to_numpy(), rel=1e-9)
    assert t.loc["z-score", "R"] == pytest.approx(population_radius(S))
    assert (t["omega"] <= np.pi / 2 + 1e-12).all()
    assert (t["capped_ratio"] <= t["ratio"] + 1e-9).all()


def test_h23_code_radius_is_not_translation_invariant(rng):
    """H.23's R is the norm of uncentred rows: shifting a raw benchmark changes it, the z-score row does not move."""
    S = _scores(rng)
    a = st.ratios_h23(S)
    shifted = S + np.r_[100.0, np.zeros(S.shape[1] - 1)]
    b = st.ratios_h23(shifted)
    assert b.loc["z-score", "R"] == pytest.approx(a.loc["z-score", "R"])
    assert b.loc["raw", "R"] > a.loc["raw", "R"] + 50
    assert a.loc["z-score", "R"] == pytest.approx(population_radius(S))
    assert a.loc["z-score", "delta2"] == pytest.approx(top_gap(S))


def test_h23_omega_is_a_signed_monte_carlo_lower_estimate(rng):
    S = _scores(rng)
    t = st.ratios_h23(S, n_queries=3000, seed=3)
    Z = st.representation(S, "z-score")
    d = int(t.loc["z-score", "d"])
    Vt = np.linalg.svd(Z - Z.mean(axis=0), full_matrices=False)[2]
    exact = covering_radius(Vt[:d].T, projective=False).omega
    assert 0 < t.loc["z-score", "omega"] <= exact + 1e-9
    assert t.loc["z-score", "delta_vis"] == pytest.approx(2 * t.loc["z-score", "R"] * t.loc["z-score", "omega"])
    assert st.ratios_h23(S, n_queries=3000, seed=3).equals(t)  # seeded


def test_h41_uses_the_frontier_and_a_fixed_omega(rng):
    S = _scores(rng)
    t = st.ratios_h41(S)
    assert (t["n"] == frontier_mask(S).sum()).all()
    assert (t["omega"] == st.H41_OMEGA).all()
    F = S[frontier_mask(S)]
    assert t.loc["z-score", "R"] == pytest.approx(population_radius(F))
    doubled = st.ratios_h41(S, omega=2 * st.H41_OMEGA)
    assert doubled["ratio"].to_numpy() == pytest.approx(2 * t["ratio"].to_numpy())


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda S: st.representation(S, "log"), "unknown representation"),
        (lambda S: st.representation(S, "rank", ranks="dense"), "ranks must be"),
        (lambda S: st.ratios_h23(S, n_queries=0), "n_queries"),
        (lambda S: st.ratios_h41(S, omega=0.0), "omega must be positive"),
        (lambda S: st.ratios_h41(S[:4]), "frontier keeps"),
    ],
)
def test_bad_input(rng, call, match):
    with pytest.raises(ValueError, match=match):
        call(_scores(rng))


def test_the_papers_tables(data_dir):
    """App. H.23 (Extended frontier) and H.41 (OLLM v2 full matrix; the Extended frontier, cut again)."""
    ext = frontier(load_suite("extended", data_dir=data_dir, fallback=False))
    h23 = st.ratios_h23(ext)
    assert h23["ratio"].round().to_numpy() == pytest.approx([386, 628, 3987, 1995])
    assert h23["omega"].round(2).to_numpy() == pytest.approx([1.90, 1.81, 1.87, 1.90])
    v2 = st.ratios_h41(load_suite("ollm_v2", data_dir=data_dir, fallback=False))
    assert v2["ratio"].round().to_numpy() == pytest.approx([92, 115, 170, 143])
    twice = st.ratios_h41(ext)
    assert twice["n"].iloc[0] == 74
    assert twice["ratio"].round().to_numpy() == pytest.approx([192, 207, 3854, 338])
