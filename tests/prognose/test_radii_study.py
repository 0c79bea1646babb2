"""radii_study: App. H.12's two radii on several frontiers in one call, equal to the noise_ratio calls it wraps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindspot.core import conventions
from blindspot.data.suites import synthetic_suite
from blindspot.prognose import statistical_radius as sr, visible_radius as vr
from blindspot.prognose.radii_study import PAPER_SUITES, radii_study


@pytest.fixture(scope="module")
def suites():
    return {
        n: synthetic_suite(n_models=30 + 10 * i, n_benchmarks=6, seed=i, name=n) for i, n in enumerate(PAPER_SUITES)
    }


@pytest.fixture(scope="module")
def study(suites):
    return radii_study(suites, n_boot=50, seed=0)


def test_the_radii_equal_the_noise_ratio_called_directly(suites, study):
    front = conventions.frontier(suites["livebench"])
    a = sr.noise_ratio(front, n_boot=50, seed=0)
    row = study.noise.loc["livebench"]
    assert row["pi R / k"] == pytest.approx(math.pi * a.R / front.n_benchmarks) == pytest.approx(a.geom)
    assert row["sigma_boot"] == pytest.approx(a.stat) and row["ratio_piR_over_k"] == pytest.approx(a.ratio)
    code = vr.visible_radius(front, **vr.VARIANTS["code"])
    assert row["2 R omega (Table 2)"] == pytest.approx(code.delta_vis)
    assert row["ratio_delta_vis"] == pytest.approx(code.delta_vis / a.stat)
    q = study.quantities()
    assert q["featured"] == "extended" and q["n_fronts"] == 3
    assert q["ratio_lo"] <= q["ratio_piR_over_k"] <= q["ratio_hi"]


def test_listing_every_benchmark_twice_keeps_the_aggregate_and_shrinks_sigma_boot(study):
    t = study.doubling()
    once, twice = t["benchmarks as given"], t["every benchmark twice"]
    assert twice["k"] == 2 * once["k"] and twice["R"] == pytest.approx(np.sqrt(2) * once["R"])
    assert twice["sigma_boot"] < once["sigma_boot"]
    assert study.quantities()["sigma_factor"] == pytest.approx(once["sigma_boot"] / twice["sigma_boot"])


def test_the_claims_stand_in_the_featured_frontier_for_a_missing_suite(suites):
    study = radii_study({"extended": suites["extended"]}, n_boot=30)
    values = study.claims()
    assert set(values) == {"H12.geom", "H12.stat", "H12.ratio"} | {f"S.noise_ratio.{s}" for s in PAPER_SUITES}
    v = values["S.noise_ratio.ollm_v2"]
    assert v.value == study.noise.loc["extended", "ratio_piR_over_k"] and v.data is study.fronts["extended"]
    assert "2 R omega as numerator" in v.evidence


def test_a_small_frontier_is_skipped_and_none_is_refused(suites):
    tiny = synthetic_suite(n_models=4, n_benchmarks=5, seed=2, name="tiny")
    study = radii_study({"tiny": tiny, "ollm_v2": suites["ollm_v2"]}, n_boot=20)
    assert study.featured == "ollm_v2" and "tiny keeps 2 model(s)" in study.too_small_note
    with pytest.raises(ValueError, match="at least 3 models"):
        radii_study({"tiny": tiny}, n_boot=20)
