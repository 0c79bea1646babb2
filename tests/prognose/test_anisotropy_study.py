"""anisotropy_study: Proposition 2's checks as results, equal to the anisotropic_swap calls they wrap."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core import swap
from blindspot.core.conventions import frontier
from blindspot.data.suites import synthetic_suite
from blindspot.prognose import anisotropic_swap as aswap, anisotropy_study as st


def test_three_spectra_exact_equals_the_chi_squared_law_for_the_isotropic_spectrum():
    three = st.three_spectra(delta=3.0, n_draws=2000, seed=0)
    assert three.exact[0] == pytest.approx(aswap.p_swap_spectrum_exact(3.0, [1.0] * 10))
    assert three.gauss[-1] == pytest.approx(aswap.p_swap_gauss(3.0, [10.0]))
    # P(W > 3) grows with the anisotropy of a spectrum of fixed trace, exactly and under the Gaussian form
    assert three.quantities() == {"n_draws": 2000, "order_exact": "increases", "order_gauss": "increases"}


def test_the_chain_starts_isotropic_and_ends_in_one_direction():
    chain = st.anisotropy_chain(h=4, trace=8.0, deltas=(0.5, 10.0), n_alphas=5)
    q = chain.quantities()
    assert q["iso_d10"] == pytest.approx(aswap.p_swap_spectrum_exact(10.0, [2.0] * 4))
    assert q["spike_d0_5"] == pytest.approx(aswap.p_swap_spectrum_exact(0.5, [8.0]), abs=1e-9)
    assert np.all(np.diff(chain.gauss[10.0]) >= -1e-12)  # the Gaussian form increases along the chain


def test_schur_scan_quantities_count_every_check():
    scan = aswap.schur_scan(deltas=(1.0, 3.0), h=4, trace=8.0, n_pairs=3, seed=0)
    q = scan.quantities()
    assert q["checks"] == 6 and q["violations_gauss"] == 0
    assert q["violations_exact_small"] == scan.violations_exact_by_delta[0]


def test_priors_at_gap_keep_the_dimensions_above_d_eff():
    table = synthetic_suite(n_models=60, n_benchmarks=6, seed=2)
    gap = st.priors_at_gap(table, dims=(2, 10, 20), seed=0)
    si = swap.swap_inputs(frontier(table))
    assert gap.dims == [D for D in (2, 10, 20) if D > si.d_eff] and "d_eff" in gap.note
    q = gap.quantities()
    assert q["D0"] == gap.dims[0] and q["delta2"] == pytest.approx(si.delta2)
    assert q["exact_min"] <= q["iso_exact"] <= q["exact_max"]


def test_linear_functional_names_the_priors_with_the_largest_rate():
    lf = st.linear_functional(np.linspace(2.0, 0.1, 12), n_models=20, n_sims=50, seed=0)
    q = lf.quantities()
    assert q["max_prior"] == lf.g4["swap_rate"].idxmax() and q["rev_adv"] == lf.reversed.loc["adversarial", "swap_rate"]
    assert set(lf.g2.index) == {"isotropic", "empirical", "1/i", "1/i^2"}


def test_schur_scan_summary_labels_its_counts():
    scan = aswap.schur_scan(deltas=(1.0, 3.0), h=4, trace=8.0, n_pairs=3, seed=0)
    t = scan.summary()
    assert t["pairs x gaps checked"] == 6 and t["violations, exact"] == scan.violations_exact
    assert t["exact violations at Delta = 1, 3"] == scan.violations_exact_by_delta


@pytest.fixture(scope="module")
def gap_and_lf():
    table = synthetic_suite(n_models=60, n_benchmarks=6, seed=2)
    gap = st.priors_at_gap(table, dims=(10, 20), seed=0)
    lf = st.linear_functional(gap.empirical, gap.front.n_models, n_sims=40, seed=0)
    return gap, lf


def test_the_gap_words_tables_and_claims(gap_and_lf):
    gap, _ = gap_and_lf
    q, e, D0 = gap.quantities(), gap.exact, gap.dims[0]
    above = e.loc["adversarial", D0] > e.loc["isotropic", D0]
    assert q["adv_vs_iso_exact"] == ("above" if above else "below")
    assert q["adv_less_more"] == ("more often than" if above else "less often than")
    is_min = bool((e >= e.loc["isotropic"] - 1e-12).all().all())
    assert q["iso_min_exact"] == ("is" if is_min else "is not")
    t = gap.table()
    assert t["exact law"].equals(gap.exact) and t["Gaussian (the paper's)"].equals(gap.gauss)
    scan = aswap.schur_scan(deltas=(1.0, 3.0, 10.0), h=4, trace=8.0, n_pairs=2, seed=0)
    claims = gap.claims(scan)
    assert list(claims) == ["P2.gaussian", "P2.lower_bound"]
    assert claims["P2.gaussian"].data is None and claims["P2.lower_bound"].data is gap.front
    assert claims["P2.gaussian"].verdict.holds is (scan.violations_gauss == 0 and scan.iso_violations_gauss == 0)
    assert claims["P2.lower_bound"].verdict.holds is is_min


def test_the_linear_functional_table_figure_and_claims(gap_and_lf):
    gap, lf = gap_and_lf
    t = lf.table()
    assert t["G.4"].equals(lf.g4)  # the G.2 variant has fewer priors: its other rows are empty
    assert t["G.2 variant"].loc[lf.g2.index].equals(lf.g2) and t["G.2 variant"].notna().all(axis=1).sum() == len(lf.g2)
    claims = lf.claims(gap.front)
    n_values = len(lf.g4) + len(lf.g2)
    assert list(claims)[n_values:] == ["G4.isotropy_max", "G4.conclusion"]
    assert claims["G4.isotropic"].value == lf.g4.loc["isotropic", "swap_rate"]
    assert claims["G2.1/i"].value == lf.g2.loc["1/i", "swap_rate"]
    assert claims["G4.isotropic"].evidence.startswith("40 draws, SE ")
    iso_max = bool(lf.g4.loc["isotropic", "swap_rate"] >= lf.g4["swap_rate"].max())
    assert claims["G4.isotropy_max"].verdict.holds is iso_max
    assert len(lf.figure().axes) >= 1
