"""blindspot.prognose.verdicts: each decision of Part II's chapters, both ways, on cases with a known answer."""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np
import pandas as pd
import pytest

from blindspot.prognose import covering_checks as cc, indistinguishability as ind, verdicts as v


def test_covering_words():
    assert v.monte_carlo_words(NS(monte_carlo_below=True)).startswith("every Monte Carlo value is at or below")
    assert v.monte_carlo_words(NS(monte_carlo_below=False)).startswith("some")
    assert v.cover_word(None) == "(not computed)"
    assert [v.cover_word(s) for s in (0.05, 0.5, 0.95, 0.1, 0.9)] == [
        "worse than most",
        "about as well as",
        "better than most",
        "about as well as",
        "about as well as",
    ]


def test_random_comparison_table_summarises_the_random_radii():
    cmp = ind.RandomComparison(0.5, np.linspace(0, 1, 101), 6, 3)
    row = cmp.table("suite").loc["suite"]
    assert row["omega, random 5%"] == pytest.approx(0.05) and row["median"] == pytest.approx(0.5)
    assert row["random sets covering worse"] == pytest.approx(51 / 101)


def test_appc_words():
    def row(d, paper, found):
        return cc.AppCRow(d, paper, 1.0, 0.1, 2.0, 0.2, found, 0.6)

    appc = cc.AppCConstants({3: row(3, 0.35, 0.3), 4: row(4, 0.45, 0.4), 5: row(5, 0.5, 0.5)})
    assert v.found_below(appc) and v.found_word(True) == "below every one of them"
    assert v.appc_evidence(appc.rows[5]).endswith("omega*_12 <= 0.5 is true for lines")
    appc.rows[4] = row(4, 0.45, 0.5)
    assert not v.found_below(appc) and v.appc_evidence(appc.rows[4]).endswith("is not shown for lines")
    assert v.appc_planar_evidence(np.pi / 24, np.pi / 12).endswith("exact 0.2618 = pi/12")


def test_slopes_and_rate_verdicts():
    fits = NS(
        gaps={3: 0.05, 5: 0.2},
        rates={3: NS(slope_log_corrected=-0.48), 5: NS(slope_log_corrected=-0.2)},
    )
    paper = {3: (None, -0.45), 5: (None, -0.3)}  # gaps 0.05 and 0.05
    h7 = v.slopes_within(paper, fits, 10)
    assert h7.holds and h7.book == "0.050 (the paper's protocol); 0.200 (exact radius)" and "at d = 5" in h7.evidence
    assert "d = 3 slope is -0.480" in h7.evidence
    assert not v.slopes_within({3: (None, -0.3)}, fits, 10).holds
    # the constant the rate needs grows from m = 8 to m = 32 when omega does not shrink: the rate fails
    growing = cc.ClusteredRate((8, 32), np.array([1.2, 1.3]), 0.3)
    assert growing.constants[1] > growing.constants[0]
    assert not v.rate_holds_any_directions(growing).holds
    shrinking = cc.ClusteredRate((8, 32), np.array([1.2, 0.3]), 0.3)
    assert v.rate_holds_any_directions(shrinking).holds


def test_curse_matches_the_printed_factors():
    curse = {2: 2.0, 3: 4.0000000001}
    c = v.curse_matches(curse, [2.0, 4.0])
    assert c.holds and c.book == "2x, 4x"
    assert v.curse_matches(curse, "2x, 4x").holds and not v.curse_matches(curse, "2x, 8x").holds
    assert not v.curse_matches(curse, [2.0, 8.0]).holds


def test_table2_verdicts():
    stated = pd.Series({"omega": 2.0, "ratio": 30.0, "delta_vis": 3.0, "trivial_cap": 4.0, "capped_ratio": 12.0})
    code = pd.Series({"omega": 1.0, "delta_vis": 1.5})
    om = v.omega_stated(stated, code, 1.95, 0.1)
    assert om.holds and om.book == 2.0 and "pi/2 = 1.571" in om.evidence
    assert not v.omega_stated(stated, code, 1.0, 0.1).holds
    assert v.visible_nonvacuous(stated, code).holds
    assert not v.visible_nonvacuous(stated.replace(3.0, 5.0), code).holds
    a = pd.DataFrame({"ratio": [10.2, 20.4], "n": [9, 9]}, index=["z-score", "rank"])
    b = pd.DataFrame({"ratio": [9.8, 20.0]}, index=["z-score", "rank"])
    assert v.rounded_ratios_agree(a, b) and v.agree_word(True) == "agree"
    assert not v.rounded_ratios_agree(a, b * 2) and v.agree_word(False) == "disagree"
    assert v.radius_gap_ratios_agree(b, a, b, 0.9, 10.0).holds
    capped = {("ext", "z"): 1.5, ("lb", "rank"): 0.8}
    r = v.h41_robust(capped, a, b)
    assert not r.holds and "smallest ratio 0.8x (lb, rank)" in r.evidence
    assert v.h41_robust({("ext", "z"): 1.5}, a, b).holds


