"""blindspot.diagnose.verdicts: each decision of Part I's chapters, both ways, on cases with a known answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core.spectrum import MPCorrection, mp_edges
from blindspot.data.suites import synthetic_suite
from blindspot.diagnose import tables, variance_capture, verdicts
from blindspot.diagnose.ambient_dimension import Horn, SwapCV
from blindspot.diagnose.robustness import ThresholdCurve


def _mp(n_sig: int, d_eff_mp: float) -> MPCorrection:
    return MPCorrection(0.1, 0.4, 1.7, n_sig, d_eff_mp if n_sig else float("nan"), n_sig > 0, "")


def _horn(n_signal: int) -> Horn:
    return Horn(n_signal, np.array([3.0, 1.0]), np.array([1.5, 1.2]), 95.0, 100)


def test_interval_contains_is_inclusive_at_both_ends():
    assert verdicts.interval_contains(2.0, 2.0, 3.0) == "contains"
    assert verdicts.interval_contains(3.0, 2.0, 3.0) == "contains"
    assert verdicts.interval_contains(1.99, 2.0, 3.0) == "does not contain"


def test_frontier_exceeds_full_needs_every_suite():
    idx = pd.MultiIndex.from_tuples([("a", "full"), ("a", "frontier"), ("b", "full"), ("b", "frontier")])
    table = pd.DataFrame({"d_eff": [2.0, 2.5, 3.0, 2.9]}, index=idx)
    v = verdicts.frontier_exceeds_full(table, ["a", "b"])
    assert not v.holds and v.evidence == "frontier minus all models: a +0.50, b -0.10"
    assert verdicts.frontier_exceeds_full(table, ["a"]).holds


def test_mp_readings():
    mp = {
        ("s", "full"): _mp(2, 1.5),
        ("s", "frontier"): _mp(3, 2.0),
        ("t", "full"): _mp(1, 1.0),
        ("t", "frontier"): _mp(0, 0.0),
    }
    perm = {("s", "full"): _horn(2), ("s", "frontier"): _horn(2), ("t", "full"): _horn(2), ("t", "frontier"): _horn(0)}
    assert verdicts.signal_counts_agree(mp, perm) == ["s full", "t frontier"]
    assert verdicts.mp_signal_count(mp, perm, ["s"]).holds
    count = verdicts.mp_signal_count(mp, perm, ["s", "t"])
    assert not count.holds and "t: MP edge 1, permutation null 2" in count.evidence
    robust = verdicts.mp_robust(mp, ["s", "t"])
    assert not robust.holds  # t's frontier has no signal eigenvalue: undefined
    assert robust.evidence == "d_eff^MP (full, frontier): s 1.50, 2.00; t 1.00, undefined (the frontier is not larger)"
    assert verdicts.mp_robust(mp, ["s"]).holds
    assert verdicts.frontier_rise_survives(mp, ["s", "t"]) == {"s": True, "t": False}
    assert (
        verdicts.deff_mp_text(mp[("t", "frontier")]) == "undefined"
        and verdicts.deff_mp_text(mp[("s", "full")]) == "1.50"
    )


def test_null_max_table_matches_the_edge_and_its_definition():
    t = synthetic_suite(n_models=30, n_benchmarks=5, seed=0)
    out = tables.null_max_table({("syn", "full"): t}, n_rep=50, seed=1)
    row = out.loc["syn full"]
    assert row["lambda_+"] == pytest.approx(mp_edges(30, 5)[1])
    assert 0.0 <= row["P(null max > lambda_+)"] <= 1.0
    assert row["95th pct null max"] >= row["mean null max"] - 1.0  # a percentile of the same draws


def test_concentration_tail_counts_the_deviations():
    f = np.array([0.1, 0.1, 0.5, 0.1])  # d/D = 0.1: one deviation of 0.4
    tail = variance_capture.concentration_tail(f, 1, 10, (0.1, 0.5), kappa=1.0)
    assert tail.loc[0.1, "observed P(|f - d/D| > t)"] == 0.25 and tail.loc[0.5, "observed P(|f - d/D| > t)"] == 0.0
    assert tail.loc[0.1, "bound"] == pytest.approx(2 * np.exp(-10 * 0.01 / 8))
    v = verdicts.concentration_bound_holds(tail, 10, 1.0, 4, 55.0)
    # every bound is >= 1 here (vacuous): nothing to judge, so the statement is not contradicted
    assert v.holds and "observed tail ;" in v.evidence


def test_concentration_bound_fails_when_the_observed_tail_exceeds_an_informative_bound():
    tail = pd.DataFrame(
        {"bound": [0.5, 0.1], "observed P(|f - d/D| > t)": [0.2, 0.3]}, index=pd.Index([0.1, 0.2], name="t")
    )
    v = verdicts.concentration_bound_holds(tail, 400, 1.2, 100, 55.5)
    assert not v.holds and "0.300 <= 0.1 at t = 0.2" in v.evidence and "(56 at" in v.evidence
    tail.loc[0.2, "observed P(|f - d/D| > t)"] = 0.05
    assert verdicts.concentration_bound_holds(tail, 400, 1.2, 100, 55.5).holds


def test_capture_bound_counterexample():
    assert not verdicts.capture_bound_counterexample(1.0, 0.1).holds
    assert verdicts.capture_bound_counterexample(0.1, 0.1).holds


def _cv(empirical: float, corner: bool) -> SwapCV:
    return SwapCV(5, empirical, np.arange(3, 8), np.array([0.2, 0.3, 0.4, 0.5, 0.6]), corner, 3.0)


def test_cross_validated_d_words():
    assert verdicts.cv_corner_text(None).startswith("not computed")
    assert verdicts.cv_corner_text(_cv(0.4, False)).startswith("inside")
    assert "smallest D allowed" in verdicts.cv_corner_text(_cv(0.1, True)).replace("  ", " ")
    assert verdicts.cv_corner_text(_cv(0.9, True)).startswith("above every value")
    assert "largest" in verdicts.cv_corner_text(_cv(0.9, True))
    assert verdicts.cv_corner_evidence(_cv(0.4, False)) == ""
    assert (
        verdicts.cv_corner_evidence(_cv(0.1, True))
        == "corner solution: empirical 0.100 outside the predictions [0.200, 0.600]"
    )
    ev = verdicts.d_range_evidence(40, _cv(0.1, True), 3, 12, 2)
    assert ev.startswith("power law 40, cross-validation 5 (a corner), Horn 3: the three span [3, 40]")
    assert verdicts.same_range_text([3, 40, 5], (3, 40)) == "the same as"
    assert verdicts.same_range_text([3, 41], (3, 40)) == "not"


def _curve(values: list[float], ns: list[int]) -> ThresholdCurve:
    qs = [round(0.1 * i, 1) for i in range(len(values))]
    t = pd.DataFrame({"fraction": [1 - q for q in qs], "n": ns, "d_eff": values}, index=pd.Index(qs, name="q"))
    decs = [(qs[i], qs[i + 1], values[i] - values[i + 1]) for i in range(len(qs) - 1) if values[i + 1] < values[i]]
    return ThresholdCurve(t, decs)


def test_threshold_curve_words():
    c = _curve([2.0, 2.2, 2.1, 2.5], [100, 80, 60, 40])
    assert verdicts.decrease_steps(c.decreases) == "q = 0.1 to 0.2 (-0.100)"
    assert verdicts.decrease_steps([]) == "none"
    assert verdicts.value_at(c.table, 0.2) == "2.10" and verdicts.value_at(c.table, 0.5) == "not computed"
    assert verdicts.curve_evidence(c, 20).endswith("; decreases at q = 0.1 to 0.2 (-0.100)")
    assert not verdicts.monotone_up_to(c, 0.2).holds
    up = verdicts.monotone_up_to(c, 0.1)
    assert up.holds and up.evidence.startswith("d_eff at q = 0.0, 0.1 (n = 100, 80): 2.000, 2.200")
    assert verdicts.band_word(0.18, 0.15, 0.20) == "inside" and verdicts.band_word(0.25, 0.15, 0.20) == "outside"
    assert verdicts.within_band(0.15, 0.15, 0.20)


def test_method_gaps_and_their_verdicts():
    methods = pd.DataFrame(
        {
            "pearson": [3.0, 4.0],
            "spearman": [2.9, 4.1],
            "kendall_sin": [2.8, 3.5],
            "|P - S|": [0.1, 0.1],
            "|P - K_sin|": [0.2, 0.5],
            "|P - K_raw|": [1.0, 2.0],
        },
        index=["a full", "a frontier"],
    )
    g = verdicts.method_gaps(methods, ["a full", "a frontier"])
    assert not g.rank_below  # Spearman is above Pearson on the frontier
    assert g.pearson_rank.tolist() == [0.2, 0.5] and g.raw_kendall == 2.0
    w = verdicts.methods_within(g, 0.3)
    assert not w.holds and "0.500 (a frontier)" in w.evidence and "not always below" in w.evidence
    assert verdicts.methods_within(g, 0.6).holds
    assert verdicts.pearson_spearman_within(g, 0.2).holds and not verdicts.pearson_spearman_within(g, 0.1).holds
    assert verdicts.methods_within(verdicts.method_gaps(methods, ["a full"]), 0.3).evidence.endswith(
        "every rank method below Pearson"
    )


def test_boxes_and_claim_ids():
    assert verdicts.size_control_box("s", None, 0).endswith("s has no such column.")
    assert verdicts.size_control_box("s", "params", 4).endswith("s has 4 in 'params'.")
    assert "; neither is in this run." in verdicts.missing_suites_box([])
    assert "; only a, b is in this run." in verdicts.missing_suites_box(["a", "b"])
    assert verdicts.half_split_claim("ollm_v2", "x") == "H2.mad.ollm_v2"
    assert verdicts.half_split_claim("mine", "mine") == "H2.mad.extended"
    assert verdicts.half_split_claim("livebench", "extended") is None


def test_null_comparison_and_its_words():
    rng = np.random.default_rng(0)
    null = {"d": rng.normal(2.0, 0.1, 200), "swap": rng.uniform(0, 1, 200)}
    cmp = verdicts.compare_to_null({"d": 3.0, "swap": 0.5}, null)
    assert cmp.outside == ["d"] and cmp.separates("d") and not cmp.separates("swap")
    lo, hi = cmp.band("d")
    assert lo == pytest.approx(np.percentile(null["d"], 5)) and hi == pytest.approx(np.percentile(null["d"], 95))
    words = verdicts.null_calibration_words(cmp, ["d", "swap"], 0.8, swap="swap", deff="d")
    assert words["deff_verdict"] == "can" and words["swap_verdict"] == "does not" and words["separating"] == "d"
    assert words["real_d"] == "3.00" and words["loading"] == "0.80"
    off = verdicts.null_calibration_words(None, ["d", "swap"], None, swap="swap", deff="d")
    assert set(off) == set(words) and off["deff_verdict"] == "(not computed)" and off["null_d"] == "not computed"
    v = verdicts.deff_counts_directions(cmp, "d", "swap", 0.8, 200, 2.1)
    assert v.holds and "against the real 3.00" in v.evidence and "Outside the null's band: d;" in v.evidence


def test_few_directions_of_the_template():
    assert verdicts.few_directions(2.9, 6).holds and not verdicts.few_directions(3.0, 6).holds
    assert verdicts.few_directions(2.9, 6).evidence == "d_eff 2.90 of 6 benchmarks"
