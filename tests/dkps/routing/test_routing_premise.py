"""The premise of query-aware routing, measured: synthetic suites with a known answer, and closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dkps.routing.diagnostics import (
    agreement_against_random_groups,
    effective_anchors,
    nearest_model_agreement,
    premise_measures,
    query_clusters,
)
from dkps.routing.evaluation import PairedSuite, evaluate_seeds, paired_difference, seed_interval, stratified_split
from dkps.routing.localized_geometry import query_sq_distances, rbf_weights
from dkps.routing.mimicry_study import run_mimicry_study


def test_agreement_within_groups_exceeds_between_only_when_the_geometry_changes(grouped_of):
    het = nearest_model_agreement(grouped_of(True), n_repeats=10)
    hom = nearest_model_agreement(grouped_of(False), n_repeats=10)
    assert het["within"] > het["between"] + 0.3
    assert abs(hom["within"] - hom["between"]) < 0.1 and hom["within"] > 0.5  # one geometry, found in every half
    assert het["n_groups"] == 4 and het["n_repeats"] == 10
    with pytest.raises(ValueError, match="at least two groups"):
        nearest_model_agreement(grouped_of(True), groups=np.zeros(160))
    with pytest.raises(ValueError, match="one group per query"):
        nearest_model_agreement(grouped_of(True), groups=np.zeros(5))


def test_the_group_router_beats_static_only_when_the_premise_holds(grouped_of):
    for het, present in ((True, True), (False, False)):
        suite = grouped_of(het)
        res = evaluate_seeds(suite, (0, 1, 2), n_pseudo=20)
        pm = premise_measures(suite, res, n_repeats=5)
        assert pm["group_minus_static"].below_zero is present
        assert pm["anchors"] == 128 and 1 <= pm["n_eff"] <= 128


def test_effective_anchors_closed_forms(grouped_of):
    suite = grouped_of(True)
    split = stratified_split(suite.tasks, 0.2, 0)
    out = effective_anchors(suite, split, (1e-3, 0.25, 1e9), med=1.0)
    assert out[1e9] == pytest.approx(split.anchor.size)  # uniform weights: every anchor counts
    assert out[1e-3] == pytest.approx(1.0)  # only the nearest anchor has weight
    W = rbf_weights(query_sq_distances(suite.U[split.eval], suite.U[split.anchor]), 0.25)
    assert out[0.25] == pytest.approx(np.mean([1 / np.sum(w**2) for w in W]))  # Kish, row by row
    with pytest.raises(ValueError, match="fraction"):
        effective_anchors(suite, split, ())


def test_query_clusters_recover_planted_groups_numbered_by_size():
    rng = np.random.default_rng(3)
    sizes = [30, 50, 20]
    U = np.concatenate([rng.normal(size=(k, 4)) + 20 * i for i, k in enumerate(sizes)])
    lab = query_clusters(U, 3, seed=0)
    truth = np.repeat([0, 1, 2], sizes)
    for t in range(3):
        assert len(set(lab[truth == t])) == 1  # each planted group is one cluster
    assert list(lab[[0, 30, 80]]) == ["c1", "c0", "c2"]  # c0 is the largest
    assert np.array_equal(lab, query_clusters(U, 3, seed=0))
    with pytest.raises(ValueError, match="n_clusters"):
        query_clusters(U, 1)
    with pytest.raises(ValueError, match="finite"):
        query_clusters(np.full((5, 2), np.nan), 2)


def test_paired_difference_is_the_one_sample_t_interval(grouped_of):
    suite = grouped_of(True)
    res = evaluate_seeds(suite, (0, 1, 2, 3), n_pseudo=20)
    d = paired_difference(res, "qa-0.25x", "static")
    per_seed = [np.nanmean(r.errors["qa-0.25x"] - r.errors["static"]) for r in res]
    ci = stats.ttest_1samp(per_seed, 0.0).confidence_interval(0.95)
    assert d.mean == pytest.approx(np.mean(per_seed)) and (d.lo, d.hi) == pytest.approx((ci.low, ci.high))
    one = paired_difference(res[:1], "qa-0.25x", "static")
    assert np.isnan(one.lo) and not one.below_zero and not one.above_zero
    assert str(d).startswith(f"{d.mean:+.4f} [")
    with pytest.raises(ValueError, match="unknown method"):
        paired_difference(res, "qa-9x", "static")
    with pytest.raises(ValueError, match="no seed results"):
        paired_difference([], "qa-0.25x", "static")


def test_random_groupings_null_separates_a_planted_grouping_from_no_grouping(grouped_of):
    het = agreement_against_random_groups(grouped_of(True), n_perm=39, n_repeats=3)
    hom = agreement_against_random_groups(grouped_of(False), n_perm=39, n_repeats=3)
    assert het.excess > het.null_interval[1] and het.p_value == pytest.approx(1 / 40)  # above every random grouping
    assert hom.null_interval[0] <= hom.excess <= hom.null_interval[1] + 0.05 and hom.p_value > 0.05
    assert het.null.shape == (39,) and np.allclose(het.null, het.null_within - het.null_between)
    # the permutation p-value counts the null at or above the observed excess, plus one (never zero)
    assert het.p_value == (1 + np.sum(het.null >= het.excess - 1e-12)) / 40
    with pytest.raises(ValueError, match="n_perm"):
        agreement_against_random_groups(grouped_of(True), n_perm=5)


def test_random_groupings_are_the_same_permutations_for_every_grouping_of_a_suite(grouped_of):
    """Two groupings of one suite get the same query permutations (one seed): their nulls align, draw by draw, so
    a family-wise test over groupings keeps their dependence; renaming a grouping's labels in the same order
    changes nothing, and another grouping's null differs only through its groups."""
    suite = grouped_of(True)
    a = agreement_against_random_groups(suite, n_perm=19, n_repeats=2)
    renamed = np.array(["a" + t for t in suite.tasks], dtype=object)
    b = agreement_against_random_groups(suite, renamed, n_perm=19, n_repeats=2)
    assert a.excess == b.excess and np.array_equal(a.null, b.null)
    rng = np.random.default_rng(0)
    perms = [rng.permutation(suite.tasks) for _ in range(19)]  # the draws the null makes, in order
    first = nearest_model_agreement(suite, perms[0], n_repeats=2, seed=1)
    assert a.null[0] == pytest.approx(first["within"] - first["between"])


