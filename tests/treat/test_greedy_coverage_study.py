"""greedy_coverage_study: Theorem 4's checks in one call, against closed forms and an exhaustive search."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from blindspot.core import conventions, coverage as cv, spectrum
from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.verdict import Verdict
from blindspot.data.suites import synthetic_suite
from blindspot.treat.greedy_coverage_study import greedy_coverage_study, tight_max_coverage, tightness_table


@pytest.fixture(scope="module")
def study():
    suites = {"extended": synthetic_suite(n_models=40, n_benchmarks=8, seed=3)}
    return greedy_coverage_study(suites, target=0.9, r_paper=7, n_random=20, k_scale=150, seed=0)


@pytest.mark.parametrize("kk", [2, 3, 5])
def test_the_tight_instance_has_ratio_one_minus_one_minus_one_over_k_to_the_k(kk):
    greedy, optimum = tight_max_coverage(kk)
    assert optimum == pytest.approx(1.0, abs=1e-6)
    assert greedy / optimum == pytest.approx(1 - (1 - 1 / kk) ** kk, abs=1e-6)


def test_tightness_table_matches_everywhere():
    assert tightness_table(range(2, 5))["matches 1 - (1 - 1/k)^k"].all()
    with pytest.raises(ValueError, match="at least 2"):
        tight_max_coverage(1)


def test_the_optimum_is_the_best_subset_and_greedy_never_beats_it(study):
    board = study.suites["extended"]
    front = conventions.frontier(board)
    assert study.feat_key == "extended frontier" and study.front.n_models == front.n_models
    steps = study.steps_table()
    assert (steps["optimum"] >= steps["coverage"] - 1e-12).all()
    # the optimum at r = 2 is the best pair, found here by enumerating the pairs directly
    Sigma = spectrum.correlation(front)
    best_pair = max(cv.coverage(Sigma, [i, j]) for i in range(8) for j in range(i + 1, 8))
    assert steps.loc[2, "optimum"] == pytest.approx(best_pair)
    q = study.quantities()
    assert q["cov_show"] == pytest.approx(steps.loc[7, "coverage"])
    assert q["blind_show"] == pytest.approx(100 * (1 - q["cov_show"]))


def test_random_ratios_and_the_counterexample(study):
    assert study.ratios.shape[0] == 20 and (study.ratios <= 1 + 1e-9).all()
    q = study.quantities()
    assert q["rand_min_ratio"] == pytest.approx(study.ratios.min())
    # the 3 x 3 matrix: benchmark 2 adds more after benchmark 1 than alone (diminishing returns fails)
    assert q["c3_after"] > q["c3_alone"] and q["c3_word"] == "more" and q["c3_mineig"] > 0
    assert study.items.n_models == 100 and study.items.r_target <= 150


def test_claims_route_each_claim_to_its_data(study):
    claims = {f"T4.r90.{s}.full": SimpleNamespace(paper=4) for s in ("ollm_v2", "extended", "livebench")}
    claims["T4.cov_r90.extended.full"] = SimpleNamespace(paper=None)
    records = study.claims(claims)
    ids = list(records)
    assert ids[:3] == ["T4.r90.ext_frontier", "T4.cov7.ext_frontier", "T4.blindspot7.ext_frontier"]
    assert isinstance(records["T4a.submodular"], ClaimStatement) and isinstance(
        records["T4.tightness"].verdict, Verdict
    )
    assert records["T4.tightness"].data is None and records["T4.r90.ext_frontier"].data is study.front
    # the featured full board stands in for the suites not given; its coverage at the paper's r = 4
    value = records["T4.cov_r90.extended.full"]
    table = value.data
    sel = cv.greedy_select(spectrum.correlation(table), target=0.9, r=8)
    assert value == ClaimValue(sel.coverages[3], table) and "T4.cov_r90.ollm_v2.full" not in records
    words = study.statuses({"T4.r90.ext_frontier": "reproduced"})
    assert words["r90"] == "reproduced" and words["t4c"].startswith("undecided")


def test_refusals_and_bad_settings(study):
    outcomes = study.refusals["outcome"]
    assert outcomes["target = 1.2"].startswith("ValueError") and outcomes["non-PSD, psd='clip'"].startswith("ok")
    with pytest.raises(ValueError, match="at least one leaderboard"):
        greedy_coverage_study({})
    with pytest.raises(ValueError, match="target"):
        greedy_coverage_study({"x": synthetic_suite(n_models=20, n_benchmarks=5, seed=1)}, target=0.0)


def test_sentences_and_figures(study):
    assert study.exhaustive_note == "" and "comparisons are" in study.violations_text
    assert "gamma" in study.gamma_text and np.isfinite(study.audit.ratio.gamma)
    assert study.coverage_figure().axes and study.ratio_figure().axes and study.gain_pairs_figure().axes
