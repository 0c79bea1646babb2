"""rank_class_study: the H.40 calibration and the H.47 classes of a frontier, equal to their parts."""

from __future__ import annotations

import numpy as np

from blindspot.core.conventions import aggregate, frontier
from blindspot.data.suites import synthetic_suite
from blindspot.prognose import rank_classes as rc, verdicts
from blindspot.prognose.rank_class_study import rank_class_study


def test_the_study_equals_its_parts():
    table = synthetic_suite(n_models=60, n_benchmarks=6, seed=5)
    study = rank_class_study(table, top=15, thr=0.4)
    front = frontier(table)
    agg = aggregate(front)
    a = np.sort(agg)[::-1][:15]
    assert np.allclose(study.top_scores, a)
    assert study.comparison.correct == rc.compare_rules(a, study.sigma_h, 0.4).correct
    q = study.quantities()
    assert q["n_top"] == 15 and q["k_vis"] + q["k_hid"] == 6 and q["n_good"] == len(study.comparison.correct)
    assert q["T"] == rc.gap_threshold(round(study.calibration.sigma_iso, 3), 0.4)
    part = study.partition()
    assert list(part.index) == list(range(1, 16)) and (part["class (stated rule)"].diff().dropna() >= 0).all()
    sens = study.sensitivity(tops=(30,))
    assert set(sens["top m"]) == {15, 30} and set(sens["sigma_h"]) == {"sigma_iso", "sigma_aniso"}
    assert study.smaller_note == ""
    words = verdicts.where_rules_part(study)
    assert words.startswith("The first disagreement") == (study.comparison.extra_model is not None)


def test_a_small_frontier_partitions_all_its_models_and_says_so():
    study = rank_class_study(synthetic_suite(n_models=12, n_benchmarks=4, seed=2), top=20)
    assert study.n_top == study.front.n_models < 20 and "fewer than the 20" in study.smaller_note
