"""shephard_study: the corollary's constructions bundled, equal to their parts, with the statements they decide."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.data.suites import synthetic_suite
from blindspot.prognose import domination as dm
from blindspot.prognose.domination_study import shephard_study

U = np.array([[np.cos(t), np.sin(t)] for t in np.deg2rad([10, 35, 60, 80, 115, 140])])


@pytest.fixture(scope="module")
def study():
    return shephard_study(U, length=8.0, thickness=0.02, eps=0.01, n_pairs=20, seed=1)


def test_the_study_equals_its_parts(study):
    needle = dm.needle_example(U, length=8.0, thickness=0.02, radius=1.0)
    assert np.allclose(study.needle.widths_needle, needle.widths_needle)
    assert study.disk == dm.reuleaux_vs_disk(eps=0.01) and study.prism == dm.prism_pair(eps=0.01)
    sym3 = dm.symmetric_domination_check(n_pairs=20, seed=1, dim=3)
    assert study.symmetric[3] == sym3 and set(study.symmetric) == {2, 3}


def test_quantities_carry_each_part_under_its_prefix(study):
    q = study.quantities()
    assert q["needle_width_min"] == pytest.approx(study.needle.widths_needle.min())
    assert q["needle_ok"] == "yes"  # a needle of length 8 along the mean is wider than the unit disk everywhere
    assert q["rd_w_L_spread"] == pytest.approx(study.disk.w_L_max - study.disk.w_L_min)
    assert q["prism_vol_K"] == study.prism.vol_K and "prism_contradiction" not in q
    assert q["sym_tried"] == 40  # 20 pairs in each of D = 2 and 3
    assert q["sym_dominated"] == sum(s.n_dominated for s in study.symmetric.values())


def test_the_tables_read_the_parts(study):
    w = study.needle_widths()
    assert list(w.index) == [f"u{i}" for i in range(1, 7)] and (w["disk width"] == 2.0).all()
    # width of a capsule in direction u: length |<axis, u>| + thickness
    assert np.allclose(w["needle width"], 8.0 * np.abs(U @ study.needle.axis) + 0.02)
    c = study.comparison()
    assert c["narrower yet larger"].tolist() == [True, True]
    assert c.iloc[0]["volume K"] == pytest.approx(np.pi * 0.495**2)
    assert c.iloc[1]["volume L"] == pytest.approx((np.pi - np.sqrt(3)) / 2)
    s = study.symmetric_counts()
    assert list(s.columns) == ["D = 2", "D = 3"] and s.loc["pairs tried"].tolist() == [20, 20]


def test_the_statements_and_the_figures(study):
    claims = study.claims()
    assert list(claims) == ["SH.existence", "SH.threshold", "SH.symmetric"]
    assert claims["SH.existence"].verdict.holds is True  # the prism pair is a witness in D = 3
    assert claims["SH.threshold"].verdict.holds is False  # the disk does it in D = 2
    assert claims["SH.symmetric"].verdict.holds is False  # symmetric bodies cannot (K inside L)
    assert all(c.data is None for c in claims.values())
    labels = [t.get_text() for t in study.reuleaux_figure().axes[0].get_legend().get_texts()]
    assert labels == ["disk, diameter 0.99", "Reuleaux triangle, width 1"]
    assert len(study.needle_figure().axes) == 1


def test_the_h20_claims_read_the_domination_result():
    table = synthetic_suite(n_models=30, n_benchmarks=6, seed=2)
    dom = dm.domination_contradictions(table, n_splits=5, seed=0)
    claims = dom.claims(table)
    assert claims["H20.count"].value == dom.n_unique_pairs
    assert claims["H20.capped"].value == min(dom.n_unique_pairs, 50)
    assert all(c.data is table for c in claims.values())


def test_figures_by_name_are_the_page_figures(study):
    figs = study.figures()
    assert list(figs) == ["needle", "reuleaux"] and all(len(f.axes) >= 1 for f in figs.values())
