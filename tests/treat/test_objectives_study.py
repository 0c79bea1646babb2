"""objectives_study: six subset rules, coverage against tau and LiveBench, equal to the calls it wraps."""

from __future__ import annotations

import pytest

from blindspot.core import conventions
from blindspot.data.suites import synthetic_suite
from blindspot.treat import subset_objectives as so, verdicts
from blindspot.treat.objectives_study import objectives_study


def test_the_study_equals_its_parts():
    suites = {"a": synthetic_suite(n_models=40, n_benchmarks=8, seed=1),
              "livebench": synthetic_suite(n_models=30, n_benchmarks=7, seed=2)}  # fmt: skip
    study = objectives_study(suites, n_random=20, n_seeds=2, seed=0)
    front = conventions.frontier(suites["a"])
    direct = so.compare_objectives(front, n_random=20, seed=0)
    assert study.greedy_vs_random()["greedy tau"].equals(direct.wide("tau")["spectral_greedy"])
    assert study.same_rule  # max-diversity and max-uncorrelated are the same rule
    assert study.r_ct == 6 and list(study.by_seed.index) == [0, 1]
    assert study.by_seed.loc[0, "rho"] == pytest.approx(study.coverage_tau.rho)
    assert study.h4_sizes == [2, 3, 4, 5, 7] and list(study.orders().index) == list(range(1, 9))
    lb4 = study.livebench_table()
    assert list(lb4.index) == [3, 4, 5] and study.livebench_note == ""
    assert verdicts.livebench_text(study.livebench, lb4).startswith("On LiveBench's 7 sub-tasks")
    assert verdicts.livebench_text(study.livebench, None) is None
    text = verdicts.coverage_tau_text(study.coverage_tau, 6, study.by_seed["rho"])
    assert "across 2 seeds" in text and verdicts.seeds_rho_evidence(study.by_seed["rho"]).startswith("across 2 seeds")


def test_without_livebench_the_section_says_so():
    study = objectives_study({"a": synthetic_suite(n_models=40, n_benchmarks=5, seed=1)}, n_random=10, n_seeds=1)
    assert study.livebench_table() is None and "livebench" in study.livebench_note and study.r_ct == 4
    beaten = study.comparison.beaten("coverage")
    assert verdicts.beaten_text(study.comparison.beaten("tau"), beaten).startswith("On $\\tau$ spectral greedy")
