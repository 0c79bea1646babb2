"""Paired item-level comparison: McNemar against the binomial, the bootstrap against a plain loop,
Holm against its definition, the power of the minimum detectable effect, planted and null differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from blindspot.prognose import paired_comparison as pc


def _binary_pair(n: int, p_a: float, p_b: float, rho_items: float, rng: np.random.Generator):
    """Two models answering the same n items: a shared item difficulty makes their answers correlated."""
    ease = rng.normal(size=n) * rho_items
    a = (rng.normal(size=n) + ease < stats.norm.ppf(p_a) * math.sqrt(1 + rho_items**2)).astype(float)
    b = (rng.normal(size=n) + ease < stats.norm.ppf(p_b) * math.sqrt(1 + rho_items**2)).astype(float)
    return a, b


def test_mcnemar_p_value_is_the_two_sided_exact_binomial_of_the_discordant_items():
    rng = np.random.default_rng(1)
    a, b = _binary_pair(500, 0.6, 0.66, 1.0, rng)
    t = pc.mcnemar_test(a, b)
    n10 = int(((b == 1) & (a == 0)).sum())
    n01 = int(((a == 1) & (b == 0)).sum())
    m = n10 + n01
    assert (t.b_only, t.a_only) == (n10, n01)
    assert t.p_value == pytest.approx(stats.binomtest(n10, m, 0.5).pvalue, rel=1e-12)
    # independently: the sum of the Bin(m, 1/2) probabilities no larger than the observed one
    pmf = stats.binom.pmf(np.arange(m + 1), m, 0.5)
    assert t.p_value == pytest.approx(min(1.0, pmf[pmf <= pmf[n10] * (1 + 1e-7)].sum()), rel=1e-9)
    assert t.estimate == pytest.approx(b.mean() - a.mean())
    # Clopper-Pearson from the beta quantiles, mapped through (2 pi - 1) m / n
    lo = stats.beta.ppf(0.025, n10, m - n10 + 1)
    hi = stats.beta.ppf(0.975, n10 + 1, m - n10)
    assert t.interval == pytest.approx(((2 * lo - 1) * m / 500, (2 * hi - 1) * m / 500), rel=1e-9)


def test_mcnemar_without_discordant_items_is_zero_with_the_rule_of_three():
    a = np.array([1.0, 0, 1, 1, 0] * 20)
    t = pc.mcnemar_test(a, a)
    assert (t.estimate, t.p_value, t.detectable) == (0.0, 1.0, None)
    assert t.interval == pytest.approx((-0.03, 0.03))


def test_mcnemar_refuses_non_binary_and_paired_test_falls_back_to_the_bootstrap_with_a_note():
    a, b = np.array([0.0, 0.5, 1.0, 1.0]), np.array([1.0, 1.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="binary"):
        pc.mcnemar_test(a, b)
    t = pc.paired_test(a, b, n_boot=200)
    assert t.method == pc.BOOTSTRAP and "non-binary" in t.note


def test_unpaired_arrays_are_refused():
    with pytest.raises(ValueError, match="paired item by item"):
        pc.paired_test([0, 1, 1], [1, 0])
    with pytest.raises(ValueError, match="NaN"):
        pc.paired_test([0, np.nan], [1, 0])


def test_bootstrap_agrees_with_a_plain_loop_over_resamples():
    rng = np.random.default_rng(3)
    a = rng.normal(size=300)
    b = a + 0.1 + rng.normal(size=300) * 0.5
    t = pc.bootstrap_test(a, b, n_boot=4000, seed=0)
    # an independent bootstrap: one rng.choice per resample, another seed
    r2 = np.random.default_rng(12345)
    x = b - a
    loop = np.array([x[r2.choice(x.size, x.size)].mean() for _ in range(4000)])
    se = loop.std()
    assert t.estimate == pytest.approx(x.mean())
    assert t.interval[0] == pytest.approx(np.quantile(loop, 0.025), abs=0.1 * se)
    assert t.interval[1] == pytest.approx(np.quantile(loop, 0.975), abs=0.1 * se)
    assert t.se == pytest.approx(se, rel=0.06)


def test_the_counts_path_and_the_index_path_draw_the_same_distribution(monkeypatch):
    x = np.random.default_rng(4).integers(-2, 3, size=400).astype(float)  # 5 distinct values
    counts_path = pc.bootstrap_means(x, 6000, np.random.default_rng(0))
    monkeypatch.setattr(pc, "MAX_DISTINCT", 0)
    index_path = pc.bootstrap_means(x, 6000, np.random.default_rng(1))
    se = x.std() / math.sqrt(x.size)
    assert counts_path.mean() == pytest.approx(x.mean(), abs=0.05 * se)
    assert index_path.mean() == pytest.approx(x.mean(), abs=0.05 * se)
    assert counts_path.std() == pytest.approx(se, rel=0.05)
    assert index_path.std() == pytest.approx(se, rel=0.05)
    assert stats.ks_2samp(counts_path, index_path).pvalue > 0.001


def test_bootstrap_means_refuses_bad_resample_counts():
    with pytest.raises(ValueError, match="n_boot"):
        pc.bootstrap_means([1.0, 2.0], 1, np.random.default_rng(0))


def test_holm_matches_its_definition_and_a_worked_example():
    assert pc.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    p = np.random.default_rng(5).random(12) ** 3
    m = p.size
    order = np.argsort(p)
    brute = np.empty(m)
    for rank, i in enumerate(order):  # max over the sorted prefix of (m - j) p_(j)
        brute[i] = min(1.0, max((m - j) * p[order[j]] for j in range(rank + 1)))
    assert pc.holm(p) == pytest.approx(brute)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        pc.holm([0.2, 1.5])


def test_mcnemar_detectable_effect_has_80_percent_power_by_simulation():
    n, psi = 3000, 0.3
    delta = pc.mcnemar_detectable(n, psi)
    za, zb = stats.norm.ppf(0.975), stats.norm.ppf(0.8)
    assert delta * math.sqrt(n) == pytest.approx(za * math.sqrt(psi) + zb * math.sqrt(psi - delta**2))
    rng = np.random.default_rng(6)
    # items: discordant with probability psi, then B-right with probability (1 + delta / psi) / 2
    hits = 0
    reps = 600
    for _ in range(reps):
        m = rng.binomial(n, psi)
        n10 = rng.binomial(m, 0.5 * (1 + delta / psi))
        hits += stats.binomtest(n10, m, 0.5).pvalue <= 0.05
    assert 0.8 - 0.06 < hits / reps < 0.8 + 0.06
    assert pc.mcnemar_detectable(n, 0.0) is None
    assert pc.mcnemar_detectable(3, 0.34) is None  # one discordant item can resolve nothing


def test_bootstrap_detectable_is_the_normal_power_formula():
    assert pc.bootstrap_detectable(0.01) == pytest.approx((1.959964 + 0.841621) * 0.01, rel=1e-5)


def test_planted_difference_is_covered_and_resolved():
    rng = np.random.default_rng(7)
    covered = resolved = 0
    for _ in range(200):
        a = rng.normal(size=200)
        b = a + 0.3 + rng.normal(size=200)
        t = pc.bootstrap_test(a, b, n_boot=500, seed=rng)
        covered += t.interval[0] <= 0.3 <= t.interval[1]
        resolved += t.p_value <= 0.05
    # 95% coverage: the central 99.9% of Bin(200, 0.95); a planted 0.3 sd is resolved nearly always
    assert stats.binom.ppf(0.0005, 200, 0.95) <= covered <= stats.binom.ppf(0.9995, 200, 0.95)
    assert resolved >= 190


@pytest.mark.parametrize("binary", [True, False])
def test_a_null_pair_is_resolved_in_about_five_percent_of_seeds(binary):
    n_seeds, hits = 200, 0
    for seed in range(n_seeds):
        rng = np.random.default_rng(seed)
        if binary:
            a, b = _binary_pair(400, 0.6, 0.6, 1.0, rng)
        else:
            a = rng.normal(size=150)
            b = 0.5 * a + rng.normal(size=150) * math.sqrt(0.75)
        c = pc.compare_pair({"bench": a}, {"bench": b}, n_boot=400, seed=seed)
        hits += c.decisions[0] != "not resolved"
    lo, hi = stats.binom.ppf(0.0005, n_seeds, 0.05), stats.binom.ppf(0.9995, n_seeds, 0.05)
    assert lo <= hits <= hi, hits


def test_compare_pair_holm_decisions_and_overall_differences():
    rng = np.random.default_rng(8)
    a1, b1 = _binary_pair(2000, 0.5, 0.6, 1.0, rng)  # B clearly better
    a2, b2 = _binary_pair(2000, 0.7, 0.6, 1.0, rng)  # B clearly worse
    a3, b3 = _binary_pair(300, 0.5, 0.5, 1.0, rng)  # the same
    c = pc.compare_pair(
        {"up": a1, "down": a2, "same": a3, "none": []},
        {"up": b1, "down": b2, "same": b3, "none": []},
        n_boot=2000,
        reasons={"none": "no shared item (A: 5 items, B: 4 items)"},
    )
    assert c.decisions[:2] == ("better", "worse")
    assert c.decisions[3] == "—" and "no shared item" in c.tests[3].note
    assert c.p_holm[3] is None
    compared = [i for i in range(3)]
    assert np.allclose([c.p_holm[i] for i in compared], pc.holm([c.tests[i].p_value for i in compared]))
    diffs = np.array([b1.mean() - a1.mean(), b2.mean() - a2.mean(), b3.mean() - a3.mean()])
    ns = np.array([2000, 2000, 300])
    assert c.macro.estimate == pytest.approx(diffs.mean())
    assert c.micro.estimate == pytest.approx(ns @ diffs / ns.sum())
    assert c.micro.method == pc.MCNEMAR  # every benchmark binary: the pooled McNemar test
    assert c.macro.interval[0] < c.macro.estimate < c.macro.interval[1]
    frame = c.to_frame()
    assert list(frame.index) == ["up", "down", "same", "none"]
    assert frame.loc["none", "decision"] == "—"


def test_pairing_resolves_what_the_unpaired_test_does_not_on_correlated_items():
    rng = np.random.default_rng(9)
    a, b = _binary_pair(1500, 0.60, 0.63, 3.0, rng)  # strongly shared difficulty
    paired = pc.mcnemar_test(a, b)
    unpaired = pc.unpaired_test(a, b)
    assert unpaired.estimate == pytest.approx(paired.estimate)
    assert paired.p_value < unpaired.p_value
    # the unpaired standard error ignores the covariance of the pair: larger than the paired one
    x = b - a
    assert unpaired.se > x.std(ddof=1) / math.sqrt(x.size)


def test_ranking_resolves_planted_gaps_and_not_ties():
    rng = np.random.default_rng(10)
    ease = rng.normal(size=3000)
    models = {
        name: {"b": (rng.normal(size=3000) + ease < shift).astype(float)}
        for name, shift in (("top", 1.0), ("mid", 0.5), ("twin", 0.5), ("low", -0.5))
    }
    r = pc.ranking(models, n_boot=500)
    assert r.models[0] == "top" and r.models[-1] == "low"
    frame = r.to_frame()
    assert frame["order vs next"].tolist()[-1] == "—"
    by_pair = {frozenset((s.upper, s.lower)): s.resolved for s in r.steps}
    assert by_pair[frozenset(("mid", "twin"))] is False
    assert sum(by_pair.values()) == 2
    assert np.allclose([s.p_holm for s in r.steps], pc.holm([s.p_value for s in r.steps]))
    with pytest.raises(ValueError, match="at least two"):
        pc.ranking({"solo": {"b": [1.0]}})


def test_visible_split_is_an_orthogonal_decomposition_along_the_leaderboard_eigenvectors():
    import pandas as pd

    rng = np.random.default_rng(11)
    f = rng.normal(size=(40, 1))
    S = pd.DataFrame(np.hstack([f + 0.1 * rng.normal(size=(40, 3)), rng.normal(size=(40, 2))]), columns=list("pqrst"))
    sd = S.to_numpy().std(axis=0)
    lam, V = np.linalg.eigh(np.corrcoef(S.to_numpy(), rowvar=False))
    top, bottom = V[:, -1], V[:, 0]
    on = pc.visible_split(dict(zip(S.columns, top * sd)), S)
    off = pc.visible_split(dict(zip(S.columns, bottom * sd)), S)
    assert on.d < 5
    assert (
        on.total == pytest.approx(1.0) and on.visible == pytest.approx(1.0) and on.missed == pytest.approx(0, abs=1e-9)
    )
    assert off.visible == pytest.approx(0, abs=1e-9) and off.missed == pytest.approx(1.0)
    mixed = pc.visible_split({"p": 0.3, "q": -0.1, "t": 0.2, "other": 9.0}, S)
    assert mixed.benchmarks == ("p", "q", "t")
    assert mixed.total**2 == pytest.approx(mixed.visible**2 + mixed.missed**2)
    assert mixed.radius is not None and mixed.radius > 0
    with pytest.raises(ValueError, match="shares 1 benchmark"):
        pc.visible_split({"p": 0.3, "zz": 1.0}, S)


def test_items_needed_inverts_the_detectable_effect():
    for delta, psi in ((0.0072, 0.05), (0.02, 0.3), (0.1, 0.5)):
        n = pc.items_needed(delta, psi)
        assert pc.mcnemar_detectable(n, psi) <= delta < pc.mcnemar_detectable(n - 1, psi)
    with pytest.raises(ValueError, match="discordance"):
        pc.items_needed(0.3, 0.2)


def test_pairwise_tests_count_what_each_test_resolves():
    rng = np.random.default_rng(12)
    ease = rng.normal(size=800) * 2.0
    scores = {f"m{k}": (rng.normal(size=800) + ease < 0.15 * k).astype(float) for k in range(5)}
    pt = pc.pairwise_tests(scores)
    f = pt.frame
    assert len(f) == 10 and (f["difference"] >= 0).all()
    assert np.allclose(f["p paired (Holm)"], pc.holm(f["p paired"]))
    row = f[(f.A == "m0") & (f.B == "m4")].iloc[0]
    assert row["p paired"] == pytest.approx(pc.mcnemar_test(scores["m0"], scores["m4"]).p_value)
    assert row["p unpaired"] == pytest.approx(pc.unpaired_test(scores["m0"], scores["m4"]).p_value)
    # shared item difficulty: pairing resolves at least as many pairs, and here strictly more
    assert pt.n_paired > pt.n_unpaired and len(pt.missed) == pt.n_paired - pt.n_unpaired
    by = pc.resolution_by_size(scores, [100, 800], n_draws=3, seed=0)
    assert list(by["items"]) == [100] * 3 + [800] * 3
    full = by[by["items"] == 800]
    assert (full["n paired"] == pt.n_paired).all()  # every item drawn: the full-data counts
    assert by.groupby("items")["n paired"].mean().is_monotonic_increasing


def test_stat_tests_carry_estimate_interval_p_and_detectable():
    a, b = _binary_pair(2000, 0.5, 0.55, 1.0, np.random.default_rng(13))
    c = pc.compare_pair({"x": a}, {"x": b}, n_boot=300)
    st = c.tests[0].stat_test()
    assert (st.estimate, st.interval, st.p_value, st.detectable) == (
        c.tests[0].estimate,
        c.tests[0].interval,
        c.tests[0].p_value,
        c.tests[0].detectable,
    )
    assert c.micro.stat_test().detectable == pytest.approx(c.tests[0].detectable)
    assert c.macro.detectable == pytest.approx(pc.bootstrap_detectable(c.tests[0].se), rel=0.2)
