"""blindspot.book.display: a library result glued in one call, under its own names."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from blindspot.book import display
from blindspot.core.spectrum import bootstrap_d_eff


@pytest.fixture
def glued(monkeypatch):
    seen: dict[str, object] = {}
    monkeypatch.setattr(display, "_glue", lambda name, value, display=False: seen.__setitem__(name, value))
    return seen


def test_a_dataclass_result_is_glued_field_by_field_numbers_and_text_only(glued):
    rng = np.random.default_rng(0)
    boot = bootstrap_d_eff(rng.normal(size=(30, 5)), n_boot=20, seed=1)
    display.glue_result("boot", boot)
    names = list(glued)
    assert names == ["boot_point", "boot_lo", "boot_hi", "boot_level", "boot_n_boot", "boot_seed", "boot_method",
                     "boot_n_degenerate"]  # fmt: skip
    assert glued["boot_lo"] == boot.lo and glued["boot_method"] == "pearson"
    assert "boot_samples" not in glued  # an array is shown by its own figure, not glued


def test_numpy_scalars_become_python_numbers_and_booleans_are_not_glued(glued):
    display.glue_result("f", {"d_eff": np.float64(2.5), "n_sig": np.int64(3), "holds": True, "flag": np.bool_(False)})
    assert glued == {"f_d_eff": 2.5, "f_n_sig": 3}
    assert type(glued["f_d_eff"]) is float and type(glued["f_n_sig"]) is int


def test_a_result_that_names_its_quantities_is_glued_by_them(glued):
    @dataclass(frozen=True)
    class Study:
        errors: np.ndarray

        def quantities(self) -> dict[str, float]:
            return {"mean_error": float(self.errors.mean())}

    assert display.glue_result("s", Study(np.array([1.0, 3.0]))) is None  # nothing for the page to show
    assert list(glued) == ["s_mean_error"]
    assert glued == {"s_mean_error": 2.0}


def test_something_without_named_quantities_is_refused_in_one_line():
    with pytest.raises(ValueError, match="glue_result needs a dataclass, a mapping or quantities"):
        display.glue_result("x", [1, 2])


def test_input_notes_add_only_the_notes_the_box_does_not_hold():
    from blindspot.data.suites import synthetic_suite

    table = synthetic_suite(n_models=10, n_benchmarks=3, seed=0)
    shown = display.input_notes(table, [*table.notes, "a note of the report"])
    assert len(shown) == 2  # the box, then the one note it does not hold
    assert "synthetic" in shown[0].data.lower() and shown[1].data == "- a note of the report"


def test_glue_paper_glues_each_claim_with_a_paper_value_and_each_run_setting(glued):
    from types import SimpleNamespace as NS

    chapter = NS(
        claims={"H9.mean": NS(paper=8.29), "C2.converse": NS(paper=None), "exp4.n12-count": NS(paper=3)},
        run={"n_draws": {"paper": 200}},
    )
    ledger = NS(chapter="11_x", registry=NS(chapter=lambda name: chapter))
    display.glue_paper(ledger)
    names = list(glued)
    assert names == ["paper_H9_mean", "paper_exp4_n12_count", "paper_run_n_draws"]
    assert glued == {"paper_H9_mean": 8.29, "paper_exp4_n12_count": 3, "paper_run_n_draws": 200}


def test_glue_paper_also_glues_the_other_chapters_claims_the_prose_compares_with(glued):
    from types import SimpleNamespace as NS

    chapter = NS(claims={"S.x": NS(paper=None)}, run={})
    others = {"T1.deff.extended.frontier": NS(paper=4.803), "T1.none": NS(paper=None)}

    class Registry(dict):
        def chapter(self, name):
            return chapter

    ledger = NS(chapter="27_x", registry=Registry(others))
    display.glue_paper(ledger, "T1.deff.extended.frontier", "T1.none")
    assert glued == {"paper_T1_deff_extended_frontier": 4.803}
    with pytest.raises(KeyError):
        display.glue_paper(ledger, "T9.unknown")


def test_glue_figures_glues_each_named_figure_of_a_result_and_refuses_what_is_not_one(glued):
    import matplotlib.pyplot as plt

    class Result:
        def __init__(self, figs):
            self.figs = figs

        def figures(self):
            return self.figs

    a, b = plt.figure(), plt.figure()
    display.glue_figures(Result({"slabs": a, "rates": b}))
    assert list(glued) == ["fig-slabs", "fig-rates"] and glued["fig-slabs"] is a and glued["fig-rates"] is b
    display.glue_figures(Result({"x": a}), prefix="fig-13")
    assert "fig-13-x" in glued
    with pytest.raises(ValueError, match="not a Figure"):
        display.glue_figures(Result({"bad": "a picture"}))
    with pytest.raises(ValueError, match="figures"):
        display.glue_figures(object())
    plt.close("all")
