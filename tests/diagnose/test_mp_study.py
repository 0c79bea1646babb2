"""mp_study: the MP edge, the signal count and both nulls per slice in one call, equal to the calls it wraps."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core import conventions, spectrum
from blindspot.data.suites import synthetic_suite
from blindspot.diagnose import ambient_dimension as ad
from blindspot.diagnose.mp_study import MP_SUITES, mp_study


@pytest.fixture(scope="module")
def suites():
    return {n: synthetic_suite(n_models=60 + 20 * i, n_benchmarks=8, seed=i, name=n) for i, n in enumerate(MP_SUITES)}


@pytest.fixture(scope="module")
def study(suites):
    return mp_study(suites, n_rep=40, n_perm=40, seed=0)


def test_the_edge_is_the_closed_form_and_counts_the_eigenvalues_above_it(suites, study):
    full = suites["extended"]
    n, k = full.n_models, full.n_benchmarks
    edges = study.edges()
    row = edges.loc["extended full"]
    assert row["lambda_+"] == pytest.approx((1 + np.sqrt(k / n)) ** 2)
    lam = np.linalg.eigvalsh(np.corrcoef(full.values, rowvar=False))
    assert row["n_sig"] == int((lam > row["lambda_+"]).sum()) and row["lambda_1"] == pytest.approx(lam.max())
    assert list(edges.index) == [f"{s} {sl}" for s in MP_SUITES for sl in ("full", "frontier")]
    assert study.slices[("extended", "frontier")].n_models == conventions.frontier(full).n_models


def test_the_quantities_count_the_slices(study):
    q = study.quantities()
    assert q["featured"] == "extended" and q["n_slices"] == 4 and q["n_suites"] == 2
    assert q["n_one"] == sum(study.edges()["n_sig"] == 1)
    assert q["ef_nsig"] == spectrum.mp_correction(study.slices[("extended", "frontier")]).n_sig
    assert 0 <= q["p_exceed_ef"] <= 1


def test_the_permutation_null_is_horn_called_directly(study):
    t = study.slices[("ollm_v2", "full")]
    direct = ad.horn_nsignal(t, n_perm=40, seed=0)
    counts = study.signal_counts()
    assert counts.loc["ollm_v2 full", "n_signal (permutation)"] == direct.n_signal
    assert counts.loc["ollm_v2 full", "95th pct of the permuted lambda_1"] == pytest.approx(direct.null_percentile[0])


def test_on_other_data_the_featured_full_slice_stands_in_for_extended():
    mine = synthetic_suite(n_models=50, n_benchmarks=6, seed=4, name="mine")
    study = mp_study({"mine": mine}, n_rep=10, n_perm=10)
    assert study.fulls == ["mine"] and study.full_tables == [study.slices[("mine", "full")]]
    values = study.claims()
    assert set(values) == {"MP.edge.extended.full", "MP.nsig.extended.full"}
    edge = values["MP.edge.extended.full"]
    assert (edge.value, edge.data) == (study.mp[("mine", "full")].lambda_plus, study.slices[("mine", "full")])
