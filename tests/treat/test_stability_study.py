"""stability_study: Proposition 5's transfer and random perturbations as results, equal to the calls they wrap."""

from __future__ import annotations

import pytest

from blindspot.data.suites import synthetic_suite
from blindspot.treat import perturbation, stability_study as st, verdicts
from blindspot.treat.transfer import cross_suite_transfer


def test_the_transfer_equals_cross_suite_transfer_on_the_shared_benchmarks():
    a = synthetic_suite(n_models=40, n_benchmarks=6, seed=1)
    b = synthetic_suite(n_models=40, n_benchmarks=6, seed=2)
    fa, fb = st.frontiers({"a": a, "b": b}).values()
    study = st.transfer_study(fa, fb, r=3)
    direct = cross_suite_transfer(fa.columns(study.shared), fb.columns(study.shared), r=3)
    assert study.transfer.retention == pytest.approx(direct.retention) and len(study.shared) == 6
    bounds = study.bounds()
    assert list(bounds.index) == ["paper", "rank", "nuclear"] and "lower bound" in bounds.columns
    assert study.table().loc["retention", "value"] == pytest.approx(direct.retention)
    assert f"{100 * direct.retention:.1f}%" in study.summary()
    assert verdicts.bounds_paragraph(bounds["holds"]).startswith("Does each bound hold on this pair? ")


def test_one_leaderboard_does_not_transfer():
    study = st.transfer_study(synthetic_suite(n_models=30, n_benchmarks=5, seed=1), None, r=4)
    assert study.transfer is None and study.table() is None and study.bounds() is None and study.pair == []


def test_violation_quantities_are_the_ensembles_counts():
    viol = st.violation_study(n_pairs=30, k=5, seed=0)
    vi = perturbation.stability_violations(30, 5, 0, "independent")
    q = viol.quantities()
    assert q["paper_fixed_pct"] == pytest.approx(100 * vi.fraction("fixed", "paper")) and q["n_pairs"] == 30
    assert set(viol.table().index.get_level_values("pairs")) == {"independent", "sample"}
