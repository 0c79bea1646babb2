"""bridge_study: Propositions 3 and 4 on a frontier in one call, checked against closed forms and its parts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindspot.core import conventions, coverage as cv, spectrum
from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.verdict import Verdict
from blindspot.data.suites import synthetic_suite
from blindspot.treat import radius_from_coverage as rc
from blindspot.treat.bridge_study import CONSTANT_CLAIMS, OMEGA_SIZES, bridge_study
from blindspot.treat.verdicts import isotropy_label


@pytest.fixture(scope="module")
def study():
    return bridge_study(synthetic_suite(n_models=60, n_benchmarks=10, seed=4), r_bridge=7, n_dirs=2000, seed=0)


def test_the_path_and_kappas_equal_the_functions_on_the_frontier(study):
    front = conventions.frontier(synthetic_suite(n_models=60, n_benchmarks=10, seed=4))
    Sigma = spectrum.correlation(front)
    order = cv.greedy_select(Sigma, names=front.benchmarks).order
    assert list(study.order) == list(order) and study.rank == 10 and study.has_rest
    direct = rc.bridge_path(Sigma, order, R=1.0)
    assert np.allclose(study.path_table().to_numpy(), direct[list(study.path_table().columns)].to_numpy())
    # every reading of kappa_orth lies in [1/m, 1], and the table's term is sqrt((1 - tau) kappa)
    tab = study.kappa_table()
    assert ((tab["kappa_orth"] >= tab["1/m"] - 1e-12) & (tab["kappa_orth"] <= 1 + 1e-12)).all()
    tau = study.path.loc[7, "tau"]
    assert np.allclose(tab["term / 2R"], np.sqrt((1 - tau) * tab["kappa_orth"]))


def test_omega_ratios_are_the_closed_forms(study):
    q = study.quantities()
    for r in OMEGA_SIZES:
        exact = math.pi - math.acos(1 / math.sqrt(r))
        rogers = math.sqrt(r) * r ** (-1 / (r - 1))
        assert q[f"om_exact{r}"] == pytest.approx(exact / rogers, rel=1e-12)
    # the Monte Carlo covering radius is a maximum over sampled directions: it never exceeds the exact one
    assert (study.omega["MC (Sigma = I)"] <= study.omega["exact pi - arccos(1/sqrt r)"] + 1e-9).all()
    # the rows of a square orthogonal matrix are orthonormal: every prefix's Gram matrix is the identity
    assert study.gram_dev < 1e-10


def test_uniform_weights_give_rank_over_k_and_caps_are_invisible(study):
    k = study.k
    # f_1(T) = rank(T)/k: greedy's prefixes of a nonsingular Sigma have rank r
    assert np.allclose(study.uniform["f_1 (uniform weights)"], np.arange(1, k + 1) / k)
    assert study.uniform_gap == pytest.approx((study.uniform.iloc[:, 0] - study.uniform.iloc[:, 1]).abs().max())
    caps = study.caps
    assert caps.visible_gap < 1e-9 and caps.hausdorff == pytest.approx(2 - caps.eta)
    assert study.caps_table().loc["bound holds"].iloc[0] == caps.holds


def test_claims_are_in_the_ledgers_order_and_constants_carry_no_data(study):
    records = study.claims()
    assert list(records)[:6] == [
        "P3.orth_term7",
        "P3.reduction7",
        "P3.kappa_orth",
        "P3.conservative",
        "P3.isotropy_label",
        "P3.bridge_bound",
    ]
    assert isinstance(records["P3.orth_term7"], ClaimValue) and isinstance(records["P4.minimax"], ClaimStatement)
    assert isinstance(records["P4.minimax"].verdict, Verdict)
    assert records["P3.reduction7"].value == pytest.approx(100 * (1 - records["P3.orth_term7"].value / 2))
    assert records["P3.conservative"].value == pytest.approx(1 / math.sqrt(records["P3.kappa_orth"].value))
    assert "P4.submodular" in records  # k = 10 <= MAX_BRUTE_K: every subset enumerated
    assert all(study.data_for(c) is None for c in CONSTANT_CLAIMS)
    assert all(records[c].data is study.data_for(c) for c in records)
    assert study.data_for("P4.minimax") is study.front
    words = study.statuses({"P4.minimax": "reproduced"})
    assert words["minimax"] == "reproduced" and words["iso"].startswith("not checked")


def test_nothing_uncovered_when_r_bridge_spans_every_benchmark():
    small = bridge_study(synthetic_suite(n_models=60, n_benchmarks=6, seed=2), r_bridge=7, n_dirs=500)
    assert not small.has_rest and "Nothing is left uncovered at r = 7" in small.uncovered_note
    assert small.kappas == {} and small.caps is None and small.kappa_table().empty and small.caps_table() is None
    assert small.kappa_text("1.4") == "" and small.caps_text == ""
    assert "P3.orth_term7" not in small.claims() and "P3.omega_rogers_r12" in small.claims()
    assert np.isnan(small.omega.loc[12, "MC (this Sigma)"])  # r = 12 > k = 6 benchmarks


def test_isotropy_label_holds_only_for_one_uncovered_direction():
    assert isotropy_label(0.6, 0.6, 7, 1, [1.0]).holds
    assert not isotropy_label(0.6, 0.6 / math.sqrt(5), 7, 5, [0.3, 0.5]).holds


def test_r_bridge_below_one_is_refused():
    with pytest.raises(ValueError, match="r_bridge must be at least 1"):
        bridge_study(synthetic_suite(n_models=30, n_benchmarks=5, seed=1), r_bridge=0)
