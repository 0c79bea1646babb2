"""Theorem 2's checks as result objects: closed forms met, sampling below exact, the bound never violated."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindspot.data.suites import synthetic_suite
from blindspot.prognose import covering_checks as cc


def test_icosahedron_vertices_are_twelve_equidistant_points():
    ico = cc.icosahedron()
    assert ico.shape == (12, 3)
    norms = np.linalg.norm(ico, axis=1)
    assert np.allclose(norms, norms[0])
    dots = np.abs(ico @ ico.T / norms[0] ** 2)[~np.eye(12, dtype=bool)]
    assert np.allclose(np.sort(np.unique(dots.round(9))), [1 / math.sqrt(5), 1])  # 5 neighbours, 1 antipode


def test_closed_forms_are_met_and_sampling_stays_below():
    check = cc.check_closed_forms(seed=0, n_samples=2_000)
    assert check.max_error < 1e-4  # the icosahedron's closed form is quoted to five decimals
    assert check.monte_carlo_below
    assert check.quantities() == {"max_error": check.max_error}


def test_sampling_error_is_never_negative_and_read_at_the_most_queries():
    cmp = cc.compare_sampling((3,), (200, 800), seed=1)
    assert (cmp.table["error"] >= -1e-12).all()
    assert cmp.n_samples == 800
    assert cmp.quantities()["error_d3"] == pytest.approx(cmp.table["error"].iloc[-1])


def test_the_visible_bound_holds_on_random_bodies():
    checks = cc.check_bound(((2, 6), (3, 9)), n_pairs=4, seed=0)
    assert checks.n_pairs == 8 and checks.n_violations == 0
    assert set(checks.summary().index) == {(2, 6), (3, 9)}
    t = checks.table
    assert checks.share_vacuous == pytest.approx(100 * float((t.bound > t.trivial).mean()))


def test_the_witness_has_equal_widths_and_distance_t():
    t = cc.witness_table({"axes": np.eye(3)})
    assert t.loc["axes", "max |width gap| on benchmarks"] < 1e-9
    assert t.loc["axes", "omega"] == pytest.approx(math.acos(1 / math.sqrt(3)))
    assert t.loc["axes", "t = delta_H"] == pytest.approx(min(math.tan(t.loc["axes", "omega"]), 1.0))


def test_clustered_directions_keep_the_radius_above_the_cap_bound():
    """Directions within theta of one axis: a direction orthogonal to it is >= pi/2 - theta from all."""
    cl = cc.clustered_rate([8, 32], 0.3, d=3, seed=0)
    assert (cl.omegas >= math.pi / 2 - 0.3 - 1e-9).all()
    assert cl.constants[-1] > cl.constants[0]  # the rate's constant grows
    assert list(cl.table.index) == [8, 32]
    q = cl.quantities()
    assert q["m_first"] == 8 and q["constant_last"] == pytest.approx(cl.constants[-1])


def test_rate_fits_halve_the_trials_in_high_dimension():
    fits = cc.fit_rates({3: [8, 16], 8: [12, 16]}, n_trials=4, seed=0)
    assert fits.rates[3].omegas.shape[0] == 4 and fits.rates[8].omegas.shape[0] == 2
    assert fits.gaps[3] == pytest.approx(abs(fits.rates[3].slope + 0.5))
    assert set(fits.quantities()) == {"slope_d3", "slope_d8", "slope_lc_d3", "slope_lc_d8"}


def test_appc_constants_the_needed_constant_reproduces_the_printed_value():
    appc = cc.appc_constants({3: 0.6}, n_iter=20, seed=0)
    row = appc.rows[3]
    assert row.c_needed * row.unit == pytest.approx(0.6)
    assert row.stated == pytest.approx(math.sqrt(6) * row.unit)
    assert row.lower_bound <= row.found_lines
    assert appc.table.loc[3, "found, 12 lines"] == row.found_lines


def test_curse_factors_double_per_dimension():
    f = cc.curse_factors((2, 3))
    assert f[2] == pytest.approx(2, rel=0.05) and f[3] == pytest.approx(4, rel=0.05)


def test_suite_cover_skips_a_frontier_too_small():
    small = synthetic_suite(n_models=4, n_benchmarks=5, seed=0)
    cover = cc.suite_cover(small, n_random=5)
    assert cover.comparison is None and cover.table() is None and "skipped" in cover.note
    assert math.isnan(cover.quantities()["share"])
    big = cc.suite_cover(synthetic_suite(n_models=40, n_benchmarks=5, seed=0), n_random=10)
    assert big.note == "" and 0 <= big.quantities()["share"] <= 100