def test_noise_radii():
    noise = pd.DataFrame(
        {
            "2 R omega (Table 2)": [3.0, 1.0],
            "trivial 2R": [2.0, 2.0],
            "ratio_piR_over_k": [1.5, 0.9],
            "ratio_delta_vis": [10.0, 5.0],
        },
        index=["a", "b"],
    )
    assert v.n_above_trivial(noise) == 1
    g = v.geometry_dominates(noise)
    assert not g.holds and g.evidence.startswith("pi R / k over sigma_boot: a 1.50x, b 0.90x")
    assert v.geometry_dominates(noise.loc[["a"]]).holds


def test_half_split_words():
    assert v.all_splits_text(None).startswith("there are too many")
    assert v.all_splits_text(NS(n_trials=924, top1_swap_rate=0.25)) == "over all 924 splits the rate is 0.250"
    calib = pd.DataFrame(
        {
            "empirical": [0.5, 0.3, 0.4],
            "predicted": [0.2, 0.35, 0.3],
            "gap_pp": [30.0, -5.0, 10.0],
            "se_pp": [2.0, 2.0, 2.0],
        },
        index=[2, 5, 6],
    )
    assert v.large_r_gaps(calib).tolist() == [-5.0, 10.0]
    assert v.above_text(calib) == "the empirical rate is above the prediction at r = 6"
    calib.loc[6, "empirical"] = 0.1
    assert v.above_text(calib) == "the prediction is above the empirical rate at every r >= 5"
    split = NS(n_trials=4, sd_top5_changes=1.0, top5_changes=np.array([0, 2, 0, 2]))
    assert v.sd_evidence(split, None).endswith("over 4 splits 1.000")
    assert "over all 10 splits 0.500" in v.sd_evidence(split, NS(n_trials=10, sd_top5_changes=0.5))
    quoted = {"v2_delta_vis": 1, "v2_delta2": 2, "ext_delta_vis": 3, "ext_delta2": 4}
    assert not v.worked_example(6, 12, quoted).holds and v.worked_example(12, 12, quoted).holds


def test_chi_squared_verdicts():
    assert v.side_word(0.2, 0.3) == "below" and v.side_word(0.3, 0.2) == "above"
    rates = pd.Series({"||c||^2": 0.9, "sum": 0.95, "e1": 0.85})
    assert v.at_or_below(rates, "||c||^2") == "e1 (0.850)"
    assert v.at_or_below(rates.drop("e1"), "||c||^2") == "none"
    assert not v.others_above(rates, "||c||^2", 0.9).holds and v.others_above(rates.drop("e1"), "||c||^2", 0.9).holds
    assert v.others_above(rates.drop("e1"), "||c||^2").evidence == "||c||^2 0.900; sum 0.950"
    sim = NS(trials=10, p_correct=0.5, se=0.1, mean_product_bound=0.4)
    assert v.fkg_direction(0.5, 0.4, sim).holds and not v.fkg_direction(0.3, 0.4, sim).holds
    top1 = pd.DataFrame({"D": [10, 20], "union_bound_stated": [2.0, 0.5], "union_bound_rescaled": [0.1, 0.1]})
    e = v.union_bound_below_one(top1, 5)
    assert not e.holds and e.book == 2.0
    g1 = pd.Series([0.3, 0.2], index=[10, 100])
    assert v.d_trend(g1, pd.Series([0.5, 0.4], index=[10, 100])).holds
    assert not v.d_trend(g1, pd.Series([0.4, 0.5], index=[10, 100])).holds
    priors = pd.DataFrame([[0.1, 0.9]])
    assert v.citation_range(g1, priors, (0.2, 0.3)).holds and not v.citation_range(g1, priors, (0.1, 0.9)).holds


def test_rank_class_verdicts():
    assert (
        v.same_number_word(1.0, 1.0 + 1e-12) == "the same number"
        and v.same_number_word(1.0, 1.1) == "a different number"
    )
    assert not v.sigma_meaning(NS(sigma_iso=1.02, ddof_artifact=1.02), 25).holds
    assert v.sigma_meaning(NS(sigma_iso=0.7, ddof_artifact=1.02), 25).holds
    assert v.rules_agree(NS(correct=[[0, 1]], author=[[0, 1]])) and not v.rules_agree(NS(correct=[[0]], author=[[1]]))
    cmp = NS(p_with_leader=0.01)
    s = v.class_sizes_match([3, 2], [4, 1], [3, 2], cmp, 0.05)
    assert s.holds and s.book == "3 + 2" and s.evidence.endswith("with its class leader")
    assert not v.class_sizes_match([4, 1], [4, 1], [3, 2], NS(p_with_leader=None), 0.05).holds
    f = v.families_present({"Qwen": True, "Llama": False}, {"Qwen": True, "Llama": True})
    assert not f.holds and f.book == "Qwen" and "Llama no" in f.evidence


