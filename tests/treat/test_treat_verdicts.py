"""blindspot.treat.verdicts: each decision of Part III's chapters, both ways, on cases with a known answer."""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np
import pandas as pd

from blindspot.treat import verdicts as v


def _audit(ratio_min: float, n_viol: int, n_total: int = 10, r_g: int = 3, r_o: int = 3) -> NS:
    return NS(
        approximation=np.array([1.0, ratio_min]),
        violations=NS(n_violations=n_viol, n_total=n_total),
        r_greedy=r_g,
        r_optimum=r_o,
    )


def test_greedy_texts():
    assert (
        v.slice_word(True) == "frontier"
        and v.slice_word(False) == "all models"
        and v.slice_word(False, "full") == "full"
    )
    assert "is not run here ($k > 16$)" in v.exhaustive_text(None, 20, 0.9, 7, 16)
    opt = NS(min_r=lambda t: 4, values={7: 0.95})
    assert v.exhaustive_text(opt, 12, 0.9, 7, 16).startswith("The exhaustive search over all 4,096 subsets needs 4")
    audits = {"a": _audit(0.99, 0), "b": _audit(0.97, 0, r_g=4)}
    assert "optimum on 1, and its coverage is never below 0.9700" in v.greedy_vs_optimum_text(audits, 16)
    assert v.greedy_vs_optimum_text({}, 16).startswith("No slice")
    assert v.share_exact(np.array([1.0, 0.99, 1.0, 0.98])) == 50.0
    assert v.subsets_text(3, True) == "8" and v.subsets_text(20, False) == "2^20 (not run here)"


def test_bound_and_first_step():
    decided = {"a": NS(holds=True, bound=3, r_min=3), "b": NS(holds=False, bound=2, r_min=4)}
    assert (
        v.bound_fails_text(decided)
        == "The bound fails on 1 of the 2 slices where it can be decided: b (bound 2, $r_{\\min}$ = 4)."
    )
    assert v.bound_fails_text({"a": decided["a"]}).endswith("can be decided.")
    assert v.bound_fails_text({}) == "On no slice does the bracket decide the bound."
    sbs = [NS(best_single=0.3, paper_first_step=0.4), NS(best_single=0.5, paper_first_step=0.4)]
    assert v.paper_step_failures(sbs) == 1
    assert v.first_step_word(sbs[0]) == "but not" and v.first_step_word(sbs[1]) == "and also"
    m = v.minr_bound(decided, NS(bound=12, r_min=12), decided, "a")
    assert not m.holds and m.book == "bound 3 vs r_min 3 (a)"


def test_theorem4_verdicts():
    audits = {"a": _audit(0.99, 0), "b": _audit(0.95, 2)}
    c3 = NS(n_violations=1)
    s = v.submodular(audits, 0.1, 0.2, c3, audits["a"], "a")
    assert not s.holds and s.book == "0 of 10 (a)" and "b: 2 of 10" in s.evidence
    assert v.submodular({"a": audits["a"]}, 0.1, 0.2, c3, None, "a").holds
    g = v.greedy_inequality(audits, np.array([0.9, 0.8]), 2)
    assert g.holds and g.book == 0.95 and "(b)" in g.evidence
    assert not v.greedy_inequality({"x": _audit(0.6, 0)}, np.array([0.9]), 1).holds
    tight = pd.DataFrame(
        {"greedy / optimum": [0.75, 0.70, 0.68], "matches 1 - (1 - 1/k)^k": [True] * 3}, index=[2, 3, 4]
    )
    t = v.tightness(tight, audits, np.array([0.9]), 1)
    assert t.holds and t.evidence.endswith("2 violated diminishing-returns comparisons (T4a)")
    t0 = v.tightness(tight, {}, np.array([0.9]), 1)
    assert t0.book is None and t0.evidence.endswith("this objective is not in the class (T4a)")
    tight.loc[4, "greedy / optimum"] = 0.71  # not decreasing any more
    assert not v.tightness(tight, audits, np.array([0.9]), 1).holds


