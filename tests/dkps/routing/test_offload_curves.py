"""Policy curves (endpoints, monotone deviation, offload counts) and the quality-router metrics
(PGR/APGR/CPT on closed forms, AIQ's hull against a brute-force envelope)."""

from __future__ import annotations

import numpy as np
import pytest

from dkps.routing.curves import FRACS, max_fraction_at_retention, n_offloaded, policy_curve, savings
from dkps.routing.quality_metrics import aiq, nondecreasing_hull, quality_router_metrics


def _policy(rng, q=137):
    conf = rng.normal(size=q)
    conf[rng.choice(q, 5, replace=False)] = np.inf
    conf[:10] = conf[10]  # ties
    dev = np.abs(conf.clip(-3, 3) + rng.normal(size=q))
    s_sub = rng.uniform(0, 1, q)
    s_flag = rng.uniform(0.3, 1, q)
    return conf, dev, s_sub, s_flag


def test_policy_curve_invariants():
    rng = np.random.default_rng(0)
    for rep in range(20):
        conf, dev, ss, sf = _policy(rng)
        cur = policy_curve(conf, dev, ss, sf, seed=rep)
        q = conf.size
        assert cur.retention[0] == pytest.approx(1.0) and cur.deviation[0] == 0.0
        assert cur.score[-1] == pytest.approx(ss.mean())
        assert cur.deviation[-1] == pytest.approx(dev.mean())
        assert np.all(np.diff(cur.deviation) >= -1e-15)
        assert cur.n_offloaded.tolist() == [int(np.floor(f * q + 0.5)) for f in FRACS]
        # the offloaded set is the lowest-confidence prefix: the brute force of the middle point
        k = cur.n_offloaded[5]
        fin = np.where(np.isfinite(conf), conf, np.inf)
        served = np.sort(fin)[:k]
        assert np.all(served <= np.sort(fin)[k])
    assert n_offloaded(0.5, 5) == 3 and n_offloaded(0.25, 2) == 1


def test_policy_curve_bad_input_and_summaries():
    with pytest.raises(ValueError, match="one entry per query"):
        policy_curve(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        policy_curve(np.zeros(3), np.zeros(3), fracs=[1.2])
    cur = policy_curve(np.arange(10.0), np.ones(10), np.full(10, 0.5), np.ones(10))
    np.testing.assert_allclose(cur.retention, 1 - 0.5 * FRACS)
    assert max_fraction_at_retention(cur, 0.95) == pytest.approx(0.1)
    assert savings(0.4, 10) == pytest.approx(0.36)
    with pytest.raises(ValueError):
        savings(0.4, 0.5)


def test_pgr_apgr_cpt_closed_form():
    # every substitute scores 0, the flagship 1: quality is linear in the strong share, PGR(p) = p
    q = 100
    m = quality_router_metrics(np.arange(q), np.zeros(q), np.ones(q))
    assert m.apgr == pytest.approx(0.5) and m.cpt50 == pytest.approx(0.5) and m.pgr_at_half == pytest.approx(0.5)
    # a perfect router: half the queries lose nothing when offloaded, and it offloads them first
    ss = np.r_[np.ones(50), np.zeros(50)]
    m = quality_router_metrics(np.arange(q), ss, np.ones(q))
    assert m.cpt50 == pytest.approx(0.25)  # PGR reaches 1/2 with a quarter of the traffic strong
    assert m.apgr == pytest.approx(0.75, abs=0.01)
    # the reverse order is the worst router
    m_bad = quality_router_metrics(-np.arange(q), ss, np.ones(q))
    assert m_bad.apgr < 0.5 < m.apgr
    # no gap: substitutes as good as the flagship
    assert np.isnan(quality_router_metrics(np.arange(4), np.ones(4), np.ones(4)).apgr)


def _brute_envelope(x, y, grid):
    """Non-decreasing concave envelope at each grid cost: best single point at or below the cost,
    or best interpolation between two points straddling it."""
    out = np.full(grid.size, -np.inf)
    for g_i, c in enumerate(grid):
        best = y[x <= c + 1e-12].max() if np.any(x <= c + 1e-12) else -np.inf
        for i in range(x.size):
            for j in range(x.size):
                if x[i] <= c <= x[j] and x[j] > x[i]:
                    t = (c - x[i]) / (x[j] - x[i])
                    best = max(best, (1 - t) * y[i] + t * y[j])
        out[g_i] = best
    return out


def test_aiq_matches_brute_force_envelope():
    rng = np.random.default_rng(4)
    for _ in range(15):
        n = rng.integers(3, 12)
        x = rng.uniform(0, 10, n)
        x[0] = x[1]  # a repeated cost
        y = rng.uniform(0, 1, n)
        grid = np.linspace(x.min(), x.max(), 801)
        env = _brute_envelope(x, y, grid)
        hull = nondecreasing_hull(x, y)
        np.testing.assert_allclose(np.interp(grid, hull[:, 0], hull[:, 1]), env, atol=1e-9)
        assert np.all(np.diff(hull[:, 1]) >= -1e-15)
        assert aiq(x, y) == pytest.approx(np.trapezoid(env, grid) / (grid[-1] - grid[0]), abs=1e-5)
    # closed forms: a line, and one point
    assert aiq([0, 1, 2], [0, 0.5, 1]) == pytest.approx(0.5)
    assert aiq([1, 3], [0.8, 0.2]) == pytest.approx(0.8)  # the flat extension
    assert aiq([2, 2], [0.3, 0.6]) == pytest.approx(0.6)
    with pytest.raises(ValueError, match="finite"):
        aiq([0, np.nan], [0, 1])


def test_confidences_and_deviations_of_transposed_shapes_are_refused():
    """(20, 10) confidences beside (10, 20) deviations hold 200 of each but are not paired query by query;
    the gate flattened both and fitted on mismatched pairs."""
    from dkps.routing.gate import ToleranceGate

    rng = np.random.default_rng(0)
    conf, dev = rng.uniform(size=(20, 10)), rng.uniform(size=(10, 20))
    with pytest.raises(ValueError, match=r"same shape; got shapes \(20, 10\) and \(10, 20\)"):
        ToleranceGate(eps=0.5, alpha=0.2).fit(conf, dev)
