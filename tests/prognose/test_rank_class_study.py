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


def test_the_calibration_table_and_the_words_read_the_calibration():
    study = rank_class_study(synthetic_suite(n_models=60, n_benchmarks=6, seed=5), top=15, thr=0.4)
    cal, t = study.calibration, study.calibration_table()
    assert t["sigma_iso"] == cal.sigma_iso and t["pairs"] == cal.n_pairs
    assert t["anisotropic prediction"] == cal.aniso_pred
    n = study.front.n_models
    assert np.isclose(t["sqrt(n/(n-1))"], np.sqrt(n / (n - 1)))
    q = study.quantities()
    same = np.isclose(cal.sigma_iso, np.sqrt(n / (n - 1)), rtol=1e-9, atol=0)
    assert q["sigma_same"] == ("the same number" if same else "a different number")
    assert q["rules_agree"] == ("agree" if study.comparison.correct == study.comparison.author else "disagree")


class _Entry:
    def __init__(self, paper: str) -> None:
        self.paper = paper


def test_the_claims_are_the_calibration_and_the_classes_and_judge_a_planted_paper():
    study = rank_class_study(synthetic_suite(n_models=60, n_benchmarks=6, seed=5), top=15, thr=0.4)
    cal, cmp = study.calibration, study.comparison
    claims = study.claims()
    assert list(claims) == [f"H40.{k}" for k in ("sigma_iso", "sigma_aniso", "empirical", "iso_pred", "aniso_pred")] + [
        "H40.sigma_meaning",
        "H47.n_classes",
    ]
    assert claims["H40.empirical"].value == cal.empirical and claims["H47.n_classes"].value == len(cmp.correct)
    assert all(c.data is study.front for c in claims.values())
    sizes = "+".join(str(len(c)) for c in cmp.correct)
    first = study.names[cmp.correct[0][0]].split("-")[0]  # a "family" the top class certainly holds
    right = study.claims({"H47.sizes": _Entry(sizes), "H47.families": _Entry(first)})
    assert right["H47.sizes"].verdict.holds is True and right["H47.families"].verdict.holds is True
    wrong = study.claims({"H47.sizes": _Entry(sizes + "+1"), "H47.families": _Entry("NoSuchFamily")})
    assert wrong["H47.sizes"].verdict.holds is False and wrong["H47.families"].verdict.holds is False
