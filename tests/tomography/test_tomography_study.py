"""tomography_study: Theorem 3's rates and side statements in one call, checked against closed forms and refits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindspot.core.verdict import Verdict
from blindspot.tomography.tomography_study import EXACT_OR_GEOMETRIC, M_FIT, tomography_study


@pytest.fixture(scope="module")
def study():
    return tomography_study(seed=0, n_rot=1, n_rot_3d=1, m_max=65, m_max_3d=400, sh_degree=12)


def test_the_reuleaux_triangle_is_its_closed_form_away_from_its_symmetral(study):
    q = study.quantities()
    assert q["reuleaux_gap_closed"] == pytest.approx(1.6 * (1 / math.sqrt(3) - 0.5))
    assert q["reuleaux_gap"] == pytest.approx(q["reuleaux_gap_closed"], rel=1e-3)


def test_every_slope_is_the_least_squares_line_of_its_curve(study):
    table = study.slopes_table()
    assert len(table) == len(study.curves) - len(EXACT_OR_GEOMETRIC)
    for row in table.itertuples():
        c = study.curves[(row.body, row.method)]
        keep = c.ms >= M_FIT
        slope = np.polyfit(np.log(c.ms[keep]), np.log(c.errors[keep]), 1)[0]
        assert row.slope == pytest.approx(slope, abs=1e-9)
        assert row.ci_low <= row.slope <= row.ci_high
    # the half-plane polygon of a square converges at the Lipschitz rate m^-1, of the arc oval faster
    q = study.quantities()
    assert q["sq_hp_slope"] > q["ov_hp_slope"]


def test_lipschitz_ratios_are_errors_over_pi_r_over_m(study):
    ratios = study.lipschitz_ratios()
    assert set(ratios) == {"square", "polygon"}
    c, body = study.curves[("square", "halfplane")], study.bodies["square"]
    assert ratios["square"] == pytest.approx(np.max(c.errors * c.ms / (math.pi * body.circumradius())))
    assert study.quantities()["lip_ratio"] == pytest.approx(max(ratios.values()))


def test_the_witness_has_equal_widths_and_the_trig_body_is_exact(study):
    q = study.quantities()
    assert q["wit_wgap"] < 1e-12 and q["wit_hd"] == pytest.approx(q["wit_eps"], rel=1e-6)
    assert q["wit_eps"] == pytest.approx(1.0 / (4 * 6**2 - 1))
    # epsilon = r / (4 m^2 - 1): its log-log slope tends to -2
    assert q["wit_slope"] == pytest.approx(-2.0, abs=0.01)
    trig = study.curves[("trig body", "trig")]
    exact_m = q["trigbody_exact_m"]
    assert trig.errors[list(trig.ms).index(exact_m)] < 1e-12


def test_claims_follow_the_ledgers_order_on_no_score_table(study):
    records = study.claims()
    assert len(records) == 19
    ids = list(records)
    assert ids[:6] == [
        "T3.planar.lipschitz.halfplane",
        "T3.planar.lipschitz.polygon",
        "T3.planar.lipschitz.trig",
        "T3.planar.curvature.halfplane",
        "T3.planar.curvature.trig",
        "T3.planar.lipschitz.bound",
    ]
    assert ids[-3:] == ["T3.homogeneity", "T3.curvature.radii", "T3.xray.parity"]
    assert isinstance(records["T3.xray.parity"].verdict, Verdict) and all(r.data is None for r in records.values())
    ball = records["T3.D3.ball"]
    assert ball.value == study.fits_3d["ball"].slope and ball.evidence.startswith("m 200..")
    assert not records["T3.xray.parity"].verdict.holds  # equal widths, X-rays apart


def test_tables_and_figures_have_their_rows(study):
    assert list(study.bodies_table().index) == [*study.bodies, "Reuleaux"]
    assert list(study.beta_table()["expected"]) == [-1.25, -1.5, -1.75]
    assert list(study.sphere_table()["body"]) == ["ellipsoid", "ball", "cube"]
    assert list(study.harmonic_table()["expected"]) == [-0.625, -0.75, -0.875]
    assert len(study.homogeneity_table()) == 5 and study.xray_table()["m"] == 8
    for fig in (study.rates_figure(), study.beta_figure(), study.sphere_figure(), study.harmonic_figure()):
        assert fig.axes


def test_too_few_widths_to_fit_is_refused():
    with pytest.raises(ValueError, match="fewer than two numbers of widths"):
        tomography_study(m_max=33)


def test_every_figure_of_the_page_is_there_by_name(study):
    from matplotlib.figure import Figure

    from blindspot.tomography.tomography_study import FIGURES

    figs = study.figures()
    assert tuple(figs) == FIGURES and all(isinstance(f, Figure) and f.axes for f in figs.values())
