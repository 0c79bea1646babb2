"""The tolerance gate: finite-sample validity on a known deviation law, the two rules, monotonicity,
constant-confidence policies, disjoint splits, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dkps.routing.gate import (
    ToleranceGate,
    clopper_pearson_upper,
    evaluate_gate,
    order_by_confidence,
    prefix_criterion,
    required_calibration_size,
)

EPS = 0.5


def _population(rng, n):
    """Exchangeable (confidence, deviation): dev = 2 conf + N(0, 0.15²), conf ~ U(0, 0.6).

    P(dev > 0.5) is about 0.58; the confidence predicts the deviation, but on twice its scale, so
    reading the confidence as a deviation (offload when conf <= eps) is badly uncalibrated.
    """
    conf = rng.uniform(0, 0.6, n)
    dev = 2 * conf + rng.normal(0, 0.15, n)
    return conf, np.abs(dev)


def _reps(rule, alpha, n_rep=500, n_cal=200, n_eval=2000):
    rng = np.random.default_rng(2024)
    viol, vol = [], []
    for rep in range(n_rep):
        cc, dc = _population(rng, n_cal)
        ce, de = _population(rng, n_eval)
        gate = ToleranceGate(EPS, alpha, rule=rule, seed=rep).fit(cc, dc)
        m = gate.offload(ce)
        vol.append(m.mean())
        viol.append((de[m] > EPS).mean() if m.any() else 0.0)
    return np.array(viol), np.array(vol)


@pytest.mark.parametrize("alpha", [0.05, 0.10, 0.20])
def test_finite_sample_validity(alpha):
    viol_emp, vol_emp = _reps("emp", alpha)
    viol_ucb, vol_ucb = _reps("ucb", alpha)
    # emp: the mean held-out violation stays within alpha plus a binomial slack
    assert viol_emp.mean() <= alpha + 0.03
    # ucb: the held-out violation exceeds alpha in at most a share delta (+ slack) of the repetitions
    assert (viol_ucb > alpha).mean() <= 0.10 + 0.03
    # and both offload a real share of the traffic (the test is not passed by abstaining)
    assert vol_emp.mean() > 0.15 and vol_ucb.mean() > 0.05
    # without calibration, the contract fails: offloading everything, or reading conf as a deviation
    rng = np.random.default_rng(7)
    ce, de = _population(rng, 200_000)
    assert (de > EPS).mean() > alpha + 0.2
    naive = ce <= EPS
    assert (de[naive] > EPS).mean() > alpha + 0.1


def test_calibrated_prefix_is_admissible_and_ucb_more_conservative():
    rng = np.random.default_rng(3)
    for rep in range(200):
        cc, dc = _population(rng, 150)
        for alpha in (0.05, 0.1, 0.2):
            g_emp = ToleranceGate(EPS, alpha, "emp", seed=rep).fit(cc, dc)
            g_ucb = ToleranceGate(EPS, alpha, "ucb", seed=rep).fit(cc, dc)
            assert np.all(g_ucb.criterion_ >= g_emp.criterion_ - 1e-15)
            assert g_ucb.k_ <= g_emp.k_ and g_ucb.threshold_ <= g_emp.threshold_
            for g in (g_emp, g_ucb):
                if g.k_:
                    assert g.k_ >= 20 and g.criterion_[g.k_ - 1] <= alpha
                    # the calibration prefix's own violation
                    order = order_by_confidence(cc, rep)
                    assert (dc[order][: g.k_] > EPS).mean() <= alpha + 1e-12
                else:
                    assert g.threshold_ == -np.inf and not g.offload(cc).any()


def test_monotone_in_eps_and_alpha():
    rng = np.random.default_rng(11)
    for rep in range(60):
        cc, dc = _population(rng, 120)
        ce, _ = _population(rng, 500)
        for rule in ("emp", "ucb"):
            ks = [ToleranceGate(e, 0.1, rule, seed=rep).fit(cc, dc).k_ for e in (0.2, 0.3, 0.5, 0.8, 1.2)]
            assert ks == sorted(ks)
            vols = [ToleranceGate(EPS, a, rule, seed=rep).fit(cc, dc).offload(ce).mean() for a in (0.05, 0.1, 0.2, 0.4)]
            assert vols == sorted(vols)


def test_clopper_pearson_matches_scipy_binomtest():
    for k in (5, 20, 77):
        for b in range(0, k + 1, max(1, k // 7)):
            ci = stats.binomtest(b, k).proportion_ci(confidence_level=0.8, method="exact")
            assert clopper_pearson_upper(b, k, 0.10)[()] == pytest.approx(ci.high, abs=1e-10)
    assert clopper_pearson_upper(4, 4)[()] == 1.0
    crit = prefix_criterion(np.array([0, 1, 0, 0]), "emp")
    np.testing.assert_allclose(crit, [0, 0.5, 1 / 3, 0.25])


def test_required_size_and_small_calibration_split():
    assert required_calibration_size(0.05, "emp") == 20
    k = required_calibration_size(0.05, "ucb", 0.10)
    assert k == 45 and clopper_pearson_upper(0, k)[()] <= 0.05 < clopper_pearson_upper(0, k - 1)[()]
    rng = np.random.default_rng(0)
    cc, dc = _population(rng, 30)
    ToleranceGate(EPS, 0.05, "emp").fit(cc, dc)
    with pytest.raises(ValueError, match="needs at least 45"):
        ToleranceGate(EPS, 0.05, "ucb").fit(cc, dc)
    with pytest.raises(ValueError, match="needs at least 20"):
        ToleranceGate(EPS, 0.05, "emp").fit(cc[:10], dc[:10])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"eps": 0.0}, "eps"),
        ({"eps": -1.0}, "eps"),
        ({"eps": float("nan")}, "eps"),
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": 1.0}, "alpha"),
        ({"rule": "mean"}, "rule"),
        ({"delta": 1.5}, "delta"),
        ({"min_prefix": 0}, "min_prefix"),
    ],
)
def test_bad_contract(kwargs, match):
    args = {"eps": 0.5, "alpha": 0.1} | kwargs
    eps, alpha = args.pop("eps"), args.pop("alpha")
    rng = np.random.default_rng(0)
    cc, dc = _population(rng, 100)
    with pytest.raises(ValueError, match=match):
        ToleranceGate(eps, alpha, **args).fit(cc, dc)


def test_non_finite_confidence_never_offloaded():
    rng = np.random.default_rng(5)
    cc, dc = _population(rng, 200)
    cc[:50] = np.nan
    cc[50:60] = np.inf
    dc[:60] = 0.0  # perfect deviations: a gate reading them would certify these first
    g = ToleranceGate(5.0, 0.2).fit(cc, dc)  # eps large: every finite query is admissible
    assert g.k_ == 140
    ce = np.array([np.nan, np.inf, -np.inf, 0.1])
    assert g.offload(ce).tolist() == [False, False, False, True]


def test_constant_confidence_cannot_select():
    rng = np.random.default_rng(9)
    _, dc = _population(rng, 200)
    _, de = _population(rng, 2000)
    rep = evaluate_gate(
        np.zeros(200), dc, np.zeros(2000), de, EPS, 0.1,
        cal_ids=np.arange(200), eval_ids=np.arange(200, 2200),
    )  # fmt: skip
    assert not rep.can_select and rep.volume == 0.0 and rep.violation == 0.0
    assert rep.population_violation == pytest.approx((de > EPS).mean())
    # with a loose budget, the same policy offloads everything, at the population rate
    rep = evaluate_gate(
        np.ones(200), dc, np.ones(2000), de, EPS, 0.9,
        cal_ids=np.arange(200), eval_ids=np.arange(200, 2200),
    )  # fmt: skip
    assert rep.volume == 1.0 and rep.violation == pytest.approx(rep.population_violation)
    assert np.isnan(rep.spearman)


def test_constant_confidence_random_order_violation_is_population_rate():
    """I13: in a random order, any offloaded share violates at P(dev > eps) in expectation."""
    rng = np.random.default_rng(1)
    _, de = _population(rng, 400)
    pop = (de > EPS).mean()
    for k in (40, 200):
        v = [(de[order_by_confidence(np.zeros(400), s)[:k]] > EPS).mean() for s in range(400)]
        se = np.std(v) / np.sqrt(len(v))
        assert abs(np.mean(v) - pop) < 4 * se + 1e-12


def test_ties_are_seeded_and_stable():
    c = np.array([0.2, 0.1, 0.2, 0.2, np.nan, 0.1])
    o1, o2 = order_by_confidence(c, 3), order_by_confidence(c, 3)
    np.testing.assert_array_equal(o1, o2)
    assert set(o1[:2]) == {1, 5} and set(o1[2:5]) == {0, 2, 3} and o1[5] == 4
    orders = {tuple(order_by_confidence(c, s)) for s in range(30)}
    assert len(orders) > 1  # the key does break ties differently across seeds


def test_calibration_and_evaluation_never_overlap():
    rng = np.random.default_rng(2)
    cc, dc = _population(rng, 100)
    ce, de = _population(rng, 50)
    with pytest.raises(ValueError, match="both the calibration and the evaluation"):
        evaluate_gate(cc, dc, ce, de, EPS, 0.1, cal_ids=np.arange(100), eval_ids=np.arange(99, 149))
    rep = evaluate_gate(
        cc, dc, ce, de, EPS, 0.1, cal_ids=np.arange(100), eval_ids=np.arange(100, 150),
        score_sub=np.full(50, 0.4), score_flag=np.full(50, 0.5),
    )  # fmt: skip
    assert rep.can_select and 0 <= rep.volume <= 1
    assert rep.retention == pytest.approx(1 - 0.2 * rep.volume)
    assert rep.spearman > 0.5


def test_gate_grid_equals_the_loop():
    from dkps.routing.gate import gate_grid

    rng = np.random.default_rng(21)
    for rep_i in range(8):
        cc, dc = _population(rng, 120)
        ce, de = _population(rng, 300)
        if rep_i == 0:
            cc[:], ce[:] = 0.3, 0.3  # constant confidence
        if rep_i == 1:
            cc[:5] = np.nan
            ce[:7] = np.inf
            ce[10:20] = ce[20]  # ties on the evaluation side
        ss, sf = rng.uniform(size=300), rng.uniform(0.5, 1, 300)
        eps, alphas = np.array([0.3, 0.5, 0.9]), np.array([0.05, 0.1, 0.2])
        kw = dict(cal_ids=np.arange(120), eval_ids=np.arange(120, 420), seed=rep_i, score_sub=ss, score_flag=sf)
        grid = gate_grid(cc, dc, ce, de, eps, alphas, ("emp", "ucb"), **kw)
        loop = [evaluate_gate(cc, dc, ce, de, e, a, rule=r, **kw) for r in ("emp", "ucb") for e in eps for a in alphas]
        assert len(grid) == len(loop)
        for g, lp in zip(grid, loop):
            for field in ("volume", "violation", "retention", "k_cal", "threshold", "can_select", "n_offloaded"):
                assert getattr(g, field) == pytest.approx(getattr(lp, field), abs=1e-12), field
            assert g.spearman == pytest.approx(lp.spearman, nan_ok=True)
