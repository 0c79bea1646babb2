"""two_models_study: chapter 19's comparisons in one call, equal to the raw counts and tests they rest on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from blindspot.data.item_results import load_alpaca_judgements, synthetic_item_responses
from blindspot.report.two_models_study import FIGURE_SUBSET, PAIR_COLUMNS, SUBSET_SIZES, two_models_study

LOG_SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval" / "output"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    psn = synthetic_item_responses(n_models=4, n_items=2500, seed=5)
    alpaca = load_alpaca_judgements(tmp_path_factory.mktemp("no_data"), seed=1)  # the seeded stand-in
    return two_models_study(psn, alpaca, "/no/such/folder", n_boot=200, n_draws=2, seed=0)


def test_close_and_far_pairs_are_the_extremes_of_the_raw_shares(study):
    wide = study.psn.wide()
    means = wide.mean()
    gaps = {(a, b): abs(means[a] - means[b]) for a in wide for b in wide if a < b}
    close, far = min(gaps, key=gaps.get), max(gaps, key=gaps.get)
    q = study.quantities()
    assert set(study.close.models) == set(close) and set(study.far.models) == set(far)
    # B is the model with the higher share of right answers
    a, b = study.far.models
    assert means[b] >= means[a]
    assert q["far_pair"] == f"{b} vs {a}"
    # the discordance is the share of items the two models disagree on, counted from the raw 0/1 answers
    assert float(q["far_discordance"]) == pytest.approx(float((wide[a] != wide[b]).mean()), abs=5e-4)
    assert q["psn_items"] == f"{len(wide):,}" and q["psn_steps"] == wide.shape[1] - 1


def test_far_pair_difference_is_the_paired_mean_and_mcnemar_p_is_the_exact_binomial(study):
    wide = study.psn.wide()
    a, b = study.far.models
    n10 = int(((wide[b] == 1) & (wide[a] == 0)).sum())
    n01 = int(((wide[b] == 0) & (wide[a] == 1)).sum())
    micro = study.far.pair.micro
    assert micro.estimate == pytest.approx((n10 - n01) / len(wide))
    assert micro.p_value == pytest.approx(stats.binomtest(n10, n10 + n01, 0.5).pvalue, rel=1e-9)
    assert study.verdicts()["YTM.far_pair.differs"].holds is (micro.interval[0] > 0 or None)


def test_tables_and_figures_have_the_documented_shape(study):
    assert list(study.pair_table("close").columns) == list(PAIR_COLUMNS)
    res = study.resolution_table()
    assert list(res.index) == list(SUBSET_SIZES) and (res["n paired"] >= 0).all()
    # every pair is counted in each draw; the paired test never resolves fewer pairs than it could in total
    assert (res <= 6).all().all()
    assert len(study.at_subset.frame) == 6 and study.at_subset.n_items == FIGURE_SUBSET
    assert study.detectable_figure().axes and study.unpaired_figure().axes and study.alpaca_figure().axes
    with pytest.raises(ValueError, match="'close' or 'far'"):
        study.pair_table("middle")


def test_alpaca_top_pair_has_the_two_highest_mean_scores(study):
    means = study.alpaca.table().scores.mean(axis=1).sort_values()
    assert study.alpaca_pair.models == (means.index[-2], means.index[-1])
    assert study.quantities()["ae_top"] == means.index[-1]
    assert study.quantities()["ae_models"] == len(means)


def test_synthetic_claims_carry_their_stand_in_and_a_missing_folder_is_a_note(study):
    verdicts = study.verdicts()
    assert len(verdicts) == 5 and all(study.stand_in(c) for c in verdicts)
    assert study.stand_in("YTM.alpaca.top_pair")[0].name == study.alpaca.table().name
    assert study.harness is None and "/no/such/folder" in study.harness_note
    assert study.quantities()["harness_items"] == "—"


def test_a_log_samples_folder_is_ranked_against_its_own_results(tmp_path):
    psn = synthetic_item_responses(n_models=3, n_items=2000, seed=2)
    alpaca = load_alpaca_judgements(tmp_path, seed=0)
    study = two_models_study(psn, alpaca, LOG_SAMPLES, n_boot=50, n_draws=1, seed=0)
    assert study.harness is not None and study.harness_note == ""
    items = study.harness.items.frame
    assert study.quantities()["harness_items"] == int(items.groupby("benchmark")["item"].nunique().max())
    assert np.isfinite(study.pairs.frame["difference"]).all()
