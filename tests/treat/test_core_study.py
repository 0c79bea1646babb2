"""core_study: the stable core of a frontier with its top-4 view and its spread over seeds, equal to its parts."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core import conventions
from blindspot.data.suites import synthetic_suite
from blindspot.treat import verdicts
from blindspot.treat.core_study import core_study
from blindspot.treat.stable_core import stable_core


@pytest.fixture(scope="module")
def study():
    return core_study(synthetic_suite(n_models=40, n_benchmarks=8, seed=3), r=5, n_boot=30, n_seeds=3)


def test_the_study_is_stable_core_on_the_frontier(study):
    front = study.front
    assert front.n_models == conventions.frontier(synthetic_suite(n_models=40, n_benchmarks=8, seed=3)).n_models
    direct = stable_core(front, r=5, n_boot=30, seed=0, threshold=0.9)
    assert np.allclose(study.core.frequencies, direct.frequencies) and study.core.core == direct.core
    assert set(study.by_seed) == {0, 1, 2} and np.allclose(study.by_seed[0].frequencies, direct.frequencies)


def test_tables_and_counts(study):
    freq = study.frequencies({study.front.benchmarks[0]: 0.5})
    assert freq["paper"].iloc[:].notna().sum() == 1
    spread = study.seed_spread()
    assert ((spread["max"] - spread["min"]) == spread["spread"]).all() and (spread["spread"] >= 0).all()
    assert 1 <= study.n_distinct_cores <= 3 and len(study.seed_jaccards) == 3
    jac, same = study.top4_stability
    assert 0 <= same <= 1 and 0 <= jac <= 1
    assert study.quantities()["n_seeds"] == 3


def test_r_not_below_the_benchmarks_computes_nothing_and_says_why():
    none = core_study(synthetic_suite(n_models=40, n_benchmarks=5, seed=1), r=5, n_boot=10, n_seeds=2)
    assert none.core is None and none.by_seed == {} and none.top4().empty
    assert "not computed" in verdicts.core_not_run_note(none) and verdicts.core_text(none) is None
    assert verdicts.top4_text(none).startswith("Not computed")