def test_seed_interval_is_students_t_and_the_study_measures_through_it(grouped_of):
    vals = [0.1, 0.3, 0.2, 0.25]
    d = seed_interval(vals, "x")
    ci = stats.ttest_1samp(vals, 0.0).confidence_interval(0.95)
    assert (d.lo, d.hi) == pytest.approx((ci.low, ci.high)) and d.mean == pytest.approx(0.2125) and d.b == ""
    with pytest.raises(ValueError, match="finite value per seed"):
        seed_interval([0.1, np.nan], "x")
    suite = grouped_of(True)
    rng = np.random.default_rng(0)
    scored = PairedSuite(X=suite.X, U=suite.U, tasks=suite.tasks, models=suite.models, query_ids=suite.query_ids,
                         scores=rng.random(suite.X.shape[:2]))  # fmt: skip
    st = run_mimicry_study(scored, (0, 1, 2), n_pseudo=20, diagnose=False)
    share = [
        (np.nanmean(r.errors["profile"]) - np.nanmean(r.errors["static"]))
        / (np.nanmean(r.errors["random"]) - np.nanmean(r.errors["static"]))
        for r in st.results
    ]
    assert st.profile_share().mean == pytest.approx(np.mean(share))
    assert str(st.difference("qa-0.25x", "static")) == str(paired_difference(st.results, "qa-0.25x", "static"))
    b = st.bandwidth_spread()
    e = st.table.set_index("method").error
    assert b["spread"] == pytest.approx(max(b["grid"].values()) - min(b["grid"].values()))
    assert b["gap"] == pytest.approx(e["static"] - e["oracle"]) and list(b["grid"]) == [0.125, 0.25, 0.5, 1.0]
    assert np.allclose(st.cv_fractions() * [r.med for r in st.results], [r.sigma_cv_global for r in st.results])
    assert isinstance(st.premise["contrast"].p_value, float)
    with pytest.raises(ValueError, match="no scores"):
        run_mimicry_study(suite, (0, 1), n_pseudo=20, diagnose=False).profile_share()
