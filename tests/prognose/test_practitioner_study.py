"""practitioner_study: Table 2, its decomposition and App. H.23/H.41 in one call, equal to the calls it wraps."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from blindspot.book.claims import load_registry
from blindspot.core import conventions
from blindspot.data.suites import synthetic_suite
from blindspot.prognose import standardisation as std, visible_radius as vr
from blindspot.prognose.practitioner_study import DECOMPOSITION, PAPER_SUITES, practitioner_study

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def suites():
    return {
        name: synthetic_suite(n_models=40 + 10 * i, n_benchmarks=6 + i, seed=i, name=name)
        for i, name in enumerate(PAPER_SUITES)
    }


@pytest.fixture(scope="module")
def study(suites):
    return practitioner_study(suites, n_samples=500, seed=0)


def test_the_quantities_equal_the_formula_called_directly(suites, study):
    front = conventions.frontier(suites["extended"])
    stated = vr.visible_radius(front.values)
    code = vr.visible_radius(front.values, n_samples=500, seed=0, **vr.VARIANTS["code"])
    q = study.quantities()
    assert q["featured"] == "extended" and q["n_fronts"] == 3 and q["n_samples"] == 500
    assert q["stated_omega"] == pytest.approx(stated.omega) and q["code_omega"] == pytest.approx(code.omega)
    assert q["R"] == pytest.approx(stated.R) and q["two_R"] == pytest.approx(2 * stated.R)
    assert q["capmax"] == pytest.approx(2 * stated.R / stated.delta2)
    assert q["h23_z"] == pytest.approx(std.ratios_h23(front).loc["z-score", "ratio"])
    assert q["rank_stated"] == pytest.approx(std.stated_ratios(front).loc["rank", "ratio"])


def test_the_stated_radius_is_projective_so_at_most_half_pi(study):
    q = study.quantities()
    assert q["stated_om_hi"] <= math.pi / 2 + 1e-9 and q["stated_om_lo"] <= q["stated_om_hi"]
    stated = study.table.xs("stated", level="variant")
    assert q["n_vacuous"] == int((stated["delta_vis"] > stated["trivial_cap"]).sum())
    assert (study.cap()["capped_ratio"] <= study.cap()["trivial_cap"] / study.cap()["delta2"] + 1e-9).all()


def test_the_decomposition_ends_at_both_variants(study):
    d = study.decomposition
    assert list(d.index) == list(DECOMPOSITION) and list(d.columns) == list(PAPER_SUITES)
    stated, code = study.table.xs("stated", level="variant"), study.table.xs("code", level="variant")
    assert d.iloc[0].to_numpy() == pytest.approx(stated.loc[d.columns, "omega"].to_numpy())
    assert d.iloc[-1].to_numpy() == pytest.approx(code.loc[d.columns, "omega"].to_numpy())
    # the Monte Carlo search only under-estimates a max-min: never above the exact signed radius
    assert (d.iloc[-1] <= d.loc["code loadings, signed, exact"] + 1e-9).all()


def test_the_claims_cover_every_registered_value_claim(study):
    chapter = load_registry(ROOT).chapter("05_practitioner_formula_table2")
    registered = {cid for cid, spec in chapter.claims.items() if spec.kind == "value"}
    values = study.claims()
    assert set(values) == registered
    assert list(values)[:5] == list(study.table2_claims("ollm_v2")) and "H11.rogers_ratio" in study.appendix_claims()
    v = values["T2.omega.livebench"]
    assert v.value == study.row("livebench", "code").omega and v.data is study.fronts["livebench"]


def test_a_small_frontier_is_skipped_and_none_is_refused():
    big = synthetic_suite(n_models=30, n_benchmarks=5, seed=1, name="mine")
    tiny = synthetic_suite(n_models=4, n_benchmarks=5, seed=2, name="tiny")
    study = practitioner_study({"tiny": tiny, "mine": big}, n_samples=200)
    assert list(study.fronts) == ["mine"] and study.featured == "mine" and study.ext_key == "mine"
    assert study.too_small == {"tiny": 2} and "tiny keeps 2 model(s)" in study.too_small_note
    with pytest.raises(ValueError, match="at least 3 models"):
        practitioner_study({"tiny": tiny})


def test_h41_as_run_needs_a_frontier_of_the_frontier():
    board = synthetic_suite(n_models=8, n_benchmarks=5, seed=4, name="extended")
    study = practitioner_study({"extended": board}, n_samples=200)
    assert study.h41_ext is None and "cannot be computed" in study.twice_note
    assert math.isnan(study.quantities()["h41_ext_z"]) and study.quantities()["h41_n"] == 0
    assert not any(cid.startswith("H41.ratio.extended") for cid in study.claims())