def test_schur_verdicts():
    assert v.increases_word([1, 2, 3]) == "increases" and v.increases_word([1, 1, 2]) == "does not increase"
    tab = pd.DataFrame({10: [0.2, 0.3], 20: [0.1, 0.2]}, index=["isotropic", "adversarial"])
    assert v.isotropic_is_minimum(tab) and v.is_word(True) == "is"
    assert v.compare_words(0.3, 0.2) == "above" and v.compare_words(0.1, 0.2, "more", "less") == "less"
    scan = NS(violations_gauss=0, iso_violations_gauss=0, n_pairs=5, violations_exact=2, violations_exact_by_delta=[1])
    assert v.gaussian_schur(scan).holds and not v.gaussian_schur(NS(**{**vars(scan), "violations_gauss": 1})).holds
    assert v.isotropic_lower_bound(tab, tab, 10, 0.5, scan).holds
    assert not v.isotropic_lower_bound(tab.iloc[::-1].set_axis(tab.index), tab, 10, 0.5, scan).holds
    lin = pd.DataFrame({"swap_rate": [0.3, 0.2, 0.1]}, index=["isotropic", "adversarial", "1/i^2"])
    assert v.isotropy_maximises(lin).holds and v.isotropy_maximises(lin).book == "largest: isotropic"
    rev = pd.DataFrame({"swap_rate": [0.3, 0.4, 0.1]}, index=["isotropic", "adversarial", "1/i^2"])
    assert not v.isotropy_conclusion(lin, rev).holds and v.isotropy_conclusion(lin, lin).holds


def test_rank_reversal_verdicts():
    rates = NS(d_effs=np.array([2.0, 4.0, 1.5]), counts=np.array([1, 0, 0]))
    assert v.n_reaching(rates.d_effs, 5) == 1
    lit = v.premise_literal(rates, 5, 3)
    assert lit.holds and lit.book == "1 of 2 draws reverse"
    assert not v.premise_literal(NS(d_effs=rates.d_effs, counts=np.zeros(3, int)), 5, 3).holds
    assert v.premise_reached(rates, 5, 3, 6, 7).holds and not v.premise_reached(rates, 6, 3, 6, 7).holds
    ce2 = NS(d_eff=1.0, n=2, flipped=True, before=np.zeros(2), after=np.ones(2))
    ce3 = NS(d_eff=2.0, flipped=[(0, 1)])
    c = v.converse(ce2, ce3)
    assert not c.holds and "reverses the pair" in c.book
    assert v.converse(NS(**{**vars(ce2), "flipped": False}), ce3).holds
    assert v.flips_word(True) == "swaps the two models" and v.flips_word(False, "a", "b") == "b"


def test_width_model_verdicts():
    assert v.n_above([0.1, 0.5, 0.7], 0.5) == 1
    assert v.meets_word(True) == "meets every hypothesis" and v.breaks_word(False) == "does not break"
    sr = NS(r2_min_benchmark="TruthfulQA", r2_min=0.4, gap_max=0.3, gap_max_benchmark="MATH")
    sf = NS(r2_min_benchmark="MUSR", gap_max=0.2, eta_min=0.1, eta_max=0.9)
    assert v.lowest_is(sr, "TruthfulQA", 0.4, 0.6, sf).holds and not v.lowest_is(sr, "MATH", 0.5, 0.6, sf).holds
    assert v.epsilon_covers_top_pair(NS(top_pair_residual=0.1, delta2=0.5), sf, sr).holds
    assert not v.epsilon_covers_top_pair(NS(top_pair_residual=0.3, delta2=0.5), sf, sr).holds
    tri = NS(
        refutes_statement=True,
        check=NS(diam=2.0),
        eta=0.5,
        lhs=3.0,
        rhs=2.0,
        hypotheses=NS(min_partial=0.1, max_remainder_ratio=0.4, grad_norm=1.0),
    )
    p1 = v.width_representation_bound_survives(tri)
    assert not p1.holds and p1.book == 3.0 and "2 eta diam^2 = 4.0000" in p1.evidence
    assert not v.lipschitz_tautology(np.array([0.5]), np.array([0.9, 1.0])).holds
    assert v.lipschitz_tautology(np.array([0.5]), np.array([1.5])).holds


def test_shephard_symmetric_pairs():
    sym = {2: NS(n_violations=0, n_dominated=10), 3: NS(n_violations=0, n_dominated=5)}
    s = v.symmetric_counterexamples(sym)
    assert not s.holds and s.book == "0 of 15 dominated pairs"
    sym[3] = NS(n_violations=1, n_dominated=5)
    assert v.symmetric_counterexamples(sym).holds
