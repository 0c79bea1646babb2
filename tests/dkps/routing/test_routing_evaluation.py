"""Routing rules and the evaluation protocol: brackets, ties, leave-query-out, planted twins."""

from __future__ import annotations

import numpy as np
import pytest

from dkps.routing.evaluation import (
    LeakError,
    PairedSuite,
    check_leave_query_out,
    evaluate_seeds,
    evaluate_split,
    mimicry_table,
    stratified_split,
)
from dkps.routing.localization_bandwidth import cv_global, cv_table, median_anchor_distance, pseudo_picks
from dkps.routing.localized_geometry import localized_distances, pairwise_sq_distances, query_sq_distances, rbf_weights
from dkps.routing.rules import bracket_errors, nearest_candidate, nearest_for_all_targets, picked_errors


def test_split_is_stratified_disjoint_and_deterministic(suite_of):
    suite = suite_of()
    sp = stratified_split(suite.tasks, 0.2, seed=3)
    assert np.intersect1d(sp.anchor, sp.eval).size == 0 and sp.anchor.size + sp.eval.size == 60
    for t in ("t0", "t1", "t2"):
        assert (suite.tasks[sp.eval] == t).sum() == 4
    assert np.array_equal(sp.eval, stratified_split(suite.tasks, 0.2, seed=3).eval)
    with pytest.raises(ValueError, match="without anchors"):
        stratified_split(np.array(["a", "a", "b"], dtype=object), 0.5, seed=0)


def test_leave_query_out_check_raises():
    with pytest.raises(LeakError, match="q2"):
        check_leave_query_out(["q1", "q2"], ["q2", "q3"], "the geometry")
    check_leave_query_out(["q1"], ["q2"], "the geometry")


def poison(suite: PairedSuite, ev: np.ndarray, seed: int = 99) -> PairedSuite:
    rng = np.random.default_rng(seed)
    X = suite.X.copy()
    X[:, ev] = rng.normal(size=X[:, ev].shape) * 5
    S = suite.scores.copy()
    S[:, ev] = rng.random(S[:, ev].shape)
    return PairedSuite(X=X, U=suite.U, tasks=suite.tasks, models=suite.models, query_ids=suite.query_ids, scores=S)


def test_poisoning_eval_queries_changes_no_router_input(suite_of):  # I6, I16
    suite = suite_of(1)
    sp = stratified_split(suite.tasks, 0.2, seed=0)
    clean = evaluate_split(suite, sp, n_pseudo=30)
    dirty = evaluate_split(poison(suite, sp.eval), sp, n_pseudo=30)
    assert clean.med == dirty.med
    assert clean.sigma_cv_global == dirty.sigma_cv_global
    assert np.array_equal(clean.sigma_cv_per_query, dirty.sigma_cv_per_query)
    assert np.array_equal(clean.cv_table, dirty.cv_table, equal_nan=True)
    for name in clean.picks:
        assert np.array_equal(clean.picks[name], dirty.picks[name]), name
    # the realised errors do change: the poison reached the metric
    assert not np.array_equal(clean.errors["static"], dirty.errors["static"])


def test_brackets_hold_per_decision(suite_of):  # I8
    res = evaluate_split(suite_of(2), stratified_split(suite_of(2).tasks, 0.2, 0), n_pseudo=30)
    rand, orac = res.errors["random"], res.errors["oracle"]
    assert (orac <= rand).all()
    for name, err in res.errors.items():
        assert (orac <= err + 1e-12).all(), name
        assert np.nanmean(orac) <= np.nanmean(err) + 1e-12
    E = np.random.default_rng(0).random((3, 5, 5))
    r, o = bracket_errors(E)
    for t in range(5):
        others = [c for c in range(5) if c != t]
        assert np.allclose(r[:, t], E[:, t, others].mean(1)) and np.allclose(o[:, t], E[:, t, others].min(1))


def test_target_never_picked_and_ties_go_to_lowest_index():  # I7, ties
    D = np.ones((2, 4, 4))
    D[:, 0, 0] = 0
    p, dist = nearest_candidate(D, 0)
    assert (p == 1).all() and (dist == 1).all()
    p, _ = nearest_candidate(D, 1)
    assert (p == 0).all()
    p, _ = nearest_candidate(D, 0, candidates=[False, False, True, True])
    assert (p == 2).all()
    D[1, 0, 1:] = np.inf
    p, dist = nearest_candidate(D, 0)
    assert p[1] == -1 and np.isinf(dist[1])
    picks, _ = nearest_for_all_targets(np.zeros((1, 3, 3)))
    assert picks.tolist() == [[1, 0, 0]]
    assert np.isnan(picked_errors(np.zeros((1, 3, 3)), np.array([[-1, 0, 0]]))[0, 0])


def test_permutation_equivariance(suite_of):  # I15
    suite = suite_of(3)
    P = suite.P
    W = rbf_weights(query_sq_distances(suite.U[:5], suite.U[5:]), 1.0)
    picks, _ = nearest_for_all_targets(localized_distances(P[5:], W))
    perm = np.random.default_rng(0).permutation(8)
    P2 = pairwise_sq_distances(suite.X[perm])
    picks2, _ = nearest_for_all_targets(localized_distances(P2[5:], W))
    inv = np.argsort(perm)
    # model perm[k] is model k in the relabelled suite: picks2[:, k] = inv[picks[:, perm[k]]]
    assert np.array_equal(picks2, inv[picks[:, perm]])


