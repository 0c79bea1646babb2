"""ambient_study: App. G.3's estimates on several frontiers, equal to the ambient_dimension calls it wraps."""

from __future__ import annotations

import pytest

from blindspot.core import conventions
from blindspot.data.suites import synthetic_suite
from blindspot.diagnose import ambient_dimension as ad
from blindspot.diagnose.ambient_study import EPSILONS, ambient_study


def test_the_study_equals_its_parts_and_features_the_first_suite():
    suites = {"a": synthetic_suite(n_models=40, n_benchmarks=6, seed=1),
              "b": synthetic_suite(n_models=40, n_benchmarks=3, seed=2)}  # fmt: skip
    study = ambient_study(suites, n_splits=10, n_perm=10, seed=0)
    assert study.featured == "a"
    front = conventions.frontier(suites["a"])
    assert study.fit.powerlaw.D == ad.d_powerlaw(front).D
    assert study.fit.horn.n_signal == ad.horn_nsignal(front, n_perm=10, seed=1).n_signal
    assert study.fits["b"].cv is None and "empirical swap" not in study.fits["b"].row()
    assert list(study.eps_table.index) == list(EPSILONS)
    q = study.quantities()
    assert q["range_lo"] == min(study.estimates) and q["emp"] == f"{study.fit.cv.empirical:.3f}"
    assert list(study.table().index) == ["a", "b"] and study.cv_note == ""


def test_a_featured_frontier_with_three_benchmarks_has_no_cross_validation():
    study = ambient_study({"b": synthetic_suite(n_models=40, n_benchmarks=3, seed=2)}, n_splits=5, n_perm=5)
    assert study.quantities()["D_cv"] == "not computed" and "needs at least 4" in study.cv_note
    assert len(study.estimates) == 2
    with pytest.raises(ValueError, match="featured must be one of"):
        ambient_study({"b": synthetic_suite(n_models=40, n_benchmarks=3, seed=2)}, featured="c")
