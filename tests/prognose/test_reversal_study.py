"""reversal_study: the paper's draws from a leaderboard's top, as one result with its numbers by name."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.data.suites import synthetic_suite
from blindspot.prognose import rank_reversal as rr, verdicts
from blindspot.prognose.reversal_study import reversal_study


@pytest.fixture(scope="module")
def study():
    return reversal_study(synthetic_suite(n_models=60, n_benchmarks=6, seed=1), n_models=8, n_draws=30, seed=0)


def test_the_study_repeats_the_paper_draws(study):
    """The counts are those of reversal_rates on the same top 30% (an independent call)."""
    top = study.population
    assert top.n_models == 18 and study.n_all == 60  # the top 30% of 60 models, q = 0.7 inclusive
    again = rr.reversal_rates(top, n_models=8, n_draws=30, seed=0)
    assert np.array_equal(study.rates.counts, again.counts)
    assert study.one.counts[0] == len(study.events) == rr.reversal_count(study.draw)


def test_row_wise_aggregators_never_reverse(study):
    assert study.raw_total == 0 and set(study.raw) == {"mean", "median", "geomean"}


def test_quantities_name_the_numbers(study):
    q = study.quantities()
    assert q["mean"] == pytest.approx(study.rates.counts.mean()) and q["n_minus_1"] == 7
    assert q["n_reaching"] == int(np.sum(study.rates.d_effs >= 7))
    assert q["two_deff"] == pytest.approx(1.0) and q["two_n"] == 2  # two models: d_eff = 1 = n - 1
    assert q["three_pairs"] == "models 2 and 3"  # the converse counterexample swaps models 2 and 3


def test_the_first_flip_reverses_a_pair_when_there_is_one(study):
    if len(study.events):
        assert study.flip.flipped and len(study.flip_labels) == study.n_models - 1
        assert verdicts.first_flip_text(study.events).startswith("Adding ")
    assert verdicts.first_flip_text(study.events.iloc[:0]).startswith("No model")


def test_a_small_top_takes_smaller_draws_and_says_so():
    small = reversal_study(synthetic_suite(n_models=20, n_benchmarks=4, seed=2), n_models=12, n_draws=5)
    assert small.n_models == small.population.n_models < 12
    assert "fewer than the 12" in small.smaller_draws and small.eight is None


def test_the_claims_read_the_rates_and_the_counterexamples(study):
    claims = study.claims()
    r = study.rates
    assert claims["H9.mean"].value == pytest.approx(r.counts.mean())
    assert claims["H9.ge1"].value == pytest.approx(np.mean(r.counts >= 1))
    assert claims["H9.agg.median"].value == 0  # a row-wise aggregator never reverses a pair
    assert claims["exp4.n12.count"].value == len(study.events)
    assert claims["exp4.n8.count"].value == rr.reversal_count(study.draw)  # this study draws 8 models
    assert list(claims)[-3:] == ["C2.premise_literal", "C2.premise", "C2.converse"]
    assert claims["C2.converse"].data is None and claims["H9.sd"].data is study.population
    assert claims["C2.converse"].verdict.holds is False  # two models at d_eff = n - 1 still swap


def test_a_population_under_eight_has_no_second_example():
    small = reversal_study(synthetic_suite(n_models=20, n_benchmarks=5, seed=2), n_models=5, n_draws=10, seed=0)
    assert small.eight is None and not any(c.startswith("exp4.n8") for c in small.claims())


def test_the_two_model_table_and_the_words(study):
    t = study.two_models_table()
    assert list(t.columns) == ["before", "after adding (100, 100, 2.5)"] and list(t.index) == ["model 1", "model 2"]
    # model 1 leads before (1/3 against -1/3), model 2 after
    assert t["before"].tolist() == pytest.approx([1 / 3, -1 / 3]) and t.iloc[1, 1] > t.iloc[0, 1]
    assert study.quantities()["two_flips"] == "swaps the two models"
    assert len(study.reversal_figure().axes) == 1 and len(study.converse_figure().axes) >= 1


def test_figures_by_name_draw_the_flip_the_rates_and_the_converse(study):
    figs = study.figures()
    assert list(figs) == ["one-flip", "reversal-hist", "converse"]
    # the flip figure's first panel has one before/after line per model of the first draw but the added one
    lines = figs["one-flip"].axes[0].get_lines()
    assert len(lines) == len(study.flip.before) == study.n_models - 1
    assert np.allclose([ln.get_ydata()[1] for ln in lines], study.flip.after)
    # the converse figure: the three models of the counterexample
    assert len(figs["converse"].axes[0].get_lines()) == 3
