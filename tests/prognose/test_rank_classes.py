"""Tests of rank equivalence classes (App. H.47) and the H.40 calibration."""

import numpy as np
import pytest
from scipy import stats

from blindspot.prognose import rank_classes as rc

# top-20 aggregates of the Extended frontier, recomputed from the paper's data (input data, not code output)
TOP20 = [
    1.532,
    1.460,
    1.446,
    1.242,
    1.175,
    1.135,
    1.114,
    1.045,
    1.037,
    0.942,
    0.905,
    0.891,
    0.860,
    0.796,
    0.749,
    0.742,
    0.732,
    0.720,
    0.699,
    0.670,
]


def test_gap_threshold_closed_form():
    assert rc.gap_threshold(1.003) == pytest.approx(2 * 1.003 * stats.norm.ppf(0.6))
    assert rc.gap_threshold(1.003) == pytest.approx(0.5082, abs=1e-4)


@pytest.mark.parametrize("step", [0.07, 0.11, 0.23])
def test_equally_spaced_class_size(step):
    a = -step * np.arange(40)
    T = rc.gap_threshold(1.003)
    sizes = rc.class_sizes(rc.rank_classes(a, 1.003))
    assert all(s == int(np.floor(T / step)) + 1 for s in sizes[:-1])
    assert sum(sizes) == 40


def test_all_equal_is_one_class():
    assert rc.rank_classes(np.full(7, 0.3), 1.0) == [list(range(7))]


def test_clique_property_and_leader_equivalence():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = rng.normal(size=25)
        P = rc.pairwise_swap(a, 0.8)
        cl = rc.rank_classes(a, 0.8)
        assert sorted(i for c in cl for i in c) == list(range(25))
        for c in cl:
            sub = P[np.ix_(c, c)]
            assert np.all(sub > 0.4)
        assert cl == rc.rank_classes(a, 0.8, rule="leader")


def test_author_rule_reproduces_paper_and_correct_rule_differs():
    assert rc.class_sizes(rc.rank_classes(TOP20, 1.003, rule="author_bug")) == [10, 10]
    assert rc.class_sizes(rc.rank_classes(TOP20, 1.003)) == [9, 11]
    cmp = rc.compare_rules(TOP20, 1.003)
    assert cmp.first_difference == 0 and cmp.extra_model == 9
    assert cmp.p_with_leader == pytest.approx(stats.norm.cdf(-(1.532 - 0.942) / (2 * 1.003)))
    assert cmp.p_with_leader < 0.40 and cmp.min_p_within_author < 0.40


def test_author_rule_takes_one_extra_per_class():
    a = -0.1 * np.arange(12)  # threshold 0.508 -> clique classes of 6
    good = rc.rank_classes(a, 1.003)
    bad = rc.rank_classes(a, 1.003, rule="author_bug")
    assert rc.class_sizes(good) == [6, 6] and rc.class_sizes(bad) == [7, 5]


def test_input_order_does_not_matter():
    rng = np.random.default_rng(1)
    a = rng.normal(size=15)
    perm = rng.permutation(15)
    cl = rc.rank_classes(a, 0.5)
    clp = rc.rank_classes(a[perm], 0.5)
    assert [sorted(perm[c]) for c in clp] == [sorted(c) for c in cl]


def test_anisotropic_calibration_properties():
    rng = np.random.default_rng(2)
    S = rng.normal(size=(60, 8)) @ rng.normal(size=(8, 8))
    cal = rc.anisotropic_calibration(S, range(4), range(4, 8), top=10)
    # z-scored (ddof 0) columns with a ddof-1 covariance: sigma_iso = sqrt(n/(n-1)) exactly (H.40's 1.003)
    assert cal.sigma_iso == pytest.approx(np.sqrt(60 / 59)) and cal.ddof_artifact == pytest.approx(cal.sigma_iso)
    assert cal.sigma_aniso >= cal.sigma_iso - 1e-12  # tr(C^2)/tr C >= tr C / h (Cauchy-Schwarz)
    assert cal.n_pairs == 45 and 0 <= cal.empirical <= 1
    assert 0 < cal.iso_pred <= cal.aniso_pred <= 0.5


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 models"):
        rc.rank_classes([1.0], 1.0)
    with pytest.raises(ValueError, match="thr must lie in"):
        rc.rank_classes([1.0, 0.5], 1.0, thr=0.6)
    with pytest.raises(ValueError, match="unknown rule"):
        rc.rank_classes([1.0, 0.5], 1.0, rule="greedy")
    with pytest.raises(ValueError, match="sigma_h must be a positive"):
        rc.pairwise_swap([1.0, 0.5], 0.0)
    with pytest.raises(ValueError, match="overlap"):
        rc.anisotropic_calibration(np.random.default_rng(0).normal(size=(10, 4)), [0, 1], [1, 2])


def test_families_present_matches_name_tokens():
    names = ["01-ai/Yi-1.5-34B-Chat", "Qwen/Qwen2-72B", "tenyx/Llama3-TenyxChat-70B", "MTSAIR/MultiVerse_70B"]
    got = rc.families_present(names, ["Qwen", "Llama", "Mixtral", "Yi"])
    assert got == {"Qwen": True, "Llama": True, "Mixtral": False, "Yi": True}
    # a family name inside a word (not at the start of a token) is not a member
    assert rc.families_present(["abacusai/Smaug-72B"], ["maug"]) == {"maug": False}
