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