def test_core_and_objectives():
    assert v.distinct_cores_text(5, 1, []) == "The 5 seeds give 1 distinct core."
    assert v.distinct_cores_text(5, 2, [0.5, 1.0]).endswith(
        "cores, and the top-4 Jaccard index ranges from 0.500 to 1.000."
    )
    c = v.core_matches(["IFEval", "MATH"], ["MATH", "IFEval"], 0.5, 7, 100)
    assert c.holds and c.book == "IFEval, MATH"
    assert not v.core_matches(["MATH"], ["MATH", "IFEval"], 0.5, 7, 100).holds
    assert v.same_order_word(True) == "the same order" and v.same_order_word(False, "a", "b") == "b"
    assert (
        v.sign_change_text(pd.Series([-0.1, 0.2])) == " and changes sign."
        and v.sign_change_text(pd.Series([0.1])) == "."
    )
    beaten = pd.DataFrame({"method": ["random", "random", "max_var"], "r": [2, 3, 5]})
    assert v.beaten_cells(beaten) == "max_var at r = 5; random at r = 2, 3"
    empty = beaten.iloc[:0]
    assert v.beaten_cells(empty) == "none"
    mob = v.matches_or_beats(empty, beaten, True)
    assert (
        not mob.holds and mob.book == "0 tau cells, 3 coverage cells beaten" and "give the same orders" in mob.evidence
    )
    assert v.matches_or_beats(empty, empty, False).holds


def test_bridge_verdicts():
    caps = NS(holds=False, visible_gap=1e-12, hausdorff=0.9, term=0.5, tau=0.94)
    b = v.bridge_bound(caps, 7)
    assert not b.holds and b.evidence.startswith("two caps") and b.book == "distance 0.90 R vs term 0.500 R"
    assert v.bridge_bound(NS(**{**vars(caps), "holds": True}), 7).evidence.startswith("the cap pair's")
    omega = pd.DataFrame(
        {
            "exact pi - arccos(1/sqrt r)": [2.0],
            "'Rogers optimum'": [2.5],
            "exact / Rogers": [0.8],
            "MC (Sigma = I) / Rogers": [0.7],
        },
        index=[7],
    )
    assert (
        v.below_volumetric(omega, 7, 1000).holds and "1,000 directions" in v.below_volumetric(omega, 7, 1000).evidence
    )
    assert not v.within_span_constant(1e-12, 12).holds and v.within_span_constant(1e-3, 12).holds
    assert v.uniform_weights_minimax(0.0).holds and not v.uniform_weights_minimax(0.1).holds
    assert v.no_violations(NS(n_violations=0, n_total=5, max_violation=0.0), "x").holds
    assert not v.no_violations(NS(n_violations=1, n_total=5, max_violation=0.1), "x").holds


def test_stability_and_closure():
    assert "this run has one leaderboard, a." in v.transfer_box(7, "a", None, 0)
    assert "a and b share 3." in v.transfer_box(7, "a", "b", 3)
    assert v.bounds_text({"paper": True, "corrected": False}) == "paper: yes, corrected: no"
    counts = {("fixed", "paper"): 3, ("own", "paper"): 0, ("fixed", "rank"): 0}
    vi = NS(
        count=lambda a, b: counts[(a, b)],
        fraction=lambda a, b: counts[(a, b)] / 10,
        table=pd.DataFrame({"max_violation": [0.2]}, index=pd.MultiIndex.from_tuples([("fixed", "paper")])),
    )
    vs = NS(count=lambda a, b: 0, fraction=lambda a, b: 0.0)
    p5 = v.perturbation_statement(vi, vs, 6, 10)
    assert p5.holds and p5.book == "fixed: 30.0%; own: 0.0% of pairs"  # the own projector never fails
    counts[("own", "paper")] = 1
    assert not v.perturbation_statement(vi, vs, 6, 10).holds
    cc = NS(f=[0.3], claimed=[0.4], failing_t=[1, 2], rank=6, gamma=None, valid=[0.5])
    eye = NS(failing_t=[1])
    t5 = v.closure(cc, {0: [1, 2], 1: []}, eye, 6)
    assert (
        not t5.holds and t5.evidence.startswith("f(T_1) = 0.300 < d_eff/k = 0.400") and t5.book == "fails at t = 1, 2"
    )
    ok = NS(f=[0.5], claimed=[0.4], failing_t=[], rank=6, gamma=0.8, valid=[0.5])
    t5b = v.closure(ok, {0: []}, eye, 6)
    assert (
        t5b.holds
        and t5b.book == "holds from the empty set"
        and ">= d_eff/k" in t5b.evidence
        and "gamma = 0.800" in t5b.evidence
    )
    assert "claim fails at t = 1, 2" in v.closure_text(cc, {0: [1, 2]}, eye, 6)
    assert "claim fails at no step" in v.closure_text(ok, {0: []}, eye, 6) and "weak rate (0.500" in v.closure_text(
        ok, {0: []}, eye, 6
    )


def test_significance_words():
    assert v.n_significant(pd.Series([0.01, 0.2, 0.04])) == 2
    assert v.survives_word(0.01) == "survives" and v.survives_word(0.05) == "does not survive"
