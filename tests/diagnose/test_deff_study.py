"""deff_study: Table 1 and its companions in one call, equal to the spectrum and table calls it wraps."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core import conventions, spectrum
from blindspot.data.suites import synthetic_suite
from blindspot.diagnose import robustness, tables
from blindspot.diagnose.deff_study import TABLE1_COLUMNS, deff_study


@pytest.fixture(scope="module")
def suites():
    return {
        n: synthetic_suite(n_models=30 + 20 * i, n_benchmarks=6 + i, seed=i, name=n) for i, n in enumerate(("a", "b"))
    }


@pytest.fixture(scope="module")
def study(suites):
    return deff_study(suites, n_boot=30, seed=0)


def test_the_quantities_equal_the_participation_ratio_computed_by_hand(suites, study):
    front = conventions.frontier(suites["a"])
    lam = np.linalg.eigvalsh(np.corrcoef(front.values, rowvar=False))
    q = study.quantities()
    assert q["featured"] == "a" and (q["front_n"], q["front_k"]) == (front.n_models, front.n_benchmarks)
    assert q["front_deff"] == pytest.approx(lam.sum() ** 2 / (lam**2).sum())
    assert q["front_deff_frob"] == pytest.approx(q["front_deff"])  # the same number for a Pearson matrix
    assert q["front_l1_share"] == pytest.approx(100 * lam.max() / lam.sum())


def test_table1_is_deff_table_and_the_smallest_frontier_is_read(suites, study):
    direct = tables.deff_table(tables.full_and_frontier(suites), n_boot=30, seed=0)
    assert list(study.table1().columns) == list(TABLE1_COLUMNS)
    assert np.allclose(study.table1().to_numpy(float), direct[list(TABLE1_COLUMNS)].to_numpy(float))
    q = study.quantities()
    assert q["small_name"] == "a" and q["small_deff"] == direct.loc[("a", "frontier"), "d_eff"]
    assert list(study.boots) == ["a frontier", "b frontier"] and set(study.methods().index) == set(spectrum.METHODS)


def test_the_rise_test_is_step_changes_at_the_bonferroni_level(suites, study):
    t = suites["b"]
    direct = robustness.step_changes(t, robustness.deff_vs_q(t, (0.0, 0.5), min_n=3), n_boot=100, level=1 - 0.05 / 2)
    got = study.steps["b"]
    assert (got.n_boot, got.level) == (100, pytest.approx(0.975))
    assert np.allclose(got.table.select_dtypes("number"), direct.table.select_dtypes("number"), equal_nan=True)


def test_the_claims_read_table1_and_refuse_other_ids(study):
    values = study.claims(["T1.deff.a.frontier", "T1.ci_hi.extended.full"])
    deff = values["T1.deff.a.frontier"]
    assert (deff.value, deff.data) == (study.table.loc[("a", "frontier"), "d_eff"], study.slices[("a", "frontier")])
    assert values["T1.ci_hi.extended.full"].data is study.slices[("a", "full")]  # the featured stands in
    with pytest.raises(ValueError, match="not a Table 1 claim"):
        study.claims(["T1.median.a.full"])


def test_the_smallest_interval_is_table1s_row_of_the_smallest_frontier(study):
    row = study.table.loc[("a", "frontier")]
    assert study.smallest_interval() == (row.d_eff, row.ci_lo, row.ci_hi)
    lo, hi = study.smallest_interval()[1:]
    assert lo <= hi


def test_the_figures_are_the_scree_and_the_bootstrap_by_name(study):
    figs = study.figures()
    assert list(figs) == ["scree", "boot"] and all(f.axes for f in figs.values())
    # the scree draws one curve per slice
    assert len(figs["scree"].axes[0].get_lines()) >= len(study.spectra)
