"""blindspot.tomography.verdicts: the tomography chapter's decisions, both ways, on cases with a known answer."""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np

from blindspot.core.convex_bodies import Disc
from blindspot.tomography import reconstruction, verdicts as v


def test_first_exact_and_class():
    assert v.first_exact(np.array([4, 8, 16]), np.array([0.1, 1e-13, 0.0])) == 8
    assert v.smoothness_class("cube") == "polytope" and v.smoothness_class("ball") == "curvature"


def test_curvature_readings_on_discs():
    radii = {r: reconstruction.radius_of_curvature(Disc(r)) for r in (0.5, 2.0)}
    radii[1.0] = np.ones(16)  # the boundary case, exactly
    curv = v.curvature_table(radii, 1.0)
    # a disc of radius r has curvature 1/r: curvature >= 1 exactly for r <= 1, radius >= 1 for r >= 1
    assert curv["curvature >= kappa"].tolist() == [True, False, True]
    assert curv["radius >= kappa"].tolist() == [False, True, True]
    assert v.radii_text(curv) == "disagree on the disc of radius 0.5, 2"
    assert v.corrected_text(curv) == "agrees"
    c = v.curvature_radii(curv, 1.0)
    assert not c.holds and "disc of radius 2: curvature 0.500" in c.evidence
    same = v.curvature_table({1.0: radii[1.0]}, 1.0)
    assert v.radii_text(same) == "agree on every disc" and v.curvature_radii(same, 1.0).holds


def test_bounds_and_rates():
    lip = v.lipschitz_bound({"square": 0.4, "polygon": 1.2})
    assert not lip.holds and lip.book == 1.2
    assert v.lipschitz_bound({"square": 0.4}).holds
    hom = NS(error_exponent=2.0, paper_exponent=1.0, paper_ratio=np.array([1.0, 4.0]))
    assert not v.homogeneity(hom, np.array([0.5, 2.0])).holds
    assert v.homogeneity(NS(**{**vars(hom), "paper_exponent": 1.98}), np.array([0.5, 2.0])).holds
    assert not v.xray_parity(NS(m=8, width_gap=1e-15, min_xray_gap=0.1)).holds
    assert v.xray_parity(NS(m=8, width_gap=0.1, min_xray_gap=0.5)).holds
