"""Offloading policies and the ladder on a synthetic paired suite with planted behavioural twins:
flagship and pool rules, leave-query-out, disjoint splits, the ladder's geometry against brute force,
and the whole study's frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dkps.routing import localized_geometry as geometry
from dkps.routing.offload import (
    CONSTANT_POLICIES,
    POLICIES,
    PairedSuite,
    QuerySplit,
    check_disjoint,
    ladder_decisions,
    paired_suite,
    policy_decisions,
    pool_mask,
    realized,
    resolve_flagship,
    split_queries,
)
from dkps.routing.offload_study import collect_decisions, curve_table, gate_sweep, quality_table

NAMES = ("a-1b", "b-3b", "big-70b", "c-7b", "d-8b", "e-13b", "gpt-x", "f-2b")


def twin_suite(seed=0, m=360, d=6, noise=0.05):
    """Flagship big-70b; c-7b copies it on task t0, d-8b on t1, e-13b on t2 (plus noise); the rest
    are independent. Scores: the flagship 0.8, twins 0.8 on their task and 0.3 elsewhere."""
    rng = np.random.default_rng(seed)
    models = tuple(sorted(NAMES))
    n = len(models)
    tasks = np.array([f"t{j % 3}" for j in range(m)], dtype=object)
    centers = rng.normal(size=(3, 4)) * 3
    U = centers[[int(t[1]) for t in tasks]] + rng.normal(size=(m, 4)) * 0.3
    X = rng.normal(size=(n, m, d))
    f = models.index("big-70b")
    S = np.full((n, m), 0.3) + rng.uniform(0, 0.05, (n, m))
    S[f] = 0.8
    for twin, task in (("c-7b", "t0"), ("d-8b", "t1"), ("e-13b", "t2")):
        i = models.index(twin)
        on = tasks == task
        X[i, on] = X[f, on] + noise * rng.normal(size=(on.sum(), d))
        S[i, on] = 0.8
    return PairedSuite(models=models, X=X, U=U, tasks=tasks, query_ids=np.arange(m), scores=S)


def test_split_is_disjoint_stratified_and_covering():
    suite = twin_suite()
    sp = split_queries(suite.tasks, 3, n_eval=90, n_cal_a=45, n_cal_b=45)
    allq = np.concatenate([sp.anchors, sp.eval, sp.cal_a, sp.cal_b])
    assert np.array_equal(np.sort(allq), np.arange(suite.n_queries))
    assert (sp.eval.size, sp.cal_a.size, sp.cal_b.size) == (90, 45, 45)
    assert pd.Series(suite.tasks[sp.eval]).value_counts().tolist() == [30, 30, 30]
    with pytest.raises(ValueError, match="share"):
        check_disjoint(QuerySplit(sp.anchors, np.r_[sp.eval, sp.anchors[:1]], sp.cal_a, sp.cal_b, 0))
    with pytest.raises(ValueError, match="cannot hold"):
        split_queries(suite.tasks, 0, n_eval=300, n_cal_a=30, n_cal_b=30)


def test_flagship_and_pools():
    suite = twin_suite()
    sp = split_queries(suite.tasks, 0, 90, 45, 45)
    f = resolve_flagship(suite, None, sp.anchors)
    assert suite.models[f] == "big-70b"
    assert suite.models[resolve_flagship(suite, "c-7b", sp.anchors)] == "c-7b"
    with pytest.raises(ValueError, match="'nope' is not in the records"):
        resolve_flagship(suite, "nope", sp.anchors)
    le8 = pool_mask(suite, 8, f)
    assert [suite.models[i] for i in np.flatnonzero(le8)] == ["a-1b", "b-3b", "c-7b", "d-8b", "f-2b"]
    assert not pool_mask(suite, None, f)[f] and pool_mask(suite, None, f)[suite.models.index("gpt-x")]
    with pytest.raises(ValueError, match="empty"):
        pool_mask(suite, 0.5, f)


def test_policies_route_to_the_twins_and_respect_the_pool():
    suite = twin_suite()
    sp = split_queries(suite.tasks, 0, 90, 45, 45)
    f = suite.models.index("big-70b")
    pool = pool_mask(suite, 13, f)
    dec = policy_decisions(suite, sp, f, pool, sp.eval)
    assert set(dec) == set(POLICIES)
    twin = {"t0": "c-7b", "t1": "d-8b", "t2": "e-13b"}
    want = np.array([suite.models.index(twin[t]) for t in suite.tasks[sp.eval]])
    for name in ("qa", "task", "cascade"):
        assert (dec[name][0] == want).mean() > 0.95, name
    for name, (pick, _conf) in dec.items():
        assert pool[pick].all() and not (pick == f).any(), name
    for name in CONSTANT_POLICIES:
        assert np.all(dec[name][1] == dec[name][1][0])
    for name in ("static", "profile", "lead"):
        assert np.unique(dec[name][0]).size == 1
    dev, _, _ = realized(suite, f, sp.eval, dec["qa"][0])
    dev_static, _, _ = realized(suite, f, sp.eval, dec["static"][0])
    assert dev.mean() < 0.5 * dev_static.mean()
    # qa's confidence is row f of the router's localised distance (route's contraction)
    med = np.median(
        np.sqrt(geometry.query_sq_distances(suite.U[sp.anchors], suite.U[sp.anchors]))[
            np.triu_indices(sp.anchors.size, 1)
        ]
    )
    W = geometry.rbf_weights(geometry.query_sq_distances(suite.U[sp.eval], suite.U[sp.anchors]), 0.25 * med)
    D = geometry.localized_distances(geometry.pairwise_sq_distances(suite.X[:, sp.anchors]), W)
    cand = np.where(pool[None], D[:, f, :], np.inf)
    np.testing.assert_allclose(dec["qa"][1], cand.min(1), rtol=1e-9)
    with pytest.raises(ValueError, match="leave-query-out"):
        policy_decisions(suite, sp, f, pool, sp.anchors[:5])


def test_ladder_against_brute_force_and_leave_query_out():
    suite = twin_suite()
    sp = split_queries(suite.tasks, 1, 90, 45, 45)
    f = suite.models.index("big-70b")
    pool = pool_mask(suite, None, f)
    q = sp.cal_b[:7]
    dec = ladder_decisions(suite, sp, f, pool, q)
    A = sp.anchors
    from scipy.spatial.distance import pdist

    med = np.median(pdist(suite.U[A]))
    n = suite.n_models
    keep = np.argsort(np.random.default_rng([sp.seed, 30]).random((n, A.size)), axis=1)[:, :30]
    absd = np.linalg.norm(suite.X[:, A] - suite.X[f, A], axis=2)  # (n, m_a)
    for k, qi in enumerate(q):
        w = np.exp(-((suite.U[A] - suite.U[qi]) ** 2).sum(1) / (2 * (0.25 * med) ** 2))
        w = w / w.sum()
        phi = np.einsum("j,njd->nd", w, suite.X[:, A])
        s2 = np.einsum("j,nj->n", w, (suite.X[:, A] ** 2).sum(2)) - (phi**2).sum(1)
        fact = np.linalg.norm(phi - phi[f], axis=1)
        ub = np.sqrt(fact**2 + s2 + s2[f])
        pdev = w @ np.linalg.norm(suite.X[:, A] - suite.X[f, A], axis=2).T
        wc = np.exp(-((suite.U[sp.cal_a] - suite.U[qi]) ** 2).sum(1) / (2 * (0.25 * med) ** 2))
        wc = wc / wc.sum()
        pcal = wc @ np.linalg.norm(suite.X[:, sp.cal_a] - suite.X[f, sp.cal_a], axis=2).T
        pd30 = np.array([w[keep[c]] @ absd[c, keep[c]] / w[keep[c]].sum() for c in range(n)])
        for name, ref in (("qa-fact", fact), ("var-ub", ub), ("pairdev", pdev), ("pd-cal", pcal), ("pd30", pd30)):
            r = np.where(pool, ref, np.inf)
            assert dec[name][0][k] == r.argmin() and dec[name][1][k] == pytest.approx(r.min(), rel=1e-7), name
    assert np.isnan(dec["oracle"][1]).all()
    with pytest.raises(ValueError, match="leave-query-out"):
        ladder_decisions(suite, sp, f, pool, sp.cal_a[:3])


def test_poisoning_held_out_queries_changes_no_decision():
    """Every response and score of the eval and calibration queries replaced: picks and
    confidences bit-identical (the decisions read anchors, and calA for pd-cal, only)."""
    suite = twin_suite()
    sp = split_queries(suite.tasks, 2, 90, 45, 45)
    f = suite.models.index("big-70b")
    pool = pool_mask(suite, 13, f)
    X2, S2 = suite.X.copy(), suite.scores.copy()
    rng = np.random.default_rng(99)
    held = np.r_[sp.eval, sp.cal_b]
    X2[:, held] = rng.normal(size=X2[:, held].shape)
    S2[:, held] = rng.uniform(size=S2[:, held].shape)
    poisoned = PairedSuite(suite.models, X2, suite.U, suite.tasks, suite.query_ids, S2)
    for fn in (policy_decisions, ladder_decisions):
        a, b = fn(suite, sp, f, pool, held), fn(poisoned, sp, f, pool, held)
        for k in a:
            np.testing.assert_array_equal(a[k][0], b[k][0])
            np.testing.assert_array_equal(a[k][1], b[k][1])


def test_study_frames():
    suite = twin_suite()
    pools = {"le8b": 8, "le13b": 13}
    dec = collect_decisions(suite, seeds=[0, 1], pools=pools, n_eval=90, n_cal_a=60, n_cal_b=60)
    fr = dec.frame
    for seed, sp in dec.splits.items():
        check_disjoint(sp)
        ev = fr[(fr.seed == seed) & (fr.split == "eval")]["query"].unique()
        cal = fr[(fr.seed == seed) & (fr.split == "cal")]["query"].unique()
        assert not np.intersect1d(ev, cal).size and not np.intersect1d(ev, sp.anchors).size
    assert set(dec.flagships.values()) == {"big-70b"}
    assert len(dec.eps) == 2 * 2 * 3 and (dec.eps.eps > 0).all()
    gates = gate_sweep(dec)
    assert len(gates) == 2 * 2 * (len(POLICIES) + 6) * 3 * 3 * 2
    const = gates[gates.method.isin(CONSTANT_POLICIES)]
    assert not const.can_select.any() and const.volume.isin([0.0, 1.0]).all()
    qa = gates[(gates.method == "qa") & (gates.pool == "le13b") & (gates.q == 0.5) & (gates.alpha == 0.2)]
    assert qa.volume.mean() > 0.3
    ucb, emp = (gates[(gates.rule == r)].sort_values(["seed", "pool", "method", "q", "alpha"]) for r in ("ucb", "emp"))
    assert (ucb.volume.to_numpy() <= emp.volume.to_numpy() + 1e-12).all()
    curves = curve_table(dec)
    z = curves[curves.frac == 0]
    assert np.allclose(z.deviation, 0) and np.allclose(z.retention, 1)
    qt = quality_table(dec)
    assert set(qt.columns) >= {"apgr", "cpt50", "aiq"}
    # le13b holds a twin for every task: offloading by qa loses nothing, so there is no gap to recover
    assert qt[(qt.method == "qa") & (qt.pool == "le13b")].apgr.isna().all()
    row = qt[(qt.method == "qa") & (qt.pool == "le8b")]  # no twin for t2: qa offloads t0, t1 first
    assert (row.apgr > qt[(qt.method == "random") & (qt.pool == "le8b")].apgr.to_numpy() + 0.1).all()
    assert np.isfinite(row.aiq).all()


def test_paired_suite_from_records():
    suite = twin_suite(m=12)
    rows = []
    for i, mname in enumerate(suite.models):
        for j in range(suite.n_queries):
            rows.append(
                {
                    "model_id": mname, "task_id": suite.tasks[j], "query_id": str(j),
                    "response_embedding": suite.X[i, j], "query_embedding": suite.U[j],
                    "score": suite.scores[i, j],
                }
            )  # fmt: skip
    back = paired_suite(pd.DataFrame(rows))
    assert back.models == suite.models
    order = [list(back.query_ids).index(str(j)) for j in range(12)]
    np.testing.assert_allclose(back.X[:, order], suite.X)
    np.testing.assert_allclose(back.scores[:, order], suite.scores)
    with pytest.raises(ValueError, match="exactly once"):
        paired_suite(pd.DataFrame(rows[:-1]))


def test_no_finite_candidate_never_picks_the_flagship():
    """A criterion with no finite pool entry (e.g. scores absent) picks a pool member, at +inf."""
    from dkps.routing.offload import argmin_pool

    pool = np.array([False, True, False, True])
    C = np.array([[np.nan, np.nan, 0.0, np.nan], [5.0, 2.0, 0.0, 1.0]])
    pick, val = argmin_pool(C, pool)
    assert pick.tolist() == [1, 3] and val[0] == np.inf and val[1] == 1.0
    suite = twin_suite(m=12)
    rows = [
        {"model_id": mname, "task_id": suite.tasks[j], "query_id": str(j), "response_embedding": suite.X[i, j],
         "query_embedding": suite.U[j], "score": np.nan}
        for i, mname in enumerate(suite.models) for j in range(12)
    ]  # fmt: skip
    assert paired_suite(pd.DataFrame(rows)).scores is None
