"""counterfactual_study: App. H.36-H.37 on a leaderboard in one call, equal to its parts."""

from __future__ import annotations

import pytest

from blindspot.treat import counterfactual as cf


def test_the_study_on_a_leaderboard_matches_its_parts():
    """counterfactual_study = counterfactual on the frontier, and rho_by_population's row at the half."""
    from blindspot.core import conventions
    from blindspot.data.suites import synthetic_suite
    from blindspot.treat import verdicts
    from blindspot.treat.counterfactual_study import counterfactual_study

    table = synthetic_suite(n_models=60, n_benchmarks=6, seed=4)
    study = counterfactual_study(table, top_step=10)
    front = conventions.frontier(table)
    assert study.front.n_models == front.n_models and study.half == max(3, front.n_models // 2)
    direct = cf.counterfactual(front)
    q = study.quantities()
    assert q["rho"] == pytest.approx(direct.rho) and q["overlap5"] == direct.top_overlap(5)
    assert study.rho_half == pytest.approx(cf.rho_by_population(front, [study.half]).loc[study.half, "rho"])
    assert study.external is None and verdicts.arena_summary(study, -0.5).startswith(":::{note}")
    assert verdicts.recorded_status(None, False).startswith("not computed")
    assert verdicts.recorded_status(None, True).startswith("undefined")
    assert f"p = {study.p_half:.2f}" in verdicts.robust_evidence(study)


def test_the_study_skips_leave_one_out_with_two_benchmarks():
    from blindspot.data.suites import synthetic_suite
    from blindspot.treat import verdicts
    from blindspot.treat.counterfactual_study import counterfactual_study

    study = counterfactual_study(synthetic_suite(n_models=30, n_benchmarks=2, seed=1))
    assert study.loo is None and set(study.quantities()) == {"front_name", "n_front"}
    assert "three benchmarks" in verdicts.loo_summary(study) and verdicts.fragility_summary(study) == ""
