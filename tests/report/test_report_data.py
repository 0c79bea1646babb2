"""The report's headline numbers, readings and figures by name: what a page shows without naming a key."""

from __future__ import annotations

import json

import numpy as np
import pytest
from IPython.display import Image

import blindspot
from blindspot.data.suites import synthetic_suite
from blindspot.report.report_data import _FROM_FINDINGS, FIGURES, QUANTITY_FORMATS


@pytest.fixture(scope="module")
def rep():
    return blindspot.analyze(synthetic_suite(n_models=40, n_benchmarks=6, seed=3).scores, n_boot=30)


def test_quantities_are_the_findings_numbers(rep):
    """Each quantity is the number report.json holds under its finding (an independent path: the JSON)."""
    q = rep.quantities()
    found = json.loads(rep.to_json())["findings"]
    assert q["n_models"] == 40 and q["n_benchmarks"] == 6
    assert q["d_eff_frontier"] == pytest.approx(found["d_eff_frontier"]["values"]["d_eff"])
    assert q["d_eff_lo"] <= q["d_eff_frontier"] <= q["d_eff_hi"]
    assert q["d_eff_full"] == pytest.approx(found["d_eff_full"]["values"]["d_eff"])
    assert q["radius"] == pytest.approx(found["radius_gap"]["values"]["R"])
    assert q["gap"] == pytest.approx(found["radius_gap"]["values"]["delta_2"])
    assert q["d_eff_frontier"] == pytest.approx(rep.d_eff)


def test_displayed_formats_every_quantity(rep):
    shown = rep.displayed()
    assert set(shown) == set(rep.quantities()) <= set(QUANTITY_FORMATS)
    assert shown["d_eff_frontier"] == f"{rep.quantities()['d_eff_frontier']:.2f}"
    assert shown["gap"] == f"{rep.quantities()['gap']:.3f}"
    assert shown["n_models"] == "40"


def test_a_skipped_section_leaves_its_quantities_out():
    """Four models (a frontier of two): the frontier's sections cannot run, so their numbers are absent, not NaN."""
    tiny = blindspot.analyze(synthetic_suite(n_models=4, n_benchmarks=4, seed=1).scores, n_boot=20)
    q = tiny.quantities()
    assert "d_eff_frontier" not in q and "d_eff_lo" not in q and q["n_models"] == 4
    for name, (key, _) in _FROM_FINDINGS.items():
        f = tiny.finding(key)
        assert (name in q) == (f is not None and f.status == "ok")
    assert all(np.isfinite(v) for v in q.values() if not isinstance(v, str))


def test_figure_images_by_name(rep):
    figs = rep.figure_images()
    assert list(figs) == list(FIGURES)
    drawn = {name for name, title in FIGURES.items() if rep.figures.get(title)}
    assert drawn == set(FIGURES)  # 40 models: every figure is drawn
    assert all(isinstance(figs[n], Image) for n in drawn)


def test_a_figure_not_drawn_is_a_box_and_an_unnamed_one_is_refused(rep):
    title = FIGURES["bootstrap"]
    saved = rep.figures.pop(title)
    try:
        assert not isinstance(rep.figure_images()["bootstrap"], Image)  # the not_drawn box
        rep.figures["a new figure"] = saved
        with pytest.raises(ValueError, match="a new figure"):
            rep.figure_images()
    finally:
        rep.figures.pop("a new figure", None)
        rep.figures[title] = saved


def test_readings_and_opening_hold_every_finding_and_warning(rep):
    lines = rep.readings().splitlines()
    assert len(lines) == len(rep.findings)
    assert all(f.reading in line and f.title in line for f, line in zip(rep.findings, lines))
    assert rep.opening().endswith(" ".join(rep.advice))