def test_same_seed_same_table(suite_of):  # I17
    suite = suite_of(4)
    a = mimicry_table(evaluate_seeds(suite, (0, 1), n_pseudo=20))
    b = mimicry_table(evaluate_seeds(suite, (0, 1), n_pseudo=20, n_jobs=2))
    assert a.equals(b)


def test_cv_pseudo_query_never_sees_its_own_responses(suite_of):  # I7 (CV part)
    suite = suite_of(5)
    Pa, Ua = suite.P[:40], suite.U[:40]
    med = median_anchor_distance(Ua)
    sigmas = [0.1 * med, 0.5 * med, 2 * med]
    d2 = query_sq_distances(Ua, Ua)
    for v in (0, 17, 39):
        X2 = suite.X.copy()
        X2[:, v] = np.random.default_rng(v).normal(size=X2[:, v].shape) * 4
        P2 = pairwise_sq_distances(X2)[:40]
        p1, p2 = pseudo_picks(Pa, d2[v], v, sigmas), pseudo_picks(P2, d2[v], v, sigmas)
        assert np.array_equal(p1, p2) and (p1 >= 0).all()
    t1, pseudo, _ = cv_table(Pa, Ua, (0.1, 0.5), med=med, rng=np.random.default_rng(0), n_pseudo=10)
    t2, _, _ = cv_table(Pa, Ua, (0.1, 0.5), med=med, rng=np.random.default_rng(0), n_pseudo=10)
    assert t1.tobytes() == t2.tobytes() and pseudo.size == 10
    assert cv_global(t1) == int(np.nanargmin(np.nanmean(t1, axis=1)))  # I16: argmin of the column means
    # the batched table is the per-pseudo-query rule, column by column
    for col, v in enumerate(pseudo):
        picks = pseudo_picks(Pa, d2[v], v, [0.1 * med, 0.5 * med])
        want = np.sqrt(Pa[v][np.arange(8)[None, :], picks]).mean(1)
        assert np.allclose(t1[:, col], np.where((picks >= 0).all(1), want, np.nan), equal_nan=True)


def test_planted_twins_qa_routes_each_query_to_its_twin(twins_of):
    suite = twins_of()
    sp = stratified_split(suite.tasks, 0.25, seed=0)
    res = evaluate_split(suite, sp, n_pseudo=30)
    te = suite.tasks[sp.eval]
    qa = res.picks["qa-0.25x"][:, 0]
    assert (qa[te == "A"] == 1).all() and (qa[te == "B"] == 2).all()
    static = res.picks["static"][:, 0]
    assert np.unique(static).size == 1  # one model for every query
    assert res.errors["qa-0.25x"][:, 0].mean() < 0.5 * res.errors["static"][:, 0].mean()


def test_unpairing_regimes_have_the_stated_overlap(suite_of):
    from dkps.routing.localized_geometry import localized_means
    from dkps.routing.unpairing import _masked_means, kept_anchors, unpaired_errors

    rng = np.random.default_rng(0)
    for regime, want in (("aligned", 1.0), ("disjoint", 0.0)):
        T, C = kept_anchors(6, 40, regime, rng)
        assert (T.sum(1) == 20).all() and (C.sum(1) == 20).all()
        assert np.allclose((T[2][None] & C).sum(1) / 20, want)
    T, C = kept_anchors(6, 40, "independent", rng)
    assert T is C and (T.sum(1) == 20).all()
    suite = suite_of(6)
    sp = stratified_split(suite.tasks, 0.2, seed=0)
    out = unpaired_errors(suite, sp, "disjoint", rng=np.random.default_rng(0))
    assert out["overlap"] == 0
    for name in ("qa-fact", "static-fact", "task-fact", "rf", "qa-paired"):
        assert (out["oracle"] <= out[name] + 1e-12).all()
    # the batched masked means are the factorised localised means of the kept rows
    W = np.random.default_rng(1).random((4, len(sp.anchor)))
    Xa = suite.X[:, sp.anchor]
    T8, _ = kept_anchors(8, len(sp.anchor), "independent", np.random.default_rng(2))
    rm, ra = np.nonzero(T8)
    st = localized_means(Xa[rm, ra], rm, W[:, ra], 8)
    assert np.abs(_masked_means(W, T8, Xa).transpose(1, 0, 2) - st.phi).max() < 1e-10


@pytest.mark.parametrize("block", [1 << 22, 1000, 1 << 30])
def test_pair_distances_by_blocks_are_the_norm_of_the_whole_difference(block, monkeypatch):
    """The blocked factorised distances are np.linalg.norm's numbers bit for bit (NaN rows included)."""
    from dkps.routing import unpairing

    monkeypatch.setattr(unpairing, "_PAIR_BLOCK_BYTES", block)
    for seed in range(6):
        rng = np.random.default_rng(seed)
        n, Q, d = int(rng.integers(2, 12)), int(rng.integers(1, 30)), int(rng.integers(1, 400))
        a = rng.normal(size=(n, Q, d))
        b = a if seed % 2 else rng.normal(size=(n, Q, d))
        a[rng.random((n, Q)) < 0.2] = np.nan
        whole = np.linalg.norm(a.transpose(1, 0, 2)[:, :, None, :] - b.transpose(1, 0, 2)[:, None, :, :], axis=-1)
        assert np.array_equal(unpairing._pair_distances(a, b), whole, equal_nan=True)
